// Limit orders on perps and spot: the exchange-level checks (reduce-only room, margin, spot
// balance, open orders including triggers), the engine's placement, settlement, the reserve of
// what rests, and the statuses the spec gives back.
import { divRound, formatScaled } from '../primitives/index.ts';
import { closableLots, type Account } from './account.ts';
import type { OrderBuilder, OrderRequest } from './actions.ts';
import { builderFeeOf } from './builder-fees.ts';
import { USDC_TOKEN_INDEX } from './config.ts';
import { TIF_ALO, TIF_GTC, TIF_IOC, type BookOrder, type OwnerOrders, type TifCode } from './engine/book-order.ts';
import {
  REJECT_BAD_NUMBER, REJECT_DUPLICATE_CLOID, REJECT_IOC_NO_MATCH, REJECT_MAX_OPEN, REJECT_MIN_SIZE,
  REJECT_POST_ONLY, REJECT_PRICE_BAND, REJECT_SIG_FIGS, REJECT_TICK,
} from './engine/matching-engine.ts';
import { exchangeError, type ExchangeError } from './errors.ts';
import { feeOf, feeRates } from './fees.ts';
import { availableMargin } from './margin.ts';
import type { Market, SpotMarket } from './markets.ts';
import { ERR, emitBookOrder, orderLeft, type OrderStatusResult, type TxContext } from './order-context.ts';
import { bookOrderView, type LimitFields } from './events.ts';
import { isExchangeError, parsePrice, parseSize } from './order-rules.ts';
import { orderMarginCovered, recomputeOrderMargins, reduceOnlyReserveIncrease, reserveNewest } from './order-margin.ts';
import { afterPositionChange } from './reduce-only.ts';
import { settleFills } from './settlement.ts';

/** The shared empty list of a placement without fills or self-trade cancels (never written). */
const NONE: readonly never[] = Object.freeze([]);

/** Decimals of `avgPx` beyond the market's price decimals. */
const AVG_PX_EXTRA_DECIMALS = 2;

export interface LimitSpec {
  readonly oid: number;
  readonly isBuy: boolean;
  readonly px: number;
  readonly sz: number;
  readonly tif: TifCode;
  readonly reduceOnly: boolean;
  readonly cloid: string | null;
  /** Queue priority; omitted for a fresh one (back of the queue). */
  readonly seq?: number;
  /** A modify whose old version held some of the position's closing capacity (`capacityHeld`). */
  readonly reshare?: boolean;
  /** The builder each fill pays (an order action's `builder` with f > 0); omitted or null for none. */
  readonly builder?: OrderBuilder | null;
}

/** What `submitLimit` placed: one record reused by every call, valid until the next (read it at once). */
export interface LimitOutcome {
  readonly filledLots: number;
  readonly filledNtl: bigint;
  readonly rested: boolean;
}

const outcome: { filledLots: number; filledNtl: bigint; rested: boolean } = { filledLots: 0, filledNtl: 0n, rested: false };

/** Wire time-in-force names to the engine's codes. */
export const TIF_CODES = { Gtc: TIF_GTC, Ioc: TIF_IOC, Alo: TIF_ALO } as const;

