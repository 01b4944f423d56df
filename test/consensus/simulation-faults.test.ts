// Deterministic simulation: network faults, crashes and restarts (see sim/run.ts for the knobs).
import t from 'tap';
import { runScenarios } from './sim/run.ts';
import { SCENARIOS } from './sim/scenarios.ts';

const BYZANTINE = new Set(['equivocating-proposer', 'double-voting-validator', 'hidden-lock', 'lock-protects-unseen-decision', 'chaos']);
runScenarios(t, 'test/consensus/simulation-faults.test.ts', SCENARIOS.filter((s) => !BYZANTINE.has(s.name)));
