// The ethereumjs `DB` interface over a level (sub)database, for the state trie. ethereumjs names
// its encodings 'string' | 'view' | 'json'; level calls the first 'utf8'.
import type { BatchDBOp, DB, EncodingOpts } from '@ethereumjs/util';

type Key = Uint8Array | string | number;
type Value = Uint8Array | string;
/** The part of a level (sub)database the trie uses; encodings are given per call. */
export interface AnyLevel {
  get(key: Uint8Array | string, opts: object): Promise<unknown>;
  put(key: Uint8Array | string, value: Value, opts: object): Promise<void>;
  del(key: Uint8Array | string, opts: object): Promise<void>;
  batch(ops: never): Promise<void>;
}

function encodings(opts: EncodingOpts | undefined): { keyEncoding: string; valueEncoding: string } {
  const map = (e: string | undefined, fallback: string) => (e === undefined ? fallback : e === 'string' ? 'utf8' : e);
  return { keyEncoding: map(opts?.keyEncoding, 'view'), valueEncoding: map(opts?.valueEncoding, 'view') };
}

function keyOf(k: Key): Uint8Array | string {
  return typeof k === 'number' ? String(k) : k;
}

export class LevelTrieDB implements DB<Key, Value> {
  constructor(private readonly db: AnyLevel) {}

  async get(key: Key, opts?: EncodingOpts): Promise<Value | undefined> {
    const v = (await this.db.get(keyOf(key), encodings(opts))) as Value | undefined;
    // level returns Buffers for 'view' on some paths; ethereumjs compares bytes structurally.
    return v instanceof Uint8Array && !(v.constructor === Uint8Array) ? new Uint8Array(v) : v;
  }

  async put(key: Key, val: Value, opts?: EncodingOpts): Promise<void> {
    await this.db.put(keyOf(key), val, encodings(opts));
  }

  async del(key: Key, opts?: EncodingOpts): Promise<void> {
    await this.db.del(keyOf(key), encodings(opts));
  }

  async batch(ops: BatchDBOp<Key, Value>[]): Promise<void> {
    await this.db.batch(ops.map((op) => (op.type === 'put'
      ? { type: 'put', key: keyOf(op.key), value: op.value, ...encodings(op.opts) }
      : { type: 'del', key: keyOf(op.key), ...encodings(op.opts) })) as never);
  }

  shallowCopy(): DB<Key, Value> {
    return new LevelTrieDB(this.db);
  }

  async open(): Promise<void> {}
}
