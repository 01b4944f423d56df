// Liquidations, checked at the end of blocks at mark prices: an account whose cross value fell
// below its cross maintenance margin loses its resting perp orders, then its cross positions are
// closed by reduce-only market orders through the book; what the book cannot absorb the backstop
// account takes over at the mark price, and a loss beyond the account's collateral is covered
// from the backstop's USDC (the insurance). An isolated position whose margin plus unrealized
// PnL fell below its own maintenance margin is liquidated alone, the same way, and its loss is
// capped at its margin. Every step is a recorded event.
import { formatScaled } from '../primitives/index.ts';
import {
  SCREEN_ASSET, SCREEN_ENTRY, SCREEN_POSITIONS, SCREEN_RECORD, SCREEN_SZI, SCREEN_USDC,
  applyFill, closableLots, unrealizedPnl, type Account, type Position,
} from './account.ts';
import { USD_DECIMALS } from './config.ts';
import { TIF_IOC } from './engine/book-order.ts';
import { availableMargin, crossAccountValue, crossAccountValueNum, crossMaintenanceNum, isolatedFigures, marginFigures } from './margin.ts';
import { newOrderMargin } from './order-margin.ts';
import type { PerpMarket } from './markets.ts';
import { emitTrigger, orderLeft, type TxContext } from './order-context.ts';
import type { FillRecord } from './events.ts';
import { isExchangeError } from './order-rules.ts';
import { submitLimit } from './limit-orders.ts';
import { trackHolder } from './settlement.ts';
import { afterPositionChange } from './reduce-only.ts';
import { slippedPx } from './trigger-orders.ts';
import type { ExchangeState } from './state.ts';

/** Fills of liquidations carry no transaction: this hash marks them. */
export const LIQUIDATION_HASH = `0x${'0'.repeat(64)}`;

/**
 * The account's cross value and maintenance margin when its cross positions are below maintenance
 * margin, else null: on safe integers when the figures are small enough (`crossMaintenanceNum`,
 * exact), else on bigints.
 */
function crossUnderwater(ctx: TxContext, acct: Account, marks: readonly number[]): { accountValue: bigint; maintenanceMargin: bigint } | null {
  const n = crossMaintenanceNum(ctx.state, acct, marks);
  if (n !== null) return n.ntl > 0 && n.value < n.maintenance ? { accountValue: BigInt(n.value), maintenanceMargin: BigInt(n.maintenance) } : null;
  const f = marginFigures(ctx.state, acct, marks);
  return f.totalNtlPos > 0n && f.accountValue < f.maintenanceMargin ? f : null;
}

/**
 * A cheap screen before the exact (bigint) check: true only when the cross account and every
 * isolated position are clear of their maintenance margin by a wide slack (0.1% and 0.01 USDC),
 * computed in doubles. Doubles are exact up to 2^53 and their rounding is far inside the slack,
 * and every machine computes the same doubles, so the screen never changes an outcome: accounts
 * near the line go to the exact check. It keeps the sweep over many accounts from being bigint
 * arithmetic throughout.
 */
function clearlySafe(ctx: TxContext, acct: Account, marks: readonly number[], perUnit: readonly number[], mmRate: readonly number[]): boolean {
  const { state } = ctx;
  // The account's figures as doubles (`Account.screen`), in the positions' order.
  const s = acct.screen;
  let value = s[SCREEN_USDC] as number;
  let maintenance = 0;
  for (let i = SCREEN_POSITIONS; i < s.length; i += SCREEN_RECORD) {
    const asset = s[i + SCREEN_ASSET] as number;
    const m = state.perps[asset];
    if (m === undefined) return false;
    const szi = s[i + SCREEN_SZI] as number;
    const ntl = Math.abs(szi) * (marks[asset] as number) * (perUnit[asset] as number);
    const entry = s[i + SCREEN_ENTRY] as number;
    const upnl = szi > 0 ? ntl - entry : entry - ntl;
    const mm = ntl * (mmRate[asset] as number);
    if (state.isIsolated(acct, m)) {
      if (!(Number((acct.positions.get(asset) as Position).margin) + upnl > mm * 1.001 + 1_000_000)) return false;
      continue;
    }
    value += upnl;
    maintenance += mm;
  }
  return value > maintenance * 1.001 + 1_000_000;
}

