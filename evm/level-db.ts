// The ethereumjs `DB` interface over a level (sub)database, for the state trie. ethereumjs names
// its encodings 'string' | 'view' | 'json'; level calls the first 'utf8'.
import type { BatchDBOp, DB, EncodingOpts } from '@ethereumjs/util';
import { concatBytes, utf8, writeRaw, writeTarget, type RawOp, type WriteTarget } from '../primitives/index.ts';

type Key = Uint8Array | string | number;
type Value = Uint8Array | string;
/** The part of a level (sub)database the trie uses; encodings are given per call. */
export interface AnyLevel {
  get(key: Uint8Array | string, opts: object): Promise<unknown>;
  put(key: Uint8Array | string, value: Value, opts: object): Promise<void>;
  del(key: Uint8Array | string, opts: object): Promise<void>;
}

function encodings(opts: EncodingOpts | undefined): { keyEncoding: string; valueEncoding: string } {
  const map = (e: string | undefined, fallback: string) => (e === undefined ? fallback : e === 'string' ? 'utf8' : e);
  return { keyEncoding: map(opts?.keyEncoding, 'view'), valueEncoding: map(opts?.valueEncoding, 'view') };
}

function keyOf(k: Key): Uint8Array | string {
  return typeof k === 'number' ? String(k) : k;
}

/**
 * Recently read or written entries. Trie nodes are keyed by their hash and code by its hash, so an
 * entry never changes meaning (nodes are never pruned here): the cache needs no invalidation and
 * is shared by every copy of the database.
 */
class NodeCache {
  private readonly map = new Map<string, Value>();

  constructor(private readonly max: number) {}

  get(k: string): Value | undefined {
    return this.map.get(k);
  }

  set(k: string, v: Value): void {
    if (this.map.size >= this.max) {
      // Oldest first: Map keeps insertion order.
      const oldest = this.map.keys().next().value as string;
      this.map.delete(oldest);
    }
    this.map.set(k, v);
  }

  delete(k: string): void {
    this.map.delete(k);
  }
}

function cacheKey(key: Key, opts: EncodingOpts | undefined): string {
  const k = typeof key === 'string' ? key : typeof key === 'number' ? String(key) : Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1');
  return `${opts?.valueEncoding ?? 'view'}:${k}`;
}

/** Trie entries kept in memory (a few hundred bytes each). */
const CACHE_ENTRIES = 250_000;

/**
 * An operation's key and value as the database's batch() would store them (its prefix on the
 * key, the value in its encoding), for writes past abstract-level (primitives/level-write.ts).
 */
function rawOp(op: BatchDBOp<Key, Value>, to: WriteTarget, prefixBytes: Uint8Array): RawOp {
  const k = keyOf(op.key);
  const key = typeof k === 'string' ? to.prefix + k : concatBytes(prefixBytes, k);
  if (op.type === 'del') return { type: 'del', key };
  const value = op.opts?.valueEncoding === 'json' ? JSON.stringify(op.value) : op.value;
  return { type: 'put', key, value };
}

export class LevelTrieDB implements DB<Key, Value> {
  /** Where batches go: the root database and the (sub)level's prefix. */
  private readonly target: WriteTarget;
  private readonly prefixBytes: Uint8Array;

  constructor(
    private readonly db: AnyLevel,
    private readonly cache = new NodeCache(CACHE_ENTRIES),
  ) {
    this.target = writeTarget(db);
    this.prefixBytes = utf8(this.target.prefix);
  }

  async get(key: Key, opts?: EncodingOpts): Promise<Value | undefined> {
    const ck = cacheKey(key, opts);
    const hit = this.cache.get(ck);
    if (hit !== undefined) return hit;
    let v = (await this.db.get(keyOf(key), encodings(opts))) as Value | undefined;
    // level returns Buffers for 'view' on some paths; ethereumjs compares bytes structurally.
    if (v instanceof Uint8Array && v.constructor !== Uint8Array) v = new Uint8Array(v);
    if (v !== undefined) this.cache.set(ck, v);
    return v;
  }

  async put(key: Key, val: Value, opts?: EncodingOpts): Promise<void> {
    this.cache.set(cacheKey(key, opts), val);
    await this.db.put(keyOf(key), val, encodings(opts));
  }

  async del(key: Key, opts?: EncodingOpts): Promise<void> {
    this.cache.delete(cacheKey(key, opts));
    await this.db.del(keyOf(key), encodings(opts));
  }

  async batch(ops: BatchDBOp<Key, Value>[]): Promise<void> {
    for (const op of ops) {
      if (op.type === 'put') this.cache.set(cacheKey(op.key, op.opts), op.value);
      else this.cache.delete(cacheKey(op.key, op.opts));
    }
    await writeRaw(this.target.root, ops.map((op) => rawOp(op, this.target, this.prefixBytes)), false);
  }

  /**
   * Writes new trie nodes without caching them (TrieBatch, which keeps the paths it changed
   * decoded itself). A node enters the cache when it is first read. Caching every written node
   * kept each one alive past young collections, to be copied and promoted (about 4% of the
   * node's CPU in the transfer bench; docs/evm.md, session 23). Puts only: keys are node hashes,
   * so no cached entry can go stale.
   */
  async writeNodes(ops: readonly { readonly key: string; readonly value: string }[]): Promise<void> {
    const raw: RawOp[] = new Array<RawOp>(ops.length);
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i] as { key: string; value: string };
      raw[i] = { type: 'put', key: this.target.prefix + op.key, value: op.value };
    }
    await writeRaw(this.target.root, raw, false);
  }

  shallowCopy(): DB<Key, Value> {
    return new LevelTrieDB(this.db, this.cache);
  }

  async open(): Promise<void> {}
}
