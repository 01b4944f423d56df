// Query and path parameters of the `/v1` resources: a bad one is a 400 naming it in `details.field`.
import { normalizeAddress, type Address } from '../../primitives/index.ts';
import { badRequest } from '../http-errors.ts';

/** An optional integer parameter from `min` to `max`, else `fallback`. */
export function intParam(query: URLSearchParams, field: string, min: number, max: number, fallback: number): number {
  const raw = query.get(field);
  if (raw === null) return fallback;
  return intText(raw, field, min, max);
}

/** A decimal integer (digits only) from `min` to `max`. */
export function intText(raw: string, field: string, min: number, max: number): number {
  const n = Number(raw);
  if (!/^\d{1,15}$/.test(raw) || n < min || n > max) {
    throw badRequest(`Invalid parameter ${field}: expected an integer from ${min} to ${max}`, { field });
  }
  return n;
}

export function addressText(raw: string | null, field: string): Address {
  if (raw === null || raw === '') throw badRequest(`Missing parameter: ${field}`, { field });
  const a = normalizeAddress(raw);
  if (a === null) throw badRequest(`Invalid parameter ${field}: expected a 0x-prefixed 20-byte hex address`, { field });
  return a;
}

/** An optional parameter that must be one of `allowed`. */
export function oneOf<T extends string>(query: URLSearchParams, field: string, allowed: readonly T[]): T | null {
  const raw = query.get(field);
  if (raw === null) return null;
  if (!(allowed as readonly string[]).includes(raw)) throw badRequest(`Invalid parameter ${field}: expected one of ${allowed.join(', ')}`, { field });
  return raw as T;
}
