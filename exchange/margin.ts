// Cross-margin figures of one account at current mark prices.
import { initialMargin, unrealizedPnl, type Account } from './account.ts';
import { USDC_TOKEN_INDEX } from './config.ts';
import type { ExchangeState } from './state.ts';

export interface MarginFigures {
  /** USDC plus unrealized PnL of every position. */
  readonly accountValue: bigint;
  /** Initial margin of the open positions at mark. */
  readonly positionMargin: bigint;
  /** Sum of |position notional| at mark. */
  readonly totalNtlPos: bigint;
  /** Half the initial margin at maximum leverage, per position. */
  readonly maintenanceMargin: bigint;
}

/** `marks`: mark prices by perp asset, when the caller computed them once for many accounts. */
export function marginFigures(state: ExchangeState, acct: Account, marks?: readonly number[]): MarginFigures {
  let accountValue = acct.usdc;
  let positionMargin = 0n;
  let totalNtlPos = 0n;
  let maintenanceMargin = 0n;
  for (const [asset, pos] of acct.positions) {
    const market = state.perps[asset];
    if (market === undefined) continue;
    const ntl = state.notional(market, marks?.[asset] ?? state.markPx(market), Math.abs(pos.szi));
    accountValue += unrealizedPnl(pos, ntl);
    positionMargin += initialMargin(ntl, state.leverage(acct, market));
    totalNtlPos += ntl;
    maintenanceMargin += maintenanceOf(state, market.config.maxLeverage, ntl);
  }
  return { accountValue, positionMargin, totalNtlPos, maintenanceMargin };
}

/** Maintenance margin of a notional: the configured fraction of the initial margin at maximum leverage. */
export function maintenanceOf(state: ExchangeState, maxLeverage: number, ntl: bigint): bigint {
  const bps = BigInt(state.config.clearinghouse.maintenanceBps);
  const den = 10_000n * BigInt(maxLeverage);
  return (ntl * bps + den - 1n) / den;
}

/**
 * Collateral free for new perp orders and spot buys: account value less position margin, the
 * margin of resting perp orders and the USDC held by resting spot buys. May be negative.
 */
export function availableMargin(state: ExchangeState, acct: Account): bigint {
  const f = marginFigures(state, acct);
  return f.accountValue - f.positionMargin - acct.orderMargin - (acct.held.get(USDC_TOKEN_INDEX) ?? 0n);
}
