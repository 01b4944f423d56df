// The order actions: batches (with TP/SL grouping), cancels by oid or cloid, and modify.
import type { Account } from './account.ts';
import type { CancelAction, CancelByCloidAction, OrderAction, OrderBuilder, OrderRequest } from './actions.ts';
import { builderMarketRefusal, builderRefusal } from './builder-fees.ts';
import { exchangeError, type ExchangeError } from './errors.ts';
import type { Market, PerpMarket } from './markets.ts';
import type { OrderStatus } from './events.ts';
import { ERR, emitTrigger, errorResult, orderLeft, type OrderStatusResult, type TxContext } from './order-context.ts';
import { capacityHeld, moveCapacity } from './order-margin.ts';
import { isExchangeError, parseSize } from './order-rules.ts';
import { placeLimitOrder } from './limit-orders.ts';
import { placeTrigger } from './trigger-orders.ts';

export function marketFor(ctx: TxContext, asset: number): Market | ExchangeError {
  const m = ctx.state.market(asset);
  if (m !== undefined) return m;
  return exchangeError('UNKNOWN_ASSET', `${asset}`);
}

function placeOne(ctx: TxContext, acct: Account, req: OrderRequest, builder: OrderBuilder | null): OrderStatusResult {
  const m = marketFor(ctx, req.asset);
  if (isExchangeError(m)) return { error: m.message };
  if (builder !== null) {
    const refused = builderMarketRefusal(m, builder);
    if (refused !== null) return errorResult(refused);
  }
  if (req.trigger === null) return placeLimitOrder(ctx, acct, m, req, builder);
  if (m.kind !== 'perp') return { error: exchangeError('INVALID_ACTION', 'trigger orders are for perpetual markets').message };
  return placeTrigger(ctx, acct, m, req, 'na', { parent: null, active: true }, builder);
}

/** Links two TP/SL legs so that one firing cancels the other. */
function linkSiblings(m: PerpMarket, oids: number[]): void {
  if (oids.length !== 2) return;
  const [a, b] = oids as [number, number];
  const ta = m.triggers.orders.get(a);
  const tb = m.triggers.orders.get(b);
  if (ta !== undefined && tb !== undefined) {
    ta.sibling = b;
    tb.sibling = a;
  }
}

/** TP/SL legs after their parent (`normalTpsl`) or on their own (`positionTpsl`). */
function placeTpsl(ctx: TxContext, acct: Account, action: OrderAction, builder: OrderBuilder | null): OrderStatusResult[] {
  const grouped = action.grouping === 'normalTpsl';
  const [first, ...rest] = action.orders as [OrderRequest, ...OrderRequest[]];
  const legs = grouped ? rest : action.orders;
  const statuses: OrderStatusResult[] = [];
  let parentOid: number | null = null;
  let parentResting = false;
  let parentFilled = Infinity; // lots the parent filled at once; legs are at most that
  if (grouped) {
    if (first.trigger !== null) return action.orders.map(() => ({ error: exchangeError('INVALID_ACTION', 'normalTpsl starts with a limit order').message }));
    const s = placeOne(ctx, acct, first, builder);
    statuses.push(s);
    if ('error' in s) return [s, ...legs.map(() => ({ error: exchangeError('INVALID_ACTION', 'the parent order was rejected').message }))];
    if ('resting' in s) {
      parentOid = s.resting.oid;
      parentResting = true;
    } else {
      parentOid = s.filled.oid; // filled at once (an Ioc perhaps partly): the legs are live at once
      const m0 = ctx.state.market(first.asset);
      const lots = m0 === undefined ? null : parseSize(s.filled.totalSz, m0.szDecimals);
      if (typeof lots === 'number') parentFilled = lots;
    }
  }
  const m = ctx.state.market(legs[0]?.asset ?? -1);
  const placed: number[] = [];
  for (const leg of legs) {
    if (leg.trigger === null || m === undefined || m.kind !== 'perp' || leg.asset !== m.asset || (grouped && leg.asset !== first.asset)) {
      statuses.push({ error: exchangeError('INVALID_ACTION', 'TP/SL legs are trigger orders on the same perpetual market').message });
      continue;
    }
    const refused = builder === null ? null : builderMarketRefusal(m, builder);
    if (refused !== null) {
      statuses.push(errorResult(refused));
      continue;
    }
    const s = placeTrigger(ctx, acct, m, leg, action.grouping, { parent: parentResting ? parentOid : null, active: !parentResting }, builder);
    statuses.push(s);
    if ('resting' in s) {
      placed.push(s.resting.oid);
      const t = m.triggers.orders.get(s.resting.oid);
      if (t !== undefined && grouped && !parentResting && t.sz > parentFilled) t.sz = parentFilled;
    }
  }
  if (m !== undefined && m.kind === 'perp') {
    linkSiblings(m, placed);
    if (parentResting && parentOid !== null && placed.length > 0) ctx.state.tpslChildren.set(parentOid, placed);
  }
  return statuses;
}

