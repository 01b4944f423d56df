// Deterministic simulation: the validator set changes at a height (see sim/run.ts for the knobs).
import t from 'tap';
import { runScenarios } from './sim/run.ts';
import { SCENARIOS } from './sim/scenarios.ts';

const NAMES = new Set(['stake-moves']);
runScenarios(t, 'test/consensus/simulation-validator-set.test.ts', SCENARIOS.filter((s) => NAMES.has(s.name)));
