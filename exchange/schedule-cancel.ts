// Hyperliquid's dead man's switch (`scheduleCancel`): an account sets a block time at which all
// its open orders are cancelled, or clears it. At most 10 fire per account and UTC day.
import type { Account } from './account.ts';
import type { ScheduleCancelAction } from './actions.ts';
import { exchangeError, type ExchangeError } from './errors.ts';
import { cancelAllOrders } from './order-actions.ts';
import type { TxContext } from './order-context.ts';
import type { ExchangeState } from './state.ts';

/** How far ahead of the block time a schedule must be. */
export const SCHEDULE_CANCEL_MIN_DELAY_MS = 5000;
/** Scheduled cancels that may fire per account and UTC day. */
export const SCHEDULED_CANCELS_PER_DAY = 10;
const DAY_MS = 86_400_000;

/** How many of the account's scheduled cancels fired on the UTC day of `time`. */
export function firedToday(state: ExchangeState, user: string, time: number): number {
  const fired = state.scheduledCancelsFired.get(user);
  return fired !== undefined && fired.day === Math.floor(time / DAY_MS) ? fired.count : 0;
}

export function scheduleCancel(ctx: TxContext, acct: Account, action: ScheduleCancelAction): ExchangeError | null {
  const { state } = ctx;
  if (action.time === null) {
    if (state.scheduledCancels.delete(acct.address)) state.scheduledCancelNext = null;
    return null;
  }
  if (action.time < ctx.time + SCHEDULE_CANCEL_MIN_DELAY_MS) return exchangeError('SCHEDULED_CANCEL_TOO_EARLY');
  if (firedToday(state, acct.address, ctx.time) >= SCHEDULED_CANCELS_PER_DAY) return exchangeError('SCHEDULED_CANCEL_LIMIT');
  const before = state.scheduledCancels.get(acct.address);
  state.scheduledCancels.set(acct.address, action.time);
  const next = state.scheduledCancelNext;
  if (next !== null) state.scheduledCancelNext = before === next ? null : Math.min(next, action.time);
  return null;
}

/**
 * End of block: every schedule the block time has reached fires (accounts in address order):
 * all the account's open orders are cancelled with status `scheduledCancel`, and it is cleared.
 */
export function runScheduledCancels(ctx: TxContext): void {
  const { state } = ctx;
  if (state.scheduledCancels.size === 0) return;
  // Most blocks: the earliest schedule is still ahead, and that is one comparison.
  let next = state.scheduledCancelNext;
  if (next === null) {
    next = Infinity;
    for (const time of state.scheduledCancels.values()) if (time < next) next = time;
    state.scheduledCancelNext = next;
  }
  if (next > ctx.time) return;
  state.scheduledCancelNext = null;
  let due: string[] | null = null;
  for (const [user, time] of state.scheduledCancels) if (time <= ctx.time) (due ??= []).push(user);
  if (due === null) return;
  due.sort();
  const day = Math.floor(ctx.time / DAY_MS);
  for (const user of due) {
    state.scheduledCancels.delete(user);
    state.scheduledCancelsFired.set(user, { day, count: firedToday(state, user, ctx.time) + 1 });
    const acct = state.accounts.get(user);
    if (acct !== undefined) cancelAllOrders(ctx, acct, 'scheduledCancel');
  }
}
