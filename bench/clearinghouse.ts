// The clearinghouse's cost: (1) order placement for 10,000 accounts that each hold positions in 3
// markets, through the clearinghouse (orders as numbers: margin admission, engine, reserve, status
// event) and as whole transactions (string parsing, nonces, results), each beside the same orders
// through the bare MatchingEngine in the same process; (2) the end-of-block liquidation sweep
// over those 10,000 accounts after a 20% price move.
import { ACCOUNTS, benchOrders, place, setup, sweep, type PlaceRun } from './clearinghouse-setup.ts';

/**
 * Placement rounds, each on fresh chains and engines; the bare engine runs first in every other
 * one. Single rounds on this class of VM range over almost 2x (1.4-2.6x for the same code), so
 * the median is taken over nine.
 */
const ROUNDS = 9;

export async function benchClearinghouse(): Promise<void> {
  const t0 = performance.now();
  const { ex } = setup();
  const setupMs = performance.now() - t0;
  const orders = benchOrders();
  // Warm every path (chains with and without positions: the margin screens differ), then the
  // rounds; medians of the rounds.
  for (const positions of [true, false]) {
    place(setup(positions).ex, orders, 'clearinghouse');
    place(setup(positions).ex, orders, 'tx');
  }
  const rounds = Array.from({ length: ROUNDS }, (_, r) => ({
    clearinghouse: place(r === 0 ? ex : setup().ex, orders, 'clearinghouse', r % 2 === 1),
    without: place(setup(false).ex, orders, 'clearinghouse', r % 2 === 0),
    tx: place(setup().ex, orders, 'tx', r % 2 === 1),
  }));
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;
  const row = (pick: (r: (typeof rounds)[number]) => PlaceRun) => {
    const runs = rounds.map(pick);
    return {
      'orders/s': Math.round(median(runs.map((x) => x.rate))),
      'bare engine, same chunks': Math.round(median(runs.map((x) => x.bareRate))),
      'bare / this': `${median(runs.map((x) => x.bareRate / x.rate)).toFixed(2)}x (${runs.map((x) => (x.bareRate / x.rate).toFixed(2)).join(', ')})`,
    };
  };
  const flat = median(rounds.map((r) => r.without.rate / r.clearinghouse.rate));
  const refused = rounds.reduce((n, r) => n + r.clearinghouse.refused + r.without.refused + r.tx.refused, 0);

  // The sweep runs every second on a live node, and its liquidation path whenever prices move:
  // measured warm, after the same sweep on an identical chain (the first, cold figure is printed
  // too); the median of three, each on a fresh chain, as a collection can land in any one.
  const cold = sweep(setup().ex);
  const warm3 = [sweep(ex), sweep(setup().ex), sweep(setup().ex)].sort((a, b) => a.ms - b.ms);
  const { ms: sweepMs, liquidated } = warm3[1]!;
  console.table({
    'clearinghouse placement, 10,000 accounts x 3 positions': row((r) => r.clearinghouse),
    'clearinghouse placement, 10,000 accounts without positions': row((r) => r.without),
    'whole transactions, 10,000 accounts x 3 positions': row((r) => r.tx),
  });
  console.log(`medians of ${ROUNDS} rounds (per-round ratios in brackets); placement without positions vs with: ${flat.toFixed(2)}x; ${refused} refused; setup ${setupMs.toFixed(0)} ms`);
  console.log(`liquidation sweep after a 20% move: ${sweepMs.toFixed(1)} ms over ${ACCOUNTS} accounts, ${liquidated} liquidated (median of 3 warm runs: ${warm3.map((w) => w.ms.toFixed(1)).join(', ')} ms; cold, the first in the process: ${cold.ms.toFixed(1)} ms)`);
}
