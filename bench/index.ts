// Benchmarks: `npm run bench` runs them all; `npm run bench -- <name>` one of them.
import { benchAbuse } from './abuse.ts';
import { benchClearinghouse } from './clearinghouse.ts';
import { benchConsensus } from './consensus.ts';
import { benchConsensusNode } from './consensus-node.ts';
import { benchCrash } from './crash.ts';
import { benchEvmActions } from './evm-actions.ts';
import { benchEvmExec } from './evm-exec.ts';
import { benchEvmTrace } from './evm-trace.ts';
import { benchEvmTransfers } from './evm-transfers.ts';
import { benchFuzz } from './fuzz.ts';
import { benchHistoryIndexer } from './history-indexer.ts';
import { benchHistoryStore } from './history-store.ts';
import { benchLoad } from './load.ts';
import { benchOrderEngine } from './order-engine.ts';
import { benchRestOrders } from './rest-orders.ts';
import { benchSignatures } from './signatures.ts';
import { benchTls } from './tls.ts';
import { benchWsFanout } from './ws-fanout.ts';

const BENCHES: Record<string, () => Promise<void>> = {
  'order-engine': benchOrderEngine,
  clearinghouse: benchClearinghouse,
  'rest-orders': benchRestOrders,
  load: benchLoad,
  signatures: benchSignatures,
  'ws-fanout': benchWsFanout,
  consensus: benchConsensus,
  'consensus-node': benchConsensusNode,
  'evm-transfers': benchEvmTransfers,
  'evm-exec': benchEvmExec,
  'evm-actions': benchEvmActions,
  'evm-trace': benchEvmTrace,
  'history-indexer': benchHistoryIndexer,
  'history-store': benchHistoryStore,
  fuzz: benchFuzz,
  abuse: benchAbuse,
  crash: benchCrash,
  tls: benchTls,
};

const only = process.argv[2];
for (const [name, run] of Object.entries(BENCHES)) {
  if (only !== undefined && only !== name) continue;
  console.log(`\n## ${name}`);
  await run();
}
