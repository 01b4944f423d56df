// Deterministic simulation: byzantine validators, lock scenarios and random fault mixes (see sim/run.ts).
import t from 'tap';
import { runScenarios } from './sim/run.ts';
import { SCENARIOS } from './sim/scenarios.ts';

const NAMES = new Set(['equivocating-proposer', 'double-voting-validator', 'hidden-lock', 'lock-protects-unseen-decision', 'chaos']);
runScenarios(t, 'test/consensus/simulation-byzantine.test.ts', SCENARIOS.filter((s) => NAMES.has(s.name)));
