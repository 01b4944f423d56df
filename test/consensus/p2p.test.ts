// Four BFT engines over js-libp2p on loopback (TCP, noise, yamux): they connect, agree on blocks,
// and a validator restarted on a new port dials back in and catches up. Proposals travel compact
// and are filled in from gossip, or asked for whole when a transaction was not gossiped.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import {
  BftEngine, FileWal, FrameDecoder, Libp2pTransport, MemoryGuardStore, SignGuard, ValidatorSet, encodeBlock, encodeMessage, frame, headerHash,
  txRoot, validatorKeyFromSeed, type ConsensusMessage, type GuardStore, type ValidatorKey,
} from '../../consensus/index.ts';
import { keccak256, utf8, utf8Text } from '../../primitives/index.ts';
import { until } from '../support/network.ts';
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

t.test('a proposal goes out compact; a receiver missing a transaction asks for it whole', async (t) => {
  // A is connected to B and C; B and C are not connected, so what C gossips reaches A only.
  const nets = await Promise.all(['a', 'b', 'c'].map((n) => Libp2pTransport.start({ chainId: 3, nodeKeySeed: keccak256(utf8(`compact-${n}`)), listen: '/ip4/127.0.0.1/tcp/0', peers: [], redialMs: 100 })));
  t.teardown(() => Promise.all(nets.map((n) => n.stop())));
  const [a, b, c] = nets as [Libp2pTransport, Libp2pTransport, Libp2pTransport];
  const got = new Map<Libp2pTransport, ConsensusMessage[]>(nets.map((n) => [n, []]));
  const txs = new Map<Libp2pTransport, number>(nets.map((n) => [n, 0]));
  for (const n of nets) {
    n.onMessage((_from, msg) => got.get(n)!.push(msg));
    n.onTx(() => txs.set(n, txs.get(n)! + 1));
  }
  a.addPeer(b.addresses[0]!);
  a.addPeer(c.addresses[0]!);
  await until('A connected to B and C', () => a.connectedPeers.length === 2 && b.connectedPeers.length === 1 && c.connectedPeers.length === 1);

  const fromA = utf8('a transaction A gossips');
  const fromC = utf8('a transaction only A is gossiped');
  c.broadcastTx(fromC);
  a.broadcastTx(fromA);
  await until('gossip delivered', () => txs.get(a) === 1 && txs.get(b) === 1 && txs.get(c) === 1);

  const blockTxs = [fromA, fromC, utf8('a transaction nobody gossiped')];
  const payload = encodeBlock({ header: { chainId: 3, height: 1, time: 1, parentHash: `0x${'00'.repeat(32)}`, txRoot: txRoot(blockTxs), appHash: `0x${'00'.repeat(32)}`, proposer: 'cd'.repeat(32) }, txs: blockTxs });
  const proposal: ConsensusMessage = { kind: 'proposal', proposal: { message: { height: 1, round: 0, polRound: -1, valueId: `0x${'ab'.repeat(32)}`, proposer: 'cd'.repeat(32) }, signature: 'ef'.repeat(64) }, payload };
  a.broadcast(proposal);
  await until('B and C have the proposal', () => got.get(b)!.length === 1 && got.get(c)!.length === 1);
  for (const n of [b, c]) t.same(got.get(n)![0], proposal, 'the whole proposal, byte for byte');
  t.equal(a.proposalStats.compactSent, 2, 'sent compact to both');
  t.same(c.proposalStats, { compactSent: 0, compactReceived: 1, askedWhole: 0 }, 'C filled it in from gossip');
  t.same(b.proposalStats, { compactSent: 0, compactReceived: 1, askedWhole: 1 }, 'B lacked one and asked A for it whole');

  // The rebroadcast (every tick) reaches B compact again, still lacking that transaction: B does
  // not ask again, having had it whole; C fills it in again (the replica drops the duplicate).
  a.broadcast(proposal);
  await until('the rebroadcast read', () => b.proposalStats.compactReceived === 2 && got.get(c)!.length === 2);
  // Behind the rebroadcast on the same stream; `until` polls on timers, after the check phase in
  // which B's retry of the compact proposal (a setImmediate) has run.
  a.broadcast({ kind: 'status', height: 1 });
  await until('the status read', () => got.get(b)!.length === 2);
  t.equal(b.proposalStats.askedWhole, 1, 'not asked for again');
  t.same(got.get(b)!.map((m) => m.kind), ['proposal', 'status'], 'nothing more from A');
});

