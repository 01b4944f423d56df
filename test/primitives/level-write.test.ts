// writeRaw and writeBatch against level's own batch(): the same operations, given as each
// sublevel's encoding stores them, leave byte-for-byte the same database; before open and after
// close they answer as batch() does.
import t, { type Test } from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { prepareBatch, sublevelPrefix, writeBatch, writeRaw, writeTarget, type RawOp } from '../../primitives/index.ts';

async function tempDir(t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-level-write-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Every entry of the database as stored: [key hex, value hex]. */
async function dump(db: Level<string, unknown>): Promise<[string, string][]> {
  const out: [string, string][] = [];
  for await (const [k, v] of db.iterator({ keyEncoding: 'view', valueEncoding: 'view' }) as AsyncIterable<[Uint8Array, Uint8Array]>) {
    out.push([Buffer.from(k).toString('hex'), Buffer.from(v).toString('hex')]);
  }
  return out;
}

function stores(db: Level<string, unknown>) {
  return {
    json: db.sublevel<string, unknown>('block', { valueEncoding: 'json' }),
    text: db.sublevel<string, string>('c', { valueEncoding: 'utf8' }),
    bytes: db.sublevel('trie', { keyEncoding: 'view', valueEncoding: 'view' }),
  };
}

/** An open database, closed when the test ends. */
async function openOne(t: Test): Promise<Level<string, unknown>> {
  const db = new Level<string, unknown>(await tempDir(t), { valueEncoding: 'json' });
  await db.open();
  t.teardown(() => db.close());
  return db;
}

/** Two open databases, to write the same operations into each by two paths. */
async function openPair(t: Test): Promise<[Level<string, unknown>, Level<string, unknown>]> {
  const dir = await tempDir(t);
  const a = new Level<string, unknown>(join(dir, 'a'), { valueEncoding: 'json' });
  const b = new Level<string, unknown>(join(dir, 'b'), { valueEncoding: 'json' });
  await Promise.all([a.open(), b.open()]);
  t.teardown(() => Promise.all([a.close(), b.close()]));
  return [a, b];
}

t.test('the same writes store the same bytes as batch()', async (t) => {
  const [a, b] = await openPair(t);
  const sa = stores(a);
  const sb = stores(b);
  const record = { rlp: '0xf8ab', senders: ['0x' + 'ab'.repeat(20)], receipts: [{ status: 1, logs: [] }], note: 'é ü 漢 \u{1F600}' };
  const hexKey = 'cd'.repeat(32);
  const hexValue = 'f8'.repeat(110);
  const binKey = Uint8Array.from({ length: 32 }, (_, i) => i * 7);
  const binValue = Uint8Array.from({ length: 80 }, (_, i) => 255 - i);
  // Through level: encodings resolved per sublevel and per operation, as the stores did.
  await a.batch([
    { type: 'put', key: '0000000000000001', value: record, sublevel: sa.json },
    { type: 'put', key: 'head', value: 7, sublevel: sa.json },
    { type: 'put', key: 'BTC!1m!00', value: '1,2,3\n4,5,6', sublevel: sa.text },
    { type: 'put', key: hexKey, value: hexValue, keyEncoding: 'utf8', valueEncoding: 'utf8', sublevel: sa.bytes },
    { type: 'put', key: binKey, value: binValue, sublevel: sa.bytes },
  ] as never);
  await a.batch([{ type: 'del', key: 'head', sublevel: sa.json }] as never);
  // Through writeRaw: prefixed keys and encoded values.
  const bytesPrefix = new TextEncoder().encode(sublevelPrefix(sb.bytes));
  const ops: RawOp[] = [
    { type: 'put', key: `${sublevelPrefix(sb.json)}0000000000000001`, value: JSON.stringify(record) },
    { type: 'put', key: `${sublevelPrefix(sb.json)}head`, value: JSON.stringify(7) },
    { type: 'put', key: `${sublevelPrefix(sb.text)}BTC!1m!00`, value: '1,2,3\n4,5,6' },
    { type: 'put', key: sublevelPrefix(sb.bytes) + hexKey, value: hexValue },
    { type: 'put', key: Uint8Array.of(...bytesPrefix, ...binKey), value: binValue },
  ];
  await writeRaw(b as never, ops, false);
  await writeRaw(b as never, [{ type: 'del', key: `${sublevelPrefix(sb.json)}head` }], true);
  t.same(await dump(b), await dump(a));
  t.equal((await dump(a)).length, 4);
  // A sublevel's writes go to its root under its prefix; a root's under none.
  t.equal(writeTarget(sb.bytes).root, b);
  t.equal(writeTarget(sb.bytes).prefix, '!trie!');
  t.same(writeTarget(b), { root: b, prefix: '' });
  // And level reads them back through the sublevels' encodings.
  t.same(await sb.json.get('0000000000000001'), record);
  t.equal(await sb.text.get('BTC!1m!00'), '1,2,3\n4,5,6');
  t.equal(Buffer.from((await sb.bytes.get(binKey as never)) as unknown as Uint8Array).toString('hex'), Buffer.from(binValue).toString('hex'));
});

t.test('a value that is neither text nor bytes is refused and writes nothing', async (t) => {
  const db = await openOne(t);
  const prefix = sublevelPrefix(stores(db).json);
  const ops = [
    { type: 'put', key: `${prefix}a`, value: '1' },
    { type: 'put', key: `${prefix}b`, value: JSON.stringify(undefined) },
  ] as RawOp[];
  await t.rejects(writeRaw(db as never, ops, false), /neither text nor bytes/);
  t.same(await dump(db), []);
});

t.test('before open the write waits for it; after close it is refused as batch() refuses it', async (t) => {
  const dir = await tempDir(t);
  const db = new Level<string, unknown>(dir, { valueEncoding: 'json' });
  const prefix = sublevelPrefix(stores(db).json);
  // The constructor starts opening: the write is deferred until the database is open.
  t.equal(db.status, 'opening');
  await writeRaw(db as never, [{ type: 'put', key: `${prefix}x`, value: '[1,2]' }], false);
  t.same(await stores(db).json.get('x'), [1, 2]);
  await db.close();
  await t.rejects(writeRaw(db as never, [{ type: 'put', key: `${prefix}y`, value: '3' }], false), { code: 'LEVEL_DATABASE_NOT_OPEN' });
});

t.test('writeBatch stores what writeRaw stores, and leaves no batch attached to the database', async (t) => {
  const [a, b] = await openPair(t);
  const prefix = sublevelPrefix(stores(a).json);
  const bytesPrefix = new TextEncoder().encode(sublevelPrefix(stores(a).bytes));
  // A buffer written again after each put: the engine must have copied the put's view.
  const scratch = new Uint8Array(8);
  const ops: RawOp[] = [];
  for (let i = 0; i < 1000; i++) {
    scratch.fill(i & 255);
    ops.push({ type: 'put', key: `${prefix}${String(i).padStart(4, '0')}`, value: JSON.stringify({ i, note: 'é 漢' }) });
    ops.push({ type: 'put', key: Uint8Array.of(...bytesPrefix, i >> 8, i & 255), value: scratch.slice() });
  }
  ops.push({ type: 'del', key: `${prefix}0007` });
  await writeRaw(a as never, ops, false);
  let attached = 0;
  let batches = 0;
  const attach = b.attachResource.bind(b);
  const detach = b.detachResource.bind(b);
  b.attachResource = (r: never) => { attached++; batches++; attach(r); };
  b.detachResource = (r: never) => { attached--; detach(r); };
  await writeBatch(b as never, (batch) => {
    for (let i = 0; i < 1000; i++) {
      scratch.fill(i & 255);
      batch.put(`${prefix}${String(i).padStart(4, '0')}`, JSON.stringify({ i, note: 'é 漢' }));
      batch.put(Uint8Array.of(...bytesPrefix, i >> 8, i & 255), scratch.subarray(0, 8));
    }
    batch.del(`${prefix}0007`);
  }, true);
  t.equal(batches, 1, 'written through one chained batch');
  t.equal(attached, 0, 'the chained batch is detached once written');
  t.same(await dump(b), await dump(a));
  t.equal((await dump(b)).length, 1999);
});

t.test('writeBatch: a refused value or a throwing fill writes nothing', async (t) => {
  const db = await openOne(t);
  const prefix = sublevelPrefix(stores(db).json);
  await t.rejects(writeBatch(db as never, (batch) => {
    batch.put(`${prefix}a`, '1');
    batch.put(`${prefix}b`, JSON.stringify(undefined) as unknown as string);
  }, false), /neither text nor bytes/);
  await t.rejects(writeBatch(db as never, (batch) => {
    batch.put(`${prefix}a`, '1');
    throw new Error('fill failed');
  }, false), /fill failed/);
  t.same(await dump(db), []);
  // The database is still usable, and closes with nothing left open.
  await writeBatch(db as never, (batch) => batch.put(`${prefix}c`, '3'), false);
  t.same(await stores(db).json.get('c'), 3);
});

t.test('writeBatch before open waits for it; after close it is refused as batch() refuses it', async (t) => {
  const dir = await tempDir(t);
  const db = new Level<string, unknown>(dir, { valueEncoding: 'json' });
  const prefix = sublevelPrefix(stores(db).json);
  t.equal(db.status, 'opening');
  // Built while opening (operations kept for the public batch()): dropped, it writes nothing.
  const dropped = prepareBatch(db as never, (batch) => batch.put(`${prefix}z`, '0'), false);
  dropped.discard();
  await t.rejects(dropped.write(), /dropped/);
  await writeBatch(db as never, (batch) => batch.put(`${prefix}x`, '[1,2]'), false);
  t.same(await stores(db).json.get('x'), [1, 2]);
  t.equal(await stores(db).json.get('z'), undefined);
  await db.close();
  await t.rejects(writeBatch(db as never, (batch) => batch.put(`${prefix}y`, '3'), false), { code: 'LEVEL_DATABASE_NOT_OPEN' });
});

t.test('prepareBatch: built now, written once later; dropped or closed, it writes nothing', async (t) => {
  const dir = await tempDir(t);
  const db = new Level<string, unknown>(dir, { valueEncoding: 'json' });
  await db.open();
  const prefix = sublevelPrefix(stores(db).json);
  const record = { n: 1 };
  const first = prepareBatch(db as never, (batch) => batch.put(`${prefix}a`, JSON.stringify(record)), true);
  record.n = 2; // encoded when prepared
  t.same(await dump(db), [], 'nothing is written before write()');
  await first.write();
  t.same(await stores(db).json.get('a'), { n: 1 });
  await t.rejects(first.write(), /written twice/);
  const dropped = prepareBatch(db as never, (batch) => batch.put(`${prefix}b`, '2'), false);
  dropped.discard();
  await t.rejects(dropped.write(), /dropped/);
  const failing = prepareBatch(db as never, () => {
    throw new Error('encoding failed');
  }, false);
  await t.rejects(failing.write(), /encoding failed/);
  const late = prepareBatch(db as never, (batch) => batch.put(`${prefix}c`, '3'), false);
  await db.close();
  await t.rejects(late.write(), { code: 'LEVEL_DATABASE_NOT_OPEN' });
  await db.open();
  t.teardown(() => db.close());
  t.same((await dump(db)).length, 1, 'only the first batch was written');
});
