// Used nonces per signer, bounded: each signer keeps its 100 highest nonces, in ascending order
// (Hyperliquid's rule). A nonce is refused when it was used, or when the set is full and the
// nonce is below all of them; the 60-second window against the block time applies on top. So
// memory per signer is bounded and every check is a binary search.
import { exchangeError, type ExchangeError } from './errors.ts';

/** Nonces kept per signer. */
export const NONCES_KEPT = 100;

/** Index of the first element >= `v` in the ascending array. */
function lowerBound(a: readonly number[], v: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((a[mid] as number) < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Why this nonce cannot be used by this signer, or null when it can. */
export function nonceRefusal(used: readonly number[] | undefined, nonce: number): ExchangeError | null {
  if (used === undefined || used.length === 0 || nonce > (used[used.length - 1] as number)) return null; // the common case: a new highest
  const i = lowerBound(used, nonce);
  if (used[i] === nonce) return exchangeError('NONCE_USED');
  if (used.length >= NONCES_KEPT && i === 0) return exchangeError('NONCE_TOO_OLD', `below the ${NONCES_KEPT} most recent nonces of this signer`);
  return null;
}

/** Records a nonce that passed `nonceRefusal`, dropping the lowest beyond the bound. */
export function recordNonce(nonces: Map<string, number[]>, signer: string, nonce: number): void {
  let used = nonces.get(signer);
  if (used === undefined) nonces.set(signer, (used = []));
  if (used.length === 0 || nonce > (used[used.length - 1] as number)) used.push(nonce);
  else used.splice(lowerBound(used, nonce), 0, nonce);
  if (used.length > NONCES_KEPT) used.shift();
}