/** Cancels the account's perp and trigger orders in `markets`. */
function cancelOrders(ctx: TxContext, acct: Account, markets: readonly PerpMarket[]): void {
  for (const m of markets) {
    if (m.engine.openCount(acct.address) === 0 && m.triggers.count(acct.address) === 0) continue;
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
  if (m.engine.side(!isBuy).bestPx() === undefined) return; // nothing to trade against
  const px = slippedPx(ctx.state.markPx(m), ctx.state.config.clearinghouse.liquidationSlippageBps, isBuy, m.pxDecimals);
  const oid = ctx.state.ids.nextOid;
  const out = submitLimit(ctx, acct, m, { oid, isBuy, px, sz: Math.abs(pos.szi), tif: TIF_IOC, reduceOnly: true, cloid: null });
  if (isExchangeError(out)) return; // nothing to trade against: the backstop takes it all
}

/**
 * Moves `lots` of the liquidated account's position to `taker` at `px`, without fees: both sides
 * get a fill record marked with the liquidation.
 */
function transferPosition(ctx: TxContext, sweep: Sweep, acct: Account, taker: Account, m: PerpMarket, lots: number, px: number, method: 'backstop' | 'adl'): void {
  const { state } = ctx;
  const pos = acct.positions.get(m.asset);
  if (pos === undefined) return;
  const ntl = state.notional(m, px, lots);
  const isBuy = pos.szi < 0; // the liquidated side's trade
  const tid = state.ids.nextTid++;
  const liquidation = { liquidatedUser: acct.address, markPx: sweep.markText(m), method };
  const pxText = formatScaled(px, m.pxDecimals);
  const szText = formatScaled(lots, m.szDecimals);
  transferSide(ctx, m, acct, isBuy, lots, ntl, tid, pxText, szText, true, liquidation);
  transferSide(ctx, m, taker, !isBuy, lots, ntl, tid, pxText, szText, false, liquidation);
  // The taker's own orders (if it has any) follow its new position.
  if (m.engine.openCount(taker.address) > 0 || m.triggers.count(taker.address) > 0) afterPositionChange(ctx, m, taker.address);
}

function transferSide(
  ctx: TxContext, m: PerpMarket, who: Account, buy: boolean, lots: number, ntl: bigint, tid: number,
  px: string, sz: string, crossed: boolean, liquidation: NonNullable<FillRecord['liquidation']>,
): void {
  const before = who.positions.get(m.asset);
  const change = applyFill(who, m.asset, buy, lots, ntl, ctx.state.isolatedLeverage(who, m));
  if (change.closedPnl !== 0n) who.perpRealized += change.closedPnl;
  trackHolder(ctx.state, m, who, before);
  ctx.events.push({
    kind: 'fill',
    user: who.address,
    fill: {
      coin: m.name,
      px,
      sz,
      side: buy ? 'B' : 'A',
      time: ctx.time,
      startPosition: formatScaled(change.startPosition, m.szDecimals),
      dir: change.dir,
      closedPnl: formatScaled(change.closedPnl, USD_DECIMALS),
      hash: LIQUIDATION_HASH,
      oid: 0,
      crossed,
      fee: '0',
      feeToken: 'USDC',
      tid,
      liquidation,
    },
  });
}

/**
 * The backstop account takes the rest of the position at the mark, if its free collateral
 * carries the initial margin of what it would open; false when it cannot (or there is none).
 */
function backstopTakeover(ctx: TxContext, sweep: Sweep, acct: Account, m: PerpMarket): boolean {
  const pos = acct.positions.get(m.asset);
  if (pos === undefined) return false;
  const { state } = ctx;
  const backstop = sweep.backstop;
  if (backstop === undefined || backstop === acct) return false;
  // Once the backstop refused a side of a market, the rest of the sweep deleverages that side.
  const side = sideKey(m, pos.szi > 0);
  if (sweep.backstopFull.has(side)) return false;
  const lots = Math.abs(pos.szi);
  const mark = state.markPx(m);
  if (newOrderMargin(state, backstop, m, pos.szi > 0, mark, lots, false) > availableMargin(state, backstop)) {
    sweep.backstopFull.add(side);
    return false;
  }
  transferPosition(ctx, sweep, acct, backstop, m, lots, mark, 'backstop');
  return true;
}

/**
 * Price at which closing the whole position leaves the account (for an isolated position: the
 * position) with zero equity, rounded against the counterparty; the mark when the equity at the
 * mark is not negative. Auto-deleveraging closes at it, so the counterparties, not the
 * insurance, absorb a bankrupt account's loss.
 */
function bankruptcyPx(ctx: TxContext, acct: Account, m: PerpMarket): number {
  const { state } = ctx;
  const pos = acct.positions.get(m.asset) as Position;
  const mark = state.markPx(m);
  if (!state.isIsolated(acct, m)) {
    // A cross account's value on safe integers when its figures allow (the bigint path below otherwise).
    const value = crossAccountValueNum(state, acct);
    if (value !== null) {
      if (value >= 0) return mark;
      const px = bankruptcyPxNum(mark, pos.szi, m.ntlScaleNum, value);
      if (px !== null) return px;
    }
  }
  const equity = state.isIsolated(acct, m) ? isolatedFigures(state, m, pos, mark).value : crossAccountValue(state, acct);
  if (equity >= 0n) return mark;
  return bankruptcyPxExact(mark, pos.szi, m.ntlScale, equity);
}

/**
 * The price that brings a negative `equity` to zero when the position of `szi` lots closes:
 * equity + side * (px - mark) * lots * scale = 0, the move rounded up (against the
 * counterparty), at least 1.
 */
export function bankruptcyPxExact(mark: number, szi: number, ntlScale: bigint, equity: bigint): number {
  const per = BigInt(Math.abs(szi)) * ntlScale;
  const move = (-equity + per - 1n) / per;
  const px = szi > 0 ? BigInt(mark) + move : BigInt(mark) - move;
  return Number(px > 0n ? px : 1n);
}

/**
 * `bankruptcyPxExact` on safe integers (a negative equity as a number), or null when a figure is
 * not a safe integer: the rounded-up move is an exact remainder and an exact division.
 */
export function bankruptcyPxNum(mark: number, szi: number, ntlScaleNum: number, equity: number): number | null {
  const per = Math.abs(szi) * ntlScaleNum;
  const owed = -equity;
  if (!(per > 0 && owed > 0 && Number.isSafeInteger(per) && Number.isSafeInteger(owed) && Number.isSafeInteger(mark))) return null;
  const r = owed % per;
  const move = (owed - r) / per + (r > 0 ? 1 : 0);
  const px = szi > 0 ? mark + move : mark - move;
  if (!Number.isSafeInteger(px)) return null;
  return px > 0 ? px : 1;
}

/** A holder's position in an ADL ranking: its rank, and the rank as a number when all are safe. */
interface Ranked {
  readonly pos: Position;
  readonly rank: bigint;
  num: number;
}

/** A market side as one number: the longs or the shorts of `m`. */
function sideKey(m: PerpMarket, long: boolean): number {
  return m.asset * 2 + (long ? 1 : 0);
}

/**
 * What one sweep remembers. The auto-deleveraging order: per market and side, the holders of
 * that side at the sweep's marks, most profitable and most leveraged first (unrealized PnL times
 * notional over equity, ties by address), ranked once per sweep when first needed and consumed in
 * order, so a sweep that deleverages many accounts stays linear in the number of holders.
 */
class Sweep {
  /** Market sides (`sideKey`) the backstop could not take in this sweep. */
  readonly backstopFull = new Set<number>();
  /** The backstop's account (a sweep creates no accounts). */
  readonly backstop: Account | undefined;
  private readonly queues = new Map<number, { positions: Position[]; next: number }>();
  /** Cross equity of each ranked account at the ranking's marks (an account holds several positions). */
  private readonly equity = new Map<Account, bigint>();

  /** The last mark formatted per market: the mark stays put over most of a sweep's transfers. */
  private readonly marks = new Map<number, { px: number; text: string }>();

  constructor(private readonly ctx: TxContext) {
    this.backstop = ctx.state.accounts.get(ctx.state.config.clearinghouse.backstop);
  }

  /** The market's mark price now, formatted. */
  markText(m: PerpMarket): string {
    const px = this.ctx.state.markPx(m);
    const last = this.marks.get(m.asset);
    if (last !== undefined && last.px === px) return last.text;
    const text = formatScaled(px, m.pxDecimals);
    this.marks.set(m.asset, { px, text });
    return text;
  }

  /** The queue of `long` (or short) holders of `m`, built on first use; `fresh` ranks again (the queue ran dry). */
  adlQueue(m: PerpMarket, long: boolean, fresh = false): { positions: Position[]; next: number } {
    const key = sideKey(m, long);
    let q = this.queues.get(key);
    if (q === undefined || fresh) this.queues.set(key, (q = { positions: this.rank(m, long), next: 0 }));
    return q;
  }

  private rank(m: PerpMarket, long: boolean): Position[] {
    const { state } = this.ctx;
    const marks = state.perps.map((p) => state.markPx(p));
    const mark = marks[m.asset] as number;
    const ranked: Ranked[] = [];
    const limit = BigInt(Number.MAX_SAFE_INTEGER);
    let allSafe = true;
    const holders = m.holders.positions();
    for (let i = 0; i < holders.length; i++) {
      const p = holders[i] as Position;
      if (p.szi > 0 !== long) continue;
      const other = p.owner;
      const ntl = state.notional(m, mark, Math.abs(p.szi));
      const upnl = unrealizedPnl(p, ntl);
      let equity: bigint;
      if (state.isIsolated(other, m)) equity = p.margin + upnl;
      else {
        let cross = this.equity.get(other);
        if (cross === undefined) this.equity.set(other, (cross = crossAccountValue(state, other, marks)));
        equity = cross;
      }
      const rank = (upnl * ntl) / (equity > 0n ? equity : 1n);
      if (allSafe && (rank > limit || rank < -limit)) allSafe = false;
      ranked.push({ pos: p, rank, num: 0 });
    }
    // The ranks are integers; compared as numbers when all are exact as numbers (the usual case), else
    // as bigints; ties by the holder's address.
    const byAddress = (a: Ranked, b: Ranked) => (a.pos.owner.address < b.pos.owner.address ? -1 : 1);
    if (allSafe) {
      for (const r of ranked) r.num = Number(r.rank);
      ranked.sort((a, b) => (a.num === b.num ? byAddress(a, b) : b.num - a.num));
    } else ranked.sort((a, b) => (a.rank === b.rank ? byAddress(a, b) : a.rank > b.rank ? -1 : 1));
    return ranked.map((r) => r.pos);
  }
}

/**
 * Auto-deleveraging, the last resort when the backstop cannot take a position: the opposite
 * positions are reduced against it in the sweep's ADL order, at the bankruptcy price.
 */
function autoDeleverage(ctx: TxContext, sweep: Sweep, acct: Account, m: PerpMarket): boolean {
  const pos = acct.positions.get(m.asset);
  if (pos === undefined) return false;
  const px = bankruptcyPx(ctx, acct, m);
  let queue = sweep.adlQueue(m, pos.szi < 0);
  // Holders who took the other side during this sweep are not in its queue: one re-ranking finds them.
  if (queue.next === queue.positions.length) queue = sweep.adlQueue(m, pos.szi < 0, true);
  let moved = false;
  while (queue.next < queue.positions.length) {
    const left = acct.positions.get(m.asset)?.szi ?? 0;
    if (left === 0) break;
    const ranked = queue.positions[queue.next] as Position;
    const other = ranked.owner;
    // A ranked position still open is the holder's position in m (listed in m's holders); else look again.
    const theirs = other === acct ? 0 : ranked.holderSlot >= 0 ? ranked.szi : (other.positions.get(m.asset)?.szi ?? 0);
    // Holders whose side changed or who closed (liquidated, deleveraged) since the ranking are skipped.
    if (theirs === 0 || theirs > 0 === left > 0) {
      queue.next++;
      continue;
    }
    const lots = Math.min(Math.abs(left), Math.abs(theirs));
    transferPosition(ctx, sweep, acct, other, m, lots, px, 'adl');
    moved = true;
    if (lots === Math.abs(theirs)) queue.next++;
  }
  return moved;
}

/** A liquidation's `method` by which of the book (1), the backstop (2) and auto-deleveraging (4) took part; the book when none did. */
const METHODS = ['market', 'market', 'backstop', 'market+backstop', 'adl', 'market+adl', 'backstop+adl', 'market+backstop+adl'];

/**
 * Liquidates the positions in `markets` (all cross positions, or one isolated position): orders
 * cancelled, positions closed through the book and then by the backstop. `isolated`: a loss
 * beyond the position's own margin is not the cross account's, so the backstop pays it back.
 */
function liquidate(ctx: TxContext, sweep: Sweep, acct: Account, markets: readonly PerpMarket[], before: { accountValue: bigint; maintenanceMargin: bigint }, isolated: boolean): void {
  const { state } = ctx;
  const positions = markets.map((m) => ({ coin: m.name, szi: formatScaled(acct.positions.get(m.asset)?.szi ?? 0, m.szDecimals) }));
  cancelOrders(ctx, acct, isolated ? markets : state.perps);
  const liqCtx: TxContext = { state, hash: LIQUIDATION_HASH, time: ctx.time, events: ctx.events };
  const usdcBefore = acct.usdc;
  let viaBook = false;
  let viaBackstop = false;
  let viaAdl = false;
  for (const m of markets) {
    const szBefore = acct.positions.get(m.asset)?.szi ?? 0;
    closeThroughBook(liqCtx, acct, m);
    if ((acct.positions.get(m.asset)?.szi ?? 0) !== szBefore) viaBook = true;
    if (closableLots(acct, m.asset, szBefore < 0) === 0) continue;
    if (backstopTakeover(liqCtx, sweep, acct, m)) viaBackstop = true;
    else if (autoDeleverage(liqCtx, sweep, acct, m)) viaAdl = true;
  }
  // A loss beyond the collateral is the insurance's: the backstop pays it.
  let closed = true;
  for (const m of markets) if (acct.positions.has(m.asset)) closed = false;
  const lost = isolated ? usdcBefore - acct.usdc : -acct.usdc;
  let crossLeft = false;
  for (const p of acct.positions.values()) if (!state.isIsolated(acct, state.perps[p.asset] as PerpMarket)) crossLeft = true;
  let deficit = 0n;
  if (closed && lost > 0n && (isolated || !crossLeft)) {
    const backstop = sweep.backstop;
    if (backstop !== undefined) {
      deficit = lost;
      backstop.usdc -= deficit;
      backstop.perpRealized -= deficit;
      acct.usdc += deficit;
      acct.perpRealized += deficit;
    }
  }
  ctx.events.push({
    kind: 'liquidation',
    user: acct.address,
    liquidation: {
      time: ctx.time,
      user: acct.address,
      leverageType: isolated ? 'isolated' : 'cross',
      accountValue: formatScaled(before.accountValue, USD_DECIMALS),
      maintenanceMargin: formatScaled(before.maintenanceMargin, USD_DECIMALS),
      liquidatedPositions: positions,
      method: METHODS[(viaBook ? 1 : 0) + (viaBackstop ? 2 : 0) + (viaAdl ? 4 : 0)] as string,
      deficit: formatScaled(deficit, USD_DECIMALS),
    },
  });
}

const byAddress = (a: Account, b: Account): number => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0);

