// Profiling harness for the clearinghouse bench (not a benchmark): sets up the same state and
// runs only the exchange placement (PROFILE=place) or the sweep (PROFILE=sweep), for
// `node --cpu-prof --import tsx bench/ch-profile.ts`.
import { ACCOUNTS, benchOrders, place, pxText, setup, sweep, szText } from './clearinghouse-setup.ts';

const rounds = Number(process.env.ROUNDS ?? 5);
const chains = Array.from({ length: rounds }, () => setup().ex);
if (process.env.PROFILE === 'sweep') {
  for (const ex of chains) {
    const { ms, liquidated } = sweep(ex);
    if (liquidated !== ACCOUNTS / 2) throw new Error(`unexpected liquidations: ${liquidated}`);
    console.log(`sweep ${ms.toFixed(1)} ms`);
  }
} else {
  const orders = benchOrders();
  for (const ex of chains) {
    const t0 = performance.now();
    const out = place(ex, orders, pxText, szText);
    console.log(`place ${Math.round(out.rate)}/s refused ${out.refused} (${(performance.now() - t0).toFixed(0)} ms)`);
  }
}
