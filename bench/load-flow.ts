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

/** A book the batch mix trades: its asset index, mid, quote step, takers' distance, order size. */
interface BatchBook {
  readonly asset: number;
  readonly mid: number;
  readonly step: number;
  readonly far: number;
  readonly sz: string;
}

/** BTC and ETH of the built-in devnet genesis (genesis/devnet.ts). */
const BATCH_BOOKS: readonly [BatchBook, BatchBook] = [
  { asset: 0, mid: 100_000, step: 10, far: 1_000, sz: '0.001' },
  { asset: 1, mid: 3_500, step: 0.5, far: 35, sz: '0.01' },
];

const limit = (book: BatchBook, isBuy: boolean, px: number, tif: 'Gtc' | 'Ioc') => ({ a: book.asset, b: isBuy, p: String(px), s: book.sz, r: false, t: { limit: { tif } } });

/**
 * A batch of 20 orders from account `k mod n`, where n is the accounts' count rounded down to an
 * even one (at least 2). Accounts take turns in two groups by the parity of their index: a group
 * quotes on one book and takes on the other, so no account ever meets its own quote, whatever
 * order the node receives actions in (an account's actions arrive in runs from its connection,
 * and self-trade prevention would cancel its own resting quotes instead of filling). First ten
 * Ioc takers on the other group's book (five sells, five buys, each taking the best quote on its
 * side), then ten Gtc quotes on its own (five bids, five asks, 1 to 5 steps off the mid). Each
 * book gets as many quotes as takers from the two groups' turns, so it stays near ten deep a side
 * and every account's positions near flat.
 */
export function batchAction(k: number, accounts: readonly FlowAccount[]): FlowAction {
  const n = accounts.length < 2 ? accounts.length : accounts.length - (accounts.length % 2);
  const index = k % n;
  const own = BATCH_BOOKS[index % 2] as BatchBook;
  const other = BATCH_BOOKS[1 - (index % 2)] as BatchBook;
  const orders = [
    ...Array.from({ length: 5 }, () => limit(other, false, other.mid - other.far, 'Ioc')),
    ...Array.from({ length: 5 }, () => limit(other, true, other.mid + other.far, 'Ioc')),
    ...Array.from({ length: 5 }, (_, i) => limit(own, true, own.mid - (i + 1) * own.step, 'Gtc')),
    ...Array.from({ length: 5 }, (_, i) => limit(own, false, own.mid + (i + 1) * own.step, 'Gtc')),
  ];
  return { acct: accounts[index] as FlowAccount, action: { type: 'order', orders, grouping: 'na' }, orders: orders.length };
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
