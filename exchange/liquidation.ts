// Liquidations, checked at the end of every block at mark prices: an account whose value fell
// below its maintenance margin loses its resting perp orders, then its positions are closed by
// reduce-only market orders through the book; what the book cannot absorb the backstop account
// takes over at the mark price, and a loss beyond the account's collateral is covered from the
// backstop's USDC (the insurance). Every step is a recorded event.
import { formatScaled } from '../primitives/index.ts';
import { applyFill, closableLots, type Account } from './account.ts';
import { USD_DECIMALS } from './config.ts';
import { TIF_IOC } from './engine/book-order.ts';
import type { Fill } from './engine/matching-engine.ts';
import { marginFigures } from './margin.ts';
import type { PerpMarket } from './markets.ts';
import { emitTrigger, orderLeft, type TxContext } from './order-context.ts';
import { isExchangeError } from './order-rules.ts';
import { submitLimit } from './limit-orders.ts';
import { trackHolder } from './settlement.ts';
import { afterPositionChange } from './reduce-only.ts';
import { toValidPrice } from './trigger-orders.ts';

/** Fills of liquidations carry no transaction: this hash marks them. */
export const LIQUIDATION_HASH = `0x${'0'.repeat(64)}`;

function underwater(ctx: TxContext, acct: Account): boolean {
  if (acct.positions.size === 0) return false;
  const f = marginFigures(ctx.state, acct);
  return f.accountValue < f.maintenanceMargin;
}

function cancelEverything(ctx: TxContext, acct: Account): void {
  for (const m of ctx.state.perps) {
    for (const o of [...m.engine.ownerOrders(acct.address)].sort((a, b) => a.oid - b.oid)) {
      const gone = m.engine.cancel(acct.address, o.oid);
      if (gone !== null) orderLeft(ctx, m, gone, 'liquidatedCanceled');
    }
    for (const t of [...m.triggers.ofOwner(acct.address)]) {
      m.triggers.remove(t.oid);
      emitTrigger(ctx, m, t, 'liquidatedCanceled');
    }
  }
}

/** Closes what it can of a position through the book with a reduce-only market order. */
function closeThroughBook(ctx: TxContext, acct: Account, m: PerpMarket): void {
  const pos = acct.positions.get(m.asset);
  if (pos === undefined) return;
  const isBuy = pos.szi < 0;
  const mark = ctx.state.markPx(m);
  const slip = ctx.state.config.clearinghouse.liquidationSlippageBps;
  const px = toValidPrice(Math.max(1, Math.floor((mark * (10_000 + (isBuy ? slip : -slip))) / 10_000)), m.pxDecimals, !isBuy);
  const oid = ctx.state.ids.nextOid;
  const out = submitLimit(ctx, acct, m, { oid, isBuy, px, sz: Math.abs(pos.szi), tif: TIF_IOC, reduceOnly: true, cloid: null });
  if (isExchangeError(out)) return; // nothing to trade against: the backstop takes it all
}

/** The backstop account takes the rest of the position at the mark, without fees. */
function backstopTakeover(ctx: TxContext, acct: Account, m: PerpMarket): boolean {
  const pos = acct.positions.get(m.asset);
  if (pos === undefined) return false;
  const { state } = ctx;
  const backstop = state.accounts.get(state.config.clearinghouse.backstop);
  if (backstop === undefined) return false;
  const lots = Math.abs(pos.szi);
  const mark = state.markPx(m);
  const ntl = state.notional(m, mark, lots);
  const isBuy = pos.szi < 0; // the liquidated side's trade
  const tid = state.ids.nextTid++;
  const fill = { tid, sz: lots, px: mark } as Fill;
  const liquidation = { liquidatedUser: acct.address, markPx: formatScaled(mark, m.pxDecimals), method: 'backstop' as const };
  for (const [who, buy] of [[acct, isBuy], [backstop, !isBuy]] as const) {
    const change = applyFill(who, m.asset, buy, lots, ntl);
    trackHolder(m, who);
    ctx.events.push({
      kind: 'fill',
      user: who.address,
      fill: {
        coin: m.name,
        px: formatScaled(mark, m.pxDecimals),
        sz: formatScaled(lots, m.szDecimals),
        side: buy ? 'B' : 'A',
        time: ctx.time,
        startPosition: formatScaled(change.startPosition, m.szDecimals),
        dir: change.dir,
        closedPnl: formatScaled(change.closedPnl, USD_DECIMALS),
        hash: LIQUIDATION_HASH,
        oid: 0,
        crossed: who === acct,
        fee: '0',
        feeToken: 'USDC',
        tid: fill.tid,
        liquidation,
      },
    });
  }
  afterPositionChange(ctx, m, backstop.address);
  return true;
}

function liquidate(ctx: TxContext, acct: Account): void {
  const { state } = ctx;
  const before = marginFigures(state, acct);
  const positions = [...acct.positions.entries()].sort(([a], [b]) => a - b).map(([asset, p]) => {
    const m = state.perps[asset] as PerpMarket;
    return { coin: m.name, szi: formatScaled(p.szi, m.szDecimals) };
  });
  cancelEverything(ctx, acct);
  const liqCtx: TxContext = { ...ctx, hash: LIQUIDATION_HASH };
  let viaBook = false;
  let viaBackstop = false;
  for (const m of state.perps) {
    if (!acct.positions.has(m.asset)) continue;
    const szBefore = acct.positions.get(m.asset)?.szi ?? 0;
    closeThroughBook(liqCtx, acct, m);
    if ((acct.positions.get(m.asset)?.szi ?? 0) !== szBefore) viaBook = true;
    if (closableLots(acct, m.asset, szBefore < 0) > 0 && backstopTakeover(liqCtx, acct, m)) viaBackstop = true;
  }
  // A loss beyond the collateral is the insurance's: the backstop pays it.
  let deficit = 0n;
  if (acct.positions.size === 0 && acct.usdc < 0n) {
    deficit = -acct.usdc;
    const backstop = state.accounts.get(state.config.clearinghouse.backstop);
    if (backstop !== undefined) {
      backstop.usdc -= deficit;
      acct.usdc = 0n;
    }
  }
  ctx.events.push({
    kind: 'liquidation',
    user: acct.address,
    liquidation: {
      time: ctx.time,
      user: acct.address,
      accountValue: formatScaled(before.accountValue, USD_DECIMALS),
      maintenanceMargin: formatScaled(before.maintenanceMargin, USD_DECIMALS),
      liquidatedPositions: positions,
      method: viaBook && viaBackstop ? 'market+backstop' : viaBackstop ? 'backstop' : 'market',
      deficit: formatScaled(deficit, USD_DECIMALS),
    },
  });
}

/** End-of-block sweep over every account holding a position, in address order. */
export function runLiquidations(ctx: TxContext): void {
  const { state } = ctx;
  const holders = new Set<string>();
  for (const m of state.perps) for (const h of m.holders) holders.add(h);
  holders.delete(state.config.clearinghouse.backstop);
  for (const user of [...holders].sort()) {
    const acct = state.accounts.get(user);
    if (acct !== undefined && underwater(ctx, acct)) liquidate(ctx, acct);
  }
}
