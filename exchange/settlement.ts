// Settling fills: positions, balances and fees move for both sides, and both get a fill record.
import { formatScaled } from '../primitives/index.ts';
import { applyFill, type Account, type Position } from './account.ts';
import { TOKEN_DECIMALS, USD_DECIMALS, USDC_TOKEN_INDEX } from './config.ts';
import type { Fill } from './engine/matching-engine.ts';
import type { FillRecord } from './events.ts';
import type { OrderBuilder } from './actions.ts';
import { chargeBuilder } from './builder-fees.ts';
import { feeOf, feeRates } from './fees.ts';
import type { Market, PerpMarket, SpotMarket } from './markets.ts';
import { accountOf, orderLeft, type TxContext } from './order-context.ts';
import { addVolume } from './day-stats.ts';
import type { ExchangeState } from './state.ts';

/** The taker's side of a fill: what settlement needs of the incoming order. */
export interface TakerInfo {
  readonly acct: Account;
  readonly oid: number;
  readonly isBuy: boolean;
  readonly cloid: string | null;
  /** The builder the order pays on each fill, or null. */
  readonly builder: OrderBuilder | null;
}

function record(
  ctx: TxContext, m: Market, isBuy: boolean, fill: Fill, oid: number, cloid: string | null, crossed: boolean,
  startPosition: string, dir: string, closedPnl: string, fee: bigint, builderFee: bigint,
): FillRecord {
  // Optional fields added after the others (the order the app hash and the store write them), not
  // spread in: a spread allocated two empty objects a fill.
  const r: { -readonly [K in keyof FillRecord]: FillRecord[K] } = {
    coin: m.name,
    px: formatScaled(fill.px, m.pxDecimals),
    sz: formatScaled(fill.sz, m.szDecimals),
    side: isBuy ? 'B' : 'A',
    time: ctx.time,
    startPosition,
    dir,
    closedPnl,
    hash: ctx.hash,
    oid,
    crossed,
    fee: formatScaled(builderFee === 0n ? fee : fee + builderFee, USD_DECIMALS),
    feeToken: m.kind === 'perp' ? 'USDC' : m.quote.name,
    tid: fill.tid,
  };
  if (cloid !== null) r.cloid = cloid;
  if (builderFee !== 0n) r.builderFee = formatScaled(builderFee, USD_DECIMALS);
  return r;
}

/**
 * Keeps the market's holder list (and the sweep's list of accounts) in step with the account's
 * position in `m` after a fill; `before`: its position in `m` before the fill (a position keeps
 * its object while it is open, so the same object means no change).
 */
export function trackHolder(state: ExchangeState, m: PerpMarket, acct: Account, before: Position | undefined): void {
  const now = acct.positions.get(m.asset);
  if (now === before) return;
  if (before !== undefined) m.holders.remove(before);
  if (now !== undefined) addHolder(state, m, now);
}

/** Lists a newly open position in its market's holders, and its account in the sweep's order. */
export function addHolder(state: ExchangeState, m: PerpMarket, pos: Position): void {
  m.holders.add(pos);
  const acct = pos.owner;
  if (!acct.sweepListed) {
    acct.sweepListed = true;
    state.newHolders.push(acct);
  }
}

function settlePerpSide(
  ctx: TxContext, m: PerpMarket, acct: Account, isBuy: boolean, fill: Fill, ntl: bigint, feePpm: number, oid: number, cloid: string | null, crossed: boolean,
  builder: OrderBuilder | null | undefined,
): bigint {
  const fee = feeOf(ntl, feePpm);
  const before = acct.positions.get(m.asset);
  const change = applyFill(acct, m.asset, isBuy, fill.sz, ntl, ctx.state.isolatedLeverage(acct, m));
  acct.usdc -= fee;
  acct.perpRealized += change.closedPnl - fee;
  const builderFee = builder == null ? 0n : chargeBuilder(ctx.state, m, acct, builder, ntl);
  trackHolder(ctx.state, m, acct, before);
  ctx.events.push({
    kind: 'fill',
    user: acct.address,
    fill: record(ctx, m, isBuy, fill, oid, cloid, crossed, formatScaled(change.startPosition, m.szDecimals), change.dir, formatScaled(change.closedPnl, USD_DECIMALS), fee, builderFee),
  });
  return fee;
}

