// Deterministic simulation: lock scenarios and seeded mixes of faults (see sim/run.ts for the knobs).
import t from 'tap';
import { runScenarios } from './sim/run.ts';
import { SCENARIOS } from './sim/scenarios.ts';

const NAMES = new Set(['hidden-lock', 'lock-protects-unseen-decision', 'chaos']);
runScenarios(t, 'test/consensus/simulation-locks.test.ts', SCENARIOS.filter((s) => NAMES.has(s.name)));
