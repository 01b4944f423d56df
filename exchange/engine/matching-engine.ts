// A market's matching engine on integers: price-time priority, Gtc/Ioc/Alo, self-trade
// prevention (the resting order of the same owner is cancelled), the spec's order constraints.
// Knows nothing of accounts or money: the exchange layer checks margin and balances before
// placing and applies the fills after.
import type { Address } from '../../primitives/index.ts';
import { BookOrder, TIF_ALO, TIF_IOC, type OwnerOrders, type TifCode } from './book-order.ts';
import { BookSide, type Level } from './book-side.ts';
import { NumMap } from './num-map.ts';

/** Rejections the engine gives; the exchange layer turns them into messages. */
export const REJECT_SIG_FIGS = -1;
export const REJECT_TICK = -2;
export const REJECT_MIN_SIZE = -3;
export const REJECT_PRICE_BAND = -4;
export const REJECT_MAX_OPEN = -5;
export const REJECT_DUPLICATE_CLOID = -6;
export const REJECT_POST_ONLY = -7;
export const REJECT_IOC_NO_MATCH = -8;
export const REJECT_BAD_NUMBER = -9;

/** Largest price or size in units; products of two stay exact in bigint arithmetic downstream. */
export const MAX_UNITS = Number.MAX_SAFE_INTEGER;
export const MAX_SIG_FIGS_LIMIT = 100000; // 5 significant figures

export interface EngineRules {
  readonly pxDecimals: number;
  /** Price increment in price units. */
  readonly tick: number;
  /** Minimum order size in lots. */
  readonly minSz: number;
  /** Open orders one owner may have in this market. */
  readonly maxOpenPerOwner: number;
  /** Orders may not be priced further than this from the oracle, in basis points (0 = no band). */
  readonly bandBps: number;
}

/** Trade ids and order ids are exchange-wide sequences. */
export interface IdSource {
  nextOid: number;
  nextTid: number;
  nextSeq: number;
}

/** One match. Reused: valid until the next place() on the same engine. */
export class Fill {
  constructor(
    public tid: number,
    public maker: BookOrder,
    /** Lots filled. */
    public sz: number,
    /** The maker's price. */
    public px: number,
  ) {}
}

/** Adds `lots` (negative to take away) of `o` to its owner's side totals. */
function addOwnerLots(list: OwnerOrders, o: BookOrder, lots: number): void {
  if (o.isBuy) {
    list.buyLots += lots;
    if (o.reduceOnly) list.buyReduceOnlyLots += lots;
  } else {
    list.sellLots += lots;
    if (o.reduceOnly) list.sellReduceOnlyLots += lots;
  }
}

/**
 * Links `o` into its owner's list in queue order (`seq` descending from the head). A fresh order
 * has the largest `seq` and goes to the head; one that keeps an older priority (a restore, a
 * modify that only improved its price) is walked to its place, from whichever end is nearer.
 */
function linkBySeq(list: OwnerOrders, o: BookOrder): void {
  let newer: BookOrder | null = null; // the order just ahead of `o` toward the head
  if (list.head !== null && list.head.seq > o.seq) {
    const tail = list.tail as BookOrder;
    if (tail.seq > o.seq) newer = tail;
    else {
      newer = list.head;
      while ((newer.ownerNext as BookOrder).seq > o.seq) newer = newer.ownerNext as BookOrder;
    }
  }
  o.ownerPrev = newer;
  o.ownerNext = newer === null ? list.head : newer.ownerNext;
  if (newer === null) list.head = o;
  else newer.ownerNext = o;
  if (o.ownerNext === null) list.tail = o;
  else o.ownerNext.ownerPrev = o;
}

/** True when a price in units has at most 5 significant figures or is a whole number. */
export function validSigFigs(px: number, pxScale: number): boolean {
  if (px % pxScale === 0) return true;
  let v = px;
  while (v % 10 === 0) v /= 10;
  return v < MAX_SIG_FIGS_LIMIT;
}

export class MatchingEngine {
  readonly bids = new BookSide(true);
  readonly asks = new BookSide(false);
  readonly orders = new NumMap<BookOrder>();
  private readonly owners = new Map<Address, OwnerOrders>();
  private readonly cloids = new Map<string, BookOrder>();
  private readonly pxScale: number;
  /** Oracle price in price units, for the price band; set by the exchange layer. */
  oraclePx = 0;

  /** Fills of the last place() call are fills[0 .. fillCount); read them before the next place(). */
  readonly fills: Fill[] = [];
  fillCount = 0;
  /** Resting orders cancelled by self-trade prevention during the last place() call. */
  readonly selfTradeCancels: BookOrder[] = [];
  /** Lots filled by the last place() call. */
  filled = 0;
  /** The order the last place() call put in the book, or null when it did not rest. */
  rested: BookOrder | null = null;
  /**
   * Orders that left the book (pooled as they leave), reused by later placements: an order handed
   * out as cancelled or filled is valid until the next place() or restore() on this engine.
   */
  private readonly pool: BookOrder[] = [];

