// An order resting in (or entering) a book. One class with a fixed shape so V8 keeps it compact;
// every link it needs (queue, owner list) is a field, so resting costs no other allocation.
import type { Address } from '../../primitives/index.ts';

export const TIF_GTC = 0;
export const TIF_IOC = 1;
export const TIF_ALO = 2;
export type TifCode = typeof TIF_GTC | typeof TIF_IOC | typeof TIF_ALO;
export const TIF_NAMES = ['Gtc', 'Ioc', 'Alo'] as const;

/**
 * One owner's open orders in a market, in queue priority (`seq`): newest at `head`, oldest at
 * `tail`. Per-side totals are kept in step (O(1) margin checks): lots, reduce-only lots, and the
 * `closing` lots of the orders in the list (the engine adds and removes an order's `closing` as
 * it rests and leaves; the exchange layer changes it on a resting order through `setClosing`).
 */
export interface OwnerOrders {
  head: BookOrder | null;
  tail: BookOrder | null;
  count: number;
  buyLots: number;
  sellLots: number;
  buyReduceOnlyLots: number;
  sellReduceOnlyLots: number;
  buyClosing: number;
  sellClosing: number;
}

/** Sets the lots `o` closes, keeping its owner's list's total when it rests. */
export function setClosing(o: BookOrder, lots: number): void {
  const list = o.ownerList;
  if (list !== null) {
    if (o.isBuy) list.buyClosing += lots - o.closing;
    else list.sellClosing += lots - o.closing;
  }
  o.closing = lots;
}

/**
 * Engines reuse these objects once they leave the book: a reference an engine hands out (a
 * cancelled order, a fill's maker) is valid until the next place() on that engine. Keep the
 * fields you need, not the object.
 */
export class BookOrder {
  /** Queue neighbours within the price level (FIFO by `seq`). */
  prev: BookOrder | null = null;
  next: BookOrder | null = null;
  /** Neighbours among the owner's open orders in this market. */
  ownerPrev: BookOrder | null = null;
  ownerNext: BookOrder | null = null;
  /** The level it rests in (null when not in the book) and its owner's list: no lookups on removal. */
  level: { sz: number; n: number; head: BookOrder | null; tail: BookOrder | null; readonly px: number; text: string | null } | null = null;
  ownerList: OwnerOrders | null = null;
  /**
   * Initial margin this order reserves (USD units, 0 for none) while it is a safe integer, else
   * -1 and the reserve is `marginBig`: set by the exchange layer (`Account.setMargin`), which
   * keeps its owner's total; on the order so that placing one touches no per-account table, and
   * a number so that it makes no bigint. Zeroed when the engine reuses the object.
   */
  marginUnits = 0;
  marginBig = 0n;
  /** Lots of the owner's position this order would close, as its margin counts them (exchange layer). */
  closing = 0;

  constructor(
    public oid: number,
    public owner: Address,
    public isBuy: boolean,
    /** Price units (10^-pxDecimals). */
    public px: number,
    /** Remaining size in lots. */
    public sz: number,
    public origSz: number,
    /** Queue priority: lower goes first within a level. */
    public seq: number,
    public tif: TifCode,
    public reduceOnly: boolean,
    public cloid: string | null,
    /** Block time (ms) the order was placed or last re-queued. */
    public timestamp: number,
  ) {}

  /** The reserve, exact (see `marginUnits`). */
  get margin(): bigint {
    return this.marginUnits >= 0 ? BigInt(this.marginUnits) : this.marginBig;
  }
}
