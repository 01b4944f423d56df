// debug_trace*: geth's default struct logger and callTracer, in the shapes geth and anvil answer
// (evm/trace.ts). A stored transaction is traced by running its block again on a copy of the
// parent's state up to it; a call on a copy of the state at the block asked.
import { traceRun, traceStoredBlock, type TraceConfig } from '../../evm/index.ts';
import { RpcError, SERVER_ERROR, invalidParams } from './errors.ts';
import { callSession, mustResolve, runError, type Handler, type MethodContext } from './methods.ts';
import { arity, blockRef, hash } from './params.ts';

/** The trace options of geth's debug API that apply here. */
export function traceConfig(v: unknown): TraceConfig {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object') throw invalidParams('invalid argument: trace config object expected');
  const o = v as Record<string, unknown>;
  const flag = (k: string, from: Record<string, unknown> = o) => (from[k] === undefined || from[k] === null ? undefined : from[k] === true);
  if (o.tracer !== undefined && o.tracer !== null && o.tracer !== '' && o.tracer !== 'callTracer') {
    throw new RpcError(SERVER_ERROR, `tracer ${JSON.stringify(o.tracer)} is not supported (the default struct logger and callTracer are)`);
  }
  const tc = (typeof o.tracerConfig === 'object' && o.tracerConfig !== null ? o.tracerConfig : {}) as Record<string, unknown>;
  const out: Record<string, boolean | string> = {};
  if (o.tracer === 'callTracer') out.tracer = 'callTracer';
  for (const k of ['disableStack', 'disableStorage', 'enableMemory', 'enableReturnData'] as const) {
    const f = flag(k);
    if (f !== undefined) out[k] = f;
  }
  for (const k of ['onlyTopCall', 'withLog'] as const) {
    const f = flag(k, tc);
    if (f !== undefined) out[k] = f;
  }
  return out as TraceConfig;
}

const traceTransaction: Handler = async (p, ctx) => {
  arity(p, 1, 2);
  const h = hash(p[0], '0');
  const found = await ctx.backend.chain.findTx(h);
  if (found === undefined) throw new RpcError(SERVER_ERROR, `transaction ${h} not found`);
  const [trace] = await traceStoredBlock(ctx.backend.chain, found, traceConfig(p[1]), found.index, true);
  return trace?.result ?? null;
};

async function traceBlock(ctx: MethodContext, ref: Parameters<typeof mustResolve>[1], config: unknown): Promise<unknown> {
  const found = await mustResolve(ctx.backend.chain, ref);
  if (found.block.header.number === 0n) throw new RpcError(SERVER_ERROR, 'genesis is not traceable');
  return traceStoredBlock(ctx.backend.chain, found, traceConfig(config));
}

const traceCall: Handler = async (p, ctx) => {
  arity(p, 1, 3);
  const config = traceConfig(p[2]);
  const overrides = (p[2] as { stateOverrides?: unknown } | undefined)?.stateOverrides;
  const { req, s } = await callSession(ctx, [p[0], p[1] ?? 'latest', overrides]);
  try {
    return await traceRun(config, (tracer) => s.run(req, req.gas ?? s.gasCap, tracer));
  } catch (err) {
    throw runError(err);
  }
};

export const DEBUG_METHODS: Record<string, Handler> = {
  debug_traceTransaction: traceTransaction,
  debug_traceCall: traceCall,
  debug_traceBlockByNumber: (p, ctx) => (arity(p, 1, 2), traceBlock(ctx, blockRef(p[0], '0'), p[1])),
  debug_traceBlockByHash: (p, ctx) => (arity(p, 1, 2), traceBlock(ctx, { hash: hash(p[0], '0') }, p[1])),
};