  constructor(
    readonly rules: EngineRules,
    private readonly ids: IdSource,
  ) {
    this.pxScale = 10 ** rules.pxDecimals;
  }

  side(isBuy: boolean): BookSide {
    return isBuy ? this.bids : this.asks;
  }

  /** The owner's open orders and side totals, undefined when none (to look up once and pass to `place`). */
  ownerList(owner: Address): OwnerOrders | undefined {
    return this.owners.get(owner);
  }

  openCount(owner: Address): number {
    return this.owners.get(owner)?.count ?? 0;
  }

  /** The owner's open orders in queue priority, newest first. */
  *ownerOrders(owner: Address): Generator<BookOrder> {
    for (let o = this.owners.get(owner)?.head ?? null; o !== null; o = o.ownerNext) yield o;
  }

  /** Lots of the owner's resting orders on one side: all of them, or the reduce-only ones. */
  ownerLots(owner: Address, isBuy: boolean): number {
    const list = this.owners.get(owner);
    return list === undefined ? 0 : isBuy ? list.buyLots : list.sellLots;
  }

  ownerReduceOnlyLots(owner: Address, isBuy: boolean): number {
    const list = this.owners.get(owner);
    return list === undefined ? 0 : isBuy ? list.buyReduceOnlyLots : list.sellReduceOnlyLots;
  }

  /** The newest of the owner's open orders; follow `ownerNext` for the rest, older (hot paths). */
  ownerHead(owner: Address): BookOrder | null {
    return this.owners.get(owner)?.head ?? null;
  }

  byCloid(owner: Address, cloid: string): BookOrder | undefined {
    return this.cloids.get(`${owner}:${cloid}`);
  }

  /** The spec's price rules and the band; 0 when acceptable, else a REJECT_ code. */
  checkPrice(px: number): number {
    if (!Number.isSafeInteger(px) || px <= 0) return REJECT_BAD_NUMBER;
    if (!validSigFigs(px, this.pxScale)) return REJECT_SIG_FIGS;
    if (px % this.rules.tick !== 0) return REJECT_TICK;
    const { bandBps } = this.rules;
    if (bandBps > 0 && this.oraclePx > 0 && Math.abs(px - this.oraclePx) * 10000 > bandBps * this.oraclePx) return REJECT_PRICE_BAND;
    return 0;
  }

  /**
   * Validates and places order `oid`: matches what crosses, then rests (Gtc, Alo) or drops (Ioc)
   * the remainder. Returns `oid`, or a REJECT_ code (< 0) with nothing changed. `seq` is its
   * queue priority (a fresh one puts it at the back); `list`, the owner's `ownerList` when the
   * caller has just looked it up. `filled`, `fills` and `selfTradeCancels` describe what happened.
   */
  place(oid: number, owner: Address, isBuy: boolean, px: number, sz: number, tif: TifCode, reduceOnly: boolean, cloid: string | null, time: number, seq = this.ids.nextSeq++, list = this.owners.get(owner)): number {
    this.fillCount = 0;
    // Truncating an array is not free; skip it when already empty (the common case).
    if (this.selfTradeCancels.length !== 0) this.selfTradeCancels.length = 0;
    this.filled = 0;
    this.rested = null;
    const priceError = this.checkPrice(px);
    if (priceError !== 0) return priceError;
    if (!Number.isSafeInteger(sz) || sz <= 0) return REJECT_BAD_NUMBER;
    if (sz < this.rules.minSz) return REJECT_MIN_SIZE;
    if (tif !== TIF_IOC && list !== undefined && list.count >= this.rules.maxOpenPerOwner) return REJECT_MAX_OPEN;
    if (cloid !== null && this.cloids.has(`${owner}:${cloid}`)) return REJECT_DUPLICATE_CLOID;
    const opposite = isBuy ? this.asks : this.bids;
    const bestOpp = opposite.bestPx();
    const crosses = bestOpp !== undefined && (isBuy ? px >= bestOpp : px <= bestOpp);
    if (tif === TIF_ALO && crosses) return REJECT_POST_ONLY;

    const order = this.newOrder(oid, owner, isBuy, px, sz, seq, tif, reduceOnly, cloid, time);
    if (crosses) this.match(order, opposite);
    if (order.sz > 0) {
      if (tif === TIF_IOC) {
        this.pool.push(order);
        // Nothing happened under this oid (no fill, no self-trade cancel): a plain rejection.
        if (this.filled === 0 && this.selfTradeCancels.length === 0) return REJECT_IOC_NO_MATCH;
      } else {
        // Self-trade cancels may have emptied (and dropped) the owner's list looked up above.
        this.rest(order, this.selfTradeCancels.length === 0 ? list : undefined);
        this.rested = order;
      }
    }
    return order.oid;
  }

