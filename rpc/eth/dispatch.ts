// JSON-RPC 2.0 over any transport: one request or a batch in, the answer text out (null when
// every request was a notification). Transport-independent, so HTTP and WebSocket share it.
import {
  INTERNAL_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR, RpcError, invalidParams,
} from './errors.ts';
import { METHODS, type Handler, type MethodContext } from './methods.ts';
import { DEVNET_METHODS } from './devnet.ts';
import { DEBUG_METHODS } from './debug.ts';
import { SIMULATE_METHODS } from './simulate.ts';

/** Requests in one batch at most (ethers batches up to 100). */
export const MAX_BATCH = 1000;

/** Every method name of the tables above (the devnet's answered only on a devnet). */
export const ETH_METHOD_NAMES: readonly string[] = [METHODS, DEBUG_METHODS, SIMULATE_METHODS, DEVNET_METHODS].flatMap((t) => Object.keys(t));

type Id = string | number | null;

function errorBody(id: Id, e: RpcError): Record<string, unknown> {
  return { jsonrpc: '2.0', id, error: { code: e.code, message: e.message, ...(e.data === undefined ? {} : { data: e.data }) } };
}

function toRpcError(err: unknown, log: (line: string) => void): RpcError {
  if (err instanceof RpcError) return err;
  log(`eth rpc: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  return new RpcError(INTERNAL_ERROR, err instanceof Error ? err.message : 'internal error');
}

/** Extra methods a transport adds (eth_subscribe over WebSocket). */
export type ExtraMethods = Readonly<Record<string, Handler>>;

async function one(req: unknown, ctx: MethodContext, extra: ExtraMethods, log: (line: string) => void): Promise<Record<string, unknown> | null> {
  if (typeof req !== 'object' || req === null || Array.isArray(req)) return errorBody(null, new RpcError(INVALID_REQUEST, 'invalid request'));
  const r = req as Record<string, unknown>;
  const id = (typeof r.id === 'string' || typeof r.id === 'number' || r.id === null ? r.id : undefined) as Id | undefined;
  const notification = !('id' in r);
  if (r.jsonrpc !== '2.0' || typeof r.method !== 'string' || (!notification && id === undefined)) {
    return errorBody(id ?? null, new RpcError(INVALID_REQUEST, 'invalid request'));
  }
  const handler = extra[r.method]
    ?? (Object.hasOwn(METHODS, r.method) ? METHODS[r.method] : undefined)
    ?? (Object.hasOwn(DEBUG_METHODS, r.method) ? DEBUG_METHODS[r.method] : undefined)
    ?? (Object.hasOwn(SIMULATE_METHODS, r.method) ? SIMULATE_METHODS[r.method] : undefined)
    ?? (ctx.backend.devnet !== undefined && Object.hasOwn(DEVNET_METHODS, r.method) ? DEVNET_METHODS[r.method] : undefined);
  let body: Record<string, unknown>;
  if (handler === undefined) {
    body = errorBody(id ?? null, new RpcError(METHOD_NOT_FOUND, `the method ${r.method} does not exist/is not available`));
  } else {
    try {
      if (r.params !== undefined && !Array.isArray(r.params)) throw invalidParams('non-array args');
      const result = await handler((r.params ?? []) as unknown[], ctx);
      body = { jsonrpc: '2.0', id: id ?? null, result: result === undefined ? null : result };
    } catch (err) {
      body = errorBody(id ?? null, toRpcError(err, log));
    }
  }
  return notification ? null : body;
}

export async function handleText(text: string, ctx: MethodContext, extra: ExtraMethods, log: (line: string) => void): Promise<string | null> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return JSON.stringify(errorBody(null, new RpcError(PARSE_ERROR, 'parse error')));
  }
  if (!Array.isArray(parsed)) {
    const out = await one(parsed, ctx, extra, log);
    return out === null ? null : JSON.stringify(out);
  }
  if (parsed.length === 0) return JSON.stringify(errorBody(null, new RpcError(INVALID_REQUEST, 'empty batch')));
  if (parsed.length > MAX_BATCH) return JSON.stringify(errorBody(null, new RpcError(INVALID_REQUEST, `batch too large: at most ${MAX_BATCH} requests`)));
  const outs = (await Promise.all(parsed.map((r) => one(r, ctx, extra, log)))).filter((o) => o !== null);
  return outs.length === 0 ? null : JSON.stringify(outs);
}