function settleSpotSide(
  ctx: TxContext, m: SpotMarket, acct: Account, isBuy: boolean, fill: Fill, ntl: bigint, feePpm: number, oid: number, cloid: string | null, crossed: boolean,
  builder: OrderBuilder | null | undefined,
): bigint {
  const fee = feeOf(ntl, feePpm);
  const base = BigInt(fill.sz) * m.baseUnit;
  const start = acct.balance(m.base.index);
  acct.credit(m.base.index, isBuy ? base : -base);
  acct.credit(m.quote.index, isBuy ? -(ntl + fee) : ntl - fee);
  if (m.quote.index === USDC_TOKEN_INDEX) acct.spotFees += fee;
  const builderFee = builder == null ? 0n : chargeBuilder(ctx.state, m, acct, builder, ntl);
  ctx.events.push({
    kind: 'fill',
    user: acct.address,
    fill: record(ctx, m, isBuy, fill, oid, cloid, crossed, formatScaled(start, TOKEN_DECIMALS), isBuy ? 'Buy' : 'Sell', '0', fee, builderFee),
  });
  return fee;
}

/** Settles every fill of one placement, maker first then taker, in fill order. Returns the notional. */
export function settleFills(ctx: TxContext, m: Market, taker: TakerInfo, fills: readonly Fill[]): bigint {
  const { state } = ctx;
  const rates = feeRates(state.config, m);
  let total = 0n;
  for (const fill of fills) {
    const maker = fill.maker;
    const makerAcct = accountOf(state, maker.owner);
    const ntl = state.notional(m, fill.px, fill.sz);
    const before = maker.sz + fill.sz;
    // Most orders name no builder: the map is empty then, and no lookup is made.
    const makerBuilder = state.orderBuilders.size === 0 ? undefined : state.orderBuilders.get(maker.oid);
    let fees: bigint;
    if (m.kind === 'perp') {
      // Resting margins are recomputed once the placement is settled (afterPositionChange).
      fees = settlePerpSide(ctx, m, makerAcct, maker.isBuy, fill, ntl, rates.maker, maker.oid, maker.cloid, false, makerBuilder);
      fees += settlePerpSide(ctx, m, taker.acct, taker.isBuy, fill, ntl, rates.taker, taker.oid, taker.cloid, true, taker.builder);
    } else {
      const held = makerAcct.holds.get(maker.oid)?.amount ?? 0n;
      makerAcct.releaseHold(maker.oid, maker.sz === 0 ? null : (held * BigInt(fill.sz)) / BigInt(before));
      fees = settleSpotSide(ctx, m, makerAcct, maker.isBuy, fill, ntl, rates.maker, maker.oid, maker.cloid, false, makerBuilder);
      fees += settleSpotSide(ctx, m, taker.acct, taker.isBuy, fill, ntl, rates.taker, taker.oid, taker.cloid, true, taker.builder);
    }
    if (m.kind === 'spot' && m.quote.index !== USDC_TOKEN_INDEX) {
      state.tokenFees.set(m.quote.index, (state.tokenFees.get(m.quote.index) ?? 0n) + fees);
    } else {
      state.feesCollected += fees;
    }
    if (m.kind === 'perp') addVolume(m, ntl);
    const usd = m.kind === 'perp' || m.quote.index === USDC_TOKEN_INDEX ? ntl : 0n;
    makerAcct.cumVlm += usd;
    taker.acct.cumVlm += usd;
    m.lastPx = fill.px;
    total += ntl;
    if (maker.sz === 0) orderLeft(ctx, m, maker, 'filled');
  }
  return total;
}
