// Initial margin of resting perp orders. An order reserves margin only for the lots that open or
// extend exposure: the position's closing capacity on a side is taken first by reduce-only
// orders, then by the other resting orders in queue order. Reserves are recomputed whenever the
// position or the owner's orders in the market change.
import { closableLots, initialMargin, initialMarginNum, type Account } from './account.ts';
import { availableMargin, freeMarginCovers } from './margin.ts';
import type { BookOrder } from './engine/book-order.ts';
import type { PerpMarket } from './markets.ts';
import { notionalNum, type ExchangeState } from './state.ts';

/** The price margin is taken at: buys fill at or below their limit, sells at or above it (up to the best bid). */
export function marginPx(m: PerpMarket, isBuy: boolean, px: number): number {
  if (isBuy) return px;
  const bid = m.engine.bids.bestPx();
  return bid !== undefined && bid > px ? bid : px;
}

/**
 * Whether the account's free collateral carries a new order's margin (`need <= available`, the
 * admission rule), screened in doubles first (see `freeMarginCovers`).
 */
export function orderMarginCovered(state: ExchangeState, acct: Account, m: PerpMarket, isBuy: boolean, px: number, lots: number, reduceOnly: boolean, sideLots = m.engine.ownerLots(acct.address, isBuy)): boolean {
  const open = openingLots(acct, m, isBuy, lots, reduceOnly, sideLots);
  if (open === 0) return true;
  const lev = state.leverage(acct, m);
  const mpx = marginPx(m, isBuy, px);
  const covered = freeMarginCovers(state, acct, (mpx * open * m.ntlScaleNum) / lev);
  if (covered !== null) return covered;
  return initialMargin(state.notional(m, mpx, open), lev) <= availableMargin(state, acct);
}

/** Margin a new order needs, given the owner's position and same-side resting orders. */
export function newOrderMargin(state: ExchangeState, acct: Account, m: PerpMarket, isBuy: boolean, px: number, lots: number, reduceOnly: boolean): bigint {
  const open = openingLots(acct, m, isBuy, lots, reduceOnly, m.engine.ownerLots(acct.address, isBuy));
  return open === 0 ? 0n : initialMargin(state.notional(m, marginPx(m, isBuy, px), open), state.leverage(acct, m));
}

/**
 * Lots of a new order that open or extend exposure: what the position's closing capacity, less
 * the same-side resting orders (`sideLots`, the engine's `ownerLots`), does not cover.
 */
function openingLots(acct: Account, m: PerpMarket, isBuy: boolean, lots: number, reduceOnly: boolean, sideLots: number): number {
  if (reduceOnly) return 0;
  const capacity = Math.max(0, closableLots(acct, m.asset, isBuy) - sideLots);
  return Math.max(0, lots - capacity);
}

/**
 * Margin of an order that just came to rest without trading: the newest on its side, so the
 * closing capacity left to it is what the older orders on that side did not take.
 */
export function newestOrderMargin(state: ExchangeState, acct: Account, m: PerpMarket, o: BookOrder): bigint {
  if (o.reduceOnly) return 0n;
  const list = o.ownerList; // it rests: its owner's list, without a lookup
  const older = (list === null ? m.engine.ownerLots(acct.address, o.isBuy) : o.isBuy ? list.buyLots : list.sellLots) - o.sz;
  const capacity = Math.max(0, closableLots(acct, m.asset, o.isBuy) - older);
  const open = Math.max(0, o.sz - capacity);
  if (open === 0) return 0n;
  const ntl = notionalNum(m, o.px, open);
  const lev = state.leverage(acct, m);
  return ntl >= 0 ? BigInt(initialMarginNum(ntl, lev)) : initialMargin(state.notional(m, o.px, open), lev);
}

/**
 * Whether `o` (resting, or just taken out of the book) holds some of the position's closing
 * capacity on its side: reduce-only, or with fewer lots ahead of it (reduce-only ones and older
 * ones) than the capacity. Only then does its leaving or changing move other orders' reserves.
 */
export function holdsCapacity(acct: Account, m: PerpMarket, o: BookOrder): boolean {
  if (o.reduceOnly) return true;
  const capacity = closableLots(acct, m.asset, o.isBuy);
  if (capacity === 0) return false;
  let ahead = 0;
  for (let x = m.engine.ownerHead(acct.address); x !== null; x = x.ownerNext) {
    if (x !== o && x.isBuy === o.isBuy && (x.reduceOnly || x.seq < o.seq)) ahead += x.sz;
  }
  return ahead < capacity;
}

/** Initial margin of `lots` of an order at `px`: on numbers while the notional is a safe integer. */
function orderMarginOf(state: ExchangeState, m: PerpMarket, px: number, lots: number, lev: number): bigint {
  if (lots === 0) return 0n;
  const ntl = notionalNum(m, px, lots);
  return ntl >= 0 ? BigInt(initialMarginNum(ntl, lev)) : initialMargin(state.notional(m, px, lots), lev);
}

const bySeq = (a: BookOrder, b: BookOrder): number => a.seq - b.seq;

/** Sets the margin of each of the owner's resting orders in the market from scratch. */
export function recomputeOrderMargins(state: ExchangeState, acct: Account, m: PerpMarket): void {
  const lev = state.leverage(acct, m);
  const buys: BookOrder[] = [];
  const sells: BookOrder[] = [];
  for (let o = m.engine.ownerHead(acct.address); o !== null; o = o.ownerNext) (o.isBuy ? buys : sells).push(o);
  for (const orders of [buys, sells]) {
    if (orders.length === 0) continue;
    let capacity = closableLots(acct, m.asset, orders === buys);
    if (capacity === 0) {
      // Nothing to close on this side: every order opens all its lots.
      for (const o of orders) acct.setMargin(o, o.reduceOnly ? 0n : orderMarginOf(state, m, o.px, o.sz, lev));
      continue;
    }
    orders.sort(bySeq); // the owner's list is newest first, so mostly one descending run
    for (const o of orders) if (o.reduceOnly) capacity -= o.sz;
    for (const o of orders) {
      if (o.reduceOnly) {
        acct.setMargin(o, 0n);
        continue;
      }
      const closing = Math.min(o.sz, Math.max(0, capacity));
      capacity -= closing;
      acct.setMargin(o, orderMarginOf(state, m, o.px, o.sz - closing, lev));
    }
  }
}
