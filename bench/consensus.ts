// BFT consensus alone: four validators in this process over js-libp2p on loopback (TCP, noise,
// yamux), transactions gossiped on the transaction channel, an application that only hashes
// blocks (no exchange execution, no signature recovery, no REST). Actions arrive at random
// nodes at a fixed rate; latency is from arrival at a node to the commit of its block there.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BftEngine, FileWal, Libp2pTransport, MemoryGuardStore, SignGuard, ValidatorSet, headerHash, validatorKeyFromSeed,
  type BftApp, type Block, type Commit, type CommittedHead,
} from '../consensus/index.ts';
import { bytesToHex, concatBytes, hexToBytes, keccak256, utf8 } from '../primitives/index.ts';

const RATE = Number(process.env.BENCH_RATE ?? 2000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

class HashApp implements BftApp {
  pool = new Map<string, Uint8Array>();
  blocks: { block: Block; commit: Commit }[] = [];
  last: CommittedHead = { height: 0, hash: `0x${'00'.repeat(32)}`, time: Date.now() - 1000, appHash: `0x${'11'.repeat(32)}` };
  arrivals = new Map<string, number>();
  latencies: number[] = [];
  rounds: number[] = [];
  constructor(private readonly validators: ValidatorSet) {}
  validatorSet(): ValidatorSet { return this.validators; }
  head(): CommittedHead { return this.last; }
  reapTxs(): Uint8Array[] { throw new Error('unused'); }
  pendingTxs(): number { return this.pool.size; }
  proposalTxs(maxTxs: number): Uint8Array[] { return [...this.pool.values()].slice(0, maxTxs); }
  async commitBlock(block: Block, commit: Commit): Promise<void> {
    const hash = headerHash(block.header);
    this.blocks.push({ block, commit });
    this.last = { height: block.header.height, hash, time: block.header.time, appHash: bytesToHex(keccak256(concatBytes(hexToBytes(this.last.appHash), hexToBytes(hash)))) };
    this.rounds.push(commit.round ?? 0);
    const now = performance.now();
    for (const tx of block.txs) {
      const key = Buffer.from(tx).toString('hex');
      this.pool.delete(key);
      const at = this.arrivals.get(key);
      if (at !== undefined) {
        this.latencies.push(now - at);
        this.arrivals.delete(key);
      }
    }
  }
  async storedBlock(h: number) { return this.blocks[h - 1]; }
  evidenceCommitted(): boolean { return false; }
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
}

export async function benchConsensus(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-bft-'));
  const keys = [0, 1, 2, 3].map((i) => validatorKeyFromSeed(keccak256(utf8(`bench-validator-${i}`))));
  const validators = new ValidatorSet(keys.map((k) => ({ publicKey: k.publicKey, power: 1 })));
  const apps = keys.map(() => new HashApp(validators));
  const nets = await Promise.all(keys.map((_, i) => Libp2pTransport.start({ chainId: 1, nodeKeySeed: keccak256(utf8(`bench-node-${i}`)), listen: '/ip4/127.0.0.1/tcp/0', peers: [] })));
  for (const n of nets) for (const m of nets) if (m !== n) n.addPeer(`${m.addresses[0]}`);
  const engines = keys.map((key, i) => new BftEngine(apps[i]!, {
    chainId: 1, guard: new SignGuard(key, new MemoryGuardStore()), wal: new FileWal(join(dir, `wal-${i}`)), transport: nets[i]!,
    timeouts: { proposeMs: 3000, proposeDeltaMs: 500, prevoteMs: 500, prevoteDeltaMs: 500, precommitMs: 500, precommitDeltaMs: 500 },
    now: () => Date.now(), batchDelayMs: 2, emptyBlockIntervalMs: 200, maxBlockTxs: 2_000, maxBlockBytes: 1 << 20,
    maxClockDriftMs: 1000, tickMs: 500, evidenceMaxAge: 100, onFatal: (e) => { throw e; },
    ...(process.env.BENCH_LOG !== undefined ? { log: (line: string) => console.error(`[${i}] ${line}`) } : {}),
  }));
  nets.forEach((n, i) => n.onTx((_from, tx) => {
    const app = apps[i]!;
    app.pool.set(Buffer.from(tx).toString('hex'), Uint8Array.from(tx));
    engines[i]!.notifyTxs();
  }));
  engines.forEach((e) => e.start());
  // Warm up: connected, and a few empty heights behind us.
  while (nets.some((n) => n.connectedPeers.length < 3) || apps.some((a) => a.last.height < 2)) await new Promise((r) => setTimeout(r, 20));
  const warm = apps[0]!.blocks.length;

  const total = RATE * SECONDS;
  const started = performance.now();
  for (let sent = 0; sent < total;) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * RATE));
    for (; sent < due; sent++) {
      const i = sent % 4;
      const tx = randomBytes(200);
      const key = tx.toString('hex');
      apps[i]!.arrivals.set(key, performance.now());
      apps[i]!.pool.set(key, tx);
      nets[i]!.broadcastTx(tx);
      engines[i]!.notifyTxs();
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  const deadline = performance.now() + 10_000;
  while (apps.some((a) => a.arrivals.size > 0) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const elapsed = (performance.now() - started) / 1000;
  for (const e of engines) await e.stop();
  for (const n of nets) await n.stop();
  await rm(dir, { recursive: true, force: true });

  const lat = apps.flatMap((a) => a.latencies).sort((a, b) => a - b);
  const blocks = apps[0]!.blocks.length - warm;
  const txs = apps[0]!.blocks.reduce((s, b) => s + b.block.txs.length, 0);
  const late = apps.reduce((s, a) => s + a.arrivals.size, 0);
  console.log('| validators | offered actions/s | committed | blocks | txs/block | rounds > 0 | p50 ms | p99 ms | max ms |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  console.log(`| 4 | ${RATE} | ${txs}/${total}${late > 0 ? ` (${late} uncommitted)` : ''} | ${blocks} in ${elapsed.toFixed(1)} s | ${(txs / Math.max(1, blocks)).toFixed(0)} | ${apps[0]!.rounds.slice(warm).filter((r) => r > 0).length} | ${pct(lat, 50).toFixed(1)} | ${pct(lat, 99).toFixed(1)} | ${(lat[lat.length - 1] ?? NaN).toFixed(1)} |`);
}
