// What executing a transaction emits besides its result: fills and order status changes.
// Shapes follow Hyperliquid's `userFills` and `orderStatus`/`orderUpdates` records.
import { formatScaled, type Address } from '../primitives/index.ts';
import { TIF_NAMES, type BookOrder } from './engine/book-order.ts';
import type { Market } from './markets.ts';
import type { TriggerOrder } from './triggers.ts';

export type Side = 'B' | 'A';

export interface FillRecord {
  readonly coin: string;
  readonly px: string;
  readonly sz: string;
  readonly side: Side;
  readonly time: number;
  readonly startPosition: string;
  readonly dir: string;
  readonly closedPnl: string;
  readonly hash: string;
  readonly oid: number;
  readonly crossed: boolean;
  readonly fee: string;
  readonly feeToken: string;
  readonly tid: number;
  readonly cloid?: string;
  /** The builder's share of `fee` (Hyperliquid's), present only when the order named a builder and it is > 0. */
  readonly builderFee?: string;
  /** Set on fills of liquidations (Hyperliquid's shape). */
  readonly liquidation?: { readonly liquidatedUser: string; readonly markPx: string; readonly method: 'market' | 'backstop' | 'adl' };
}

/** A funding payment of one position (Hyperliquid's `userFunding` delta). */
export interface FundingRecord {
  readonly time: number;
  readonly coin: string;
  /** Signed USDC: negative when the user paid. */
  readonly usdc: string;
  readonly szi: string;
  readonly fundingRate: string;
}

/** A market's funding rate for one interval (`fundingHistory`). */
export interface FundingRateRecord {
  readonly coin: string;
  readonly fundingRate: string;
  readonly premium: string;
  readonly time: number;
}

export interface LiquidationRecord {
  readonly time: number;
  readonly user: string;
  /** Cross liquidations close every cross position; isolated ones one position. */
  readonly leverageType: 'cross' | 'isolated';
  /** Account value and maintenance margin when it was found under water (USDC; for an isolated position, its own). */
  readonly accountValue: string;
  readonly maintenanceMargin: string;
  readonly liquidatedPositions: { readonly coin: string; readonly szi: string }[];
  /** Who took the positions, joined by `+` in this order: the book (`market`), the backstop, auto-deleveraging (`adl`). */
  readonly method: string;
  /** Loss beyond the account's collateral, covered by the backstop's insurance (USDC). */
  readonly deficit: string;
}

/**
 * A change of a user's USDC outside trading and funding, as Hyperliquid's
 * `userNonFundingLedgerUpdates` delta: a bridge deposit credited, a withdrawal requested (its
 * amount and fee leave the account), a withdrawal refunded after its deadline.
 */
export interface LedgerRecord {
  readonly time: number;
  /** The transaction that made the change (for a deposit, its hash on the source chain). */
  readonly hash: string;
  readonly delta:
    | { readonly type: 'deposit'; readonly usdc: string; readonly chainId: number }
    | { readonly type: 'withdraw'; readonly usdc: string; readonly fee: string; readonly withdrawalId: string; readonly chainId: number }
    | { readonly type: 'withdrawRefund'; readonly usdc: string; readonly withdrawalId: string; readonly chainId: number };
}

export type OrderType = 'Limit' | 'Stop Market' | 'Stop Limit' | 'Take Profit Market' | 'Take Profit Limit';

export interface OrderView {
  readonly coin: string;
  readonly side: Side;
  readonly limitPx: string;
  readonly sz: string;
  readonly oid: number;
  readonly timestamp: number;
  readonly origSz: string;
  readonly cloid: string | null;
  readonly reduceOnly: boolean;
  readonly orderType: OrderType;
  readonly tif: string | null;
  readonly isTrigger: boolean;
  readonly triggerCondition: string;
  readonly triggerPx: string;
  readonly isPositionTpsl: boolean;
  readonly children: readonly OrderView[];
}

