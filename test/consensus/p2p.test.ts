// Four BFT engines over js-libp2p on loopback (TCP, noise, yamux): they connect, agree on blocks,
// and a validator restarted on a new port dials back in and catches up.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import {
  BftEngine, FileWal, FrameDecoder, Libp2pTransport, MemoryGuardStore, SignGuard, ValidatorSet, frame, headerHash,
  validatorKeyFromSeed, type GuardStore, type ValidatorKey,
} from '../../consensus/index.ts';
import { keccak256, utf8 } from '../../primitives/index.ts';
import { tempDir } from '../support/node.ts';
import { MemoryApp } from './memory-app.ts';

t.test('frames split and join across chunks', async (t) => {
  const d = new FrameDecoder();
  const a = frame(utf8('hello'));
  const b = frame(utf8('world!'));
  const all = Buffer.concat([a, b]);
  t.same(d.push(all.subarray(0, 3)), []);
  t.same(d.push(all.subarray(3, 12)).map((x) => Buffer.from(x).toString()), ['hello']);
  t.same(d.push(all.subarray(12)).map((x) => Buffer.from(x).toString()), ['world!']);
  t.throws(() => new FrameDecoder().push(Uint8Array.of(0xff, 0xff, 0xff, 0xff)), /exceeds/);
});

interface Member { key: ValidatorKey; seed: Uint8Array; app: MemoryApp; guard: GuardStore; wal: string; engine: BftEngine | null; net: Libp2pTransport | null }

t.test('four validators over libp2p', async (t) => {
  const dir = await tempDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const keys = [0, 1, 2, 3].map((i) => validatorKeyFromSeed(keccak256(utf8(`p2p-validator-${i}`))));
  const validators = new ValidatorSet(keys.map((k) => ({ publicKey: k.publicKey, power: 1 })));
  const members: Member[] = keys.map((key, i) => ({
    key, seed: keccak256(utf8(`p2p-node-${i}`)), app: new MemoryApp(validators), guard: new MemoryGuardStore(), wal: join(dir, `wal-${i}`), engine: null, net: null,
  }));
  const start = async (i: number, peers: string[]): Promise<void> => {
    const m = members[i]!;
    m.net = await Libp2pTransport.start({ chainId: 3, nodeKeySeed: m.seed, listen: '/ip4/127.0.0.1/tcp/0', peers, redialMs: 200 });
    m.engine = new BftEngine(m.app, {
      chainId: 3, guard: new SignGuard(m.key, m.guard), wal: new FileWal(m.wal), transport: m.net,
      timeouts: { proposeMs: 500, proposeDeltaMs: 200, prevoteMs: 200, prevoteDeltaMs: 200, precommitMs: 200, precommitDeltaMs: 200 },
      now: () => Date.now(), batchDelayMs: 1, emptyBlockIntervalMs: 50, maxBlockTxs: 100, maxBlockBytes: 1 << 20,
      maxClockDriftMs: 1000, tickMs: 200, evidenceMaxAge: 100, onFatal: (e) => t.fail(String(e)),
    });
    m.engine.start();
  };
  const stop = async (i: number): Promise<void> => {
    const m = members[i]!;
    await m.engine?.stop();
    await m.net?.stop();
    m.engine = null;
    m.net = null;
  };
  t.teardown(async () => { for (let i = 0; i < 4; i++) await stop(i); });

  for (let i = 0; i < 4; i++) await start(i, []);
  const addrs = members.map((m) => `${m.net!.addresses[0]}`);
  for (const m of members) for (const a of addrs) m.net!.addPeer(a);
  members.forEach((m, i) => m.app.pool.push(utf8(`tx-${i}`)));
  await Promise.all(members.map((m) => m.app.untilHeight(5, 30_000)));
  for (let h = 1; h <= 5; h++) t.equal(new Set(members.map((m) => headerHash(m.app.blocks[h - 1]!.block.header))).size, 1, `one block at height ${h}`);

  await stop(2);
  const at = Math.max(...members.map((m) => m.app.last.height));
  await Promise.all([0, 1, 3].map((i) => members[i]!.app.untilHeight(at + 2, 30_000)));
  t.pass('three validators continue');
  // Restart on a new port: the others cannot dial it, it dials them and is answered on its streams.
  await start(2, addrs.filter((_, i) => i !== 2));
  const tip = Math.max(...members.map((m) => m.app.last.height));
  await Promise.all(members.map((m) => m.app.untilHeight(tip + 2, 30_000)));
  for (let h = 1; h <= tip + 2; h++) t.equal(new Set(members.map((m) => headerHash(m.app.blocks[h - 1]!.block.header))).size, 1, `one block at height ${h}`);
});
