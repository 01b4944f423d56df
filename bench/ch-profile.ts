// Profiling harness for the clearinghouse bench (not a benchmark): sets up the same state and
// runs only the placement (PROFILE=place, LAYER=tx or clearinghouse) or the sweep (PROFILE=sweep). With
// CPU_PROFILE=file (or HEAP_PROFILE=file, allocations sampled) the measured runs alone (not the
// setup) are profiled into that file; bundle
// with esbuild first for line numbers (tsx minifies).
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { ACCOUNTS, benchOrders, place, setup, sweep, type PlaceLayer } from './clearinghouse-setup.ts';

const rounds = Number(process.env.ROUNDS ?? 5);
const chains = Array.from({ length: rounds }, () => setup().ex);
const orders = benchOrders();
const out = process.env.CPU_PROFILE;
const heapOut = process.env.HEAP_PROFILE;
const session = out === undefined && heapOut === undefined ? null : new Session();
if (session !== null) {
  session.connect();
  if (heapOut !== undefined) await session.post('HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  else {
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
}
if (process.env.PROFILE === 'sweep') {
  for (const ex of chains) {
    const { ms, liquidated } = sweep(ex);
    if (liquidated !== ACCOUNTS / 2) throw new Error(`unexpected liquidations: ${liquidated}`);
    console.log(`sweep ${ms.toFixed(1)} ms`);
  }
} else {
  for (const ex of chains) {
    const t0 = performance.now();
    const res = place(ex, orders, (process.env.LAYER ?? 'tx') as PlaceLayer);
    console.log(`place ${Math.round(res.rate)}/s (bare engine ${Math.round(res.bareRate)}/s) refused ${res.refused} (${(performance.now() - t0).toFixed(0)} ms)`);
  }
}
if (session !== null && out !== undefined) {
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(out, JSON.stringify(profile));
}
if (session !== null && heapOut !== undefined) {
  const { profile } = await session.post('HeapProfiler.stopSampling');
  writeFileSync(heapOut, JSON.stringify(profile));
}
