// The actions the load generator sends, by mix. Every mix keeps the book and the accounts'
// positions bounded over any length of run (see each), so a run measures steady state.
import { marketMakingAction, type FlowAccount } from './order-flow.ts';

export type LoadMix = 'single' | 'batch' | 'mixed';

export const LOAD_MIXES: readonly LoadMix[] = ['single', 'batch', 'mixed'];

export interface FlowAction {
  readonly acct: FlowAccount;
  readonly action: unknown;
  /** Orders the action places (0 for a cancel). */
  readonly orders: number;
}

const limit = (isBuy: boolean, px: number, tif: 'Gtc' | 'Ioc') => ({ a: 0, b: isBuy, p: String(px), s: '0.001', r: false, t: { limit: { tif } } });

/**
 * A batch of 20 orders on BTC from account `k mod n`: first ten Ioc takers (five sells, five
 * buys, each taking the best resting quote on its side, placed by earlier batches of other
 * accounts), then ten Gtc quotes (five bids 99,950 to 99,990, five asks 100,010 to 100,050). Each
 * batch adds ten quotes and takes up to ten, so the book stays near ten deep a side; every
 * account makes and takes both sides, so positions stay near flat.
 */
export function batchAction(k: number, accounts: readonly FlowAccount[]): FlowAction {
  const orders = [
    ...Array.from({ length: 5 }, () => limit(false, 99_000, 'Ioc')),
    ...Array.from({ length: 5 }, () => limit(true, 101_000, 'Ioc')),
    ...Array.from({ length: 5 }, (_, i) => limit(true, 99_990 - i * 10, 'Gtc')),
    ...Array.from({ length: 5 }, (_, i) => limit(false, 100_010 + i * 10, 'Gtc')),
  ];
  return { acct: accounts[k % accounts.length] as FlowAccount, action: { type: 'order', orders, grouping: 'na' }, orders: orders.length };
}

/**
 * Action `k` of a mix. `single`: the market-making cycle of ten single-order actions (four quotes,
 * four cancels by cloid, two takers; order-flow.ts). `batch`: every action a 20-order batch.
 * `mixed`: cycles of eleven, the single cycle then one batch.
 */
export function loadAction(mix: LoadMix, k: number, accounts: readonly FlowAccount[], cloidBase: number): FlowAction {
  if (mix === 'batch') return batchAction(k, accounts);
  if (mix === 'mixed') {
    const cycle = Math.floor(k / 11);
    if (k % 11 === 10) return batchAction(cycle, accounts);
    k = cycle * 10 + (k % 11);
  }
  const { acct, action } = marketMakingAction(k, accounts, cloidBase);
  return { acct, action, orders: (action as { type: string }).type === 'order' ? 1 : 0 };
}
