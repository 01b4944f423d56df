// One market's limit order book: price levels keyed by integer price, a FIFO of orders per level,
// and per side a sorted array of level prices with the best price last (O(1) to reach and drop).
import type { Address } from '../primitives/index.ts';
import type { Tif } from './actions.ts';

export interface RestingOrder {
  readonly oid: number;
  readonly user: Address;
  readonly asset: number;
  readonly isBuy: boolean;
  /** Price units. */
  readonly px: number;
  /** Remaining size in lots; > 0 while resting. */
  sz: number;
  readonly origSz: number;
  readonly reduceOnly: boolean;
  readonly tif: Tif;
  readonly cloid: string | null;
  /** Block time (ms) at placement. */
  readonly timestamp: number;
  // FIFO links within the level.
  prev: RestingOrder | null;
  next: RestingOrder | null;
}

export interface Level {
  readonly px: number;
  /** Sum of the remaining sizes of its orders. */
  sz: number;
  n: number;
  head: RestingOrder | null;
  tail: RestingOrder | null;
}

class BookSide {
  readonly levels = new Map<number, Level>();
  /** Level prices sorted so that the best is last: bids ascending, asks descending. */
  private readonly prices: number[] = [];

  constructor(private readonly isBid: boolean) {}

  best(): Level | undefined {
    const px = this.prices[this.prices.length - 1];
    return px === undefined ? undefined : this.levels.get(px);
  }

  /** Levels from best to worst, at most `depth`. */
  *iterate(depth = Infinity): Generator<Level> {
    for (let i = this.prices.length - 1, k = 0; i >= 0 && k < depth; i--, k++) {
      yield this.levels.get(this.prices[i] as number) as Level;
    }
  }

  /** True when `a` is a better price than `b` for this side. */
  private better(a: number, b: number): boolean {
    return this.isBid ? a > b : a < b;
  }

  add(order: RestingOrder): void {
    let level = this.levels.get(order.px);
    if (level === undefined) {
      level = { px: order.px, sz: 0, n: 0, head: null, tail: null };
      this.levels.set(order.px, level);
      // Binary search for the first index whose price is better than order.px.
      let lo = 0;
      let hi = this.prices.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (this.better(this.prices[mid] as number, order.px)) hi = mid;
        else lo = mid + 1;
      }
      this.prices.splice(lo, 0, order.px);
    }
    order.prev = level.tail;
    order.next = null;
    if (level.tail === null) level.head = order;
    else level.tail.next = order;
    level.tail = order;
    level.sz += order.sz;
    level.n += 1;
  }

  remove(order: RestingOrder): void {
    const level = this.levels.get(order.px);
    if (level === undefined) throw new Error(`invariant: order ${order.oid} has no level`);
    if (order.prev === null) level.head = order.next;
    else order.prev.next = order.next;
    if (order.next === null) level.tail = order.prev;
    else order.next.prev = order.prev;
    order.prev = order.next = null;
    level.sz -= order.sz;
    level.n -= 1;
    if (level.n === 0) this.dropLevel(level.px);
  }

  private dropLevel(px: number): void {
    this.levels.delete(px);
    const last = this.prices.length - 1;
    if (this.prices[last] === px) {
      this.prices.pop();
      return;
    }
    let lo = 0;
    let hi = last;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.better(this.prices[mid] as number, px)) hi = mid;
      else if (this.prices[mid] === px) return void this.prices.splice(mid, 1);
      else lo = mid + 1;
    }
    if (this.prices[lo] === px) this.prices.splice(lo, 1);
  }
}

export class OrderBook {
  readonly bids = new BookSide(true);
  readonly asks = new BookSide(false);

  side(isBuy: boolean): BookSide {
    return isBuy ? this.bids : this.asks;
  }

  add(order: RestingOrder): void {
    this.side(order.isBuy).add(order);
  }

  remove(order: RestingOrder): void {
    this.side(order.isBuy).remove(order);
  }

  /** Reduces a resting order's size after a partial fill; the order keeps its queue position. */
  reduce(order: RestingOrder, lots: number): void {
    const level = this.side(order.isBuy).levels.get(order.px);
    if (level === undefined || lots <= 0 || lots > order.sz) throw new Error(`invariant: bad reduce of ${order.oid}`);
    order.sz -= lots;
    level.sz -= lots;
  }

  bestBid(): number | undefined {
    return this.bids.best()?.px;
  }

  bestAsk(): number | undefined {
    return this.asks.best()?.px;
  }
}
