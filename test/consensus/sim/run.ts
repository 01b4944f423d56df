// Runs scenarios over seeds inside a tap test. SIM_SEEDS=N seeds per scenario (default 20),
// SIM_BASE_SEED=B first seed (default 1), SIM_SEED=S replays one seed with a trace, SIM_SCENARIO=name
// picks one scenario. A failure prints the line that replays it.
import type t from 'tap';
import type { Scenario } from './scenarios.ts';

export function runScenarios(tap: typeof t, file: string, scenarios: readonly Scenario[]): void {
  const seeds = Number(process.env.SIM_SEEDS ?? 20);
  const only = process.env.SIM_SEED === undefined ? null : Number(process.env.SIM_SEED);
  const filter = process.env.SIM_SCENARIO ?? null;
  const base = Number(process.env.SIM_BASE_SEED ?? 1);
  for (const scenario of scenarios) {
    if (filter !== null && scenario.name !== filter) continue;
    tap.test(scenario.name, async (t) => {
      const list = only !== null ? [only] : Array.from({ length: seeds }, (_, i) => base + i);
      let heights = 0;
      let steps = 0;
      for (const seed of list) {
        try {
          const r = scenario.run(seed, only !== null);
          heights += r.heights;
          steps += r.steps;
        } catch (err) {
          const replay = `SIM_SCENARIO=${scenario.name} SIM_SEED=${seed} npx tap ${file}`;
          t.fail(`${scenario.name} seed ${seed}: ${(err as Error).message}\n  replay: ${replay}`);
          if (only !== null) throw err;
          return;
        }
      }
      t.pass(`${list.length} seeds, ${heights} heights decided, ${steps} events`);
    });
  }
}
