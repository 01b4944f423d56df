// Order placement: validation, margin check, price-time matching and resting, cancels.
import { divRound, formatScaled } from '../primitives/index.ts';
import { applyFill, initialMargin, openingLots, type Account } from './account.ts';
import type { OrderRequest } from './actions.ts';
import type { RestingOrder } from './book.ts';
import { SPOT_ASSET_OFFSET, USD_DECIMALS } from './config.ts';
import { exchangeError, type ExchangeError } from './errors.ts';
import { orderView, type ExchangeEvent, type OrderStatus } from './events.ts';
import { availableMargin } from './margin.ts';
import { isExchangeError, parsePrice, parseSize } from './order-rules.ts';
import type { ExchangeState, PerpMarket } from './state.ts';

/** Decimals of `avgPx` beyond the market's price decimals. */
const AVG_PX_EXTRA_DECIMALS = 2;

export interface TxContext {
  readonly state: ExchangeState;
  readonly hash: string;
  readonly time: number;
  readonly events: ExchangeEvent[];
}

export type OrderStatusResult =
  | { resting: { oid: number; cloid?: string } }
  | { filled: { totalSz: string; avgPx: string; oid: number; cloid?: string } }
  | { error: string };

interface Validated {
  readonly market: PerpMarket;
  readonly px: number;
  readonly sz: number;
}

export function marketOf(state: ExchangeState, asset: number): PerpMarket | ExchangeError {
  const market = state.markets[asset];
  if (market !== undefined) return market;
  if (asset >= SPOT_ASSET_OFFSET && state.config.spotPairs.some((p) => p.index === asset - SPOT_ASSET_OFFSET)) {
    return exchangeError('SPOT_NOT_TRADABLE', `asset ${asset}`);
  }
  return exchangeError('UNKNOWN_ASSET', `${asset}`);
}

function validate(state: ExchangeState, acct: Account, req: OrderRequest): Validated | ExchangeError {
  const market = marketOf(state, req.asset);
  if (isExchangeError(market)) return market;
  if (req.trigger !== null || req.tif === null) {
    return exchangeError('INVALID_ACTION', 'trigger orders are not enabled on this node yet');
  }
  const px = parsePrice(req.px, market.pxDecimals);
  if (isExchangeError(px)) return px;
  const sz = parseSize(req.sz, market.config.szDecimals);
  if (isExchangeError(sz)) return sz;
  if (sz < market.config.minSz) {
    const min = formatScaled(market.config.minSz, market.config.szDecimals);
    return exchangeError('SIZE_BELOW_MINIMUM', `${req.sz} < ${min}`, { field: 's', min, provided: req.sz });
  }
  if (req.cloid !== null && acct.cloids.has(req.cloid)) return exchangeError('DUPLICATE_CLOID', req.cloid);
  if (req.tif !== 'Ioc' && (acct.openPerAsset.get(req.asset) ?? 0) >= state.config.maxOpenOrdersPerMarket) {
    return exchangeError('MAX_OPEN_ORDERS', `${state.config.maxOpenOrdersPerMarket} on ${market.config.name}`);
  }
  if (req.reduceOnly) {
    const szi = acct.positions.get(req.asset)?.szi ?? 0;
    if (szi === 0 || szi > 0 === req.isBuy) return exchangeError('REDUCE_ONLY_VIOLATED');
  }
  if (req.tif === 'Alo') {
    const best = req.isBuy ? market.book.bestAsk() : market.book.bestBid();
    if (best !== undefined && (req.isBuy ? px >= best : px <= best)) {
      return exchangeError('POST_ONLY_WOULD_CROSS', `best opposite price ${formatScaled(best, market.pxDecimals)}`);
    }
  }
  return { market, px, sz };
}

/** Margin an order of `lots` at `px` reserves: only the part that opens exposure. */
function orderMargin(state: ExchangeState, acct: Account, m: PerpMarket, isBuy: boolean, px: number, lots: number, reduceOnly: boolean): bigint {
  if (reduceOnly) return 0n;
  const open = openingLots(acct.positions.get(m.asset)?.szi ?? 0, isBuy, lots);
  return open === 0 ? 0n : initialMargin(state.notional(m, px, open), state.leverage(acct, m));
}

function emitOrder(ctx: TxContext, m: PerpMarket, o: RestingOrder, status: OrderStatus): void {
  ctx.events.push({ kind: 'order', user: o.user, status, statusTimestamp: ctx.time, order: orderView(m, o) });
}

function removeResting(ctx: TxContext, m: PerpMarket, o: RestingOrder, status: OrderStatus): void {
  const { state } = ctx;
  m.book.remove(o);
  state.orders.delete(o.oid);
  state.accounts.get(o.user)?.untrackOrder(o);
  emitOrder(ctx, m, o, status);
}

/** Records one side of a trade and moves its position. */
function fillSide(ctx: TxContext, m: PerpMarket, acct: Account, o: RestingOrder, lots: number, px: number, crossed: boolean, tid: number): void {
  const ntl = ctx.state.notional(m, px, lots);
  const change = applyFill(acct, m.asset, o.isBuy, lots, ntl);
  const szDec = m.config.szDecimals;
  ctx.events.push({
    kind: 'fill',
    user: acct.address,
    fill: {
      coin: m.config.name,
      px: formatScaled(px, m.pxDecimals),
      sz: formatScaled(lots, szDec),
      side: o.isBuy ? 'B' : 'A',
      time: ctx.time,
      startPosition: formatScaled(change.startPosition, szDec),
      dir: change.dir,
      closedPnl: formatScaled(change.closedPnl, USD_DECIMALS),
      hash: ctx.hash,
      oid: o.oid,
      crossed,
      fee: '0',
      feeToken: 'USDC',
      tid,
      ...(o.cloid === null ? {} : { cloid: o.cloid }),
    },
  });
}

