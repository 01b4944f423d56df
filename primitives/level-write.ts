// LevelDB batches handed to the engine as stored: each key with its sublevel's prefix and each
// value already encoded (a 'json' value as its JSON text, a 'utf8' one as the string, a 'view' one
// as its bytes). abstract-level's batch() clones every operation, resolves its encodings and
// prefixes its key in shared code that all of a process's stores run through (a sublevel's
// batch runs it twice, once for the sublevel and once for its parent). In a loop that costs 1.7
// to 4.1 µs an operation for bytes into a sublevel opened for bytes, and 10 to 22 for text with
// its encoding given per operation or per batch, as the EVM trie's writes were
// (docs/performance.md, "Level writes"). The bytes on disk are the ones batch() writes:
// classic-level takes a string key or value as its UTF-8 bytes and a Uint8Array as is, as it
// does behind batch().

/**
 * Options of the stores that grow with every busy block (the chain's `db/`, `history/`). LevelDB
 * maps its open tables (up to 1,000 by default), and a table's index (one entry per data block)
 * stays resident while it is open: with LevelDB's 4 KiB blocks the mapped tables' resident memory
 * grew by 12 to 16 MB in four minutes at 5,000 actions/s, with 16 KiB blocks by 2.8. At most 128
 * open tables bounds it as the chain grows (4.6 to 4.8 MB after nine minutes, against 10.6 to
 * 24.6 with 1,000); a read of a closed table opens it again (its footer and index, once).
 * Reads are point lookups and short scans by user: a larger block costs them a few µs of
 * decompression. Tables already written keep their block size. (docs/performance.md, session 30.)
 *
 * A 32 MB memtable (LevelDB's default is 4): each flush is one level-0 table, and every four
 * level-0 tables are merged with the overlapping level-1 tables, which a block's keys (by user,
 * across every user) always overlap; fewer, larger flushes rewrite level 1 fewer times. The batch
 * mix's compactions and other threads fell from 227 to 164 µs an action over 60 s (session 32).
 * A store holds at most two memtables (one being flushed).
 */
export const GROWING_STORE_OPTIONS = { blockSize: 16 << 10, maxOpenFiles: 128, writeBufferSize: 32 << 20 } as const;

/** A put or delete as the engine takes it: key prefixed, value encoded. */
export type RawOp =
  | { readonly type: 'put'; readonly key: string | Uint8Array; readonly value: string | Uint8Array }
  | { readonly type: 'del'; readonly key: string | Uint8Array };

/** The root database of a store (a `Level`): its status and abstract-level's private batch. */
export interface LevelRoot {
  readonly status: string;
  batch(ops: never, options: never): Promise<void>;
}

interface EngineBatch {
  _batch(ops: readonly RawOp[], options: { sync: boolean }): Promise<void>;
}

/** The key prefix of a sublevel of `root` (abstract-level's `!name!`, a getter), as text. */
export function sublevelPrefix(sublevel: unknown): string {
  const prefix = (sublevel as { prefix?: unknown }).prefix;
  if (typeof prefix !== 'string') throw new Error('invariant: not a sublevel');
  return prefix;
}

/** Where a database's writes go: its root and its key prefix (a sublevel's, or '' for a root). */
export interface WriteTarget {
  readonly root: LevelRoot;
  readonly prefix: string;
}

/** The write target of a root database or of a sublevel (whose `db` is its root). */
export function writeTarget(db: object): WriteTarget {
  const sub = db as { prefix?: unknown; db?: unknown };
  return typeof sub.prefix === 'string' ? { root: sub.db as LevelRoot, prefix: sub.prefix } : { root: db as LevelRoot, prefix: '' };
}

/**
 * Writes `ops` to `root` in one atomic batch (fsync'd when `sync`). While the database is not
 * open (still opening, closing or closed) the public batch() decides, as it does for every other
 * write: it waits for the opening or refuses.
 */
