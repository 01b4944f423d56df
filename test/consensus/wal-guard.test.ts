// The WAL file (records, fsync, torn tails) and the double-sign guard.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import {
  FileGuardStore, FileWal, MemoryGuardStore, MemoryWal, SIGN_STEP, SignGuard, WalCorruptError, WalGuardStore, validatorKeyFromSeed,
  verifyValidatorSignature, type Wal, type WalEntry,
} from '../../consensus/index.ts';
import { tempDir } from '../support/node.ts';

const vote: WalEntry = {
  kind: 'vote',
  vote: { message: { type: 'prevote', height: 3, round: 1, valueId: null, validator: 'ab' }, signature: 'cd' },
};
const proposal: WalEntry = {
  kind: 'proposal', valid: true, payload: Uint8Array.of(1, 2, 3),
  proposal: { message: { height: 3, round: 1, polRound: -1, valueId: '0x01', proposer: 'ab' }, signature: 'ef' },
};

/** A path in a fresh temporary directory, removed when the test ends. */
async function tempPath(t: { teardown(fn: () => unknown): void }, name: string): Promise<string> {
  const dir = await tempDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return join(dir, name);
}

t.test('file WAL: only flushed entries survive, byte arrays round-trip, reset starts a height', async (t) => {
  const path = await tempPath(t, 'wal');
  const wal = new FileWal(path);
  t.equal(wal.load(), null, 'no log yet');
  wal.reset(3);
  wal.append(vote);
  wal.append(proposal);
  wal.flush();
  wal.append({ kind: 'timeout', timeout: { step: 'propose', height: 3, round: 2 } });
  wal.close(); // a crash: the last append was never flushed
  const loaded = new FileWal(path).load();
  t.equal(loaded?.height, 3);
  t.same(loaded?.entries, [vote, proposal]);
  t.ok((loaded?.entries[1] as WalEntry & { kind: 'proposal' }).payload instanceof Uint8Array);
  const again = new FileWal(path);
  again.reset(4);
  t.equal(again.load()?.height, 3, 'a reset is durable only with the next flush');
  again.flush();
  t.same(again.load(), { height: 4, entries: [] });
  again.append(vote);
  again.flush();
  t.same(new FileWal(path).load(), { height: 4, entries: [vote] }, 'the last height and its inputs');
});

t.test('file WAL: heights are appended until the file passes its size bound, then it starts over', async (t) => {
  const path = await tempPath(t, 'wal');
  const wal = new FileWal(path, 2_000);
  let largest = 0;
  for (let h = 1; h <= 30; h++) {
    wal.reset(h);
    wal.append(proposal);
    wal.append(vote);
    wal.flush();
    largest = Math.max(largest, readFileSync(path).length);
    t.same(new FileWal(path).load(), { height: h, entries: [proposal, vote] });
  }
  t.ok(largest < 2_500, `the file stays near its bound (${largest} bytes)`);
  wal.close();
});

t.test('file WAL: a torn last record is cut off; corruption before the end is an error', async (t) => {
  const path = await tempPath(t, 'wal');
  const wal = new FileWal(path);
  wal.reset(7);
  wal.append(vote);
  wal.flush();
  wal.close();
  const whole = readFileSync(path);
  appendFileSync(path, Buffer.from([0, 0, 0, 50, 1, 2, 3])); // half a record
  t.same(new FileWal(path).load()?.entries, [vote], 'torn header/body dropped');
  t.equal(readFileSync(path).length, whole.length, 'and truncated on disk');
  const flipped = Buffer.from(whole);
  flipped.writeUInt8(flipped.readUInt8(flipped.length - 3) ^ 0xff, flipped.length - 3);
  writeFileSync(path, flipped);
  t.same(new FileWal(path).load()?.entries, [], 'a bad checksum on the last record drops it');
  // Corrupt the height record, which is followed by the vote record: not a torn tail.
  const corrupt = Buffer.from(whole);
  corrupt.writeUInt8(corrupt.readUInt8(10) ^ 0xff, 10);
  writeFileSync(path, corrupt);
  t.throws(() => new FileWal(path).load(), WalCorruptError);
});