/** Lots a reduce-only order may still trade without increasing the position. */
function reducibleLots(acct: Account, asset: number, isBuy: boolean): number {
  const szi = acct.positions.get(asset)?.szi ?? 0;
  return szi !== 0 && szi > 0 !== isBuy ? Math.abs(szi) : 0;
}

/** Matches `taker` against the opposite side; returns the filled lots and notional. */
function match(ctx: TxContext, m: PerpMarket, acct: Account, taker: RestingOrder): { lots: number; ntl: bigint } {
  const { state } = ctx;
  const opposite = m.book.side(!taker.isBuy);
  let lots = 0;
  let ntl = 0n;
  for (;;) {
    const level = opposite.best();
    if (level === undefined || (taker.isBuy ? level.px > taker.px : level.px < taker.px)) break;
    const maker = level.head as RestingOrder;
    if (maker.user === taker.user) {
      removeResting(ctx, m, maker, 'selfTradeCanceled');
      continue;
    }
    const room = taker.reduceOnly ? Math.min(taker.sz, reducibleLots(acct, m.asset, taker.isBuy)) : taker.sz;
    if (room === 0) break;
    const f = Math.min(room, maker.sz);
    const makerAcct = state.accounts.get(maker.user) as Account;
    const tid = state.nextTid++;
    makerAcct.releaseFilled(maker, f, maker.sz);
    fillSide(ctx, m, makerAcct, maker, f, maker.px, false, tid);
    fillSide(ctx, m, acct, taker, f, maker.px, true, tid);
    taker.sz -= f;
    lots += f;
    ntl += state.notional(m, maker.px, f);
    m.lastPx = maker.px;
    if (f === maker.sz) {
      m.book.remove(maker);
      maker.sz = 0;
      state.orders.delete(maker.oid);
      makerAcct.untrackOrder(maker);
      emitOrder(ctx, m, maker, 'filled');
    } else {
      m.book.reduce(maker, f);
    }
    if (taker.sz === 0) break;
  }
  return { lots, ntl };
}

export function placeOrder(ctx: TxContext, acct: Account, req: OrderRequest): OrderStatusResult {
  const { state } = ctx;
  const v = validate(state, acct, req);
  if (isExchangeError(v)) return { error: v.message };
  const { market: m, px, sz } = v;
  const margin = orderMargin(state, acct, m, req.isBuy, px, sz, req.reduceOnly);
  if (margin > 0n && margin > availableMargin(state, acct)) return { error: exchangeError('INSUFFICIENT_MARGIN').message };

  const order: RestingOrder = {
    oid: state.nextOid++,
    user: acct.address,
    asset: m.asset,
    isBuy: req.isBuy,
    px,
    sz,
    origSz: sz,
    reduceOnly: req.reduceOnly,
    tif: req.tif as NonNullable<OrderRequest['tif']>,
    cloid: req.cloid,
    timestamp: ctx.time,
    prev: null,
    next: null,
  };
  const cloid = req.cloid === null ? {} : { cloid: req.cloid };
  const filled = req.tif === 'Alo' ? { lots: 0, ntl: 0n } : match(ctx, m, acct, order);
  const summary = () => ({
    totalSz: formatScaled(filled.lots, m.config.szDecimals),
    avgPx: formatScaled(
      divRound(filled.ntl * 10n ** BigInt(AVG_PX_EXTRA_DECIMALS), BigInt(filled.lots) * m.ntlScale, 'nearest'),
      m.pxDecimals + AVG_PX_EXTRA_DECIMALS,
    ),
    oid: order.oid,
    ...cloid,
  });

  if (order.sz === 0) {
    emitOrder(ctx, m, order, 'filled');
    return { filled: summary() };
  }
  const restable = order.tif !== 'Ioc' && !(order.reduceOnly && reducibleLots(acct, m.asset, order.isBuy) === 0);
  if (!restable) {
    emitOrder(ctx, m, order, order.tif === 'Ioc' ? (filled.lots > 0 ? 'canceled' : 'iocCancelRejected') : 'reduceOnlyCanceled');
    if (filled.lots > 0) return { filled: summary() };
    return { error: exchangeError(order.tif === 'Ioc' ? 'IOC_NO_MATCH' : 'REDUCE_ONLY_VIOLATED').message };
  }
  m.book.add(order);
  state.orders.set(order.oid, order);
  acct.trackOrder(order, orderMargin(state, acct, m, order.isBuy, px, order.sz, order.reduceOnly));
  emitOrder(ctx, m, order, 'open');
  return { resting: { oid: order.oid, ...cloid } };
}

export function cancelOrder(ctx: TxContext, acct: Account, asset: number, oid: number): 'success' | { error: string } {
  const o = acct.orders.get(oid);
  const m = ctx.state.markets[asset];
  if (o === undefined || m === undefined || o.asset !== asset) {
    return { error: exchangeError('ORDER_NOT_FOUND').message };
  }
  removeResting(ctx, m, o, 'canceled');
  return 'success';
}

export function cancelOrderByCloid(ctx: TxContext, acct: Account, asset: number, cloid: string): 'success' | { error: string } {
  const oid = acct.cloids.get(cloid);
  if (oid === undefined) return { error: exchangeError('ORDER_NOT_FOUND').message };
  return cancelOrder(ctx, acct, asset, oid);
}
