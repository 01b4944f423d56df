// TrieBatch against ethereumjs's trie on the same level database: the same roots after rounds of
// puts (new keys and updates, fixed-length hashed keys as the state trie has, and short keys with
// small values that make embedded nodes and branch values), and each reads the other's nodes.
import { rm } from 'node:fs/promises';
import t from 'tap';
import { Level } from 'level';
import { createMPT } from '@ethereumjs/mpt';
import { EMPTY_TRIE_ROOT, EvmStore, LevelTrieDB, TrieBatch } from '../../evm/index.ts';
import { tempDir } from '../support/node.ts';

/** Deterministic pseudo-random bytes (xorshift), so failures reproduce. */
function rng(seed: number): (n: number) => Uint8Array {
  let x = seed >>> 0 || 1;
  return (n) => {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
      out[i] = x & 255;
    }
    return out;
  };
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

type Test = Parameters<Extract<Parameters<typeof t.test>[0], (...a: never[]) => unknown>>[0];

/** A trie database in a temp dir, and ethereumjs's trie on it. */
async function trieStore(t: Test) {
  const dir = await tempDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const store = new EvmStore(dir);
  await store.open();
  t.teardown(() => store.close());
  const db = new LevelTrieDB(store.trie);
  return { db, trie: await createMPT({ db: db as never }) };
}

async function compare(t: Test, keysOf: (round: number, rand: (n: number) => Uint8Array) => Uint8Array[], valueLen: number) {
  const { db, trie } = await trieStore(t);
  const rand = rng(7);
  let root = EMPTY_TRIE_ROOT;
  const known: Uint8Array[] = [];
  for (let round = 0; round < 6; round++) {
    const fresh = keysOf(round, rand);
    const updates = known.filter((_, i) => i % 3 === round % 3);
    const seen = new Set<string>();
    const entries: [Uint8Array, Uint8Array][] = [];
    for (const k of [...fresh, ...updates]) {
      if (seen.has(hex(k))) continue;
      seen.add(hex(k));
      entries.push([k, rand(1 + (rand(1)[0] as number) % valueLen)]);
    }
    // The batch starts from the root ethereumjs's trie reached (its nodes), and the other way round.
    trie.root(root);
    for (const [k, v] of entries) await trie.put(k, v);
    const batchRoot = await new TrieBatch(db).putAll(root, entries);
    t.equal(hex(batchRoot), hex(trie.root()), `round ${round}: same root`);
    for (const [k, v] of entries.slice(0, 20)) {
      trie.root(batchRoot);
      t.equal(hex((await trie.get(k)) ?? new Uint8Array()), hex(v), 'ethereumjs reads the batch nodes');
    }
    root = round % 2 === 0 ? batchRoot : trie.root();
    known.push(...fresh);
  }
}

t.test('hashed 32-byte keys (the state trie)', (t) => compare(t, (round, rand) => Array.from({ length: round === 0 ? 300 : 120 }, () => rand(32)), 80));

t.test('short keys with prefixes and small values (embedded nodes, branch values)', (t) => compare(t, (_round, rand) => Array.from({ length: 40 }, () => rand(1 + ((rand(1)[0] as number) % 3))), 6));

t.test('a single key, then a second', async (t) => {
  const dir = await tempDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const level = new Level<string, unknown>(dir);
  t.teardown(() => level.close());
  const db = new LevelTrieDB(level as never);
  const trie = await createMPT({ db: db as never });
  const a = new Uint8Array(32).fill(1);
  const b = new Uint8Array(32).fill(1);
  b[31] = 2;
  const r1 = await new TrieBatch(db).putAll(EMPTY_TRIE_ROOT, [[a, new Uint8Array([5])]]);
  await trie.put(a, new Uint8Array([5]));
  t.equal(hex(r1), hex(trie.root()));
  const r2 = await new TrieBatch(db).putAll(r1, [[b, new Uint8Array(40).fill(9)]]);
  await trie.put(b, new Uint8Array(40).fill(9));
  t.equal(hex(r2), hex(trie.root()));
});

t.test('passes from the last root reuse its decoded levels; passes from older roots load theirs', (t) => manyPasses(t, undefined));

t.test('the same passes with one level kept decoded (most paths pruned and loaded again)', (t) => manyPasses(t, 1));

async function manyPasses(t: Test, keepLevels: number | undefined) {
  const { db, trie } = await trieStore(t);
  const rand = rng(11);
  // 600 accounts, so paths reach below the levels kept decoded; every pass updates some and adds a few.
  const keys = Array.from({ length: 600 }, () => rand(32));
  const roots = [EMPTY_TRIE_ROOT];
  for (let pass = 0; pass < 40; pass++) {
    // Mostly from the last root; every fifth pass from an older one (a block executed again from its parent).
    const from = pass % 5 === 4 ? (roots[Math.max(0, roots.length - 3)] as Uint8Array) : (roots[roots.length - 1] as Uint8Array);
    const count = pass === 0 ? 600 : 30 + (pass % 7) * 10;
    const picked = new Map<string, [Uint8Array, Uint8Array]>();
    for (let i = 0; i < count; i++) {
      const k = keys[pass === 0 ? i : ((rand(2)[0] as number) * 256 + (rand(1)[0] as number)) % keys.length] as Uint8Array;
      picked.set(hex(k), [k, rand(70 + (pass % 3))]);
    }
    const entries = [...picked.values()];
    trie.root(from);
    for (const [k, v] of entries) await trie.put(k, v);
    const got = await new TrieBatch(db, keepLevels).putAll(from, entries);
    if (hex(got) !== hex(trie.root())) return void t.fail(`pass ${pass}: root differs from ethereumjs's`);
    if (pass % 5 !== 4) roots.push(got);
  }
  t.pass('40 passes, every root equal to ethereumjs\'s');
}

t.test('paths changed in the last four passes stay decoded; older ones are loaded again', async (t) => {
  const { db } = await trieStore(t);
  const rand = rng(5);
  const keys = Array.from({ length: 400 }, () => rand(32));
  const value = () => rand(70);
  const pass = async (root: Uint8Array, ks: Uint8Array[]) => {
    const batch = new TrieBatch(db, 1);
    return { root: await batch.putAll(root, ks.map((k) => [k, value()] as const)), loads: batch.loads };
  };
  let { root } = await pass(EMPTY_TRIE_ROOT, keys);
  const hot = keys.slice(0, 20);
  const cold = keys.slice(200, 220);
  // Three more passes over the hot keys: their paths were all changed in the last four.
  for (let i = 0; i < 3; i++) {
    const r = await pass(root, hot);
    t.equal(r.loads, 0, `pass ${i + 2}: the hot paths are decoded`);
    root = r.root;
  }
  // The cold keys were last changed five passes ago (the first): their paths below level 1 are hashes again.
  ({ root } = await pass(root, hot));
  const r = await pass(root, cold);
  t.ok(r.loads >= cold.length, `the cold paths are loaded (${r.loads} nodes)`);
  const again = await pass(r.root, cold);
  t.equal(again.loads, 0, 'and stay decoded once changed');
});
