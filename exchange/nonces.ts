// Used nonces per signer, bounded: each signer keeps its 100 highest nonces, in ascending order
// (Hyperliquid's rule). A nonce is refused when it was used, or when the set is full and the
// nonce is below all of them; the 60-second window against the block time applies on top. So
// memory per signer is bounded and every check is a binary search.
import type { Account } from './account.ts';
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

/** Refuses the nonce (`nonceRefusal`) or records it, dropping the lowest beyond the bound: the signer's list looked up once. */
export function useNonce(nonces: Map<string, number[]>, signer: string, nonce: number): ExchangeError | null {
  return useIn(listOf(nonces, signer), nonce);
}

/** `useNonce` for an account signing for itself, its list cached on the account (`Account.nonces`). */
export function useOwnNonce(nonces: Map<string, number[]>, acct: Account, nonce: number): ExchangeError | null {
  return useIn((acct.nonces ??= listOf(nonces, acct.address)), nonce);
}

/** The signer's list, created empty when it has none (an empty list refuses nothing, so it is recorded into at once). */
function listOf(nonces: Map<string, number[]>, signer: string): number[] {
  let used = nonces.get(signer);
  if (used === undefined) nonces.set(signer, (used = []));
  return used;
}

function useIn(used: number[], nonce: number): ExchangeError | null {
  const refusal = nonceRefusal(used, nonce);
  if (refusal !== null) return refusal;
  recordIn(used, nonce);
  return null;
}

function recordIn(used: number[], nonce: number): void {
  if (used.length === 0 || nonce > (used[used.length - 1] as number)) used.push(nonce);
  else used.splice(lowerBound(used, nonce), 0, nonce);
  if (used.length > NONCES_KEPT) used.shift();
}
