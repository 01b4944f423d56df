// Deterministic simulation of a 4-validator network (and n = 1): every scenario over many seeds.
// SIM_SEEDS=N runs N seeds per scenario (default 20), SIM_SEED=S replays one seed with a trace,
// SIM_SCENARIO=name picks one scenario. A failure prints the line that replays it.
import t from 'tap';
import { SCENARIOS } from './sim/scenarios.ts';

const seeds = Number(process.env.SIM_SEEDS ?? 20);
const only = process.env.SIM_SEED === undefined ? null : Number(process.env.SIM_SEED);
const scenarioFilter = process.env.SIM_SCENARIO ?? null;
const base = Number(process.env.SIM_BASE_SEED ?? 1);

for (const scenario of SCENARIOS) {
  if (scenarioFilter !== null && scenario.name !== scenarioFilter) continue;
  t.test(scenario.name, async (t) => {
    const list = only !== null ? [only] : Array.from({ length: seeds }, (_, i) => base + i);
    let heights = 0;
    let steps = 0;
    for (const seed of list) {
      try {
        const r = scenario.run(seed, only !== null);
        heights += r.heights;
        steps += r.steps;
      } catch (err) {
        t.fail(`${scenario.name} seed ${seed}: ${(err as Error).message}\n  replay: SIM_SCENARIO=${scenario.name} SIM_SEED=${seed} npx tap test/consensus/simulation.test.ts`);
        if (only !== null) throw err;
        return;
      }
    }
    t.pass(`${list.length} seeds, ${heights} heights decided, ${steps} events`);
  });
}