t.test('file WAL: a zero-filled tail is a torn tail; a bad record of a height that is over is skipped', async (t) => {
  const path = await tempPath(t, 'wal');
  const wal = new FileWal(path);
  wal.reset(7);
  wal.append(vote);
  wal.flush();
  const sevenEnds = readFileSync(path).length;
  wal.reset(8);
  wal.append(proposal);
  wal.flush();
  wal.close();
  const whole = readFileSync(path);
  // A crash after the file grew but before the appended data reached the disk: zeros.
  writeFileSync(path, Buffer.concat([whole, Buffer.alloc(300)]));
  t.same(new FileWal(path).load(), { height: 8, entries: [proposal] }, 'zeros at the end are dropped');
  t.equal(readFileSync(path).length, whole.length, 'and cut off on disk');
  writeFileSync(path, Buffer.concat([whole, Buffer.alloc(5)]));
  t.same(new FileWal(path).load(), { height: 8, entries: [proposal] }, 'fewer zeros than a header too');
  // The last record half on disk (its end zeros), and the file extended past it with zeros.
  const half = Buffer.from(whole);
  half.fill(0, whole.length - 10);
  writeFileSync(path, Buffer.concat([half, Buffer.alloc(64)]));
  t.same(new FileWal(path).load(), { height: 8, entries: [] }, 'a half-written last record before zeros is dropped');
  // Height 7's vote corrupted: height 8 follows, so only the last height's inputs matter.
  const oldBad = Buffer.from(whole);
  oldBad.writeUInt8(oldBad.readUInt8(sevenEnds - 3) ^ 0xff, sevenEnds - 3);
  writeFileSync(path, oldBad);
  t.same(new FileWal(path).load(), { height: 8, entries: [proposal] }, 'a bad record of an earlier height is skipped');
  // The same damage in the last height (another input after it): replaying it would be wrong.
  writeFileSync(path, whole);
  const w2 = new FileWal(path);
  w2.append(vote);
  w2.flush();
  w2.close();
  const damaged = readFileSync(path);
  damaged.writeUInt8(damaged.readUInt8(whole.length - 3) ^ 0xff, whole.length - 3); // inside height 8's proposal
  writeFileSync(path, damaged);
  t.throws(() => new FileWal(path).load(), WalCorruptError, 'a bad input of the last height, followed by another, is an error');
});

t.test('double-sign guard: forward only; the same request gets the same signature', async (t) => {
  const key = validatorKeyFromSeed(new Uint8Array(32).fill(7));
  const store = new MemoryGuardStore();
  const guard = new SignGuard(key, store);
  const a = Uint8Array.of(1);
  const b = Uint8Array.of(2);
  const sig = guard.sign(5, 0, SIGN_STEP.prevote, a);
  t.ok(sig !== null && verifyValidatorSignature(key.publicKey, a, sig));
  t.equal(guard.sign(5, 0, SIGN_STEP.prevote, a), sig, 'identical request: cached signature');
  t.equal(guard.sign(5, 0, SIGN_STEP.prevote, b), null, 'conflicting vote at the same step refused');
  t.equal(guard.sign(5, 0, SIGN_STEP.proposal, b), null, 'an earlier step refused');
  t.ok(guard.sign(5, 0, SIGN_STEP.precommit, b) !== null, 'a later step signs');
  const restarted = new SignGuard(key, store);
  t.equal(restarted.sign(5, 0, SIGN_STEP.precommit, a), null, 'after a restart the saved position holds');
  t.equal(restarted.sign(4, 9, SIGN_STEP.precommit, a), null, 'a lower height refused');
  t.ok(restarted.sign(5, 1, SIGN_STEP.prevote, a) !== null, 'the next round signs');
});