/**
 * The accounts holding a perp position now, in address order: the union of the markets'
 * holders, sorted. Kept in `state.sweepOrder` between sweeps: the accounts that started holding
 * since the last sweep are sorted and merged in, and the accounts that hold nothing any more are
 * dropped (and unlisted, so that a position later lists them again). Linear in the holders, with
 * a sort of only the new ones.
 */
export function sweepOrder(state: ExchangeState): Account[] {
  const fresh = state.newHolders;
  const old = state.sweepOrder;
  const out: Account[] = [];
  const keep = (a: Account) => {
    if (a.positions.size > 0) out.push(a);
    else a.sweepListed = false;
  };
  fresh.sort(byAddress);
  let i = 0;
  let j = 0;
  while (i < old.length && j < fresh.length) keep(byAddress(old[i] as Account, fresh[j] as Account) < 0 ? (old[i++] as Account) : (fresh[j++] as Account));
  while (i < old.length) keep(old[i++] as Account);
  while (j < fresh.length) keep(fresh[j++] as Account);
  state.sweepOrder = out;
  state.newHolders = [];
  return out;
}

/** Full sweeps run at most this often (block time), and whenever an oracle price moved. */
export const SWEEP_INTERVAL_MS = 1000;

/**
 * End-of-block sweep over every account holding a position, in address order. It costs O(accounts
 * with positions), so it runs when an oracle price changed or a second of block time has passed
 * since the last one, not in every block of a busy second.
 */