/** The message for an engine rejection, naming the offending value. */
export function engineReject(code: number, m: Market, isBuy: boolean, px: number, sz: number): ExchangeError {
  // An out-of-range number is itself the reason for some rejections: never fail to name it.
  const price = Number.isSafeInteger(px) ? formatScaled(px, m.pxDecimals) : String(px);
  switch (code) {
    case REJECT_SIG_FIGS:
      return exchangeError('INVALID_PRICE', `${price} has more than 5 significant figures`);
    case REJECT_TICK:
      return exchangeError('INVALID_PRICE', `${price} is not a multiple of the tick size`);
    case REJECT_PRICE_BAND:
      return exchangeError('PRICE_OUT_OF_RANGE', `${price} is too far from the oracle price ${formatScaled(m.engine.oraclePx, m.pxDecimals)}`);
    case REJECT_MIN_SIZE: {
      const min = formatScaled(m.minSz, m.szDecimals);
      const provided = Number.isSafeInteger(sz) ? formatScaled(sz, m.szDecimals) : String(sz);
      return exchangeError('SIZE_BELOW_MINIMUM', `${provided} < ${min}`, { field: 's', min, provided });
    }
    case REJECT_MAX_OPEN:
      return exchangeError('MAX_OPEN_ORDERS');
    case REJECT_DUPLICATE_CLOID:
      return exchangeError('DUPLICATE_CLOID');
    case REJECT_POST_ONLY: {
      const best = m.engine.side(!isBuy).bestPx();
      return exchangeError('POST_ONLY_WOULD_CROSS', best === undefined ? undefined : `best opposite price ${formatScaled(best, m.pxDecimals)}`);
    }
    case REJECT_IOC_NO_MATCH:
      return exchangeError('IOC_NO_MATCH');
    case REJECT_BAD_NUMBER:
    default:
      return exchangeError('INVALID_PRICE', `${price}`);
  }
}


/**
 * What a spot order must hold to rest: quote for buys (with the larger fee rate and the builder's
 * fee), base for sells.
 */
function spotHold(ctx: TxContext, m: SpotMarket, isBuy: boolean, px: number, lots: number, builder: OrderBuilder | null | undefined): { token: number; amount: bigint } {
  if (!isBuy) return { token: m.base.index, amount: BigInt(lots) * m.baseUnit };
  const ntl = ctx.state.notional(m, px, lots);
  const rates = feeRates(ctx.state.config, m);
  const fees = feeOf(ntl, Math.max(rates.taker, rates.maker)) + (builder == null ? 0n : builderFeeOf(ntl, builder));
  return { token: m.quote.index, amount: ntl + fees };
}

/**
 * Exchange-level admission of a limit order; returns its possibly clamped size or an error.
 * `replacing`: a modify, whose old version has already left the book (and the open-order count).
 */
function admit(ctx: TxContext, acct: Account, m: Market, spec: LimitSpec, replacing: boolean, list: OwnerOrders | undefined): number | ExchangeError {
  let sz = spec.sz;
  if (spec.reduceOnly) {
    if (m.kind === 'spot') return exchangeError('REDUCE_ONLY_VIOLATED', 'spot orders cannot be reduce-only');
    let room = closableLots(acct, m.asset, spec.isBuy);
    if (spec.tif !== TIF_IOC) room -= m.engine.ownerReduceOnlyLots(acct.address, spec.isBuy);
    if (room <= 0) return ERR.reduceOnly();
    sz = Math.min(sz, room);
  }
  if (spec.cloid !== null && !replacing && m.kind === 'perp' && m.triggers.byCloid(acct.address, spec.cloid) !== undefined) {
    return exchangeError('DUPLICATE_CLOID');
  }
  if (spec.tif !== TIF_IOC && !replacing) {
    const open = (list?.count ?? 0) + (m.kind === 'perp' ? m.triggers.count(acct.address) : 0);
    if (open >= ctx.state.config.maxOpenOrdersPerMarket) return exchangeError('MAX_OPEN_ORDERS');
  }
  if (m.kind === 'perp') {
    const sideLots = list === undefined ? 0 : spec.isBuy ? list.buyLots : list.sellLots;
    if (!orderMarginCovered(ctx.state, acct, m, spec.isBuy, spec.px, sz, spec.reduceOnly, sideLots)) return ERR.margin();
    // A resting reduce-only order reserves nothing itself, but takes closing capacity from the
    // owner's plain orders, which then reserve for the lots they open: that must fit too.
    if (spec.reduceOnly && spec.tif !== TIF_IOC) {
      const increase = reduceOnlyReserveIncrease(ctx.state, acct, m, spec.isBuy, sz);
      if (increase > 0n && increase > availableMargin(ctx.state, acct)) return ERR.margin();
    }
  } else {
    const hold = spotHold(ctx, m, spec.isBuy, spec.px, sz, spec.builder);
    if (hold.amount > acct.free(hold.token) || (hold.token === USDC_TOKEN_INDEX && hold.amount > availableMargin(ctx.state, acct))) {
      return exchangeError('INSUFFICIENT_SPOT_BALANCE');
    }
  }
  return sz;
}

