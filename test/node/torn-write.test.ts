// A node's data directory as a crash leaves it, then damaged: the last block write of db/ cut
// short (the node warns naming the file and resumes at the block before), a byte flipped in an
// early record with acknowledged blocks after it (the start is refused naming the file), a
// validator key file that does not parse (refused naming it).
//
// The crash image is the data directory copied while the node runs idle after its last answer:
// the bytes kill -9 leaves (every write is in the files, no database was closed, no snapshot taken).
import { cp, readFile, readdir, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { DataDirDamagedError, checkLog } from '../../node/index.ts';
import { limit, orderAction, startNode, tempDir, wallets } from '../support/node.ts';

const [alice] = wallets as [typeof wallets[0]];
const A = alice.address.toLowerCase();
const IDLE = { emptyBlockIntervalMs: 3_600_000 }; // no empty blocks: the last write is the last answered block

/** The newest write-ahead log of the chain's database. */
async function newestLog(dataDir: string): Promise<string> {
  const logs = (await readdir(join(dataDir, 'db'))).filter((n) => /^\d+\.log$/.test(n)).sort();
  return join(dataDir, 'db', logs[logs.length - 1] as string);
}

const first = await startNode(t, IDLE);
const a = await first.client.exchange(alice, orderAction(limit(0, true, '90000', '0.1')));
const heightA = first.node.height;
const b = await first.client.exchange(alice, orderAction(limit(0, true, '91000', '0.1')));
const heightB = first.node.height;
const crashed = await tempDir();
t.teardown(() => rm(crashed, { recursive: true, force: true }));
await cp(first.dataDir, crashed, { recursive: true });
await rm(join(crashed, 'svc.lock')); // ours, alive; a killed node's lock is taken over

/** A copy of the crash image to damage. */
async function copy(t: { teardown(fn: () => unknown): void }): Promise<string> {
  const dir = await tempDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await cp(crashed, dir, { recursive: true });
  return dir;
}

t.test('the crash image', async (t) => {
  t.match(a.body.response.data.statuses, [{ resting: { oid: 1 } }]);
  t.match(b.body.response.data.statuses, [{ resting: { oid: 2 } }]);
  t.equal(heightB, heightA + 1, 'one block each');
  t.match(checkLog(await readFile(await newestLog(crashed))), { kind: 'whole' });
});

t.test('the last block write cut short: the node warns naming the file, resumes at the block before, and serves', async (t) => {
  const dataDir = await copy(t);
  const log = await newestLog(dataDir);
  await truncate(log, (await stat(log)).size - 10); // inside the last record: block B's write
  const genesisFile = (await stat(join(dataDir, 'genesis.json'))).ino;
  const lines: string[] = [];
  const { node, client } = await startNode(t, { ...IDLE, dataDir, log: (line) => lines.push(line) });
  t.match(lines, [new RegExp(`^${log}: the last write is cut short \\(truncated record at byte \\d+; \\d+ bytes dropped, \\d+ whole records kept\\): the last write \\(normally the newest block\\) is lost and the node resumes at the block before it`)]);
  t.equal(node.height, heightA, 'at the block before');
  t.match((await client.info({ type: 'openOrders', user: A })).body, [{ oid: 1, limitPx: '90000' }], 'order 1 is there, order 2 went with its block');
  t.equal((await client.info({ type: 'openOrders', user: A })).body.length, 1);
  const c = await client.exchange(alice, orderAction(limit(0, true, '92000', '0.1')));
  t.match(c.body.response.data.statuses, [{ resting: { oid: 2 } }], 'and the chain goes on');
  t.equal((await stat(join(dataDir, 'genesis.json'))).ino, genesisFile, 'genesis.json, unchanged, is not rewritten');
});

t.test('a byte flipped in an early record with acknowledged blocks after it: the start is refused naming the file', async (t) => {
  const dataDir = await copy(t);
  const log = await newestLog(dataDir);
  const bytes = await readFile(log);
  bytes[20] = (bytes[20] as number) ^ 0x01;
  await writeFile(log, bytes);
  t.match(checkLog(bytes), { kind: 'corrupt', offset: 0 });
  const refused: unknown = await startNode(t, { ...IDLE, dataDir }).catch((err: unknown) => err);
  t.ok(refused instanceof DataDirDamagedError, 'a NodeStartError: the CLI prints the message and exits 1');
  t.equal((refused as DataDirDamagedError).file, log);
  t.match((refused as Error).message, new RegExp(`^${log} is damaged at byte 0 \\(checksum mismatch; a whole record follows at byte \\d+\\): LevelDB would skip the damaged part .* restore the data directory from a backup`));
  t.same(await readFile(log), bytes, 'nothing opened it: the log is as it was');
});

t.test('a validator key file that does not parse: the start is refused naming it', async (t) => {
  const dataDir = await copy(t);
  const path = join(dataDir, 'validator_key.pem');
  await writeFile(path, (await readFile(path, 'utf8')).slice(0, 40)); // torn
  const refused: unknown = await startNode(t, { ...IDLE, dataDir }).catch((err: unknown) => err);
  t.ok(refused instanceof DataDirDamagedError);
  t.match((refused as Error).message, new RegExp(`^${path} must hold an ed25519 private key in PKCS#8 PEM \\(the validator key\\) but does not`));
});
