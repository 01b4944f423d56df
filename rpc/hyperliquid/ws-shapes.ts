// The WebSocket dialect's vocabulary: its subscriptions parsed, its coin names, and the pushes'
// shapes (@nktkas/hyperliquid's event types) built from the exchange's events.
import type { FillRecord, FundingRecord, LedgerRecord, OrderStatus, OrderView } from '../../exchange/index.ts';
import { normalizeAddress } from '../../primitives/index.ts';
import type { NodeApi } from '../api.ts';
import { shown } from '../request-checks.ts';
import { hlFill as infoFill, hlLedgerDelta, hlOpenOrder } from './user-info.ts';
import { coinNames, type CoinNames as NameMaps } from './names.ts';

/** A market as a subscription names it: `name` as the client sent it, `coin` the node's own. */
export interface MarketRef {
  readonly name: string;
  readonly coin: string;
  readonly kind: 'perp' | 'spot';
  /** Index in `meta.universe` or `spotMeta.universe`. */
  readonly index: number;
}

export const USER_TYPES = [
  'userFills', 'orderUpdates', 'userEvents', 'userFundings', 'notification', 'userNonFundingLedgerUpdates', 'userHistoricalOrders',
  'clearinghouseState', 'openOrders', 'webData2', 'spotState', 'twapStates', 'userTwapSliceFills', 'userTwapHistory',
] as const;
export type UserType = (typeof USER_TYPES)[number];

export type HlSubscription =
  | { readonly type: 'allMids' }
  | { readonly type: 'assetCtxs' }
  | { readonly type: 'spotAssetCtxs' }
  | { readonly type: 'l2Book'; readonly market: MarketRef; readonly nSigFigs: number | null; readonly mantissa: number | null }
  | { readonly type: 'trades' | 'bbo' | 'activeAssetCtx'; readonly market: MarketRef }
  | { readonly type: 'candle'; readonly market: MarketRef; readonly interval: string }
  | { readonly type: UserType; readonly user: string }
  | { readonly type: 'activeAssetData'; readonly user: string; readonly market: MarketRef };

export type HlPublicSubscription = Exclude<HlSubscription, { user: string }>;
export type HlUserSubscription = Extract<HlSubscription, { user: string }>;
export const isUserSubscription = (s: HlSubscription): s is HlUserSubscription => 'user' in s;

/** Candle intervals of the spec (Hyperliquid's). */
const CANDLE_INTERVALS = new Set(['1m', '3m', '5m', '15m', '30m', '1h', '2h', '4h', '8h', '12h', '1d', '3d', '1w']);
const USER_TYPE_SET = new Set<string>(USER_TYPES);
const COIN_TYPES = new Set(['l2Book', 'trades', 'bbo', 'activeAssetCtx', 'activeAssetData', 'candle']);

/**
 * The market a dialect coin names: a perpetual by name, spot pair 0 by "BASE/QUOTE", any pair by
 * "@<pair index>" (requests accept either form, so a pair also by "BASE/QUOTE"); null if none.
 */
export function resolveMarket(api: NodeApi, name: string): MarketRef | null {
  const perp = api.meta().universe.findIndex((u) => u.name === name);
  if (perp >= 0) return { name, coin: name, kind: 'perp', index: perp };
  const { tokens, universe: pairs } = api.spotMeta();
  const at = /^@(\d{1,6})$/.exec(name);
  const tokenName = (t: number | undefined) => tokens.find((x) => x.index === t)?.name;
  const index = at !== null ? Number(at[1]) : pairs.findIndex((u) => `${tokenName(u.tokens[0])}/${tokenName(u.tokens[1])}` === name);
  const pair = pairs[index];
  return pair === undefined ? null : { name, coin: pair.name, kind: 'spot', index };
}

/** The name an info request gets for a market: the perpetual's, or "@<pair index>" (both dialects take it). */
export const infoCoin = (m: MarketRef): string => (m.kind === 'perp' ? m.name : `@${m.index}`);

/** names.ts's coin names, kept between blocks and built again when a coin is new (a pair deployed since). */
export class CoinNames {
  private names: NameMaps;

  constructor(private readonly api: NodeApi) {
    this.names = coinNames(api);
  }

  toHl(coin: string): string {
    if (!this.names.knows(coin)) this.names = coinNames(this.api);
    return this.names.toHl(coin);
  }

  of(coin: string): string {
    return this.toHl(coin);
  }
}

type Body = Record<string, unknown>;
const isBody = (v: unknown): v is Body => typeof v === 'object' && v !== null && !Array.isArray(v);
/** `dex` may be absent or "" (the one dex of this chain). */
const mainDex = (s: Body) => s.dex === undefined || s.dex === null || s.dex === '';
const nullish = (v: unknown) => v === undefined || v === null;