/**
 * Places a limit order with a known oid: admission, matching, settlement, reserve, events.
 * `replacing` marks a modify (its old version has already left the book).
 */
export function submitLimit(ctx: TxContext, acct: Account, m: Market, spec: LimitSpec, replacing = false): LimitOutcome | ExchangeError {
  const engine = m.engine;
  const list = engine.ownerList(acct.address); // looked up once: admission and placement read it
  const sz = admit(ctx, acct, m, spec, replacing, list);
  if (isExchangeError(sz)) return sz;
  const code = engine.place(spec.oid, acct.address, spec.isBuy, spec.px, sz, spec.tif, spec.reduceOnly, spec.cloid, ctx.time, spec.seq, list);
  if (code < 0) return engineReject(code, m, spec.isBuy, spec.px, sz);
  // A new order's oid is taken only once the engine accepted it: refused orders leave no gap.
  if (spec.oid === ctx.state.ids.nextOid) ctx.state.ids.nextOid += 1;

  // The engine's outputs are valid until its next call: take what is needed first.
  const selfTradeCancels = engine.selfTradeCancels.length === 0 ? NONE : engine.selfTradeCancels.slice();
  const fills = engine.fillCount === 0 ? NONE : engine.fills.slice(0, engine.fillCount);
  const filledLots = engine.filled;
  const resting = engine.rested;
  for (let i = 0; i < selfTradeCancels.length; i++) orderLeft(ctx, m, selfTradeCancels[i] as BookOrder, 'selfTradeCanceled');
  // Most orders rest without trading: no taker record to build then.
  const builder = spec.builder ?? null;
  const filledNtl = fills.length === 0 ? 0n : settleFills(ctx, m, { acct, oid: spec.oid, isBuy: spec.isBuy, cloid: spec.cloid, builder }, fills);
  if (resting !== null) {
    if (m.kind === 'spot') {
      const hold = spotHold(ctx, m, spec.isBuy, spec.px, resting.sz, builder);
      acct.hold(spec.oid, hold.token, hold.amount);
    }
    // The builder rides with the resting order (its fills as a maker pay it) until it leaves the book.
    if (builder !== null) ctx.state.orderBuilders.set(spec.oid, builder);
    emitBookOrder(ctx, m, resting, 'open');
  } else {
    emitTakerDone(ctx, m, acct.address, spec, sz, filledLots);
  }
  if (m.kind === 'perp') {
    if (fills.length === 0) {
      // No position moved. Without a position every order opens all its lots: only the new one
      // needs its margin. With one, a fresh order takes what closing capacity the orders ahead of
      // it left (`reserveNewest` counts every other order as ahead: right for the newest,
      // and for a modify that kept its place without holding capacity, as then those ahead cover
      // the capacity). But a reduce-only order takes capacity ahead of the others, and a modify's
      // old version or self-trade cancels may have left capacity behind: then it is shared out again.
      const reshare = (spec.reduceOnly || spec.reshare === true || selfTradeCancels.length > 0) && acct.positionSzi(m.asset) !== 0;
      if (reshare) recomputeOrderMargins(ctx.state, acct, m);
      else if (resting !== null) reserveNewest(ctx.state, acct, m, resting);
    } else {
      // Orders whose size changed: makers partly filled (still resting) and the rest of this one.
      // The owners (taker and makers) settle in address order, one time each.
      const owners = [acct.address];
      const resized: BookOrder[] = resting === null ? [] : [resting];
      for (const f of fills) {
        insertOwner(owners, f.maker.owner);
        if (f.maker.ownerList !== null) resized.push(f.maker);
      }
      for (const owner of owners) afterPositionChange(ctx, m, owner, resized);
    }
  }
  if (filledLots === 0 && resting === null) {
    // Nothing traded: only the taker's own resting orders stood in the way, or nothing did.
    return exchangeError(selfTradeCancels.length > 0 ? 'SELF_TRADE_PREVENTED' : 'IOC_NO_MATCH');
  }
  // Settling fills may cancel the new order (reduce-only rules); nothing else here can.
  outcome.filledLots = filledLots;
  outcome.filledNtl = filledNtl;
  outcome.rested = resting !== null && (fills.length === 0 || engine.orders.has(spec.oid));
  return outcome;
}