t.test('the guard state file survives a restart and refuses to be guessed', async (t) => {
  const key = validatorKeyFromSeed(new Uint8Array(32).fill(9));
  const path = await tempPath(t, 'sign_state.json');
  t.equal(new FileGuardStore(path).load(), null, 'no file: nothing signed yet');
  const sig = new SignGuard(key, new FileGuardStore(path)).sign(2, 1, SIGN_STEP.precommit, Uint8Array.of(5));
  const again = new SignGuard(key, new FileGuardStore(path));
  t.equal(again.sign(2, 1, SIGN_STEP.precommit, Uint8Array.of(5)), sig);
  t.equal(again.sign(2, 1, SIGN_STEP.precommit, Uint8Array.of(6)), null);
  writeFileSync(path, '{"height": "x"}');
  t.throws(() => new FileGuardStore(path).load(), /not a signing state file/);
});

t.test('the guard file is a log of saves: the last whole one counts, a torn tail falls back', async (t) => {
  const key = validatorKeyFromSeed(new Uint8Array(32).fill(7));
  const path = await tempPath(t, 'sign_state.json');
  const store = new FileGuardStore(path);
  const guard = new SignGuard(key, store);
  guard.sign(3, 0, SIGN_STEP.prevote, Uint8Array.of(1));
  const last = guard.sign(3, 0, SIGN_STEP.precommit, Uint8Array.of(2));
  guard.close();
  t.equal(readFileSync(path, 'utf8').trim().split('\n').length, 2, 'one line per save');
  // A crash inside the next save leaves half a line: the precommit before it stands.
  appendFileSync(path, '{"height":4,"round":0,"st');
  const restarted = new SignGuard(key, new FileGuardStore(path));
  t.equal(restarted.sign(3, 0, SIGN_STEP.precommit, Uint8Array.of(2)), last, 'the same precommit again');
  t.equal(restarted.sign(3, 0, SIGN_STEP.precommit, Uint8Array.of(9)), null, 'a conflicting one refused');
  restarted.close();
  writeFileSync(path, 'garbage');
  t.throws(() => new FileGuardStore(path).load(), /not a signing state file/, 'content without a record refuses to start');
});

/** A WAL that counts the flushes that reach the disk (those with something pending). */
function countingWal(path: string, compactBytes?: number): { wal: FileWal; syncs: () => number } {
  const wal = new FileWal(path, compactBytes);
  let syncs = 0;
  const flush = wal.flush.bind(wal);
  const pending = () => (wal as unknown as { pending: unknown[] }).pending.length;
  wal.flush = () => {
    if (pending() > 0) syncs++;
    flush();
  };
  return { wal, syncs: () => syncs };
}

t.test('guard in the WAL: one flush makes the inputs and the signature record durable; a restart reads it back', async (t) => {
  const key = validatorKeyFromSeed(new Uint8Array(32).fill(11));
  const dir = await tempPath(t, 'home');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(dir);
  const walPath = join(dir, 'consensus.wal');
  const copyPath = join(dir, 'sign_state.json');
  const { wal, syncs } = countingWal(walPath);
  t.equal(wal.load(), null);
  const guard = new SignGuard(key, new WalGuardStore(wal, new FileGuardStore(copyPath, { sync: false })));
  wal.reset(3);
  wal.append(proposal);
  const prevote = guard.sign(3, 1, SIGN_STEP.prevote, Uint8Array.of(1));
  t.ok(prevote !== null);
  t.equal(syncs(), 1, 'the height record, the input and the signature record: one flush');
  wal.flush();
  t.equal(syncs(), 1, "the replica's flush before sending finds nothing left");
  wal.append(vote);
  const precommit = guard.sign(3, 1, SIGN_STEP.precommit, Uint8Array.of(2));
  t.equal(syncs(), 2);
  guard.close();
  wal.close(); // a crash: nothing more reaches the disk
  const reloaded = new FileWal(walPath);
  t.same(reloaded.load(), { height: 3, entries: [proposal, vote] }, 'signature records are not inputs');
  t.equal(reloaded.lastSigned()?.signature, precommit, 'the last signature record');
  const restarted = new SignGuard(key, new WalGuardStore(reloaded));
  t.equal(restarted.sign(3, 1, SIGN_STEP.precommit, Uint8Array.of(2)), precommit, 'the same precommit again');
  t.equal(restarted.sign(3, 1, SIGN_STEP.precommit, Uint8Array.of(3)), null, 'a conflicting precommit refused');
  t.equal(restarted.sign(3, 1, SIGN_STEP.prevote, Uint8Array.of(1)), null, 'an earlier step refused');
  t.equal(new FileGuardStore(copyPath).load()?.signature, precommit, 'the copy in sign_state.json');
});

