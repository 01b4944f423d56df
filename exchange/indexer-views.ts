// Read-only views of the state in dYdX v4 indexer shapes, for the `/v1` resources.
import { divRound, formatScaled } from '../primitives/index.ts';
import { USD_DECIMALS } from './config.ts';
import { dayVolume, prevDayPx } from './day-stats.ts';
import { fundingRate } from './funding.ts';
import type { PerpMarket } from './markets.ts';
import type { ExchangeState } from './state.ts';

/** Decimals of the margin fractions (exact whenever maxLeverage divides 10^8, as 1..50 mostly do). */
const FRACTION_DECIMALS = 8;
const FRACTION_ONE = 10n ** BigInt(FRACTION_DECIMALS);

/** A perpetual as dYdX's PerpetualMarketResponseObject, the fields that mean something here. */
export interface PerpetualMarketView {
  readonly clobPairId: string;
  readonly ticker: string;
  readonly status: 'ACTIVE';
  readonly oraclePrice: string;
  readonly priceChange24H: string;
  readonly volume24H: string;
  readonly nextFundingRate: string;
  readonly initialMarginFraction: string;
  readonly maintenanceMarginFraction: string;
  readonly openInterest: string;
  readonly tickSize: string;
  readonly stepSize: string;
  readonly marketType: 'CROSS' | 'ISOLATED';
  readonly assetIndex: number;
  readonly szDecimals: number;
  readonly maxLeverage: number;
  readonly minOrderSize: string;
}

/** dYdX's ticker of a perpetual: `<COIN>-USD`. */
export const perpTicker = (coin: string) => `${coin}-USD`;

/** Every perpetual in universe order. */
export function perpetualMarkets(state: ExchangeState): PerpetualMarketView[] {
  return state.perps.map((m) => perpetualMarket(state, m));
}

function perpetualMarket(state: ExchangeState, m: PerpMarket): PerpetualMarketView {
  let openInterest = 0;
  for (const pos of m.holders.positions()) if (pos.szi > 0) openInterest += pos.szi;
  const mark = state.markPx(m);
  const prev = prevDayPx(m);
  const lev = BigInt(m.config.maxLeverage);
  const bps = BigInt(state.config.clearinghouse.maintenanceBps);
  return {
    clobPairId: String(m.asset),
    ticker: perpTicker(m.name),
    status: 'ACTIVE',
    oraclePrice: formatScaled(m.engine.oraclePx, m.pxDecimals),
    // The mark now less the mark at the start of the oldest hour of the last 24 on record.
    priceChange24H: formatScaled(prev > 0 ? mark - prev : 0, m.pxDecimals),
    volume24H: formatScaled(dayVolume(m), USD_DECIMALS),
    nextFundingRate: formatScaled(fundingRate(state, m).rate, 9),
    initialMarginFraction: formatScaled(divRound(FRACTION_ONE, lev, 'nearest'), FRACTION_DECIMALS),
    // Maintenance margin is maintenanceBps / 10^4 of the initial margin at maximum leverage.
    maintenanceMarginFraction: formatScaled(divRound(bps * FRACTION_ONE, 10_000n * lev, 'nearest'), FRACTION_DECIMALS),
    openInterest: formatScaled(openInterest, m.szDecimals),
    tickSize: formatScaled(m.engine.rules.tick, m.pxDecimals),
    stepSize: formatScaled(1, m.szDecimals),
    marketType: m.config.onlyIsolated ? 'ISOLATED' : 'CROSS',
    assetIndex: m.asset,
    szDecimals: m.szDecimals,
    maxLeverage: m.config.maxLeverage,
    minOrderSize: formatScaled(m.minSz, m.szDecimals),
  };
}

/** A perpetual by its dYdX ticker (`BTC-USD`) or its coin (`BTC`). */
export function perpByTicker(state: ExchangeState, ticker: string): PerpMarket | undefined {
  const coin = ticker.endsWith('-USD') ? ticker.slice(0, -4) : ticker;
  const m = state.marketsByName.get(coin);
  return m?.kind === 'perp' ? m : undefined;
}
