// `modify`: change an open order in place where the spec keeps its queue priority (the size
// decreases at the same price, or the price improves without crossing), otherwise re-queue it
// at the back under the same oid. All or nothing: a modification that fails leaves the order.
import type { Account } from './account.ts';
import type { ModifyAction } from './actions.ts';
import type { BookOrder } from './engine/book-order.ts';
import { REJECT_MIN_SIZE } from './engine/matching-engine.ts';
import { exchangeError, type ExchangeError } from './errors.ts';
import type { Market, PerpMarket } from './markets.ts';
import { ERR, emitBookOrder, emitTrigger, parentDone, type OrderStatusResult, type TxContext } from './order-context.ts';
import { capacityHeld, recomputeOrderMargins, reserveNewest } from './order-margin.ts';
import { isExchangeError } from './order-rules.ts';
import { TIF_CODES, engineReject, limitStatus, parseOrderNumbers, submitLimit } from './limit-orders.ts';
import { parseTrigger } from './trigger-orders.ts';
import type { TriggerOrder } from './triggers.ts';

function findTarget(m: Market, owner: string, id: number | string): { book?: BookOrder; trigger?: TriggerOrder } {
  if (typeof id === 'number') {
    const book = m.engine.orders.get(id);
    if (book !== undefined && book.owner === owner) return { book };
    const trigger = m.kind === 'perp' ? m.triggers.orders.get(id) : undefined;
    return trigger !== undefined && trigger.owner === owner ? { trigger } : {};
  }
  const book = m.engine.byCloid(owner, id);
  if (book !== undefined) return { book };
  const trigger = m.kind === 'perp' ? m.triggers.byCloid(owner, id) : undefined;
  return trigger === undefined ? {} : { trigger };
}

/** One modification: the order to change (oid or cloid) and its new version. */
export type Modification = Pick<ModifyAction, 'oid' | 'order'>;

/** The order's status once modified: it rests (book or trigger order), or it filled. */
export type ModifiedStatus = Exclude<OrderStatusResult, { error: string }>;

function resting(oid: number, cloid: string | null): ModifiedStatus {
  return cloid === null ? { resting: { oid } } : { resting: { oid, cloid } };
}

function modifyTrigger(ctx: TxContext, m: PerpMarket, t: TriggerOrder, action: Modification): ExchangeError | ModifiedStatus {
  const fields = parseTrigger(m, action.order, t.grouping);
  if (isExchangeError(fields)) return fields;
  if (fields.cloid !== null && fields.cloid !== t.cloid && (m.engine.byCloid(t.owner, fields.cloid) !== undefined || m.triggers.byCloid(t.owner, fields.cloid) !== undefined)) {
    return exchangeError('DUPLICATE_CLOID');
  }
  Object.assign(t, fields, { timestamp: ctx.time });
  emitTrigger(ctx, m, t, 'open');
  return resting(t.oid, t.cloid);
}

/** `modify`: null when done (its response is `{type: "default"}`), else why not. */
export function modifyOrder(ctx: TxContext, acct: Account, action: ModifyAction): ExchangeError | null {
  const out = modifyOrderStatus(ctx, acct, action);
  return 'code' in out ? out : null;
}

