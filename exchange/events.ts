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
  readonly children: OrderView[];
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
  | 'iocCancelRejected';

export type ExchangeEvent =
  | { readonly kind: 'fill'; readonly user: Address; readonly fill: FillRecord }
  | {
      readonly kind: 'order';
      readonly user: Address;
      readonly status: OrderStatus;
      readonly statusTimestamp: number;
      readonly order: OrderView;
    };

export function bookOrderView(m: Market, o: BookOrder): OrderView {
  return {
    coin: m.name,
    side: o.isBuy ? 'B' : 'A',
    limitPx: formatScaled(o.px, m.pxDecimals),
    sz: formatScaled(o.sz, m.szDecimals),
    oid: o.oid,
    timestamp: o.timestamp,
    origSz: formatScaled(o.origSz, m.szDecimals),
    cloid: o.cloid,
    reduceOnly: o.reduceOnly,
    orderType: 'Limit',
    tif: TIF_NAMES[o.tif],
    isTrigger: false,
    triggerCondition: 'N/A',
    triggerPx: '0',
    isPositionTpsl: false,
    children: [],
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
    children: [],
  };
}
