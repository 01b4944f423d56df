// The clearinghouse's cost: (1) order placement through the exchange (string parsing, margin
// checks, settlement, events) for 10,000 accounts that each hold positions in 3 markets, beside
// the same orders through the bare MatchingEngine; (2) the end-of-block liquidation sweep over
// those 10,000 accounts after a 20% price move.
import { MatchingEngine, TIF_GTC } from '../exchange/index.ts';
import { ACCOUNTS, benchOrders, place, pxText, setup, sweep, szText } from './clearinghouse-setup.ts';

export async function benchClearinghouse(): Promise<void> {
  const t0 = performance.now();
  const { ex } = setup();
  const setupMs = performance.now() - t0;
  const orders = benchOrders();
  const makeBare = () => [0, 1, 2].map((asset) => new MatchingEngine({ pxDecimals: [1, 2, 4][asset]!, tick: 1, minSz: 1, maxOpenPerOwner: 1000, bandBps: 0 }, { nextOid: 1, nextTid: 1, nextSeq: 1 }));
  const placeBare = () => {
    const bare = makeBare();
    (globalThis as { gc?: () => void }).gc?.(); // as before the exchange's run (place)
    const tb0 = performance.now();
    orders.forEach((o, k) => bare[o.asset]!.place(k + 1, o.user, o.isBuy, o.px, o.lots, TIF_GTC, false, null, 0));
    return orders.length / ((performance.now() - tb0) / 1000);
  };
  // Warm both paths, then three rounds, each on fresh chains and engines, interleaved so that a
  // change in the machine's speed shows in every column alike; medians, and the median ratio.
  place(setup(false).ex, orders, pxText, szText);
  placeBare();
  const rounds = [0, 1, 2].map((r) => {
    const withPositions = place(r === 0 ? ex : setup().ex, orders, pxText, szText);
    const without = place(setup(false).ex, orders, pxText, szText);
    const bare = placeBare();
    return { withPositions, without, bare };
  });
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[1] as number;
  const exchangeRate = median(rounds.map((r) => r.withPositions.rate));
  const withoutRate = median(rounds.map((r) => r.without.rate));
  const bareRate = median(rounds.map((r) => r.bare));
  const ratio = median(rounds.map((r) => r.bare / r.withPositions.rate));
  const flatRatio = median(rounds.map((r) => r.without.rate / r.withPositions.rate));
  const refused = rounds.reduce((n, r) => n + r.withPositions.refused + r.without.refused, 0);

  // The sweep runs every second on a live node, and its liquidation path whenever prices move:
  // measured warm, after the same sweep on an identical chain (the first, cold figure is printed
  // too); the median of three, each on a fresh chain, as a collection can land in any one.
  const cold = sweep(setup().ex);
  const warm3 = [sweep(ex), sweep(setup().ex), sweep(setup().ex)].sort((a, b) => a.ms - b.ms);
  const { ms: sweepMs, liquidated } = warm3[1]!;
  console.table({
    'exchange placement, 10,000 accounts x 3 positions': { 'orders/s': Math.round(exchangeRate) },
    'exchange placement, 10,000 accounts without positions': { 'orders/s': Math.round(withoutRate) },
    'bare MatchingEngine, same orders': { 'orders/s': Math.round(bareRate) },
  });
  console.log(`medians of 3 rounds; with positions vs without: ${flatRatio.toFixed(2)}x; vs the bare engine: ${ratio.toFixed(1)}x (per round: ${rounds.map((r) => (r.bare / r.withPositions.rate).toFixed(1)).join(', ')}; ${refused} refused; setup ${setupMs.toFixed(0)} ms)`);
  console.log(`liquidation sweep after a 20% move: ${sweepMs.toFixed(1)} ms over ${ACCOUNTS} accounts, ${liquidated} liquidated (median of 3 warm runs: ${warm3.map((w) => w.ms.toFixed(1)).join(', ')} ms; cold, the first in the process: ${cold.ms.toFixed(1)} ms)`);
}
