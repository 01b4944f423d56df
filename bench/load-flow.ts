// The actions the load generator sends, by mix. Every mix keeps the book and the accounts'
// positions bounded over any length of run (see each), so a run measures steady state.
import type { FlowAccount } from './order-flow.ts';

export type LoadMix = 'single' | 'batch' | 'mixed';

export const LOAD_MIXES: readonly LoadMix[] = ['single', 'batch', 'mixed'];

export interface FlowAction {
  readonly acct: FlowAccount;
  readonly action: unknown;
  /** Orders the action places (0 for a cancel). */
  readonly orders: number;
}

/**
 * A book the mixes trade: its asset index, mid, quote step, takers' distance, order size, and the
 * single mix's quote size (ten takers' worth).
 */
interface Book {
  readonly asset: number;
  readonly mid: number;
  readonly step: number;
  readonly far: number;
  readonly sz: string;
  readonly deep: string;
}

/** BTC and ETH of the built-in devnet genesis (genesis/devnet.ts). */
const BOOKS: readonly [Book, Book] = [
  { asset: 0, mid: 100_000, step: 10, far: 1_000, sz: '0.001', deep: '0.01' },
  { asset: 1, mid: 3_500, step: 0.5, far: 35, sz: '0.01', deep: '0.1' },
];

const limit = (book: Book, isBuy: boolean, px: number, tif: 'Gtc' | 'Ioc', sz = book.sz) => ({ a: book.asset, b: isBuy, p: String(px), s: sz, r: false, t: { limit: { tif } } });

/**
 * Accounts take turns in two groups by the parity of their index (an even count of them, at least
 * 2, as bench/load.ts gives each sender): a group quotes on one book and takes on the other, so
 * no account ever meets its own quote whatever order the node receives actions in (an account's
 * actions arrive in runs from its connections, and self-trade prevention would cancel its own
 * resting quote instead of filling), and each book's quotes come from accounts that do not take
 * on it.
 */
function turn(k: number, accounts: readonly FlowAccount[]): { acct: FlowAccount; own: Book; other: Book; n: number } {
  const n = accounts.length;
  if (n < 2 || n % 2 !== 0) throw new Error(`the load mixes take an even count of accounts, at least 2 (got ${n})`);
  const index = k % n;
  return { acct: accounts[index] as FlowAccount, own: BOOKS[index % 2] as Book, other: BOOKS[1 - (index % 2)] as Book, n };
}

/**
 * A batch of 20 orders from the turn's account (`turn(k)`): first ten Ioc takers on the other
 * book (five sells, five buys, each taking the best quote on its side), then ten Gtc quotes on
 * its own (five bids, five asks, 1 to 5 steps off the mid). Each book gets as many quotes as
 * takers from the two groups' turns, so its depth does not drift and every account's positions
 * stay near flat; while one account's actions arrive in a run its quotes pile up (hundreds at a
 * time as fast as answered) until the other group's takers arrive.
 */
export function batchAction(k: number, accounts: readonly FlowAccount[]): FlowAction {
  const { acct, own, other } = turn(k, accounts);
  const orders = [
    ...Array.from({ length: 5 }, () => limit(other, false, other.mid - other.far, 'Ioc')),
    ...Array.from({ length: 5 }, () => limit(other, true, other.mid + other.far, 'Ioc')),
    ...Array.from({ length: 5 }, (_, i) => limit(own, true, own.mid - (i + 1) * own.step, 'Gtc')),
    ...Array.from({ length: 5 }, (_, i) => limit(own, false, own.mid + (i + 1) * own.step, 'Gtc')),
  ];
  return { acct, action: { type: 'order', orders, grouping: 'na' }, orders: orders.length };
}

/**
 * Single-order action `k`: cycles of ten by one account (cycle c by `turn(c)`): two bids and two
 * asks on its own book, six and seven steps off the mid (behind the batch mix's quotes, one to
 * five steps, which the `mixed` mix's takers clear first), ten takers' size each, with a cloid; four
 * cancels (by cloid) of the quotes of its previous cycle (c - n; its first cancels the quotes just
 * placed); an Ioc sell and an Ioc buy on the other book, which holds the other group's quotes (an
 * account quotes again before it cancels, and a quote takes ten takers: an account's actions
 * arrive in runs of many cycles). So about a fifth of the actions trade, each book holds at most
 * four quotes an account, and positions stay near flat. `cloidBase` keeps concurrent flows'
 * cloids apart.
 */
export function singleAction(k: number, accounts: readonly FlowAccount[], cloidBase: number): FlowAction {
  const cycle = Math.floor(k / 10);
  const slot = k % 10;
  const { acct, own, other, n } = turn(cycle, accounts);
  const cloid = (c: number, s: number) => `0x${(cloidBase + c * 10 + s).toString(16).padStart(32, '0')}`;
  const order = (book: Book, isBuy: boolean, px: number, tif: 'Gtc' | 'Ioc', sz: string, c?: string): FlowAction => ({
    acct,
    action: { type: 'order', orders: [{ ...limit(book, isBuy, px, tif, sz), ...(c === undefined ? {} : { c }) }], grouping: 'na' },
    orders: 1,
  });
  if (slot < 4) {
    const isBuy = slot < 2;
    const steps = (slot % 2) + 6;
    return order(own, isBuy, isBuy ? own.mid - steps * own.step : own.mid + steps * own.step, 'Gtc', own.deep, cloid(cycle, slot));
  }
  if (slot < 8) {
    const prev = cycle >= n ? cycle - n : cycle;
    return { acct, action: { type: 'cancelByCloid', cancels: [{ asset: own.asset, cloid: cloid(prev, slot - 4) }] }, orders: 0 };
  }
  return slot === 8 ? order(other, false, other.mid - other.far, 'Ioc', other.sz) : order(other, true, other.mid + other.far, 'Ioc', other.sz);
}

/**
 * Action `k` of a mix. `single`: cycles of ten single-order actions (four quotes, four cancels by
 * cloid, two takers). `batch`: every action a 20-order batch. `mixed`: cycles of eleven, the
 * single cycle then one batch.
 */
export function loadAction(mix: LoadMix, k: number, accounts: readonly FlowAccount[], cloidBase: number): FlowAction {
  if (mix === 'batch') return batchAction(k, accounts);
  if (mix === 'mixed') {
    const cycle = Math.floor(k / 11);
    if (k % 11 === 10) return batchAction(cycle, accounts);
    k = cycle * 10 + (k % 11);
  }
  return singleAction(k, accounts, cloidBase);
}
