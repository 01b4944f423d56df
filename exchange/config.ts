// Static market configuration, fixed by the genesis. Units: prices are integers of
// 10^-pxDecimals, sizes integers of lots (10^-szDecimals), USDC integers of 10^-USD_DECIMALS.

/** USDC amounts in state are bigint units of 10^-8 (the finest notional any market produces). */
export const USD_DECIMALS = 8;
/** Perp prices have at most 6 - szDecimals decimals; spot prices at most 8 - szDecimals. */
export const PERP_MAX_DECIMALS = 6;
export const SPOT_MAX_DECIMALS = 8;
/** Prices have at most 5 significant figures (integer prices are always allowed). */
export const MAX_SIG_FIGS = 5;
/** Perpetual assets are 0..9999; spot pair p trades as asset 10000 + p. */
export const SPOT_ASSET_OFFSET = 10000;
/** USDC is the first spot token. */
export const USDC_TOKEN_INDEX = 10000;

export interface PerpMarketConfig {
  readonly name: string;
  readonly szDecimals: number;
  readonly maxLeverage: number;
  readonly onlyIsolated: boolean;
  /** Reference (oracle) price in price units, used until the book and trades give one. */
  readonly referencePx: number;
  /** Minimum order size in lots. */
  readonly minSz: number;
}

export interface SpotTokenConfig {
  readonly name: string;
  readonly szDecimals: number;
  readonly weiDecimals: number;
  /** 10000, 10001, ... in listing order; USDC is 10000. */
  readonly index: number;
}

export interface SpotPairConfig {
  readonly base: number;
  readonly quote: number;
  /** Pair index p from 0; orders use asset 10000 + p. */
  readonly index: number;
  /** Minimum order size in base lots. */
  readonly minSz: number;
}

export interface ExchangeConfig {
  readonly perps: readonly PerpMarketConfig[];
  readonly spotTokens: readonly SpotTokenConfig[];
  readonly spotPairs: readonly SpotPairConfig[];
  /** Cross leverage an account uses on a market until it sets its own. */
  readonly defaultLeverage: number;
  /** Open orders one account may hold on one market. */
  readonly maxOpenOrdersPerMarket: number;
  /** Nonces must lie within this many ms of the block time. */
  readonly nonceWindowMs: number;
}

export function perpPxDecimals(m: Pick<PerpMarketConfig, 'szDecimals'>): number {
  return PERP_MAX_DECIMALS - m.szDecimals;
}

export function pairName(cfg: ExchangeConfig, pair: SpotPairConfig): string {
  const token = (index: number) => cfg.spotTokens.find((t) => t.index === index)?.name ?? `#${index}`;
  return `${token(pair.base)}-${token(pair.quote)}`;
}