export function placeOrders(ctx: TxContext, acct: Account, action: OrderAction): OrderStatusResult[] {
  const builder = action.builder;
  if (builder !== null) {
    // The approval is checked for the whole batch first (Hyperliquid's rule): one error per order.
    const refused = builderRefusal(ctx.state, acct, builder);
    if (refused !== null) return action.orders.map(() => errorResult(refused));
  }
  // A builder paid nothing (f = 0) rides with no order.
  const paid = builder !== null && builder.f > 0 ? builder : null;
  if (action.grouping === 'na') return action.orders.map((o) => placeOne(ctx, acct, o, paid));
  return placeTpsl(ctx, acct, action, paid);
}

/** Cancels an open or trigger order of `acct` on `asset`; `status`: the order's status event. */
function cancelOid(ctx: TxContext, acct: Account, asset: number, oid: number, status: OrderStatus = 'canceled'): 'success' | { error: string } {
  const m = ctx.state.market(asset);
  if (m === undefined) return { error: ERR.notFound().message };
  const o = m.engine.cancel(acct.address, oid);
  if (o !== null) {
    // Closing capacity the order held passes to the owner's later orders on that side.
    const freed = m.kind === 'perp' ? capacityHeld(o) : 0;
    const isBuy = o.isBuy;
    orderLeft(ctx, m, o, status);
    if (freed > 0) moveCapacity(ctx.state, acct, m as PerpMarket, isBuy, freed);
    return 'success';
  }
  if (m.kind === 'perp') {
    const t = m.triggers.orders.get(oid);
    if (t !== undefined && t.owner === acct.address) {
      m.triggers.remove(oid);
      emitTrigger(ctx, m, t, status);
      if (t.sibling !== null) {
        const s = m.triggers.orders.get(t.sibling);
        if (s !== undefined) s.sibling = null;
      }
      return 'success';
    }
  }
  return { error: ERR.notFound().message };
}

export function cancelOrders(ctx: TxContext, acct: Account, action: CancelAction): ('success' | { error: string })[] {
  return action.cancels.map((c) => cancelOid(ctx, acct, c.asset, c.oid));
}

export function cancelOrdersByCloid(ctx: TxContext, acct: Account, action: CancelByCloidAction): ('success' | { error: string })[] {
  return action.cancels.map((c) => {
    const m = ctx.state.market(c.asset);
    const oid = m?.engine.byCloid(acct.address, c.cloid)?.oid ?? (m?.kind === 'perp' ? m.triggers.byCloid(acct.address, c.cloid)?.oid : undefined);
    return oid === undefined ? { error: ERR.notFound().message } : cancelOid(ctx, acct, c.asset, oid);
  });
}

/**
 * Cancels every open order of `acct`, trigger then book orders, market by market in asset order,
 * each in oid order, with `status` (a scheduled cancel).
 */
export function cancelAllOrders(ctx: TxContext, acct: Account, status: OrderStatus): void {
  for (const m of ctx.state.markets) {
    // Trigger orders first: a `normalTpsl` parent cancelled later finds its legs gone already,
    // so every one of them gets `status` too.
    if (m.kind === 'perp' && m.triggers.count(acct.address) > 0) {
      const triggers = [...m.triggers.ofOwner(acct.address)].map((t) => t.oid);
      for (const oid of triggers) cancelOid(ctx, acct, m.asset, oid, status);
    }
    const oids: number[] = [];
    for (let o = m.engine.ownerHead(acct.address); o !== null; o = o.ownerNext) oids.push(o.oid);
    oids.sort((a, b) => a - b);
    for (const oid of oids) cancelOid(ctx, acct, m.asset, oid, status);
  }
}
