// Shape checks of request bodies: a missing field is a 400 naming it in `details.field`.
import {
  formatScaled, normalizeAddress, parseDecimal, scanUnits, toScaled, type Address,
} from '../primitives/index.ts';
import { isActionParseError, parseAction, type Action } from '../exchange/index.ts';
import type { ExchangeRequest, NodeApi } from './api.ts';
import { badRequest } from './http-errors.ts';

export function parseJsonBody(body: Buffer): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(body.toString('utf8'));
  } catch {
    throw badRequest('Malformed JSON body');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw badRequest('Request body must be a JSON object');
  return v as Record<string, unknown>;
}

/** A JSON text's object, or null when it is not JSON or not an object (WebSocket messages). */
export function jsonObjectOf(text: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * A value a client sent, for an error message: a string as it is, anything else as JSON, cut to
 * 100 characters. Never `String(v)`: an object whose `toString` is not a function throws there.
 */
export function shown(v: unknown): string {
  const text = typeof v === 'string' ? v : v === undefined ? 'undefined' : JSON.stringify(v);
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}

export function requireField(body: Record<string, unknown>, field: string): unknown {
  const v = body[field];
  if (v === undefined || v === null) throw badRequest(`Missing field: ${field}`, { field });
  return v;
}

export function requireString(body: Record<string, unknown>, field: string): string {
  const v = requireField(body, field);
  if (typeof v !== 'string') throw badRequest(`Invalid field ${field}: expected a string`, { field });
  return v;
}

export function requireInt(body: Record<string, unknown>, field: string): number {
  const v = requireField(body, field);
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    throw badRequest(`Invalid field ${field}: expected a non-negative integer`, { field });
  }
  return v;
}

export function requireAddress(body: Record<string, unknown>, field: string): Address {
  const a = normalizeAddress(requireField(body, field));
  if (a === null) throw badRequest(`Invalid field ${field}: expected a 0x-prefixed 20-byte hex address`, { field });
  return a;
}

/** Nesting an action may have; deeper ones are refused before anything walks them recursively. */
export const MAX_ACTION_DEPTH = 16;

/** Depth of a JSON value (objects and arrays; 0 for a scalar), or limit + 1 once deeper than `limit`. */
export function jsonDepth(value: unknown, limit: number): number {
  return depthFrom(value, 1, limit);
}

/**
 * The deepest nesting under `v` at depth `d`, stopping at the first level past `limit` (so the
 * recursion is at most limit + 1 deep whatever the input). Allocates nothing: it runs on every
 * request.
 */
function depthFrom(v: unknown, d: number, limit: number): number {
  if (typeof v !== 'object' || v === null) return 0;
  if (d > limit) return d;
  let deepest = d;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const c = depthFrom(v[i], d + 1, limit);
      if (c > deepest && (deepest = c) > limit) return deepest;
    }
    return deepest;
  }
  const o = v as Record<string, unknown>;
  for (const k in o) {
    if (!Object.prototype.hasOwnProperty.call(o, k)) continue;
    const c = depthFrom(o[k], d + 1, limit);
    if (c > deepest && (deepest = c) > limit) return deepest;
  }
  return deepest;
}

/** The `/exchange` envelope with its action parsed; throws 400s. */
export function parseExchangeRequest(body: Record<string, unknown>): { req: ExchangeRequest; action: Action } {
  if (jsonDepth(body.action, MAX_ACTION_DEPTH) > MAX_ACTION_DEPTH) {
    throw badRequest(`Invalid field action: nested deeper than ${MAX_ACTION_DEPTH} levels`, { field: 'action' });
  }
  const parsed = parseAction(body.action);
  if (isActionParseError(parsed)) throw badRequest(parsed.message, { field: parsed.field });
  return { req: { action: body.action, ...signedFields(body) }, action: parsed };
}

/** `nonce`, `signature` {r, s, v} and the optional `vaultAddress` of a signed request body. */
export function signedFields(body: Record<string, unknown>): { nonce: number; signature: { r: unknown; s: unknown; v: unknown }; vaultAddress: Address | null } {
  const nonce = requireInt(body, 'nonce');
  const sig = requireField(body, 'signature');
  if (typeof sig !== 'object' || Array.isArray(sig)) throw badRequest('Invalid field signature: expected {r, s, v}', { field: 'signature' });
  const s = sig as Record<string, unknown>;
  for (const f of ['r', 's', 'v'] as const) {
    if (s[f] === undefined || s[f] === null) throw badRequest(`Missing field: signature.${f}`, { field: `signature.${f}` });
  }
  const vaultAddress = body.vaultAddress === undefined || body.vaultAddress === null ? null : requireAddress(body, 'vaultAddress');
  return { nonce, signature: { r: s.r, s: s.s, v: s.v }, vaultAddress };
}

/** Orders below their market's minimum size are malformed requests: 400 with field, min, provided (checked after precision). */
export function checkMinimumSizes(api: NodeApi, action: Action): void {
  if (action.type !== 'order') return;
  action.orders.forEach((o, i) => {
    const rules = api.marketRules(o.asset);
    if (rules === null) return;
    // The common case without regular expressions or bigints: both sizes plain decimals within
    // szDecimals, and the order's at least the minimum. Anything else takes the exact path below.
    const units = scanUnits(o.sz, rules.szDecimals);
    const minUnits = scanUnits(rules.minSz, rules.szDecimals);
    if (units >= 0 && minUnits >= 0 && units >= minUnits) return;
    const d = parseDecimal(o.sz);
    if (d === null) return; // the state machine names these per order
    // Precision comes first: a size finer than szDecimals is the state machine's `Invalid size`.
    if (toScaled(d, rules.szDecimals) === null) return;
    const min = parseDecimal(rules.minSz);
    const scale = Math.max(d.scale, min?.scale ?? 0);
    const sz = toScaled(d, scale);
    const minSz = min === null ? null : toScaled(min, scale);
    if (sz !== null && minSz !== null && sz < minSz) {
      throw badRequest(`Order size ${o.sz} is below the minimum ${rules.minSz} of ${rules.name}`, {
        field: `action.orders[${i}].s`,
        min: formatScaled(minSz, scale),
        provided: o.sz,
      });
    }
  });
}
