// Deterministic simulation: crashes at chosen points, restarts from the WAL, a wiped node (see sim/run.ts).
import t from 'tap';
import { runScenarios } from './sim/run.ts';
import { SCENARIOS } from './sim/scenarios.ts';

const NAMES = new Set(['crash-before-wal-flush', 'crash-mid-round', 'crash-during-commit', 'wiped-node-block-sync']);
runScenarios(t, 'test/consensus/simulation-crashes.test.ts', SCENARIOS.filter((s) => NAMES.has(s.name)));
