// Coin names to asset indices and their rules, from `meta` and `spotMeta` (DESIGN: perpetual i
// is meta.universe[i]; spot pair p is asset 10000 + p; token 10000 is USDC, a different thing).
import type { InfoClient } from './info.ts';
import type { Meta, SpotMeta } from './types.ts';

export interface MarketInfo {
  /** "BTC" or a spot pair "SVC-USDC". */
  readonly coin: string;
  readonly asset: number;
  readonly kind: 'perp' | 'spot';
  readonly szDecimals: number;
  /** Decimals a price may have: 6 − szDecimals on perpetuals, 8 − base szDecimals on spot. */
  readonly priceDecimals: number;
  readonly maxLeverage: number | null;
}

export const SPOT_ASSET_OFFSET = 10_000;

export function marketsOf(meta: Meta, spot: SpotMeta): Map<string, MarketInfo> {
  const out = new Map<string, MarketInfo>();
  meta.universe.forEach((m, i) => {
    out.set(m.name.toUpperCase(), { coin: m.name, asset: i, kind: 'perp', szDecimals: m.szDecimals, priceDecimals: 6 - m.szDecimals, maxLeverage: m.maxLeverage });
  });
  const tokens = new Map(spot.tokens.map((t) => [t.index, t]));
  for (const p of spot.universe) {
    const base = tokens.get(p.tokens[0]);
    if (base === undefined) continue;
    const info: MarketInfo = { coin: p.name, asset: SPOT_ASSET_OFFSET + p.index, kind: 'spot', szDecimals: base.szDecimals, priceDecimals: 8 - base.szDecimals, maxLeverage: null };
    out.set(p.name.toUpperCase(), info);
    out.set(`@${p.index}`, info);
  }
  return out;
}

/** Reads meta and spotMeta once, again on a miss (markets are listed over time). */
export class MarketDirectory {
  private cache: Map<string, MarketInfo> | null = null;

  constructor(private readonly info: InfoClient) {}

  /** By name: a perpetual ("BTC", or its ticker "BTC-USD"), a spot pair ("SVC-USDC") or "@<pair>". */
  async get(coin: string): Promise<MarketInfo> {
    const upper = coin.toUpperCase();
    const find = (all: Map<string, MarketInfo>) => all.get(upper) ?? all.get(upper.replace(/-USD$/, ''));
    const m = find(await this.load(false)) ?? find(await this.load(true));
    if (m === undefined) throw new RangeError(`unknown market ${coin}: not in meta or spotMeta`);
    return m;
  }

  async byAsset(asset: number): Promise<MarketInfo | undefined> {
    for (const fresh of [false, true]) {
      for (const m of (await this.load(fresh)).values()) if (m.asset === asset) return m;
    }
    return undefined;
  }

  async all(): Promise<MarketInfo[]> {
    return [...new Set((await this.load(false)).values())];
  }

  private async load(fresh: boolean): Promise<Map<string, MarketInfo>> {
    if (this.cache === null || fresh) {
      const [meta, spot] = await Promise.all([this.info.meta(), this.info.spotMeta()]);
      this.cache = marketsOf(meta, spot);
    }
    return this.cache;
  }
}