t.test('messages many times the stream window arrive whole and in order', async (t) => {
  const nets = await Promise.all(['x', 'y'].map((n) => Libp2pTransport.start({ chainId: 3, nodeKeySeed: keccak256(utf8(`window-${n}`)), listen: '/ip4/127.0.0.1/tcp/0', peers: [], redialMs: 100 })));
  t.teardown(() => Promise.all(nets.map((n) => n.stop())));
  const [x, y] = nets as [Libp2pTransport, Libp2pTransport];
  const got: ConsensusMessage[] = [];
  y.onMessage((_from, msg) => got.push(msg));
  x.addPeer(y.addresses[0]!);
  await until('connected', () => x.connectedPeers.length === 1 && y.connectedPeers.length === 1);
  // Three blocks of 3 MiB each (12 times yamux's 256 KiB window) and small messages between them.
  const sent: ConsensusMessage[] = [];
  for (let i = 0; i < 3; i++) {
    const txs = Array.from({ length: 48 }, (_, j) => new Uint8Array(64 * 1024).fill((i * 48 + j) & 0xff));
    const payload = encodeBlock({ header: { chainId: 3, height: 1, time: 1, parentHash: `0x${'00'.repeat(32)}`, txRoot: txRoot(txs), appHash: `0x${'00'.repeat(32)}`, proposer: 'cd'.repeat(32) }, txs });
    const big: ConsensusMessage = { kind: 'proposal', proposal: { message: { height: 1, round: i, polRound: -1, valueId: `0x${'ab'.repeat(32)}`, proposer: 'cd'.repeat(32) }, signature: `${i}`.repeat(128) }, payload };
    const small: ConsensusMessage = { kind: 'status', height: i + 1 };
    x.broadcast(big);
    x.broadcast(small);
    sent.push(big, small);
  }
  const started = performance.now();
  await until('all delivered', () => got.length === sent.length, 30_000);
  t.comment(`9 MiB delivered in ${(performance.now() - started).toFixed(0)} ms`);
  const bytes = (m: ConsensusMessage) => Buffer.from(encodeMessage(m)).toString('base64');
  t.same(got.map(bytes), sent.map(bytes), 'in order, byte for byte');
});

t.test('a gossiped transaction carries the signer its sender hinted, and only the next one does', async (t) => {
  const nets = await Promise.all(['a', 'b'].map((n) => Libp2pTransport.start({ chainId: 4, nodeKeySeed: keccak256(utf8(`hint-${n}`)), listen: '/ip4/127.0.0.1/tcp/0', peers: [], redialMs: 100 })));
  t.teardown(() => Promise.all(nets.map((n) => n.stop())));
  const [a, b] = nets as [Libp2pTransport, Libp2pTransport];
  const got: { tx: string; signer: string | undefined }[] = [];
  b.onTx((_from, tx, signer) => got.push({ tx: utf8Text(tx), signer }));
  a.addPeer(b.addresses[0]!);
  await until('A connected to B', () => a.connectedPeers.length === 1 && b.connectedPeers.length === 1);
  const signer = `0x${'ab'.repeat(20)}`;
  a.broadcastTx(utf8('hinted'), signer);
  a.broadcastTx(utf8('plain'));
  a.broadcastTx(utf8('not an address'), 'nonsense');
  await until('three transactions', () => got.length === 3);
  t.same(got, [{ tx: 'hinted', signer }, { tx: 'plain', signer: undefined }, { tx: 'not an address', signer: undefined }]);
});
