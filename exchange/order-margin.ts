// Initial margin of resting perp orders. An order reserves margin only for the lots that open or
// extend exposure: the position's closing capacity on a side is taken first by reduce-only
// orders, then by the other resting orders in queue order. Reserves are recomputed whenever the
// position or the owner's orders in the market change.
import { closableLots, initialMargin, initialMarginNum, type Account } from './account.ts';
import { availableMargin, freeMarginCovers } from './margin.ts';
import { setClosing, type BookOrder, type OwnerOrders } from './engine/book-order.ts';
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
 * Reserves the margin of an order that just came to rest without trading, as the newest on its
 * side: the closing capacity left to it is what all the owner's other orders on that side did not
 * take. Also right for an order that holds no capacity wherever it queues (those ahead of it
 * cover the capacity).
 */
export function reserveNewest(state: ExchangeState, acct: Account, m: PerpMarket, o: BookOrder): void {
  if (o.reduceOnly) {
    setClosing(o, 0);
    acct.setMarginUnits(o, 0);
    return;
  }
  const list = o.ownerList; // it rests: its owner's list, without a lookup
  const others = (list === null ? m.engine.ownerLots(acct.address, o.isBuy) : o.isBuy ? list.buyLots : list.sellLots) - o.sz;
  const capacity = Math.max(0, closableLots(acct, m.asset, o.isBuy) - others);
  setClosing(o, Math.min(o.sz, capacity));
  reserve(state, acct, m, o, o.sz - o.closing, state.leverage(acct, m));
}

/**
 * Lots of the position's closing capacity `o` (resting, or just taken out of the book) holds on
 * its side: all of a reduce-only order (those take it first), else what its reserve counts as
 * closing. Only when it holds some does its leaving or changing move other orders' reserves.
 */
export function capacityHeld(o: BookOrder): number {
  return o.reduceOnly ? o.sz : o.closing;
}

/**
 * Reserves the initial margin of `open` lots of `o` at its price: on numbers while the notional is
 * a safe integer, and without a bigint when the reserve is unchanged (recomputes mostly are).
 */
function reserve(state: ExchangeState, acct: Account, m: PerpMarket, o: BookOrder, open: number, lev: number): void {
  if (open === 0) {
    if (o.marginUnits !== 0) acct.setMarginUnits(o, 0);
    return;
  }
  const ntl = notionalNum(m, o.px, open);
  if (ntl < 0) {
    acct.setMargin(o, initialMargin(state.notional(m, o.px, open), lev));
    return;
  }
  const units = initialMarginNum(ntl, lev);
  if (units !== o.marginUnits) acct.setMarginUnits(o, units);
}

/**
 * Brings the owner's reserves in the market back to the rule after its position or some of its
 * orders' sizes changed (fills), leverage unchanged. `resized` holds every order of the owner whose
 * size changed or that came to rest without a reserve since the rule last held (other owners'
 * orders and orders no longer resting are skipped): a partly filled maker may close more lots than
 * it has left, and a changed size changes the reserve. The rule's allocation on a side is a prefix
 * in queue order closing all its lots, then at most one order closing part of them, then none;
 * sizes that shrank and capacity that grew or shrank keep that shape when the freed lots go to the
 * oldest orders still opening lots and the missing ones come back from the newest orders closing
 * some. So the resized orders and a `moveCapacity` per side (the list's closing totals say how
 * much), not a walk over every order: a maker with hundreds of resting orders pays for the ones
 * that changed.
 */
export function settleOrderMargins(state: ExchangeState, acct: Account, m: PerpMarket, resized: readonly BookOrder[]): void {
  const list = m.engine.ownerList(acct.address);
  if (list === undefined) return;
  const lev = state.leverage(acct, m);
  for (let i = 0; i < resized.length; i++) {
    const o = resized[i] as BookOrder;
    if (o.ownerList !== list || o.reduceOnly) continue;
    if (o.closing > o.sz) setClosing(o, o.sz); // a maker that partly filled
    reserve(state, acct, m, o, o.sz - o.closing, lev);
  }
  moveCapacity(state, acct, m, true, plainCapacity(acct, m, list, true) - list.buyClosing);
  moveCapacity(state, acct, m, false, plainCapacity(acct, m, list, false) - list.sellClosing);
}

/** The position's closing capacity on a side that reduce-only orders leave to plain ones. */
function plainCapacity(acct: Account, m: PerpMarket, list: OwnerOrders, isBuy: boolean): number {
  return Math.max(0, closableLots(acct, m.asset, isBuy) - (isBuy ? list.buyReduceOnlyLots : list.sellReduceOnlyLots));
}

/** The owner's plain orders on one side that `pick` selects, in queue order. */
function sideOrders(m: PerpMarket, owner: string, isBuy: boolean, pick: (o: BookOrder) => boolean): BookOrder[] {
  const out: BookOrder[] = [];
  for (let x = m.engine.ownerList(owner)?.tail ?? null; x !== null; x = x.ownerPrev) if (x.isBuy === isBuy && !x.reduceOnly && pick(x)) out.push(x);
  return out;
}

