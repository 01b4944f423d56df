// What executing a transaction emits besides its result: fills and order status changes.
// Shapes follow Hyperliquid's `userFills` and `orderStatus`/`orderUpdates` records.
import { formatScaled, type Address } from '../primitives/index.ts';
import type { RestingOrder } from './book.ts';
import type { PerpMarket } from './state.ts';

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
  readonly orderType: 'Limit';
  readonly tif: string;
  readonly isTrigger: false;
  readonly triggerCondition: 'N/A';
  readonly triggerPx: '0';
  readonly isPositionTpsl: false;
  readonly children: [];
}

/** Order statuses of Hyperliquid's `orderStatus` that this engine produces. */
export type OrderStatus = 'open' | 'filled' | 'canceled' | 'selfTradeCanceled' | 'reduceOnlyCanceled' | 'iocCancelRejected';

export type ExchangeEvent =
  | { readonly kind: 'fill'; readonly user: Address; readonly fill: FillRecord }
  | {
      readonly kind: 'order';
      readonly user: Address;
      readonly status: OrderStatus;
      readonly statusTimestamp: number;
      readonly order: OrderView;
    };

export function orderView(market: PerpMarket, o: RestingOrder): OrderView {
  const sz = market.config.szDecimals;
  return {
    coin: market.config.name,
    side: o.isBuy ? 'B' : 'A',
    limitPx: formatScaled(o.px, market.pxDecimals),
    sz: formatScaled(o.sz, sz),
    oid: o.oid,
    timestamp: o.timestamp,
    origSz: formatScaled(o.origSz, sz),
    cloid: o.cloid,
    reduceOnly: o.reduceOnly,
    orderType: 'Limit',
    tif: o.tif,
    isTrigger: false,
    triggerCondition: 'N/A',
    triggerPx: '0',
    isPositionTpsl: false,
    children: [],
  };
}