t.test('guard in the WAL: the last record outlives later heights and the file being cut back', async (t) => {
  const key = validatorKeyFromSeed(new Uint8Array(32).fill(12));
  const path = await tempPath(t, 'wal');
  const { wal } = countingWal(path, 2_000);
  const guard = new SignGuard(key, new WalGuardStore(wal));
  let last: string | null = null;
  let cutBack = false;
  let before = 0;
  for (let h = 1; h <= 40; h++) {
    wal.reset(h);
    const size = readFileSync(path).length;
    if (size < before) cutBack = true;
    before = size;
    wal.append(proposal);
    wal.append(vote);
    if (h % 3 !== 0) last = guard.sign(h, 0, SIGN_STEP.prevote, Uint8Array.of(h)); // some heights sign nothing
    wal.flush();
    t.equal(new FileWal(path).lastSigned()?.signature, last, `height ${h}`);
  }
  t.ok(cutBack, 'the file was cut back');
  wal.close();
  t.equal(new FileWal(path).load()?.height, 40);
  const restarted = new SignGuard(key, new WalGuardStore(new FileWal(path)));
  t.equal(restarted.sign(38, 0, SIGN_STEP.prevote, Uint8Array.of(0)), null, 'below the last signature: refused');
  t.equal(restarted.sign(40, 0, SIGN_STEP.prevote, Uint8Array.of(40)), last, 'the last prevote again');
  t.equal(restarted.sign(40, 0, SIGN_STEP.prevote, Uint8Array.of(41)), null, 'a conflicting one refused');
});

t.test('guard in the WAL: a torn signature record at the tail is dropped, its signature never left', async (t) => {
  const key = validatorKeyFromSeed(new Uint8Array(32).fill(13));
  const path = await tempPath(t, 'wal');
  const wal = new FileWal(path);
  const guard = new SignGuard(key, new WalGuardStore(wal));
  wal.reset(5);
  const first = guard.sign(5, 0, SIGN_STEP.prevote, Uint8Array.of(1));
  guard.sign(5, 0, SIGN_STEP.precommit, Uint8Array.of(2));
  wal.close();
  const whole = readFileSync(path);
  writeFileSync(path, whole.subarray(0, whole.length - 5)); // the precommit's record torn: it was never returned
  const reloaded = new FileWal(path);
  t.equal(reloaded.lastSigned()?.signature, first);
  const restarted = new SignGuard(key, new WalGuardStore(reloaded));
  t.ok(restarted.sign(5, 0, SIGN_STEP.precommit, Uint8Array.of(7)) !== null, 'the precommit step is open again');
});

t.test('guard in the WAL: a home whose guard lived in sign_state.json keeps it; the later record of the two counts', async (t) => {
  const key = validatorKeyFromSeed(new Uint8Array(32).fill(14));
  const path = await tempPath(t, 'sign_state.json');
  const old = new SignGuard(key, new FileGuardStore(path)).sign(9, 2, SIGN_STEP.precommit, Uint8Array.of(1));
  const wal: Wal = new MemoryWal();
  wal.reset(9);
  const upgraded = new SignGuard(key, new WalGuardStore(wal, new FileGuardStore(path, { sync: false })));
  t.equal(upgraded.sign(9, 2, SIGN_STEP.precommit, Uint8Array.of(2)), null, 'the file\'s record holds');
  t.equal(upgraded.sign(9, 2, SIGN_STEP.precommit, Uint8Array.of(1)), old);
  const next = upgraded.sign(10, 0, SIGN_STEP.prevote, Uint8Array.of(3));
  t.ok(next !== null);
  const memoryOnly = new MemoryGuardStore();
  memoryOnly.save({ height: 2, round: 0, step: SIGN_STEP.prevote, signBytes: '0x01', signature: 'x' });
  t.equal(new WalGuardStore(wal, memoryOnly).load()?.signature, next, 'the WAL\'s later record wins over an older copy');
});

