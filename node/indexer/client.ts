// A node's side of the indexer thread (worker.ts): committed blocks go over as JSON text (the
// commit path pays for one JSON.stringify of the compact block), reads of the history come back
// as answers. The history's CPU (deriving rows, encoding and writing them) is off the thread that
// executes and commits blocks. One thread per process serves every node the process runs, so a
// process that starts nodes one after another (tests, tools) boots it once.
import { Worker } from 'node:worker_threads';
import { nameThread } from '../../primitives/index.ts';
import { threadEntry } from '../thread-bundle.js';
import type { HistoryReader } from '../../rpc/index.ts';
import type { IndexedBlock } from './indexed-block.ts';
import type { HistoryStoreConfig } from './open-store.ts';
import type { IndexerSink } from './rebuild.ts';

export type ToIndexer =
  | { readonly t: 'open'; readonly id: number; readonly client: number; readonly config: HistoryStoreConfig }
  | { readonly t: 'blocks'; readonly client: number; readonly json: string }
  | { readonly t: 'read'; readonly id: number; readonly client: number; readonly method: string; readonly args: unknown[] }
  | { readonly t: 'seed'; readonly id: number; readonly client: number; readonly markets: (readonly [string, number, number])[] }
  | { readonly t: 'flushed'; readonly id: number; readonly client: number }
  | { readonly t: 'close'; readonly id: number; readonly client: number };

type FromIndexer =
  | { readonly t: 'answer'; readonly id: number; readonly value?: unknown; readonly error?: string }
  | { readonly t: 'log'; readonly client: number; readonly line: string }
  | { readonly t: 'thread'; readonly tid: number | null };

/** A request that expects an answer, before its id is given. */
type Call = ToIndexer extends infer T ? (T extends { id: number } ? Omit<T, 'id'> : never) : never;

export type HistoryHandle = HistoryReader & { close(): Promise<void> };

/**
 * The indexer thread's heap. V8 grows a young generation towards its limit under steady load: at
 * 96 MB the thread's heap went from 27 to 45 MB committed over five minutes at 5,000 actions/s,
 * at 24 MB from 12 to 32, at 12 MB 19 to 25 (session 30). The API's largest answer is 5,000
 * candles; a month of 1-minute candles (43,200) takes 15-17 ms at 12 MB, 15-23 at 24 and 16 at 96
 * (docs/performance.md, sessions 27 and 30).
 */
export const INDEXER_THREAD_LIMITS = { maxYoungGenerationSizeMb: 12 } as const;

