// Hyperliquid's names for coins and tokens, shared by every part of the dialect. Perp coins are
// the same names. Spot pair 0 keeps "BASE/QUOTE" (like PURR/USDC), every other pair is
// "@<pair index>". Token indices are Hyperliquid's: ours less 10000 (USDC = 0).
import type { NodeApi } from '../api.ts';

/** Our first token index (USDC). */
const SVC_TOKEN_BASE = 10000;

export const hlTokenIndex = (svcIndex: number): number => svcIndex - SVC_TOKEN_BASE;
export const svcTokenIndex = (hlIndex: number): number => hlIndex + SVC_TOKEN_BASE;

/** The dialect's coin of a spot pair. */
export function hlSpotCoin(pairIndex: number, base: string, quote: string): string {
  return pairIndex === 0 ? `${base}/${quote}` : `@${pairIndex}`;
}

/** Both ways between our coin names and the dialect's, built from the current spot meta. */
export interface CoinNames {
  /** Our coin (perp name or pair name such as "SVC-USDC") to the dialect's. */
  toHl(coin: string): string;
  /** A dialect coin ("BTC", "SVC/USDC", "@1", also our own pair name) to ours; null when unknown. */
  toSvc(coin: string): string | null;
  /** Whether our coin was a market when these names were built. */
  knows(coin: string): boolean;
}

export function coinNames(api: NodeApi): CoinNames {
  const { tokens, universe } = api.spotMeta();
  const tokenName = new Map(tokens.map((t) => [t.index, t.name]));
  const toHl = new Map<string, string>();
  const toSvc = new Map<string, string>();
  for (const p of universe) {
    const hl = hlSpotCoin(p.index, tokenName.get(p.tokens[0]) ?? '', tokenName.get(p.tokens[1]) ?? '');
    toHl.set(p.name, hl);
    toSvc.set(hl, p.name);
    toSvc.set(`@${p.index}`, p.name);
    toSvc.set(p.name, p.name);
  }
  return {
    toHl: (coin) => toHl.get(coin) ?? coin,
    toSvc: (coin) => toSvc.get(coin) ?? (api.isPerp(coin) ? coin : null),
    knows: (coin) => toHl.has(coin) || api.isPerp(coin),
  };
}

/** Our coin for a dialect coin (see CoinNames.toSvc). */
export function svcCoinOfHl(api: NodeApi, coin: string): string | null {
  return coinNames(api).toSvc(coin);
}
