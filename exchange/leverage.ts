// `updateLeverage` and `updateIsolatedMargin`: the margin mode and leverage of one account on one
// perpetual, and the margin an isolated position stands on.
//   - leverage from 1 to the market's maxLeverage; `onlyIsolated` markets refuse cross;
//   - the mode (cross or isolated) changes only while the account holds no position there, since
//     a position's margin would otherwise have to move between pools mid-flight (Hyperliquid
//     refuses it the same way);
//   - cross: refused when positions and orders would no longer fit the collateral;
//     isolated with a position: refused when the position's margin is below the initial margin
//     at the new leverage (add margin first); resting orders are re-margined at the new value.
import { initialMargin, type Account } from './account.ts';
import type { UpdateIsolatedMarginAction, UpdateLeverageAction } from './actions.ts';
import { USD_DECIMALS } from './config.ts';
import { exchangeError, type ExchangeError } from './errors.ts';
import { availableMargin, isolatedFigures } from './margin.ts';
import type { PerpMarket } from './markets.ts';
import type { TxContext } from './order-context.ts';
import { recomputeOrderMargins } from './order-margin.ts';

function perpOf(ctx: TxContext, asset: number): PerpMarket | ExchangeError {
  return ctx.state.perps[asset] ?? exchangeError('UNKNOWN_ASSET', `${asset} is not a perpetual`);
}

export function updateLeverage(ctx: TxContext, acct: Account, action: UpdateLeverageAction): ExchangeError | null {
  const { state } = ctx;
  const m = perpOf(ctx, action.asset);
  if ('code' in m) return m;
  if (action.isCross && m.config.onlyIsolated) return exchangeError('INVALID_ACTION', `${m.name} allows isolated margin only`);
  if (action.leverage < 1 || action.leverage > m.config.maxLeverage) {
    return exchangeError('INVALID_ACTION', `leverage must be from 1 to ${m.config.maxLeverage} on ${m.name}`);
  }
  const pos = acct.positions.get(m.asset);
  const wasIsolated = state.isIsolated(acct, m);
  if (pos !== undefined && wasIsolated === action.isCross) {
    return exchangeError('INVALID_ACTION', `cannot switch ${m.name} between cross and isolated margin with an open position`);
  }
  if (pos !== undefined && wasIsolated) {
    const need = initialMargin(state.notional(m, state.markPx(m), Math.abs(pos.szi)), action.leverage);
    if (pos.margin < need) return exchangeError('INSUFFICIENT_MARGIN', `the isolated position on ${m.name} needs more margin at ${action.leverage}x`);
  }
  const previous = acct.leverage.get(m.asset);
  const setMode = (isolated: boolean) => acct.setIsolated(m.asset, isolated && !m.config.onlyIsolated);
  acct.setLeverage(m.asset, action.leverage);
  setMode(!action.isCross);
  recomputeOrderMargins(state, acct, m);
  if (availableMargin(state, acct) < 0n) {
    acct.setLeverage(m.asset, previous);
    setMode(wasIsolated);
    recomputeOrderMargins(state, acct, m);
    return exchangeError('INSUFFICIENT_MARGIN', `positions and orders on ${m.name} need more margin at ${action.leverage}x`);
  }
  return null;
}

/** `ntli` is in micro-USDC (10^-6), as Hyperliquid's; the state counts 10^-8. */
const NTLI_SCALE = 10n ** BigInt(USD_DECIMALS - 6);

/**
 * Adds margin to an isolated position from the cross balance (ntli > 0) or returns some (ntli < 0);
 * what stays must cover the initial margin at mark.
 */
export function updateIsolatedMargin(ctx: TxContext, acct: Account, action: UpdateIsolatedMarginAction): ExchangeError | null {
  const { state } = ctx;
  const m = perpOf(ctx, action.asset);
  if ('code' in m) return m;
  const pos = acct.positions.get(m.asset);
  if (pos === undefined || !state.isIsolated(acct, m)) return exchangeError('INVALID_ACTION', `no isolated position on ${m.name}`);
  const amount = BigInt(action.ntli) * NTLI_SCALE;
  if (amount === 0n) return exchangeError('INVALID_ACTION', 'ntli must not be 0');
  if (amount > 0n) {
    if (amount > availableMargin(state, acct)) return exchangeError('INSUFFICIENT_MARGIN', `${m.name}: not enough free cross collateral to add`);
  } else {
    const mark = state.markPx(m);
    const after = { szi: pos.szi, entryNtl: pos.entryNtl, margin: pos.margin + amount };
    const f = isolatedFigures(state, m, after, mark);
    if (after.margin < 0n || f.value < initialMargin(f.ntl, state.leverage(acct, m))) {
      return exchangeError('INSUFFICIENT_MARGIN', `${m.name}: the isolated position would fall below its initial margin`);
    }
  }
  pos.margin += amount;
  acct.usdc -= amount;
  return null;
}
