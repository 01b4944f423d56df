// The address-based request budget (Hyperliquid's rule): an account may send 10,000 requests
// plus one per USDC it has traded; every order, modify or cancel in a batch counts one. Cancels get
// more room (twice the budget, at most 100,000 beyond it) so an account can always pull quotes.
import type { Account } from './account.ts';
import type { Action } from './actions.ts';
import { USD_DECIMALS } from './config.ts';
import { exchangeError, type ExchangeError } from './errors.ts';

export const INITIAL_REQUESTS = 10_000;
const UNIT = 10n ** BigInt(USD_DECIMALS);

export function requestCap(acct: Account): number {
  const traded = acct.cumVlm / UNIT;
  return INITIAL_REQUESTS + (traded > BigInt(Number.MAX_SAFE_INTEGER - INITIAL_REQUESTS) ? Number.MAX_SAFE_INTEGER - INITIAL_REQUESTS : Number(traded));
}

export function requestsOf(action: Action): number {
  switch (action.type) {
    case 'order':
      return action.orders.length;
    case 'batchModify':
      return action.modifies.length;
    case 'cancel':
    case 'cancelByCloid':
      return action.cancels.length;
    default:
      return 1;
  }
}

/** Counts the action's requests against the budget, or refuses it when over budget. */
export function chargeRequests(acct: Account, action: Action): ExchangeError | null {
  const n = requestsOf(action);
  if (acct.requests + n <= INITIAL_REQUESTS) {
    acct.requests += n; // within every account's base budget: no need to price the volume
    return null;
  }
  const cap = requestCap(acct);
  const limit = action.type === 'cancel' || action.type === 'cancelByCloid' ? Math.min(cap + 100_000, cap * 2) : cap;
  if (acct.requests + n > limit) {
    const usd = (acct.cumVlm / UNIT).toString();
    return exchangeError(
      'RATE_LIMITED',
      `too many cumulative requests sent (${acct.requests + n} > ${limit}) for cumulative volume traded $${usd}; each USDC traded adds one request`,
    );
  }
  acct.requests += n;
  return null;
}
