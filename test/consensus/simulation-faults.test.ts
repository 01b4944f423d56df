// Deterministic simulation: network faults and full nodes (see sim/run.ts for the knobs).
import t from 'tap';
import { runScenarios } from './sim/run.ts';
import { SCENARIOS } from './sim/scenarios.ts';

const NAMES = new Set(['n4f0-happy', 'n4f0-lossy', 'n4f1-crashed', 'partition-2-2', 'partition-3-1', 'full-nodes-follow', 'n1-solo']);
runScenarios(t, 'test/consensus/simulation-faults.test.ts', SCENARIOS.filter((s) => NAMES.has(s.name)));