  private newOrder(oid: number, owner: Address, isBuy: boolean, px: number, sz: number, seq: number, tif: TifCode, reduceOnly: boolean, cloid: string | null, time: number): BookOrder {
    const o = this.pool.pop();
    if (o === undefined) return new BookOrder(oid, owner, isBuy, px, sz, sz, seq, tif, reduceOnly, cloid, time);
    o.oid = oid;
    o.owner = owner;
    o.isBuy = isBuy;
    o.px = px;
    o.sz = sz;
    o.origSz = sz;
    o.seq = seq;
    o.tif = tif;
    o.reduceOnly = reduceOnly;
    o.cloid = cloid;
    o.timestamp = time;
    o.marginUnits = 0;
    o.marginBig = 0n;
    o.closing = 0;
    return o;
  }

  private match(taker: BookOrder, opposite: BookSide): void {
    const isBuy = taker.isBuy;
    const limit = taker.px;
    let level: Level | undefined;
    while (taker.sz > 0 && (level = opposite.best()) !== undefined && (isBuy ? level.px <= limit : level.px >= limit)) {
      // Consume this level front to back; it leaves the top when its last order goes.
      while (taker.sz > 0 && level.head !== null) {
        const maker = level.head;
        if (maker.owner === taker.owner) {
          this.unrest(maker);
          this.selfTradeCancels.push(maker);
          continue;
        }
        const f = taker.sz < maker.sz ? taker.sz : maker.sz;
        this.addFill(this.ids.nextTid++, maker, f, maker.px);
        taker.sz -= f;
        this.filled += f;
        if (f === maker.sz) {
          this.unrest(maker);
          maker.sz = 0;
        } else {
          opposite.shrink(maker, f);
          addOwnerLots(maker.ownerList as OwnerOrders, maker, -f);
        }
      }
    }
  }

  /** Records a fill in the reused buffer. */
  private addFill(tid: number, maker: BookOrder, sz: number, px: number): void {
    const i = this.fillCount++;
    const f = this.fills[i];
    if (f === undefined) {
      this.fills.push(new Fill(tid, maker, sz, px));
      return;
    }
    f.tid = tid;
    f.maker = maker;
    f.sz = sz;
    f.px = px;
  }

  /** Puts an order in the book and the owner's list (`known`: the owner's list if looked up already). */
  rest(o: BookOrder, known?: OwnerOrders): void {
    (o.isBuy ? this.bids : this.asks).add(o);
    this.orders.set(o.oid, o);
    let list = known ?? this.owners.get(o.owner);
    if (list === undefined) {
      list = { head: null, tail: null, count: 0, buyLots: 0, sellLots: 0, buyReduceOnlyLots: 0, sellReduceOnlyLots: 0, buyClosing: 0, sellClosing: 0 };
      this.owners.set(o.owner, list);
    }
    linkBySeq(list, o);
    list.count += 1;
    addOwnerLots(list, o, o.sz);
    if (o.isBuy) list.buyClosing += o.closing;
    else list.sellClosing += o.closing;
    o.ownerList = list;
    if (o.cloid !== null) this.cloids.set(`${o.owner}:${o.cloid}`, o);
  }

  /** Takes a resting order out of the book and the owner's list. */
  unrest(o: BookOrder): void {
    (o.isBuy ? this.bids : this.asks).remove(o);
    this.orders.delete(o.oid);
    const list = o.ownerList as OwnerOrders;
    o.ownerList = null;
    addOwnerLots(list, o, -o.sz);
    if (o.isBuy) list.buyClosing -= o.closing;
    else list.sellClosing -= o.closing;
    if (o.ownerPrev === null) list.head = o.ownerNext;
    else o.ownerPrev.ownerNext = o.ownerNext;
    if (o.ownerNext === null) list.tail = o.ownerPrev;
    else o.ownerNext.ownerPrev = o.ownerPrev;
    o.ownerPrev = o.ownerNext = null;
    if (--list.count === 0) this.owners.delete(o.owner);
    if (o.cloid !== null) this.cloids.delete(`${o.owner}:${o.cloid}`);
    this.pool.push(o);
  }

  /** Cancels the owner's order; null when it has no such open order. */
  cancel(owner: Address, oid: number): BookOrder | null {
    const o = this.orders.get(oid);
    if (o === undefined || o.owner !== owner) return null;
    this.unrest(o);
    return o;
  }

  /** Puts an order back as it was (snapshot restore, a modify undone), with its queue priority. */
  restore(oid: number, owner: Address, isBuy: boolean, px: number, sz: number, origSz: number, seq: number, tif: TifCode, reduceOnly: boolean, cloid: string | null, time: number): BookOrder {
    const o = this.newOrder(oid, owner, isBuy, px, sz, seq, tif, reduceOnly, cloid, time);
    o.origSz = origSz;
    this.rest(o);
    return o;
  }

  /** Moves a resting order to a new price and size; it keeps its `seq`, so its time priority. */
  reprice(o: BookOrder, px: number, sz: number): void {
    const side = this.side(o.isBuy);
    side.remove(o);
    addOwnerLots(o.ownerList as OwnerOrders, o, sz - o.sz);
    o.px = px;
    o.sz = sz;
    side.add(o);
  }

  /** Shrinks a resting order in place (keeps priority). */
  shrink(o: BookOrder, lots: number): void {
    this.side(o.isBuy).shrink(o, lots);
    addOwnerLots(o.ownerList as OwnerOrders, o, -lots);
  }
}