/**
 * Adds `owner` to `sorted` (ascending, as `Array.prototype.sort` orders strings) unless there.
 * A fill has a handful of owners at most: this allocates nothing, where a Set, its spread and a
 * sort allocated about 7 KB a 20-order action.
 */
function insertOwner(sorted: string[], owner: string): void {
  let i = sorted.length;
  while (i > 0 && (sorted[i - 1] as string) > owner) i--;
  if (i > 0 && sorted[i - 1] === owner) return;
  sorted.push(owner);
  for (let j = sorted.length - 1; j > i; j--) sorted[j] = sorted[j - 1] as string;
  sorted[i] = owner;
}

/** Status event of a taker that did not rest: filled, or its Ioc remainder cancelled. */
function emitTakerDone(ctx: TxContext, m: Market, owner: string, spec: LimitSpec, sz: number, filled: number): void {
  const fields: LimitFields = { oid: spec.oid, isBuy: spec.isBuy, px: spec.px, sz: sz - filled, origSz: sz, timestamp: ctx.time, cloid: spec.cloid, reduceOnly: spec.reduceOnly, tif: spec.tif };
  const status = filled === sz ? 'filled' : filled === 0 ? 'iocCancelRejected' : 'canceled';
  ctx.events.push({ kind: 'order', user: owner, status, statusTimestamp: ctx.time, order: bookOrderView(m, fields) });
}

/** The spec's status for a placed limit order. */
export function limitStatus(m: Market, oid: number, cloid: string | null, out: LimitOutcome): OrderStatusResult {
  // Literals rather than a spread of an optional part: this runs for every order.
  if (out.rested) return cloid === null ? { resting: { oid } } : { resting: { oid, cloid } };
  const avgPx = divRound(out.filledNtl * 10n ** BigInt(AVG_PX_EXTRA_DECIMALS), BigInt(out.filledLots) * m.ntlScale, 'nearest');
  const totalSz = formatScaled(out.filledLots, m.szDecimals);
  const avg = formatScaled(avgPx, m.pxDecimals + AVG_PX_EXTRA_DECIMALS);
  return { filled: cloid === null ? { totalSz, avgPx: avg, oid } : { totalSz, avgPx: avg, oid, cloid } };
}

/** Parses the request's price and size for the market (string rules: decimals and format). */
export function parseOrderNumbers(m: Market, px: string, sz: string): { px: number; sz: number } | ExchangeError {
  const p = parsePrice(px, m.pxDecimals);
  if (isExchangeError(p)) return p;
  const s = parseSize(sz, m.szDecimals);
  if (isExchangeError(s)) return s;
  return { px: p, sz: s };
}

/** Places a new limit order from the wire (`builder`: the action's, with f > 0, or null). */
export function placeLimitOrder(ctx: TxContext, acct: Account, m: Market, req: OrderRequest, builder: OrderBuilder | null = null): OrderStatusResult {
  // parseOrderNumbers, without its result object.
  const px = parsePrice(req.px, m.pxDecimals);
  if (isExchangeError(px)) return { error: px.message };
  const sz = parseSize(req.sz, m.szDecimals);
  if (isExchangeError(sz)) return { error: sz.message };
  const oid = ctx.state.ids.nextOid; // taken by submitLimit once the engine accepts the order
  const spec: LimitSpec = { oid, isBuy: req.isBuy, px, sz, tif: TIF_CODES[req.tif ?? 'Gtc'], reduceOnly: req.reduceOnly, cloid: req.cloid, builder };
  const out = submitLimit(ctx, acct, m, spec);
  if (isExchangeError(out)) return { error: out.message };
  return limitStatus(m, oid, req.cloid, out);
}
