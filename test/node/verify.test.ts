// `svc verify` (node/verify.ts): the state rebuilt from a data directory's snapshot and from its
// blocks alone; a snapshot that does not match its recorded hash is not used; a block that does
// not replay to the recorded app hash is named; a directory in use is refused.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Level } from 'level';
import t from 'tap';
import { NodeStartError, decodeChainBlock, encodeChainBlock, verifyDataDir } from '../../node/index.ts';
import { limit, orderAction, startNode, tempDir, wallets } from '../support/node.ts';

const SNAPSHOT_INTERVAL = 4;

/** A stopped node's directory with trades in it, a snapshot every 4 blocks and one at its clean stop. */
async function tradedDir(t: { teardown(fn: () => unknown): void; equal(a: unknown, b: unknown): void }): Promise<{ dataDir: string; height: number }> {
  const dataDir = await tempDir();
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const teardowns: (() => unknown)[] = [];
  const { node, client } = await startNode({ teardown: (fn) => teardowns.push(fn) }, { dataDir, snapshotInterval: SNAPSHOT_INTERVAL, emptyBlockIntervalMs: 20 });
  for (let i = 0; i < 6; i++) {
    const maker = await client.exchange(wallets[0]!, orderAction(limit(0, true, String(99_000 + i), '0.01')));
    t.equal(maker.body.status, 'ok');
    const taker = await client.exchange(wallets[1]!, orderAction(limit(0, false, '90000', '0.01', 'Ioc')));
    t.equal(taker.body.status, 'ok');
  }
  const height = node.height;
  for (const fn of teardowns.reverse()) await fn();
  return { dataDir, height };
}
t.test('a cleanly stopped directory verifies: start-up and genesis replay agree', async (t) => {
  const { dataDir, height } = await tradedDir(t);
  const report = await verifyDataDir(dataDir, { snapshotInterval: SNAPSHOT_INTERVAL });
  t.same(report.problems, []);
  t.ok(report.startup.height >= height, 'the stored head');
  t.equal(report.startup.from, report.startup.height, 'start-up begins at the snapshot of the clean stop');
  t.equal(report.fromGenesis.from, 0);
  t.equal(report.fromGenesis.blocksReplayed, report.startup.height);
  t.equal(report.fromGenesis.stateHash, report.startup.stateHash);
});

t.test('a snapshot that does not hash to its recorded hash is not used: start-up replays from genesis', async (t) => {
  const { dataDir } = await tradedDir(t);
  const db = new Level<string, unknown>(join(dataDir, 'db'), { valueEncoding: 'json' });
  const meta = db.sublevel<string, { head: unknown; state: Record<string, unknown>; stateHash?: string }>('meta', { valueEncoding: 'json' });
  const snapshot = await meta.get('snapshot');
  if (snapshot === undefined) throw new Error('no snapshot');
  // One figure of the state changed, the recorded hash kept: a rotted snapshot.
  const text = JSON.stringify(snapshot.state);
  const rotted = text.replace(/"1000000(\d*)"/, '"2000000$1"');
  t.not(rotted, text, 'a balance was changed');
  await meta.put('snapshot', { ...snapshot, state: JSON.parse(rotted) });
  await db.close();
  const lines: string[] = [];
  const report = await verifyDataDir(dataDir, { snapshotInterval: SNAPSHOT_INTERVAL, log: (l) => lines.push(l) });
  t.match(lines.join('\n'), /state snapshot at height \d+ in .*db hashes to 0x[0-9a-f]+, not to the 0x[0-9a-f]+ recorded with it: ignoring it/);
  t.equal(report.startup.from, 0, 'start-up replayed from genesis');
  t.same(report.problems, []);
  // A snapshot of an older version carries no hash: the rotted state is then used, and verify says so.
  const db2 = new Level<string, unknown>(join(dataDir, 'db'), { valueEncoding: 'json' });
  const meta2 = db2.sublevel<string, Record<string, unknown>>('meta', { valueEncoding: 'json' });
  const { stateHash: _dropped, ...old } = (await meta2.get('snapshot')) as Record<string, unknown>;
  await meta2.put('snapshot', old);
  await db2.close();
  const unhashed = await verifyDataDir(dataDir, { snapshotInterval: SNAPSHOT_INTERVAL });
  t.match(unhashed.problems.join('\n'), /stateHash: 0x[0-9a-f]+ at start-up, 0x[0-9a-f]+ from genesis/);
});

t.test('a block that does not replay to its recorded app hash is named; a directory in use is refused', async (t) => {
  const { dataDir } = await tradedDir(t);
  const db = new Level<string, unknown>(join(dataDir, 'db'), { valueEncoding: 'json' });
  const blocks = db.sublevel<string, Uint8Array>('block', { valueEncoding: 'view' });
  let tampered = -1;
  for await (const [key, value] of blocks.iterator()) {
    const block = decodeChainBlock(value);
    const i = block.txs.findIndex((tx) => Buffer.from(tx).toString().includes('"p":"99003"'));
    if (i < 0) continue;
    const txs = [...block.txs];
    txs[i] = Buffer.from(Buffer.from(txs[i] as Uint8Array).toString().replace('"p":"99003"', '"p":"99004"'));
    await blocks.put(key, encodeChainBlock({ ...block, txs }));
    tampered = parseInt(key, 16);
    break;
  }
  await db.close();
  t.ok(tampered > 0, 'a block holding the order');
  await t.rejects(verifyDataDir(dataDir, { snapshotInterval: SNAPSHOT_INTERVAL }), { name: 'NodeStartError', message: new RegExp(`from genesis failed: replay of block ${tampered} gives app hash 0x[0-9a-f]+, the chain recorded 0x`) });
  const teardowns: (() => unknown)[] = [];
  const running = await startNode({ teardown: (fn) => teardowns.push(fn) });
  t.teardown(async () => {
    for (const fn of teardowns.reverse()) await fn();
  });
  const err = await verifyDataDir(running.dataDir).catch((e: unknown) => e);
  t.ok(err instanceof NodeStartError && /is locked by process \d+/.test(err.message), 'the running node holds it');
});
