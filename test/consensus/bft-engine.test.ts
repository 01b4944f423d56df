// Four BFT engines on real timers, connected by an in-memory transport that encodes every message
// to bytes and back: blocks agree, a stopped validator does not stop the others, two stopped
// validators halt the network, and restarted ones resume from their WAL and catch up.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import {
  BftEngine, FileWal, MemoryGuardStore, SignGuard, ValidatorSet, decodeMessage, encodeMessage, headerHash,
  validatorKeyFromSeed, type ConsensusMessage, type ConsensusTransport, type GuardStore, type ValidatorKey,
} from '../../consensus/index.ts';
import { keccak256, utf8 } from '../../primitives/index.ts';
import { waitFor } from '../support/network.ts';
import { tempDir } from '../support/node.ts';
import { MemoryApp } from './memory-app.ts';

const CHAIN = 77;

class Hub {
  handlers = new Map<string, (from: string, msg: ConsensusMessage) => void>();
  up = new Set<string>();
  transport(id: string): ConsensusTransport {
    return {
      broadcast: (msg) => { for (const peer of this.handlers.keys()) if (peer !== id) this.deliver(id, peer, msg); },
      send: (peer, msg) => this.deliver(id, peer, msg),
      onMessage: (h) => { this.handlers.set(id, h); },
    };
  }
  private deliver(from: string, to: string, msg: ConsensusMessage): void {
    const bytes = encodeMessage(msg);
    setImmediate(() => {
      const h = this.handlers.get(to);
      const decoded = decodeMessage(bytes);
      if (decoded === null) throw new Error('a message did not survive the wire codec');
      if (h !== undefined && this.up.has(from) && this.up.has(to)) h(from, decoded);
    });
  }
}

interface Member { key: ValidatorKey; app: MemoryApp; guardStore: GuardStore; walPath: string; engine: BftEngine | null }

t.test('four engines agree, survive one stopped validator, halt without two, resume', async (t) => {
  const dir = await tempDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const hub = new Hub();
  const keys = [0, 1, 2, 3].map((i) => validatorKeyFromSeed(keccak256(utf8(`bft-engine-${i}`))));
  const validators = new ValidatorSet(keys.map((k) => ({ publicKey: k.publicKey, power: 1 })));
  const members: Member[] = keys.map((key, i) => ({ key, app: new MemoryApp(validators), guardStore: new MemoryGuardStore(), walPath: join(dir, `wal-${i}`), engine: null }));
  const start = (i: number, onSyncProgress?: (h: number, target: number) => void): void => {
    const m = members[i]!;
    const id = String(i);
    hub.up.add(id);
    m.engine = new BftEngine(m.app, {
      chainId: CHAIN, guard: new SignGuard(m.key, m.guardStore), wal: new FileWal(m.walPath), transport: hub.transport(id),
      timeouts: { proposeMs: 400, proposeDeltaMs: 100, prevoteMs: 100, prevoteDeltaMs: 100, precommitMs: 100, precommitDeltaMs: 100 },
      now: () => Date.now(), batchDelayMs: 1, emptyBlockIntervalMs: 50, maxBlockTxs: 100, maxBlockBytes: 1 << 20,
      maxClockDriftMs: 1000, tickMs: 100, evidenceMaxAge: 100, onFatal: (e) => t.fail(String(e)),
      ...(onSyncProgress !== undefined ? { onSyncProgress } : {}),
    });
    m.engine.start();
  };
  const stop = async (i: number): Promise<void> => {
    hub.up.delete(String(i));
    await members[i]!.engine?.stop();
    members[i]!.engine = null;
  };
  t.teardown(async () => { for (let i = 0; i < 4; i++) await stop(i); });
  members.forEach((m, i) => m.app.pool.push(utf8(`tx-from-${i}`)));
  for (let i = 0; i < 4; i++) start(i);
  await Promise.all(members.map((m) => m.app.untilHeight(6)));

  const hashes = (h: number) => members.filter((m) => m.app.last.height >= h).map((m) => headerHash(m.app.blocks[h - 1]!.block.header));
  for (let h = 1; h <= 6; h++) t.equal(new Set(hashes(h)).size, 1, `one block at height ${h}`);
  t.equal(new Set(members.map((m) => m.app.blocks[5]!.block.header.appHash)).size, 1, 'equal app hashes');
  const txs = members[0]!.app.blocks.flatMap((b) => b.block.txs.map((x) => Buffer.from(x).toString()));
  t.same(txs.sort(), ['tx-from-0', 'tx-from-1', 'tx-from-2', 'tx-from-3'], 'every pending transaction committed once');

  await stop(3);
  const at = Math.max(...members.slice(0, 3).map((m) => m.app.last.height));
  await Promise.all(members.slice(0, 3).map((m) => m.app.untilHeight(at + 3)));
  t.pass('three of four keep committing');

  await stop(2);
  await new Promise((r) => setTimeout(r, 300)); // let a height in flight finish
  const halted = Math.max(members[0]!.app.last.height, members[1]!.app.last.height);
  await new Promise((r) => setTimeout(r, 1000));
  t.equal(Math.max(members[0]!.app.last.height, members[1]!.app.last.height), halted, 'two of four cannot commit');

  start(2);
  start(3);
  await Promise.all(members.map((m) => m.app.untilHeight(halted + 3)));
  for (let h = 1; h <= halted + 3; h++) t.equal(new Set(hashes(h)).size, 1, `one block at height ${h} after the restart`);
  for (const m of members) {
    for (const { block, commit } of m.app.blocks) t.equal(commit.blockHash, headerHash(block.header));
  }

  // A validator far behind reports block sync progress until it has caught up.
  await stop(3);
  const ahead = Math.max(...members.map((m) => m.app.last.height)) + 8;
  await Promise.all(members.slice(0, 3).map((m) => m.app.untilHeight(ahead)));
  const progress: [number, number][] = [];
  start(3, (h, target) => progress.push([h, target]));
  await members[3]!.app.untilHeight(ahead);
  await new Promise((r) => setTimeout(r, 300)); // a few ticks after catching up
  t.ok(progress.some(([h, target]) => target - h > 3), `reported being behind: ${JSON.stringify(progress.slice(0, 3))}`);
  const last = progress[progress.length - 1];
  t.ok(last !== undefined && last[0] === last[1], 'and then caught up');

  // Stopped while catching up, just after a commit began: stop waits for it. (This harness does not
  // take the path where a commit's startHeight decides the next height at once; the engine's
  // `committing` check for that path is argued in its comment, not shown here.)
  await stop(3);
  const m3 = members[3]!;
  const from = m3.app.last.height;
  await Promise.all(members.slice(0, 3).map((m) => m.app.untilHeight(from + 20)));
  let running = 0;
  let stopped: Promise<void> | null = null;
  const commit = m3.app.commitBlock.bind(m3.app);
  m3.app.commitBlock = async (block, c) => {
    running++;
    // Stop once this commit has begun and every callback of the one before it has run.
    if (block.header.height === from + 4) setImmediate(() => (stopped = stop(3)));
    try {
      await new Promise((r) => setTimeout(r, 5));
      await commit(block, c);
    } finally {
      running--;
    }
  };
  start(3);
  await (await waitFor('the stop during catch-up', () => (stopped === null ? null : { stopped }))).stopped;
  t.ok(m3.app.last.height < from + 20, `stopped while behind (at ${m3.app.last.height} of ${from + 20})`);
  t.equal(running, 0, 'a stopped engine has no commit running');
});
