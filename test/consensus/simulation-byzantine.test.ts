// Deterministic simulation: byzantine validators (see sim/run.ts for the knobs).
import t from 'tap';
import { runScenarios } from './sim/run.ts';
import { SCENARIOS } from './sim/scenarios.ts';

const NAMES = new Set(['equivocating-proposer', 'double-voting-validator']);
runScenarios(t, 'test/consensus/simulation-byzantine.test.ts', SCENARIOS.filter((s) => NAMES.has(s.name)));
