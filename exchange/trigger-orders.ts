// Trigger (TP/SL) orders: placement, and their execution when the mark price crosses the trigger
// (checked at the end of every block, in market then oid order).
import { closableLots, type Account } from './account.ts';
import type { Grouping, OrderBuilder, OrderRequest } from './actions.ts';
import { TIF_GTC, TIF_IOC } from './engine/book-order.ts';
import { REJECT_MIN_SIZE } from './engine/matching-engine.ts';
import { exchangeError, type ExchangeError } from './errors.ts';
import type { PerpMarket } from './markets.ts';
import { accountOf, emitTrigger, type OrderStatusResult, type TxContext } from './order-context.ts';
import { isExchangeError, parsePrice } from './order-rules.ts';
import { engineReject, parseOrderNumbers, submitLimit, type LimitSpec } from './limit-orders.ts';
import { isTriggered, type TriggerOrder } from './triggers.ts';

export interface TriggerLinks {
  readonly parent: number | null;
  readonly active: boolean;
}

/** Validates a trigger request into the fields of a trigger order (no oid yet). */
export function parseTrigger(m: PerpMarket, req: OrderRequest, grouping: Grouping): Omit<TriggerOrder, 'oid' | 'owner' | 'timestamp' | 'parent' | 'sibling' | 'active' | 'hash' | 'builder'> | ExchangeError {
  const trig = req.trigger;
  if (trig === null) return exchangeError('INVALID_ACTION', 'not a trigger order');
  const triggerPx = parsePrice(trig.triggerPx, m.pxDecimals);
  if (isExchangeError(triggerPx)) return triggerPx;
  // A position TP/SL is sized to the position when it fires: its `s` is not read.
  const positionSized = grouping === 'positionTpsl';
  const nums = parseOrderNumbers(m, req.px, positionSized ? '1' : req.sz);
  if (isExchangeError(nums)) return nums;
  for (const px of [triggerPx, nums.px]) {
    const code = m.engine.checkPrice(px);
    if (code !== 0) return engineReject(code, m, req.isBuy, px, nums.sz);
  }
  if (!positionSized && nums.sz < m.minSz) return engineReject(REJECT_MIN_SIZE, m, req.isBuy, nums.px, nums.sz);
  return {
    isBuy: req.isBuy,
    triggerPx,
    limitPx: nums.px,
    isMarket: trig.isMarket,
    tpsl: trig.tpsl,
    sz: positionSized ? 0 : nums.sz,
    // TP/SL legs of a group only ever close.
    reduceOnly: grouping !== 'na' || req.reduceOnly,
    cloid: req.cloid,
    grouping,
  };
}

export function placeTrigger(ctx: TxContext, acct: Account, m: PerpMarket, req: OrderRequest, grouping: Grouping, links: TriggerLinks, builder: OrderBuilder | null = null): OrderStatusResult {
  const fields = parseTrigger(m, req, grouping);
  if (isExchangeError(fields)) return { error: fields.message };
  const owner = acct.address;
  if (m.engine.openCount(owner) + m.triggers.count(owner) >= ctx.state.config.maxOpenOrdersPerMarket) {
    return { error: exchangeError('MAX_OPEN_ORDERS').message };
  }
  if (fields.cloid !== null && (m.engine.byCloid(owner, fields.cloid) !== undefined || m.triggers.byCloid(owner, fields.cloid) !== undefined)) {
    return { error: exchangeError('DUPLICATE_CLOID').message };
  }
  if (grouping === 'positionTpsl' && closableLots(acct, m.asset, fields.isBuy) === 0) {
    return { error: exchangeError('REDUCE_ONLY_VIOLATED', 'a position TP/SL needs an open position it closes').message };
  }
  const t: TriggerOrder = {
    ...fields,
    oid: ctx.state.ids.nextOid++,
    owner,
    timestamp: ctx.time,
    parent: links.parent,
    sibling: null,
    active: links.active,
    hash: ctx.hash,
    ...(builder === null ? {} : { builder }),
  };
  m.triggers.add(t);
  emitTrigger(ctx, m, t, 'open');
  return { resting: { oid: t.oid, ...(t.cloid === null ? {} : { cloid: t.cloid }) } };
}

/** Rounds a price in units to at most 5 significant figures, toward `up` or down. */
export function toValidPrice(raw: number, pxDecimals: number, up: boolean): number {
  const px = Math.min(Math.max(1, Math.floor(raw)), Math.floor(Number.MAX_SAFE_INTEGER / 10));
  const scale = 10 ** pxDecimals;
  if (px % scale === 0) return px;
  const digits = String(px).length;
  if (digits <= 5) return px;
  const factor = 10 ** (digits - 5);
  const rounded = (up ? Math.ceil(px / factor) : Math.floor(px / factor)) * factor;
  return rounded;
}

/**
 * The limit of a market order crossing at most `bps` through the mark: rounded inward (buys
 * down, sells up) to a valid price, in integer arithmetic. Triggers and liquidations use it.
 */
export function slippedPx(markPx: number, bps: number, isBuy: boolean, pxDecimals: number): number {
  const num = BigInt(markPx) * BigInt(10_000 + (isBuy ? bps : -bps));
  const px = isBuy ? num / 10_000n : (num + 9_999n) / 10_000n;
  return toValidPrice(Number(px), pxDecimals, !isBuy);
}

/** Fires one trigger: removes it (and its sibling), then places what it becomes. */
function fire(ctx: TxContext, m: PerpMarket, t: TriggerOrder, markPx: number): void {
  m.triggers.remove(t.oid);
  emitTrigger(ctx, m, t, 'triggered');
  if (t.sibling !== null) {
    const sibling = m.triggers.remove(t.sibling);
    if (sibling !== undefined) emitTrigger(ctx, m, sibling, 'siblingFilledCanceled');
  }
  const acct = accountOf(ctx.state, t.owner);
  let sz = t.sz === 0 ? Math.abs(acct.positions.get(m.asset)?.szi ?? 0) : t.sz;
  if (t.reduceOnly) sz = Math.min(sz, closableLots(acct, m.asset, t.isBuy));
  if (sz === 0) {
    emitTrigger(ctx, m, t, 'reduceOnlyCanceled');
    return;
  }
  const px = t.isMarket ? slippedPx(markPx, ctx.state.config.triggerSlippageBps, t.isBuy, m.pxDecimals) : t.limitPx;
  const tctx: TxContext = { ...ctx, hash: t.hash };
  const spec: LimitSpec = { oid: t.oid, isBuy: t.isBuy, px: Math.max(px, 1), sz, tif: t.isMarket ? TIF_IOC : TIF_GTC, reduceOnly: t.reduceOnly, cloid: t.cloid, builder: t.builder ?? null };
  const out = submitLimit(tctx, acct, m, spec);
  if (isExchangeError(out)) emitTrigger(ctx, m, { ...t, sz }, 'rejected');
}

/** End-of-block pass: fires every live trigger the mark price has reached. */
export function runTriggers(ctx: TxContext): void {
  for (const m of ctx.state.perps) {
    if (m.triggers.orders.size === 0) continue;
    const pending = [...m.triggers.orders.values()].sort((a, b) => a.oid - b.oid);
    for (const t of pending) {
      if (!t.active || !m.triggers.orders.has(t.oid)) continue;
      const mark = ctx.state.markPx(m);
      if (isTriggered(t, mark)) fire(ctx, m, t, mark);
    }
  }
}
