// What order handling shares: the transaction context, status events, and the bookkeeping when
// an order leaves the book (reserve released, TP/SL children activated or dropped).
import { formatScaled } from '../primitives/index.ts';
import type { Account } from './account.ts';
import type { BookOrder } from './engine/book-order.ts';
import { exchangeError, type ExchangeError } from './errors.ts';
import { bookOrderView, triggerOrderView, type ExchangeEvent, type OrderStatus } from './events.ts';
import type { Market, PerpMarket } from './markets.ts';
import type { ExchangeState } from './state.ts';
import type { TriggerOrder } from './triggers.ts';

export interface TxContext {
  readonly state: ExchangeState;
  /** Hash of the transaction being executed; fills carry it. */
  readonly hash: string;
  readonly time: number;
  readonly events: ExchangeEvent[];
}

export type OrderStatusResult =
  | { resting: { oid: number; cloid?: string } }
  | { filled: { totalSz: string; avgPx: string; oid: number; cloid?: string } }
  | { error: string };

export function errorResult(e: ExchangeError): { error: string } {
  return { error: e.message };
}

export function accountOf(state: ExchangeState, owner: string): Account {
  const acct = state.accounts.get(owner);
  if (acct === undefined) throw new Error(`invariant: order owner ${owner} has no account`);
  return acct;
}

export function emitBookOrder(ctx: TxContext, m: Market, o: BookOrder, status: OrderStatus): void {
  // A resting order's price is its level's: formatted once per level, not once per order.
  const level = o.level;
  const view = level === null ? bookOrderView(m, o) : bookOrderView(m, o, (level.text ??= formatScaled(o.px, m.pxDecimals)));
  ctx.events.push({ kind: 'order', user: o.owner, status, statusTimestamp: ctx.time, order: view });
}

export function emitTrigger(ctx: TxContext, m: Market, t: TriggerOrder, status: OrderStatus): void {
  ctx.events.push({ kind: 'order', user: t.owner, status, statusTimestamp: ctx.time, order: triggerOrderView(m, t) });
}

/**
 * An order left the book (cancelled, or filled as a maker): release its reserve, say so, and
 * settle its `normalTpsl` children. The engine has already taken it out.
 */
export function orderLeft(ctx: TxContext, m: Market, o: BookOrder, status: OrderStatus): void {
  accountOf(ctx.state, o.owner).releaseOrder(o);
  if (ctx.state.orderBuilders.size !== 0) ctx.state.orderBuilders.delete(o.oid);
  emitBookOrder(ctx, m, o, status);
  if (m.kind === 'perp') parentDone(ctx, m, o.oid, o.origSz - o.sz);
}

/**
 * A `normalTpsl` parent is done with `filled` lots: its children become live, sized to at most
 * what filled, or are cancelled when nothing did.
 */
export function parentDone(ctx: TxContext, m: PerpMarket, parentOid: number, filled: number): void {
  const children = ctx.state.tpslChildren.get(parentOid);
  if (children === undefined) return;
  ctx.state.tpslChildren.delete(parentOid);
  for (const oid of children) {
    const t = m.triggers.orders.get(oid);
    if (t === undefined) continue;
    if (filled > 0) {
      t.active = true;
      t.parent = null;
      t.sz = Math.min(t.sz, filled);
    } else {
      m.triggers.remove(oid);
      emitTrigger(ctx, m, t, 'canceled');
    }
  }
}

export const ERR = {
  reduceOnly: () => exchangeError('REDUCE_ONLY_VIOLATED'),
  margin: () => exchangeError('INSUFFICIENT_MARGIN'),
  notFound: () => exchangeError('ORDER_NOT_FOUND'),
};
