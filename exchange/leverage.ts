// `updateLeverage`: the cross leverage of one account on one perpetual, 1..maxLeverage, refused
// when the account's positions and orders would no longer fit its collateral at the new value.
import type { Account } from './account.ts';
import type { UpdateLeverageAction } from './actions.ts';
import { exchangeError, type ExchangeError } from './errors.ts';
import { availableMargin } from './margin.ts';
import type { TxContext } from './order-context.ts';
import { recomputeOrderMargins } from './order-margin.ts';

export function updateLeverage(ctx: TxContext, acct: Account, action: UpdateLeverageAction): ExchangeError | null {
  const m = ctx.state.perps[action.asset];
  if (m === undefined) return exchangeError('UNKNOWN_ASSET', `${action.asset} is not a perpetual`);
  if (!action.isCross) return exchangeError('INVALID_ACTION', 'isolated margin is not available on this node yet');
  if (m.config.onlyIsolated) return exchangeError('INVALID_ACTION', `${m.name} allows isolated margin only`);
  if (action.leverage < 1 || action.leverage > m.config.maxLeverage) {
    return exchangeError('INVALID_ACTION', `leverage must be from 1 to ${m.config.maxLeverage} on ${m.name}`);
  }
  const previous = acct.leverage.get(m.asset);
  acct.leverage.set(m.asset, action.leverage);
  recomputeOrderMargins(ctx.state, acct, m);
  if (availableMargin(ctx.state, acct) < 0n) {
    if (previous === undefined) acct.leverage.delete(m.asset);
    else acct.leverage.set(m.asset, previous);
    recomputeOrderMargins(ctx.state, acct, m);
    return exchangeError('INSUFFICIENT_MARGIN', `positions and orders on ${m.name} need more margin at ${action.leverage}x`);
  }
  return null;
}
