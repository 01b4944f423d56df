// Markets as the state machine holds them: perpetuals (0..9999) and spot pairs (10000 + p), each
// with its matching engine. Units: prices in 10^-pxDecimals, sizes in lots (10^-szDecimals),
// notional in 10^-8 of the quote (USDC for perps): ntl = px * lots * ntlScale.
import {
  SPOT_ASSET_OFFSET, TOKEN_DECIMALS, USD_DECIMALS, USDC_TOKEN_INDEX, perpPxDecimals, spotPxDecimals, pairName,
  type ExchangeConfig, type PerpMarketConfig, type SpotPairConfig, type SpotTokenConfig,
} from './config.ts';
import { ScaledFormatter } from '../primitives/index.ts';
import { HolderList } from './holders.ts';
import { MatchingEngine, type IdSource } from './engine/matching-engine.ts';
import { TriggerBook } from './triggers.ts';

interface MarketBase {
  readonly asset: number;
  readonly name: string;
  readonly szDecimals: number;
  /** Sizes as text (`formatScaled` at `szDecimals`, recent ones remembered): every order event has one. */
  readonly szText: ScaledFormatter;
  readonly pxDecimals: number;
  readonly ntlScale: bigint;
  /** `ntlScale` as a number, for exact arithmetic on numbers while products stay safe integers. */
  readonly ntlScaleNum: number;
  readonly minSz: number;
  readonly referencePx: number;
  readonly engine: MatchingEngine;
  /** Price of the last trade in price units; 0 before the first. */
  lastPx: number;
}

/** One validator's latest oracle price for a market. */
export interface OracleSubmission {
  /** Price units. */
  readonly px: number;
  /** Time the validator stamped it, ms. */
  readonly time: number;
}

export interface PerpMarket extends MarketBase {
  readonly kind: 'perp';
  readonly config: PerpMarketConfig;
  readonly triggers: TriggerBook;
  /** Latest submission per validator public key; the oracle is their weighted median. */
  readonly oracleSubs: Map<string, OracleSubmission>;
  /** Premium samples of the current funding interval: sum (ppb) and count. */
  premiumSum: bigint;
  premiumSamples: number;
  /** The last funding rate paid (ppb per interval) and the average premium it came from. */
  lastFundingRate: bigint;
  lastPremium: bigint;
  /** The positions open in this market. */
  readonly holders: HolderList;
  /** Traded notional per hour of the last 24 (USD units), ring indexed by hour % 24. */
  readonly hourlyVolume: bigint[];
  /** Mark price at the start of each of the last 24 hours, same ring; 0 where unknown. */
  readonly hourlyMark: number[];
  /** The hour (time / 3,600,000) the ring was last advanced to. */
  hour: number;
}

export interface SpotMarket extends MarketBase {
  readonly kind: 'spot';
  readonly pair: SpotPairConfig;
  readonly base: SpotTokenConfig;
  readonly quote: SpotTokenConfig;
  /** Token units (10^-8) per base lot. */
  readonly baseUnit: bigint;
}

export type Market = PerpMarket | SpotMarket;

export function buildPerps(cfg: ExchangeConfig, ids: IdSource): PerpMarket[] {
  return cfg.perps.map((m, asset) => {
    const pxDecimals = perpPxDecimals(m);
    const engine = new MatchingEngine(
      { pxDecimals, tick: 1, minSz: m.minSz, maxOpenPerOwner: cfg.maxOpenOrdersPerMarket, bandBps: cfg.priceBandBps },
      ids,
    );
    engine.oraclePx = m.referencePx;
    return {
      kind: 'perp',
      asset,
      name: m.name,
      szDecimals: m.szDecimals,
      szText: new ScaledFormatter(m.szDecimals),
      pxDecimals,
      ntlScale: 10n ** BigInt(USD_DECIMALS - pxDecimals - m.szDecimals),
      ntlScaleNum: 10 ** (USD_DECIMALS - pxDecimals - m.szDecimals),
      minSz: m.minSz,
      referencePx: m.referencePx,
      engine,
      lastPx: 0,
      config: m,
      triggers: new TriggerBook(),
      oracleSubs: new Map(),
      premiumSum: 0n,
      premiumSamples: 0,
      lastFundingRate: 0n,
      lastPremium: 0n,
      holders: new HolderList(),
      hourlyVolume: new Array<bigint>(24).fill(0n),
      hourlyMark: new Array<number>(24).fill(0),
      hour: 0,
    };
  });
}

export function buildSpots(cfg: ExchangeConfig, ids: IdSource): SpotMarket[] {
  return cfg.spotPairs.map((pair) => buildSpot(cfg, cfg.spotTokens, pair, ids));
}

/** One spot pair's market; `tokens` is the token list in index order (genesis and deployed). */
export function buildSpot(cfg: ExchangeConfig, tokens: readonly SpotTokenConfig[], pair: SpotPairConfig, ids: IdSource): SpotMarket {
  const token = (index: number) => tokens[index - USDC_TOKEN_INDEX] as SpotTokenConfig;
  const base = token(pair.base);
  const pxDecimals = spotPxDecimals(base);
  const engine = new MatchingEngine({ pxDecimals, tick: 1, minSz: pair.minSz, maxOpenPerOwner: cfg.maxOpenOrdersPerMarket, bandBps: 0 }, ids);
  engine.oraclePx = pair.referencePx;
  return {
    kind: 'spot',
    asset: SPOT_ASSET_OFFSET + pair.index,
    name: pairName(tokens, pair),
    szDecimals: base.szDecimals,
    szText: new ScaledFormatter(base.szDecimals),
    pxDecimals,
    ntlScale: 10n ** BigInt(TOKEN_DECIMALS - pxDecimals - base.szDecimals),
    ntlScaleNum: 10 ** (TOKEN_DECIMALS - pxDecimals - base.szDecimals),
    minSz: pair.minSz,
    referencePx: pair.referencePx,
    engine,
    lastPx: 0,
    pair,
    base,
    quote: token(pair.quote),
    baseUnit: 10n ** BigInt(TOKEN_DECIMALS - base.szDecimals),
  };
}