/** A subscription of the dialect, or why it is invalid. */
export function parseHlSubscription(api: NodeApi, raw: unknown): HlSubscription | string {
  if (!isBody(raw)) return 'not an object';
  const type = raw.type;
  if (type === 'allMids' || type === 'assetCtxs') return mainDex(raw) ? { type } : `unknown dex ${shown(raw.dex)}`;
  if (type === 'spotAssetCtxs') return { type };
  if (typeof type === 'string' && COIN_TYPES.has(type)) {
    const market = typeof raw.coin === 'string' ? resolveMarket(api, raw.coin) : null;
    if (market === null) return `unknown coin ${shown(raw.coin)}`;
    if (type === 'activeAssetData') {
      const user = normalizeAddress(raw.user);
      if (user === null) return `invalid user ${shown(raw.user)}`;
      return market.kind === 'perp' ? { type, user, market } : `activeAssetData is for perpetuals, not ${market.name}`;
    }
    if (type === 'candle') {
      if (typeof raw.interval !== 'string' || !CANDLE_INTERVALS.has(raw.interval)) return `unknown interval ${shown(raw.interval)}`;
      return { type, market, interval: raw.interval };
    }
    if (type === 'l2Book') {
      const { nSigFigs, mantissa } = raw;
      if (!nullish(nSigFigs) && !(typeof nSigFigs === 'number' && [2, 3, 4, 5].includes(nSigFigs))) return 'nSigFigs must be 2, 3, 4, 5 or null';
      if (!nullish(mantissa) && !(nSigFigs === 5 && typeof mantissa === 'number' && [1, 2, 5].includes(mantissa))) return 'mantissa must be 1, 2 or 5, with nSigFigs 5';
      return { type, market, nSigFigs: (nSigFigs as number | null | undefined) ?? null, mantissa: (mantissa as number | null | undefined) ?? null };
    }
    return { type: type as 'trades', market };
  }
  if (typeof type === 'string' && USER_TYPE_SET.has(type)) {
    const user = normalizeAddress(raw.user);
    if (user === null) return `invalid user ${shown(raw.user)}`;
    if ((type === 'clearinghouseState' || type === 'openOrders' || type === 'twapStates') && !mainDex(raw)) return `unknown dex ${shown(raw.dex)}`;
    if (type === 'userFills' && !nullish(raw.aggregateByTime) && typeof raw.aggregateByTime !== 'boolean') return 'aggregateByTime must be a boolean';
    return { type: type as UserType, user };
  }
  return `unknown type ${shown(type)}`;
}

/** A subscription's identity on its connection (and its topic, for public ones): the client's names, not the node's. */
export function subscriptionKey(s: HlSubscription): string {
  switch (s.type) {
    case 'allMids':
    case 'assetCtxs':
    case 'spotAssetCtxs':
      return `hl|${s.type}`;
    case 'l2Book':
      return `hl|l2Book|${s.market.name}|${s.nSigFigs ?? ''}|${s.mantissa ?? ''}`;
    case 'candle':
      return `hl|candle|${s.market.name}|${s.interval}`;
    case 'trades':
    case 'bbo':
    case 'activeAssetCtx':
      return `hl|${s.type}|${s.market.name}`;
    case 'activeAssetData':
      return `hl|${s.type}|${s.user}|${s.market.name}`;
    default:
      return `hl|${s.type}|${s.user}`;
  }
}

/** A fill as the info dialect's `userFills` shows it. */
export function hlFill(f: FillRecord, names: CoinNames) {
  return infoFill(names, f);
}

/** An order change as an `orderUpdates` entry (the info dialect's `OpenOrder`). */
export function hlOrderUpdate(order: OrderView, status: OrderStatus, statusTimestamp: number, names: CoinNames) {
  return { order: hlOpenOrder(names, order), status, statusTimestamp };
}

/** An order as Hyperliquid's `FrontendOpenOrder` (`historicalOrders`), children included. */
export function hlFrontendOrder(order: OrderView, names: CoinNames): OrderView {
  return { ...order, coin: names.of(order.coin), children: order.children.map((c) => hlFrontendOrder(c, names)) };
}

/** A funding payment as `userFundings` / `userEvents` entries (`nSamples` is not recorded: null). */
export function hlFunding(f: FundingRecord, names: CoinNames) {
  return { time: f.time, coin: names.of(f.coin), usdc: f.usdc, szi: f.szi, fundingRate: f.fundingRate, nSamples: null };
}

/** A ledger change as a `userNonFundingLedgerUpdates` entry, as the info dialect answers it. */
export function hlLedgerUpdate(l: LedgerRecord) {
  return { time: l.time, hash: l.hash, delta: hlLedgerDelta(l.delta, l.time) };
}