/** Modifies one order; what `batchModify` reports for it: the order's status, or why it was not modified. */
export function modifyOrderStatus(ctx: TxContext, acct: Account, action: Modification): ExchangeError | ModifiedStatus {
  const req = action.order;
  const m = ctx.state.market(req.asset);
  if (m === undefined) return exchangeError('UNKNOWN_ASSET', `${req.asset}`);
  const { book: o, trigger } = findTarget(m, acct.address, action.oid);
  if (trigger !== undefined) {
    if (req.trigger === null) return exchangeError('INVALID_ACTION', 'a trigger order stays a trigger order');
    return modifyTrigger(ctx, m as PerpMarket, trigger, action);
  }
  if (o === undefined) return ERR.notFound();
  if (req.trigger !== null) return exchangeError('INVALID_ACTION', 'a limit order stays a limit order');
  const nums = parseOrderNumbers(m, req.px, req.sz);
  if (isExchangeError(nums)) return nums;
  const priceCode = m.engine.checkPrice(nums.px);
  if (priceCode !== 0) return engineReject(priceCode, m, req.isBuy, nums.px, nums.sz);
  if (nums.sz < m.minSz) return engineReject(REJECT_MIN_SIZE, m, req.isBuy, nums.px, nums.sz);
  const tif = TIF_CODES[req.tif ?? 'Gtc'];
  if (req.cloid !== null && req.cloid !== o.cloid && m.kind === 'perp' && m.triggers.byCloid(acct.address, req.cloid) !== undefined) {
    return exchangeError('DUPLICATE_CLOID');
  }
  const sameOrder = req.isBuy === o.isBuy && tif === o.tif && req.reduceOnly === o.reduceOnly && req.cloid === o.cloid;
  const bestOpp = m.engine.side(!req.isBuy).bestPx();
  const crosses = bestOpp !== undefined && (req.isBuy ? nums.px >= bestOpp : nums.px <= bestOpp);

  if (sameOrder && nums.px === o.px && nums.sz <= o.sz) {
    // Smaller at the same price: in place, priority kept; the reserve shrinks in proportion.
    const before = o.sz;
    if (nums.sz < before) {
      m.engine.shrink(o, before - nums.sz);
      // Lots it held of the closing capacity pass to later orders; else only its own reserve shrinks.
      if (m.kind === 'perp') {
        if (capacityHeld(o) > 0) recomputeOrderMargins(ctx.state, acct, m);
        else reserveNewest(ctx.state, acct, m, o);
      }
      const held = acct.holds.get(o.oid)?.amount;
      if (held !== undefined) acct.releaseHold(o.oid, (held * BigInt(before - nums.sz)) / BigInt(before));
    }
    o.timestamp = ctx.time;
    emitBookOrder(ctx, m, o, 'open');
    return resting(o.oid, o.cloid);
  }
  // Otherwise take it out, and place the new version (keeping its priority when the price only
  // improved without crossing); put the old one back if the new one is refused.
  const old = { isBuy: o.isBuy, px: o.px, sz: o.sz, origSz: o.origSz, seq: o.seq, tif: o.tif, reduceOnly: o.reduceOnly, cloid: o.cloid, timestamp: o.timestamp };
  const improves = sameOrder && !crosses && nums.sz <= o.sz && (o.isBuy ? nums.px > o.px : nums.px < o.px);
  const oid = o.oid;
  // Copy the hold: releasing the order zeroes the Hold object itself.
  const hold = acct.holds.get(oid);
  const held = hold === undefined ? null : { token: hold.token, amount: hold.amount };
  const reshare = m.kind === 'perp' && capacityHeld(o) > 0;
  // The order keeps its builder: the new version pays it (and rests with it).
  const builder = ctx.state.orderBuilders.get(oid) ?? null;
  if (builder !== null) ctx.state.orderBuilders.delete(oid);
  acct.releaseOrder(m.engine.cancel(acct.address, oid) as BookOrder); // it rests (found above)
  const spec = { oid, isBuy: req.isBuy, px: nums.px, sz: nums.sz, tif, reduceOnly: req.reduceOnly, cloid: req.cloid, reshare, builder, ...(improves ? { seq: old.seq } : {}) };
  const out = submitLimit(ctx, acct, m, spec, true);
  if (!isExchangeError(out)) {
    const status = limitStatus(m, oid, req.cloid, out) as ModifiedStatus; // read `out` before anything places again
    // A TP/SL parent that traded and no longer rests is done: its legs go live.
    if (m.kind === 'perp' && !m.engine.orders.has(oid)) parentDone(ctx, m, oid, old.origSz - old.sz + out.filledLots);
    return status;
  }
  // The new version did not trade (an Ioc that met nothing, or only the owner's own orders,
  // which self-trade prevention cancelled): the old order goes back as it was.
  m.engine.restore(oid, acct.address, old.isBuy, old.px, old.sz, old.origSz, old.seq, old.tif, old.reduceOnly, old.cloid, old.timestamp);
  if (builder !== null) ctx.state.orderBuilders.set(oid, builder);
  if (m.kind === 'perp') recomputeOrderMargins(ctx.state, acct, m);
  else if (held !== null) acct.hold(oid, held.token, held.amount);
  return out;
}