/** Order statuses (Hyperliquid's names) that this engine produces. */
export type OrderStatus =
  | 'open'
  | 'filled'
  | 'canceled'
  | 'triggered'
  | 'rejected'
  | 'selfTradeCanceled'
  | 'reduceOnlyCanceled'
  | 'siblingFilledCanceled'
  | 'iocCancelRejected'
  | 'liquidatedCanceled'
  | 'scheduledCancel';

export type ExchangeEvent =
  | { readonly kind: 'fill'; readonly user: Address; readonly fill: FillRecord }
  | {
      readonly kind: 'order';
      readonly user: Address;
      readonly status: OrderStatus;
      readonly statusTimestamp: number;
      readonly order: OrderView;
    }
  | { readonly kind: 'funding'; readonly user: Address; readonly funding: FundingRecord }
  | { readonly kind: 'fundingRate'; readonly rate: FundingRateRecord }
  | { readonly kind: 'liquidation'; readonly user: Address; readonly liquidation: LiquidationRecord }
  | { readonly kind: 'ledger'; readonly user: Address; readonly ledger: LedgerRecord };

/** The placeholder that gives the list its one slot (popped at once: never an event of any list). */
const ROOM: ExchangeEvent = { kind: 'fundingRate', rate: { coin: '', fundingRate: '0', premium: '0', time: 0 } };

/**
 * An empty list for a transaction's events with room for one: most transactions emit one, and
 * `[]` grows to 17 slots on its first push (184 B in all against 56 B).
 */
export function newEventList(): ExchangeEvent[] {
  const list: ExchangeEvent[] = [ROOM];
  list.pop();
  return list;
}

/** The fields a limit order's view is made of: a resting BookOrder, or a taker that did not rest. */
export type LimitFields = Pick<BookOrder, 'oid' | 'isBuy' | 'px' | 'sz' | 'origSz' | 'timestamp' | 'cloid' | 'reduceOnly' | 'tif'>;

/** Views never carry children here: one shared, frozen empty list (an allocation less per event). */
const NO_CHILDREN: readonly OrderView[] = Object.freeze([]);

/** `limitPx`: the price formatted, when the caller has it at hand. */
export function bookOrderView(m: Market, o: LimitFields, limitPx = formatScaled(o.px, m.pxDecimals)): OrderView {
  const sz = m.szText.format(o.sz);
  return {
    coin: m.name,
    side: o.isBuy ? 'B' : 'A',
    limitPx,
    sz,
    oid: o.oid,
    timestamp: o.timestamp,
    origSz: o.origSz === o.sz ? sz : m.szText.format(o.origSz),
    cloid: o.cloid,
    reduceOnly: o.reduceOnly,
    orderType: 'Limit',
    tif: TIF_NAMES[o.tif],
    isTrigger: false,
    triggerCondition: 'N/A',
    triggerPx: '0',
    isPositionTpsl: false,
    children: NO_CHILDREN,
  };
}

export function triggerOrderView(m: Market, t: TriggerOrder): OrderView {
  const fireAbove = t.isBuy === (t.tpsl === 'sl');
  const px = formatScaled(t.triggerPx, m.pxDecimals);
  const kind = t.tpsl === 'tp' ? 'Take Profit' : 'Stop';
  return {
    coin: m.name,
    side: t.isBuy ? 'B' : 'A',
    limitPx: formatScaled(t.limitPx, m.pxDecimals),
    sz: formatScaled(t.sz, m.szDecimals),
    oid: t.oid,
    timestamp: t.timestamp,
    origSz: formatScaled(t.sz, m.szDecimals),
    cloid: t.cloid,
    reduceOnly: t.reduceOnly,
    orderType: `${kind} ${t.isMarket ? 'Market' : 'Limit'}`,
    tif: null,
    isTrigger: true,
    triggerCondition: `Price ${fireAbove ? 'above' : 'below'} ${px}`,
    triggerPx: px,
    isPositionTpsl: t.grouping === 'positionTpsl',
    children: NO_CHILDREN,
  };
}