t.test('guard in the WAL: a bad record after the last guard record makes the guard refuse to start; before it, it is skipped', async (t) => {
  const key = validatorKeyFromSeed(new Uint8Array(32).fill(15));
  const path = await tempPath(t, 'wal');
  const wal = new FileWal(path, 1);
  const guard = new SignGuard(key, new WalGuardStore(wal));
  wal.reset(5);
  guard.sign(5, 0, SIGN_STEP.precommit, Uint8Array.of(1));
  wal.reset(6);
  guard.sign(6, 0, SIGN_STEP.prevote, Uint8Array.of(2)); // the file is replaced: [height 6][signed 6/0/prevote]
  wal.reset(7);
  wal.append(vote);
  wal.flush(); // replaced again: the height-7 records after the carried guard record
  wal.close();
  const data = readFileSync(path);
  t.equal(new FileWal(path).lastSigned()?.height, 6);
  const broken = Buffer.from(data);
  broken.writeUInt8(broken.readUInt8(20) ^ 0xff, 20); // a bad byte inside the carried guard record
  writeFileSync(path, broken);
  const w = new FileWal(path);
  t.same(w.load(), { height: 7, entries: [vote] }, 'the inputs still load');
  t.throws(() => w.lastSigned(), WalCorruptError, 'the guard cannot know what was signed last');
  t.throws(() => new SignGuard(key, new WalGuardStore(new FileWal(path))), WalCorruptError);
  // A bad input of a finished height followed by a later guard record: skipped, the guard holds.
  const p2 = await tempPath(t, 'wal2');
  const w2 = new FileWal(p2);
  const g2 = new SignGuard(key, new WalGuardStore(w2));
  w2.reset(8);
  w2.append(vote);
  w2.flush();
  const inputAt = readFileSync(p2).length - 4; // inside the vote's record
  w2.reset(9);
  const sig = g2.sign(9, 0, SIGN_STEP.prevote, Uint8Array.of(3));
  w2.close();
  const d2 = readFileSync(p2);
  d2.writeUInt8(d2.readUInt8(inputAt) ^ 0xff, inputAt);
  writeFileSync(p2, d2);
  t.equal(new FileWal(p2).lastSigned()?.signature, sig);
});

t.test('guard in the WAL: an unsynced copy left torn is ignored while the WAL holds a record', async (t) => {
  const key = validatorKeyFromSeed(new Uint8Array(32).fill(16));
  const path = await tempPath(t, 'sign_state.json');
  const wal = new MemoryWal();
  wal.reset(1);
  const sig = new SignGuard(key, new WalGuardStore(wal, new FileGuardStore(path, { sync: false }))).sign(1, 0, SIGN_STEP.prevote, Uint8Array.of(1));
  for (const torn of ['{"height":1,"round":0,"st', '\0'.repeat(200)]) {
    writeFileSync(path, torn); // the copy's first save, never synced: half a line, or zeros
    const restarted = new SignGuard(key, new WalGuardStore(wal, new FileGuardStore(path, { sync: false })));
    t.equal(restarted.sign(1, 0, SIGN_STEP.prevote, Uint8Array.of(1)), sig, `${JSON.stringify(torn.slice(0, 8))}: the WAL's record stands`);
  }
  writeFileSync(path, 'garbage');
  t.throws(() => new SignGuard(key, new WalGuardStore(new MemoryWal(), new FileGuardStore(path))), /not a signing state file/, 'no record in the WAL: a bad copy still refuses to start');
});