const closesLots = (o: BookOrder): boolean => o.closing > 0;

/**
 * Moves `lots` of closing capacity on a side: given (> 0) to the owner's plain orders that still
 * open lots, oldest first, or taken back (< 0) from those closing some, newest first: the
 * queue-order rule refilled from where it stops, the orders before untouched. The owner's list is
 * in queue order, so giving walks from its oldest end until the lots are placed, and taking walks
 * from there only as far as the side's closing total reaches (the newest order closing any), then
 * back: both stop near the oldest orders, where the capacity sits, however many orders rest.
 */
export function moveCapacity(state: ExchangeState, acct: Account, m: PerpMarket, isBuy: boolean, lots: number): void {
  if (lots === 0) return;
  const list = m.engine.ownerList(acct.address);
  if (list === undefined) return;
  const lev = state.leverage(acct, m);
  if (lots > 0) {
    let left = lots;
    for (let o = list.tail; o !== null && left > 0; o = o.ownerPrev) {
      if (o.isBuy !== isBuy || o.reduceOnly || o.closing >= o.sz) continue;
      const moved = Math.min(left, o.sz - o.closing);
      setClosing(o, o.closing + moved);
      left -= moved;
      reserve(state, acct, m, o, o.sz - o.closing, lev);
    }
    return;
  }
  // The newest order of the side closing any lots: past it, the side's orders close none.
  const total = isBuy ? list.buyClosing : list.sellClosing;
  let newest: BookOrder | null = null;
  let seen = 0;
  for (let o = list.tail; o !== null && seen < total; o = o.ownerPrev) {
    if (o.isBuy !== isBuy || o.closing <= 0) continue;
    seen += o.closing;
    newest = o;
  }
  let left = -lots;
  for (let o = newest; o !== null && left > 0; o = o.ownerNext) {
    if (o.isBuy !== isBuy || o.reduceOnly || o.closing <= 0) continue;
    const moved = Math.min(left, o.closing);
    setClosing(o, o.closing - moved);
    left -= moved;
    reserve(state, acct, m, o, o.sz - o.closing, lev);
  }
}

/**
 * What placing a reduce-only order of `lots` on a side adds to the owner's reserves: it takes
 * closing capacity ahead of the plain orders, so the newest of them that close lots give them up
 * and reserve for them instead (0 when the plain orders leave capacity unused).
 */
export function reduceOnlyReserveIncrease(state: ExchangeState, acct: Account, m: PerpMarket, isBuy: boolean, lots: number): bigint {
  const list = m.engine.ownerList(acct.address);
  if (list === undefined) return 0n;
  const capacity = plainCapacity(acct, m, list, isBuy);
  const closing = sideOrders(m, acct.address, isBuy, closesLots);
  let held = 0;
  for (const o of closing) held += o.closing;
  let take = Math.max(0, lots - (capacity - held)); // what the unused capacity does not cover
  const lev = state.leverage(acct, m);
  let increase = 0n;
  for (let i = closing.length - 1; i >= 0 && take > 0; i--) {
    const o = closing[i] as BookOrder;
    const moved = Math.min(take, o.closing);
    take -= moved;
    increase += initialMargin(state.notional(m, o.px, o.sz - o.closing + moved), lev) - o.margin;
  }
  return increase;
}

/**
 * Sets the margin (and the closing lots) of each of the owner's resting orders in the market from
 * scratch; `margins` false sets the closing lots alone (a restored snapshot carries the margins).
 */
export function recomputeOrderMargins(state: ExchangeState, acct: Account, m: PerpMarket, margins = true): void {
  const lev = state.leverage(acct, m);
  const buys: BookOrder[] = [];
  const sells: BookOrder[] = [];
  // Oldest first: the owner's list is in queue order from its tail.
  for (let o = m.engine.ownerList(acct.address)?.tail ?? null; o !== null; o = o.ownerPrev) (o.isBuy ? buys : sells).push(o);
  for (const orders of [buys, sells]) {
    if (orders.length === 0) continue;
    let capacity = closableLots(acct, m.asset, orders === buys);
    if (capacity === 0) {
      // Nothing to close on this side: every order opens all its lots.
      for (const o of orders) {
        setClosing(o, 0);
        if (margins) reserve(state, acct, m, o, o.reduceOnly ? 0 : o.sz, lev);
      }
      continue;
    }
    for (const o of orders) if (o.reduceOnly) capacity -= o.sz;
    for (const o of orders) {
      if (o.reduceOnly) {
        setClosing(o, 0);
        if (margins) reserve(state, acct, m, o, 0, lev);
        continue;
      }
      setClosing(o, Math.min(o.sz, Math.max(0, capacity)));
      capacity -= o.closing;
      if (margins) reserve(state, acct, m, o, o.sz - o.closing, lev);
    }
  }
}
