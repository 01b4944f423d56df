// Child process for the EVM bench: a devnet node whose genesis (read from a file) funds the bench
// senders. Prints "RPC <url>" once serving; stops on SIGTERM.
import { readFile } from 'node:fs/promises';
import { Session } from 'node:inspector';
import { DEFAULT_NODE_CONFIG, SvcNode } from '../node/index.ts';
import type { GenesisFile } from '../genesis/index.ts';

const [genesisPath, dataDir] = process.argv.slice(2) as [string, string];
const genesis = JSON.parse(await readFile(genesisPath, 'utf8')) as GenesisFile;
const node = await SvcNode.start({
  ...DEFAULT_NODE_CONFIG,
  genesis,
  dataDir,
  fresh: true,
  restPort: 0,
  wsPort: null,
  rpcPort: 0,
  oracleIntervalMs: 0,
  signerWorkers: Number(process.env.BENCH_WORKERS ?? 2),
  log: process.env.BENCH_DEBUG === undefined ? () => {} : (line: string) => console.error(line),
});
// BENCH_ALLOC=<file>: a sampling profile of every allocation (also of objects collected since),
// written on SIGTERM; where garbage comes from, which --heap-prof (live objects only) does not show.
// BENCH_ALLOC_MINOR=0 leaves out what young collections freed: what outlived one, which is what
// the scavenger copies.
const allocProfile = process.env.BENCH_ALLOC;
let session: Session | null = null;
if (allocProfile !== undefined) {
  session = new Session();
  session.connect();
  session.post('HeapProfiler.startSampling', { samplingInterval: 16384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: process.env.BENCH_ALLOC_MINOR !== '0' } as never);
}
// The workers' boot (tsx and the sources, again) is start-up, not the run's CPU.
await node.signersReady();
console.log(`RPC ${node.rpcUrl}`);
process.once('SIGTERM', async () => {
  if (process.env.BENCH_DEBUG !== undefined) console.error('stopping');
  if (session !== null && allocProfile !== undefined) {
    const { writeFile } = await import('node:fs/promises');
    const profile = await new Promise((resolve) => session?.post('HeapProfiler.stopSampling', (_err, r) => resolve((r as { profile: unknown }).profile)));
    await writeFile(allocProfile, JSON.stringify(profile));
  }
  void node.stop().then(() => process.exit(0), (err: unknown) => {
    console.error(err);
    process.exit(1);
  });
});
if (process.env.BENCH_DEBUG !== undefined) {
  node.bus.onEvmBlock((b) => {
    if (b.outcomes.length > 0) console.error(`${Math.round(performance.now())} block ${b.height}: ${b.outcomes.length} txs, left out: ${JSON.stringify(b.outcomes.filter((o) => o.error !== null).slice(0, 2))}`);
  });
}