export function runLiquidations(ctx: TxContext): void {
  const { state } = ctx;
  const oracles = state.perps.map((m) => m.engine.oraclePx).join(',');
  if (state.time - state.lastSweep < SWEEP_INTERVAL_MS && oracles === state.lastSweepOracles) return;
  state.lastSweep = state.time;
  state.lastSweepOracles = oracles;
  const backstop = state.config.clearinghouse.backstop;
  // A liquidation that trades through the book can move the marks: they are taken again after
  // each one, so every account is judged at the marks of the moment.
  const marks = state.perps.map((m) => state.markPx(m));
  const markAll = () => {
    for (let i = 0; i < marks.length; i++) marks[i] = state.markPx(state.perps[i] as PerpMarket);
  };
  // The screen's per-market constants: USD units per lot and price unit, maintenance per notional.
  const perUnit = state.perps.map((m) => Number(m.ntlScale));
  const mmRate = state.perps.map((m) => state.config.clearinghouse.maintenanceBps / (10_000 * m.config.maxLeverage));
  const sweep = new Sweep(ctx);
  for (const acct of sweepOrder(state)) {
    if (acct.address === backstop || clearlySafe(ctx, acct, marks, perUnit, mmRate)) continue;
    const cross = crossUnderwater(ctx, acct, marks);
    if (cross !== null) {
      const markets = state.perps.filter((m) => acct.positions.has(m.asset) && !state.isIsolated(acct, m));
      liquidate(ctx, sweep, acct, markets, cross, false);
      markAll();
    }
    for (const m of state.perps) {
      const pos = acct.positions.get(m.asset);
      if (pos === undefined || !state.isIsolated(acct, m)) continue;
      const f = isolatedFigures(state, m, pos, marks[m.asset] as number);
      if (f.value >= f.maintenance) continue;
      liquidate(ctx, sweep, acct, [m], { accountValue: f.value, maintenanceMargin: f.maintenance }, true);
      markAll();
    }
  }
}