export function writeRaw(root: LevelRoot, ops: readonly RawOp[], sync: boolean): Promise<void> {
  if (ops.length === 0) return Promise.resolve();
  for (const op of ops) {
    const refused = op.type === 'put' ? valueRefusal(op.key, op.value) : null;
    if (refused !== null) return Promise.reject(refused);
  }
  const engine = root as unknown as Partial<EngineBatch>;
  if (root.status === 'open' && typeof engine._batch === 'function') return engine._batch(ops, { sync });
  const typed = ops.map((op) => ({
    ...op,
    keyEncoding: typeof op.key === 'string' ? 'utf8' : 'view',
    ...(op.type === 'put' ? { valueEncoding: typeof op.value === 'string' ? 'utf8' : 'view' } : {}),
  }));
  return root.batch(typed as never, { sync } as never);
}

/** Puts and deletes into a batch being built: keys prefixed, values encoded, as for `writeRaw`. */
export interface RawBatch {
  put(key: string | Uint8Array, value: string | Uint8Array): void;
  del(key: string | Uint8Array): void;
}

/** classic-level's chained batch, by its engine methods: each put or delete copies into LevelDB's batch at once. */
interface EngineChainedBatch {
  _put(key: string | Uint8Array, value: string | Uint8Array): void;
  _del(key: string | Uint8Array): void;
  _write(options: { sync: boolean }): Promise<void>;
}

interface ChainedRoot {
  _chainedBatch(): EngineChainedBatch;
  detachResource(resource: unknown): void;
}

/** A batch built now and written later, once the writes before it are done. */
export interface PreparedBatch {
  /** Writes the batch (once). */
  write(): Promise<void>;
  /** Drops it unwritten (a write before it failed). */
  discard(): void;
}

/**
 * Builds one batch with `fill`, now, to be written by `write()`. On an open classic-level
 * database each put goes straight into LevelDB's batch (the engine copies the key and value), so
 * neither operation objects nor the records they were made of live on until the write (V8
 * promoted a busy block's to the old generation while they waited in an array for `writeRaw`).
 * Otherwise the operations are kept and written as `writeRaw` writes them. A `fill` that throws
 * writes nothing: its error is the write's. A batch is written or dropped once.
 */
export function prepareBatch(root: LevelRoot, fill: (batch: RawBatch) => void, sync: boolean): PreparedBatch {
  const chained = root as unknown as Partial<ChainedRoot>;
  const engine = root.status === 'open' && typeof chained._chainedBatch === 'function' && typeof chained.detachResource === 'function'
    ? chained._chainedBatch()
    : null;
  const ops: RawOp[] = [];
  let done = false;
  // abstract-level tracks a chained batch to close it with the database; this one is written or dropped here.
  const finish = () => {
    if (done) return;
    done = true;
    if (engine !== null) (chained as ChainedRoot).detachResource(engine);
  };
  try {
    fill(engine === null
      ? { put: (key, value) => ops.push({ type: 'put', key, value }), del: (key) => ops.push({ type: 'del', key }) }
      : {
          put: (key, value) => {
            const refused = valueRefusal(key, value);
            if (refused !== null) throw refused;
            engine._put(key, value);
          },
          del: (key) => engine._del(key),
        });
  } catch (err) {
    finish();
    return { write: () => Promise.reject(err), discard: () => {} };
  }
  return {
    write: () => {
      if (done) return Promise.reject(new Error('invariant: a prepared batch written twice or after it was dropped'));
      finish();
      if (engine === null) return writeRaw(root, ops, sync);
      // Closed since it was built: the engine's batch must not reach a closed database.
      if (root.status !== 'open') return Promise.reject(Object.assign(new Error('Database is not open'), { code: 'LEVEL_DATABASE_NOT_OPEN' }));
      return engine._write({ sync });
    },
    discard: finish,
  };
}

/** Builds and writes one batch (`prepareBatch`, written at once). */
export function writeBatch(root: LevelRoot, fill: (batch: RawBatch) => void, sync: boolean): Promise<void> {
  return prepareBatch(root, fill, sync).write();
}

/** What batch() refuses (JSON.stringify gives undefined for undefined), refused before the engine. */
function valueRefusal(key: string | Uint8Array, value: unknown): TypeError | null {
  return typeof value === 'string' || value instanceof Uint8Array ? null : new TypeError(`level write: the value of ${String(key)} is neither text nor bytes`);
}
