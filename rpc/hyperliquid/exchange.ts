// POST /hyperliquid/exchange: Hyperliquid's envelope, signing and answers. Every business outcome
// is HTTP 200 with `{status: "ok", response}` or `{status: "err", response: <message>}`, as
// Hyperliquid answers (its clients read errors from the body); a body that is not an exchange
// request is 422, as Hyperliquid's own deserializer answers.
import { isActionParseError, parseAction, type ExchangeError } from '../../exchange/index.ts';
import { normalizeAddress } from '../../primitives/index.ts';
import type { NodeApi } from '../api.ts';
import { HttpError } from '../http-errors.ts';
import { hyperliquidResponse, svcActionOf } from './actions.ts';

export type HyperliquidEnvelope =
  | { status: 'ok'; response: unknown }
  | { status: 'err'; response: string };

/** Thrown for a body Hyperliquid's server would not deserialize: 422, plain text. */
export class UnprocessableBody extends Error {
  constructor(readonly detail: string) {
    super('Failed to deserialize the JSON body into the target type');
  }
}

const err = (response: string): HyperliquidEnvelope => ({ status: 'err', response });

/** Hyperliquid's wording for refusals a client matches on; the spec's message otherwise. */
export function hyperliquidMessage(e: ExchangeError): string {
  const d = e.details ?? {};
  switch (e.code) {
    case 'ACCOUNT_NOT_ACTIVATED':
    case 'AGENT_NOT_AUTHORIZED':
      // A wrong scheme or chain recovers some address nobody uses: name it, as Hyperliquid does.
      return d.signer !== undefined ? `User or API Wallet ${d.signer} does not exist.` : `${e.message}${e.message.endsWith('.') ? '' : '.'}`;
    case 'INVALID_SIGNATURE':
      return e.message.includes(': ') ? e.message : 'Unable to recover signer.';
    case 'NONCE_USED':
      return d.nonce !== undefined ? `Invalid nonce: duplicate nonce ${d.nonce}` : 'Invalid nonce: duplicate nonce';
    case 'NONCE_TOO_OLD':
    case 'NONCE_IN_FUTURE':
      return `Invalid nonce: ${e.message.toLowerCase()}${d.nonce !== undefined ? ` (nonce ${d.nonce}, server time ${d.serverTime})` : ''}`;
    default:
      return e.message;
  }
}

function optionalInt(body: Record<string, unknown>, field: string): number | null {
  const v = body[field];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new UnprocessableBody(`${field}: expected a non-negative integer`);
  return v;
}

export async function handleHyperliquidExchange(api: NodeApi, body: Record<string, unknown>): Promise<HyperliquidEnvelope> {
  const action = body.action;
  if (typeof action !== 'object' || action === null || Array.isArray(action) || typeof (action as Record<string, unknown>).type !== 'string') {
    throw new UnprocessableBody('action: expected an object with a type');
  }
  const nonce = optionalInt(body, 'nonce');
  if (nonce === null) throw new UnprocessableBody('nonce: missing');
  const expiresAfter = optionalInt(body, 'expiresAfter');
  const sig = body.signature;
  if (typeof sig !== 'object' || sig === null || Array.isArray(sig)) throw new UnprocessableBody('signature: expected {r, s, v}');
  const { r, s, v } = sig as Record<string, unknown>;
  let vaultAddress = null;
  if (body.vaultAddress !== undefined && body.vaultAddress !== null) {
    vaultAddress = normalizeAddress(body.vaultAddress);
    if (vaultAddress === null) throw new UnprocessableBody('vaultAddress: expected an address');
  }
  const type = (action as Record<string, unknown>).type as string;
  const translated = svcActionOf(action, nonce);
  if ('error' in translated) return err(translated.error);
  const parsed = parseAction(translated.action);
  if (isActionParseError(parsed)) return err(parsed.message);
  const outcome = await api.submit({ action, nonce, signature: { r, s, v }, vaultAddress, dialect: 'hyperliquid', expiresAfter });
  switch (outcome.kind) {
    case 'unavailable':
      throw new HttpError('service_unavailable', outcome.message);
    case 'limited':
      return err(outcome.message);
    case 'rejected':
      return err(hyperliquidMessage(outcome.error));
    case 'executed': {
      const res = outcome.result;
      return res.status === 'ok' ? { status: 'ok', response: hyperliquidResponse(type, res.response) } : err(hyperliquidMessage(res.error));
    }
  }
}