/** The process's indexer thread, its open clients and their pending calls. */
class IndexerThread {
  private static current: IndexerThread | null = null;
  private nextId = 1;
  private nextClient = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly logs = new Map<number, (line: string) => void>();
  private readonly failures = new Map<number, (err: Error) => void>();
  private dead: Error | null = null;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (m: FromIndexer) => {
      if (m.t === 'log') this.logs.get(m.client)?.(m.line);
      else if (m.t === 'thread') nameThread(m.tid, 'history indexer');
      else {
        const p = this.pending.get(m.id);
        if (p === undefined) return;
        this.pending.delete(m.id);
        if (m.error !== undefined) p.reject(new Error(m.error));
        else p.resolve(m.value);
      }
    });
    const fail = (err: Error) => {
      if (this.dead !== null) return;
      this.dead = err;
      if (IndexerThread.current === this) IndexerThread.current = null;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
      for (const f of this.failures.values()) f(err);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the indexer thread exited (${code})`)));
    worker.unref(); // held only while a node has its history open
  }

  static get(): IndexerThread {
    if (IndexerThread.current === null) {
      const entry = threadEntry('indexer', new URL('./worker.ts', import.meta.url), new URL('./worker-entry.js', import.meta.url));
      IndexerThread.current = new IndexerThread(new Worker(entry, { resourceLimits: INDEXER_THREAD_LIMITS }));
    }
    return IndexerThread.current;
  }

  /** Registers a client; the thread keeps the process alive while any is open. */
  attach(log: (line: string) => void, onFailure: (err: Error) => void): number {
    const client = this.nextClient++;
    this.logs.set(client, log);
    this.failures.set(client, onFailure);
    if (this.logs.size === 1) this.worker.ref();
    return client;
  }

  detach(client: number): void {
    this.logs.delete(client);
    this.failures.delete(client);
    if (this.logs.size === 0) this.worker.unref();
  }

  call(m: Call): Promise<unknown> {
    if (this.dead !== null) return Promise.reject(this.dead);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...m, id });
    });
  }

  post(m: Extract<ToIndexer, { t: 'blocks' }>): void {
    if (this.dead === null) this.worker.postMessage(m);
  }
}

export class IndexerClient implements IndexerSink {
  private accepted: number;
  private dead: Error | null = null;
  /** The watermark when the store opened, then as of the last `flushed()`. */
  height: number;
  readonly store: HistoryHandle;

  private constructor(
    private readonly thread: IndexerThread,
    private readonly client: number,
    opened: { height: number; writable: boolean },
    private readonly log: (line: string) => void,
  ) {
    this.height = this.accepted = opened.height;
    this.writable = opened.writable;
    const read = (method: string) => (...args: unknown[]) => this.call({ t: 'read', client, method, args });
    this.store = {
      indexedHeight: read('indexedHeight'), trades: read('trades'), candles: read('candles'), funding: read('funding'), liquidations: read('liquidations'),
      openInterest: read('openInterest'), bookSnapshots: read('bookSnapshots'), transfers: read('transfers'), dailyStats: read('dailyStats'),
      coinDailyStats: read('coinDailyStats'), totals: read('totals'),
      volumeSince: async (since: number) => new Map((await this.call({ t: 'read', client, method: 'volumeSince', args: [since] })) as Map<string, { volume: string; trades: number }>),
      close: () => this.close(),
    } as HistoryHandle;
  }

  /** Whether this node writes the history (PostgreSQL: one writer per database). */
  readonly writable: boolean;

  /** Opens a node's history store on the indexer thread. */
  static async start(config: HistoryStoreConfig, log: (line: string) => void): Promise<IndexerClient> {
    const thread = IndexerThread.get();
    const box: { client?: IndexerClient } = {};
    const client = thread.attach(log, (err) => box.client?.fail(err));
    try {
      const opened = (await thread.call({ t: 'open', client, config })) as { height: number; writable: boolean };
      box.client = new IndexerClient(thread, client, opened, log);
      return box.client;
    } catch (err) {
      thread.detach(client);
      throw err;
    }
  }

  /** Hands over a committed block (in height order). */
  push(block: IndexedBlock): void {
    this.pushEncoded(block.height, JSON.stringify(block));
  }

  /**
   * `push` of a block already encoded as JSON: a node encodes each block's sample as it executes,
   * so the sample's objects need not live (and be promoted) until the block is committed.
   */
  pushEncoded(height: number, json: string): void {
    if (this.dead !== null || !this.writable || height <= this.accepted) return;
    this.accepted = height;
    this.thread.post({ t: 'blocks', client: this.client, json: `[${json}]` });
  }

  async flushed(): Promise<void> {
    this.height = (await this.call({ t: 'flushed', client: this.client })) as number;
  }

  async seedCandles(markets: (readonly [string, number, number])[]): Promise<void> {
    await this.call({ t: 'seed', client: this.client, markets });
  }

  /** Writes what is queued and closes the store. */
  async close(): Promise<void> {
    if (this.dead === null) await this.call({ t: 'close', client: this.client }).catch((err: Error) => this.log(`closing the history: ${err.message}`));
    this.dead ??= new Error('the history is closed');
    this.thread.detach(this.client);
  }

  private call(m: Call): Promise<unknown> {
    if (this.dead !== null) return Promise.reject(this.dead);
    return this.thread.call(m);
  }

  private fail(err: Error): void {
    if (this.dead !== null) return;
    this.dead = err;
    this.log(`history indexer thread failed: ${err.message}`);
  }
}
