// One side of a book: levels by integer price, each a FIFO ordered by `seq`, and the level
// prices in a sorted array with the best last, so the best level is reached and dropped in O(1).
import type { BookOrder } from './book-order.ts';
import { NumMap } from './num-map.ts';

export class Level {
  /** Sum of the remaining sizes of the level's orders, in lots. */
  sz = 0;
  n = 0;
  head: BookOrder | null = null;
  tail: BookOrder | null = null;
  /** The price as the exchange layer writes it in events: a cache it fills, kept with the level. */
  text: string | null = null;
  constructor(readonly px: number) {}
}

export class BookSide {
  readonly levels = new NumMap<Level>();
  /** Bids ascending, asks descending: the best price is last. The last level is never empty. */
  private prices: number[] = [];
  /** Empty levels kept in `levels` and `prices`. */
  private empty = 0;

  constructor(readonly isBid: boolean) {}

  /** Number of non-empty levels. */
  get depth(): number {
    return this.prices.length - this.empty;
  }

  best(): Level | undefined {
    const n = this.prices.length;
    return n === 0 ? undefined : this.levels.get(this.prices[n - 1] as number);
  }

  bestPx(): number | undefined {
    const n = this.prices.length;
    return n === 0 ? undefined : this.prices[n - 1]; // never index -1: an out-of-bounds read is V8's slow path
  }

  /** Non-empty levels from the best, at most `depth` of them. */
  *iterate(depth = Infinity): Generator<Level> {
    for (let i = this.prices.length - 1, k = 0; i >= 0 && k < depth; i--) {
      const level = this.levels.get(this.prices[i] as number) as Level;
      if (level.n === 0) continue;
      k++;
      yield level;
    }
  }

  /** Index in `prices` where `px` is or would be inserted. */
  private search(px: number): number {
    const prices = this.prices;
    let lo = 0;
    let hi = prices.length;
    if (this.isBid) {
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if ((prices[mid] as number) < px) lo = mid + 1;
        else hi = mid;
      }
    } else {
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if ((prices[mid] as number) > px) lo = mid + 1;
        else hi = mid;
      }
    }
    return lo;
  }

  private levelFor(px: number): Level {
    let level = this.levels.get(px);
    if (level !== undefined) {
      if (level.n === 0) this.empty -= 1;
      return level;
    }
    level = new Level(px);
    this.levels.set(px, level);
    const n = this.prices.length;
    // New best prices are the common case near the touch: append without searching.
    if (n === 0 || (this.isBid ? px > (this.prices[n - 1] as number) : px < (this.prices[n - 1] as number))) this.prices.push(px);
    else this.prices.splice(this.search(px), 0, px);
    return level;
  }

  /**
   * Adds an order to its level's queue by `seq`: at the back for a new order (the common case,
   * O(1)), ahead of later ones for an order that keeps its priority (modify, restore).
   */
  add(o: BookOrder): void {
    const level = this.levelFor(o.px);
    let after = level.tail;
    while (after !== null && after.seq > o.seq) after = after.prev;
    o.prev = after;
    if (after === null) {
      o.next = level.head;
      level.head = o;
    } else {
      o.next = after.next;
      after.next = o;
    }
    if (o.next === null) level.tail = o;
    else o.next.prev = o;
    level.sz += o.sz;
    level.n += 1;
    o.level = level;
  }

  remove(o: BookOrder): void {
    const level = o.level as Level;
    if (o.prev === null) level.head = o.next;
    else o.prev.next = o.next;
    if (o.next === null) level.tail = o.prev;
    else o.next.prev = o.prev;
    o.prev = o.next = null;
    o.level = null;
    level.sz -= o.sz;
    level.n -= 1;
    if (level.n === 0) this.emptied(level.px);
  }

  /** Shrinks a resting order in place; it keeps its queue position. */
  shrink(o: BookOrder, lots: number): void {
    (o.level as Level).sz -= lots;
    o.sz -= lots;
  }

  /** A level became empty: drop it (and any empty ones under it) from the top, else keep it. */
  private emptied(px: number): void {
    const prices = this.prices;
    if (prices[prices.length - 1] !== px) {
      if (++this.empty > 64 && this.empty * 2 > prices.length) this.compact();
      return;
    }
    this.levels.delete(prices.pop() as number);
    while (prices.length > 0) {
      const top = prices[prices.length - 1] as number;
      if ((this.levels.get(top) as Level).n !== 0) break;
      this.levels.delete(top);
      prices.pop();
      this.empty -= 1;
    }
  }

  /** Drops every empty level. */
  private compact(): void {
    this.prices = this.prices.filter((px) => {
      if ((this.levels.get(px) as Level).n !== 0) return true;
      this.levels.delete(px);
      return false;
    });
    this.empty = 0;
  }
}
