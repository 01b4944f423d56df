// LevelDB's log as the node checks it before a store opens (node/leveldb-log.ts, node/data-check.ts),
// on logs and MANIFESTs that real LevelDB wrote, damaged as a crash or a disk damages them. What the
// checker says is compared with what LevelDB itself makes of the same bytes.
import { cp, readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { Level } from 'level';
import t, { type Test } from 'tap';
import { BLOCK_SIZE, DataDirDamagedError, checkDataDirLogs, checkLog, crc32c, maskCrc, unmaskCrc } from '../../node/index.ts';
import { until } from '../support/network.ts';
import { tempDir } from '../support/node.ts';
import { replaySeed } from '../support/seed.ts';

type Teardown = { teardown(fn: () => unknown): void };

const logOf = async (dir: string) => (await readdir(dir)).filter((n) => /^\d+\.log$/.test(n)).sort();
const manifestOf = async (dir: string) => (await readFile(join(dir, 'CURRENT'), 'utf8')).trim();

interface Image {
  /** A data directory whose db/ is the LevelDB directory. */
  readonly dataDir: string;
  readonly db: string;
  /** The write-ahead log. */
  readonly log: string;
  /** Byte offset in the log where each write starts. */
  readonly starts: number[];
  readonly keys: string[];
}

/**
 * A LevelDB directory as kill -9 leaves it: each write put (synced) in turn, then the files copied
 * while the database is still open (every byte written is in them; LevelDB never closed).
 */
async function crashImage(t: Teardown, values: readonly number[], options: { writeBufferSize?: number; afterWrites?: (db: string) => Promise<void> } = {}): Promise<Image> {
  const live = await tempDir();
  const dataDir = await tempDir();
  t.teardown(() => Promise.all([rm(live, { recursive: true, force: true }), rm(dataDir, { recursive: true, force: true })]));
  const db = new Level<string, string>(live, options.writeBufferSize !== undefined ? { writeBufferSize: options.writeBufferSize } : {});
  await db.open();
  const keys = values.map((_, i) => `k${String(i).padStart(2, '0')}`);
  const starts: number[] = [];
  for (const [i, valueSize] of values.entries()) {
    const [log] = await logOf(live);
    // Where its record's header lands: past the padding when fewer than 7 bytes are left in the block.
    const size = log === undefined ? 0 : (await stat(join(live, log))).size;
    starts.push(BLOCK_SIZE - (size % BLOCK_SIZE) < 7 ? size + BLOCK_SIZE - (size % BLOCK_SIZE) : size);
    await db.put(keys[i] as string, 'v'.repeat(valueSize), { sync: true });
  }
  await options.afterWrites?.(live);
  await cp(live, join(dataDir, 'db'), { recursive: true });
  await db.close();
  const dir = join(dataDir, 'db');
  const [log] = await logOf(dir);
  return { dataDir, db: dir, log: join(dir, log as string), starts, keys };
}

/** A copy of the image to damage. */
async function copyOf(t: Teardown, image: Image): Promise<Image> {
  const dataDir = await tempDir();
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const db = join(dataDir, 'db');
  await cp(image.db, db, { recursive: true });
  return { ...image, dataDir, db, log: join(db, image.log.slice(image.db.length + 1)) };
}

/** The keys LevelDB finds when it opens the directory (it recovers, then deletes the log). */
async function levelKeys(dir: string): Promise<string[]> {
  const db = new Level<string, string>(dir);
  await db.open();
  try {
    return await db.keys().all();
  } finally {
    await db.close();
  }
}

async function flip(path: string, at: number): Promise<void> {
  const b = await readFile(path);
  b[at] = (b[at] as number) ^ 0x10;
  await writeFile(path, b);
}

/** checkDataDirLogs' warnings, or its refusal. */
async function checkDir(dataDir: string): Promise<{ warnings: string[]; refused: DataDirDamagedError | null }> {
  const warnings: string[] = [];
  try {
    await checkDataDirLogs(dataDir, (line) => warnings.push(line));
    return { warnings, refused: null };
  } catch (err) {
    if (err instanceof DataDirDamagedError) return { warnings, refused: err };
    throw err;
  }
}

t.test('CRC32C and its mask match the reference vectors', async (t) => {
  t.equal(crc32c(Buffer.from('123456789')), 0xe3069283, 'the check value of CRC-32C (Castagnoli)');
  // LevelDB's util/crc32c_test.cc (from RFC 3720, iSCSI).
  t.equal(crc32c(Buffer.alloc(32, 0)), 0x8a9136aa);
  t.equal(crc32c(Buffer.alloc(32, 0xff)), 0x62a8ab43);
  t.equal(crc32c(Uint8Array.from({ length: 32 }, (_, i) => i)), 0x46dd794e);
  t.equal(crc32c(Uint8Array.from({ length: 32 }, (_, i) => 31 - i)), 0x113fdb5c);
  const crc = crc32c(Buffer.from('foo'));
  t.not(maskCrc(crc), crc);
  t.not(maskCrc(maskCrc(crc)), crc);
  t.equal(unmaskCrc(maskCrc(crc)), crc);
  t.equal(unmaskCrc(unmaskCrc(maskCrc(maskCrc(crc)))), crc);
});

t.test('a whole log: every record LevelDB wrote checks', async (t) => {
  const image = await crashImage(t, [200, 200, 200, 200, 200]);
  t.same(checkLog(await readFile(image.log)), { kind: 'whole', size: (await stat(image.log)).size, records: 5 });
  t.same(await checkDir(image.dataDir), { warnings: [], refused: null });
});

t.test('a log cut anywhere in its last record is a torn tail; LevelDB keeps the records before it', async (t) => {
  const image = await crashImage(t, [200, 200, 200, 200, 200]);
  const last = image.starts[4] as number;
  const size = (await stat(image.log)).size;
  for (const [cut, problem] of [[last + 3, 'truncated header'], [last + 7, 'truncated record'], [last + 60, 'truncated record'], [size - 1, 'truncated record']] as const) {
    const copy = await copyOf(t, image);
    await truncate(copy.log, cut);
    t.same(checkLog(await readFile(copy.log)), { kind: 'torn', size: cut, records: 4, offset: last, problem }, `cut at ${cut}`);
    const { warnings, refused } = await checkDir(copy.dataDir);
    t.equal(refused, null);
    t.match(warnings, [new RegExp(`^${copy.log}: the last write is cut short \\(${problem} at byte ${last}; ${cut - last} bytes dropped, 4 whole records kept\\): the last write \\(normally the newest block\\) is lost`)]);
    t.same(await levelKeys(copy.db), image.keys.slice(0, 4), 'LevelDB drops the same record, silently');
  }
  const copy = await copyOf(t, image);
  await truncate(copy.log, last);
  t.same(checkLog(await readFile(copy.log)), { kind: 'whole', size: last, records: 4 }, 'a cut between records is a whole log');
});

t.test('a zero-filled tail (space allocated, never written) is torn', async (t) => {
  const image = await crashImage(t, [200, 200, 200]);
  const size = (await stat(image.log)).size;
  const grown = await copyOf(t, image);
  await writeFile(grown.log, Buffer.concat([await readFile(grown.log), Buffer.alloc(5000)]));
  t.same(checkLog(await readFile(grown.log)), { kind: 'torn', size: size + 5000, records: 3, offset: size, problem: 'zero-filled' });
  t.same(await levelKeys(grown.db), image.keys, 'nothing written is lost');

  const zeroed = await copyOf(t, image);
  const b = await readFile(zeroed.log);
  b.fill(0, image.starts[2]);
  await writeFile(zeroed.log, b);
  t.same(checkLog(b), { kind: 'torn', size, records: 2, offset: image.starts[2], problem: 'zero-filled' });
  t.same(await levelKeys(zeroed.db), image.keys.slice(0, 2));
});

t.test('a byte flipped in the last record is torn: LevelDB drops that record and says so only in its LOG', async (t) => {
  const image = await crashImage(t, [200, 200, 200, 200]);
  const copy = await copyOf(t, image);
  await flip(copy.log, (image.starts[3] as number) + 100);
  t.match(checkLog(await readFile(copy.log)), { kind: 'torn', records: 3, offset: image.starts[3], problem: 'checksum mismatch' });
  const { warnings, refused } = await checkDir(copy.dataDir);
  t.equal(refused, null);
  t.match(warnings, [/000003\.log: the last write is damaged \(checksum mismatch/]);
  t.same(await levelKeys(copy.db), image.keys.slice(0, 3));
  t.match(await readFile(join(copy.db, 'LOG'), 'utf8'), /dropping \d+ bytes; Corruption: checksum mismatch/);
});

t.test('damage with whole records after it is refused, naming the file and the byte; LevelDB would lose them', async (t) => {
  const image = await crashImage(t, [200, 200, 200, 200, 200]);
  const early = image.starts[1] as number;
  for (const [what, at] of [['a data byte', early + 50], ['a length byte', early + 5], ['the type byte', early + 6], ['a CRC byte', early]] as const) {
    const copy = await copyOf(t, image);
    await flip(copy.log, at);
    t.match(checkLog(await readFile(copy.log)), { kind: 'corrupt', records: 1, offset: early, laterRecord: image.starts[2] }, what);
    const { refused } = await checkDir(copy.dataDir);
    t.ok(refused instanceof DataDirDamagedError, `${what}: refused`);
    t.equal(refused?.file, copy.log);
    t.match(refused?.message, new RegExp(`^${copy.log} is damaged at byte ${early} \\(.*; a whole record follows at byte ${image.starts[2]}\\): LevelDB would skip the damaged part and keep the writes after it, losing acknowledged blocks in the middle\\. The node does not start on it: restore the data directory from a backup`));
    t.ok((await readdir(copy.db)).includes(copy.log.slice(copy.db.length + 1)), 'the log is left as it was found');
  }
  // Why: LevelDB itself opens it, drops the rest of the 32 KiB block (every later record here) and deletes the log.
  const copy = await copyOf(t, image);
  await flip(copy.log, early + 50);
  t.same(await levelKeys(copy.db), image.keys.slice(0, 1), 'LevelDB alone loses k01..k04, all acknowledged');
  t.notOk((await readdir(copy.db)).includes(copy.log.slice(copy.db.length + 1)), 'and deletes the evidence');
});

t.test('records across 32 KiB blocks: FIRST, MIDDLE and LAST fragments, padding, an empty FIRST', async (t) => {
  // A put of a value of v bytes (v >= 16384) is a record of 7 + 20 + v bytes here (header, batch
  // header 12, tag 1, key length 1, key 3, value length 3): v = 32737 leaves 4 bytes of padding at
  // the end of block 0, v = 32734 leaves exactly a header's room.
  const image = await crashImage(t, [32737, 100, 80_000, 100]);
  t.equal(image.starts[1], BLOCK_SIZE, 'the first write ends 4 bytes before the block end, then padding');
  const whole = checkLog(await readFile(image.log));
  t.match(whole, { kind: 'whole', records: 4 });
  const big = image.starts[2] as number;

  const cut = await copyOf(t, image);
  await truncate(cut.log, 2 * BLOCK_SIZE + 100);
  t.match(checkLog(await readFile(cut.log)), { kind: 'torn', records: 2, offset: big, problem: 'truncated record' }, 'cut in the MIDDLE fragment: the whole record is torn');
  t.same(await levelKeys(cut.db), image.keys.slice(0, 2));

  const unfinished = await copyOf(t, image);
  await truncate(unfinished.log, 2 * BLOCK_SIZE);
  t.match(checkLog(await readFile(unfinished.log)), { kind: 'torn', records: 2, offset: big, problem: 'unfinished record' }, 'cut at a block boundary after FIRST');
  t.same(await levelKeys(unfinished.db), image.keys.slice(0, 2));

  const middle = await copyOf(t, image);
  await flip(middle.log, 2 * BLOCK_SIZE + 1000);
  t.match(checkLog(await readFile(middle.log)), { kind: 'corrupt', records: 2, offset: big, problem: 'checksum mismatch', laterRecord: image.starts[3] }, 'a flip in MIDDLE, a record after');
  t.ok((await checkDir(middle.dataDir)).refused);

  const lastFragment = await copyOf(t, image);
  await truncate(lastFragment.log, image.starts[3] as number);
  await flip(lastFragment.log, (image.starts[3] as number) - 10);
  t.match(checkLog(await readFile(lastFragment.log)), { kind: 'torn', records: 2, offset: big, problem: 'checksum mismatch' }, 'a flip in the LAST fragment of the last record');
  t.same(await levelKeys(lastFragment.db), image.keys.slice(0, 2));

  // 7 bytes left in a block: LevelDB writes an empty FIRST there and the data in the next block.
  const tight = await crashImage(t, [32734, 100]);
  t.equal(tight.starts[1], BLOCK_SIZE - 7);
  t.match(checkLog(await readFile(tight.log)), { kind: 'whole', records: 2 });
  t.same(await levelKeys(tight.db), tight.keys);
});

t.test('property: LevelDB keeps exactly the records before a torn tail, and loses some where the checker refuses', async (t) => {
  const seed = replaySeed(t, 20261127);
  const image = await crashImage(t, [300, 5000, 40_000, 20, 70_000, 800, 3000, 12_000, 1]);
  const bytes = await readFile(image.log);
  const recordAt = (offset: number) => image.starts.indexOf(offset);
  const damage = fc.oneof(
    fc.record({ kind: fc.constant('cut' as const), at: fc.integer({ min: 1, max: bytes.length - 1 }) }),
    fc.record({ kind: fc.constant('flip' as const), at: fc.integer({ min: 0, max: bytes.length - 1 }) }),
  );
  await fc.assert(fc.asyncProperty(damage, async (d) => {
    const copy = await copyOf(t, image);
    if (d.kind === 'cut') await truncate(copy.log, d.at);
    else await flip(copy.log, d.at);
    const check = checkLog(await readFile(copy.log));
    const kept = await levelKeys(copy.db);
    if (check.kind === 'whole') return kept.length === image.keys.length - (d.kind === 'cut' ? image.starts.filter((s) => s >= d.at).length : 0);
    if (check.kind === 'torn') return recordAt(check.offset) >= 0 && kept.join() === image.keys.slice(0, recordAt(check.offset)).join();
    return d.kind === 'flip' && kept.length < image.keys.length;
  }), { seed, numRuns: 30 });
});

/**
 * The files a crash leaves in the middle of LevelDB's MANIFEST write: three writes fill a 64 KiB
 * memtable (one log); the fourth goes to a new log while the full memtable becomes a table file in
 * the background and an edit naming both is appended to the MANIFEST. The crash is taken between:
 * the files before the edit, the new log and table, and the MANIFEST with the edit cut at `keep`
 * bytes of it (or, `flipAt`, with the whole edit and one of its bytes flipped).
 */
async function tornManifest(t: Test, damage: { keep: number } | { flipAt: number }): Promise<{ dataDir: string; db: string; manifest: string; keys: string[] }> {
  const live = await tempDir();
  const before = await tempDir();
  const dataDir = await tempDir();
  t.teardown(() => Promise.all([live, before, dataDir].map((d) => rm(d, { recursive: true, force: true }))));
  const level = new Level<string, string>(live, { writeBufferSize: 64 << 10 });
  await level.open();
  const keys = ['k0', 'k1', 'k2', 'k3'];
  for (const k of keys.slice(0, 3)) await level.put(k, 'v'.repeat(25_000), { sync: true });
  await cp(live, before, { recursive: true });
  const manifestName = await manifestOf(live);
  const oldSize = (await stat(join(live, manifestName))).size;
  const [oldLog, ...others] = await logOf(live);
  t.same(others, [], 'one log: the memtable is not full yet');
  await level.put('k3', 'v'.repeat(25_000), { sync: true });
  await until('the table and its edit', async () => (await stat(join(live, manifestName))).size > oldSize && !(await logOf(live)).includes(oldLog as string), 10_000);
  const after = await readFile(join(live, manifestName));
  const db = join(dataDir, 'db');
  await cp(live, db, { recursive: true });
  await level.close();
  await cp(before, db, { recursive: true }); // the old log, and the MANIFEST before the edit
  t.same(after.subarray(0, oldSize), await readFile(join(before, manifestName)), 'the edit was appended');
  const manifest = join(db, manifestName);
  if ('keep' in damage) {
    await writeFile(manifest, after.subarray(0, oldSize + damage.keep));
  } else {
    await writeFile(manifest, after);
    await flip(manifest, oldSize + damage.flipAt);
  }
  return { dataDir, db, manifest, keys };
}

t.test('MANIFEST: a last edit cut short is cut off; a bad one is refused, as LevelDB refuses it', async (t) => {
  const alone = await tornManifest(t, { keep: 20 });
  t.match(checkLog(await readFile(alone.manifest)), { kind: 'torn', records: 2, problem: 'truncated record' });
  t.same(await levelKeys(alone.db), alone.keys, 'LevelDB alone opens it at the edit before (dropping the cut one silently) and replays both logs');

  const cut = await tornManifest(t, { keep: 20 });
  const size = (await stat(cut.manifest)).size;
  const { warnings, refused } = await checkDir(cut.dataDir);
  t.equal(refused, null);
  t.match(warnings, [new RegExp(`^${cut.manifest}: LevelDB's last edit of its file list was cut short \\(truncated record at byte ${size - 20}\\); it is cut off`)]);
  t.equal((await stat(cut.manifest)).size, size - 20, 'cut at the last whole edit');
  t.same(await levelKeys(cut.db), cut.keys, 'every key, from the logs');

  const header = await tornManifest(t, { keep: 3 });
  t.match(checkLog(await readFile(header.manifest)), { kind: 'torn', problem: 'truncated header' });
  t.equal((await checkDir(header.dataDir)).refused, null);
  t.same(await levelKeys(header.db), header.keys);

  // A flipped byte in the last edit: LevelDB refuses to open ("checksum mismatch"), and so does the check, naming the file.
  const flippedAlone = await tornManifest(t, { flipAt: 12 });
  await t.rejects(levelKeys(flippedAlone.db), { cause: { message: /Corruption: checksum mismatch/ } });
  const flipped = await tornManifest(t, { flipAt: 12 });
  const r = await checkDir(flipped.dataDir);
  t.equal(r.refused?.file, flipped.manifest);
  t.match(r.refused?.message, new RegExp(`^${flipped.manifest} is damaged at byte \\d+ \\(checksum mismatch\\): LevelDB cannot tell which table files hold the database`));
});

t.test('MANIFEST: an edit holding the file numbers cut short is refused (LevelDB cannot open without it)', async (t) => {
  const image = await crashImage(t, [100]);
  const manifest = join(image.db, await manifestOf(image.db));
  t.match(checkLog(await readFile(manifest)), { kind: 'whole', records: 2 }, 'a new database: the comparator, then the numbers');
  await truncate(manifest, (await stat(manifest)).size - 2);
  const copy = await copyOf(t, image);
  await t.rejects(levelKeys(copy.db), { cause: { message: /no meta-nextfile entry in descriptor/ } }, 'LevelDB refuses it');
  t.match((await checkDir(image.dataDir)).refused?.message, /MANIFEST-\d+ is damaged at byte \d+ \(truncated record\): LevelDB cannot tell/);
});

t.test('the logs LevelDB replays, in order: a torn older log with records in a newer one is refused; obsolete logs are not read', async (t) => {
  const image = await crashImage(t, [200, 200, 200]);
  const name = image.log.slice(image.db.length + 1);
  const newer = join(image.db, '000009.log');
  await cp(image.log, newer);
  await truncate(image.log, (image.starts[2] as number) + 20);
  const { refused } = await checkDir(image.dataDir);
  t.equal(refused?.file, image.log, `${name} torn, 000009.log holds later writes`);
  t.match(refused?.message, /truncated record; .*000009\.log holds 3 later records/);

  await rm(newer);
  await writeFile(join(image.db, '000001.log'), Buffer.alloc(100, 0x55)); // below the MANIFEST's log number
  t.match((await checkDir(image.dataDir)).warnings, [/000003\.log: the last write is cut short/], 'only the replayed log is read');
});

t.test('CURRENT: missing beside LevelDB files, or naming no MANIFEST, is refused', async (t) => {
  const image = await crashImage(t, [200]);
  await checkDataDirLogs(join(image.dataDir, 'nothing-here'), () => t.fail('no warning'));
  const empty = await tempDir();
  t.teardown(() => rm(empty, { recursive: true, force: true }));
  t.same(await checkDir(empty), { warnings: [], refused: null }, 'a new data directory');

  const bad = await copyOf(t, image);
  await writeFile(join(bad.db, 'CURRENT'), 'MANIFEST-0000');
  t.match((await checkDir(bad.dataDir)).refused, { file: join(bad.db, 'CURRENT'), message: /CURRENT does not name a MANIFEST file .* \(it holds "MANIFEST-0000"\)/ });
  await rm(join(bad.db, 'CURRENT'));
  t.match((await checkDir(bad.dataDir)).refused, { file: join(bad.db, 'CURRENT'), message: /CURRENT is missing while .* holds LevelDB files \(000003\.log\): LevelDB would start an empty database over them/ });
});
