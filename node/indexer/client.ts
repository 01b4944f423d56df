// The node's side of the indexer thread (worker.ts): committed blocks go over as JSON text (the
// commit path pays for one JSON.stringify of the compact block), reads of the history come back
// as answers. The history's CPU (deriving rows, encoding and writing them) is off the thread
// that executes and commits blocks.
import { Worker } from 'node:worker_threads';
import type { HistoryReader } from '../../rpc/index.ts';
import type { IndexedBlock } from './indexed-block.ts';
import type { HistoryStoreConfig } from './open-store.ts';
import type { IndexerSink } from './rebuild.ts';

export type ToIndexer =
  | { readonly t: 'blocks'; readonly json: string }
  | { readonly t: 'read'; readonly id: number; readonly method: string; readonly args: unknown[] }
  | { readonly t: 'seed'; readonly id: number; readonly markets: (readonly [string, number, number])[] }
  | { readonly t: 'flushed'; readonly id: number }
  | { readonly t: 'close'; readonly id: number };

type FromIndexer =
  | { readonly t: 'opened'; readonly height?: number; readonly writable?: boolean; readonly error?: string }
  | { readonly t: 'answer'; readonly id: number; readonly value?: unknown; readonly error?: string }
  | { readonly t: 'log'; readonly line: string };

export type HistoryHandle = HistoryReader & { close(): Promise<void> };

/**
 * The indexer thread's heap: a young generation large enough that a big answer (a month of
 * 1-minute candles: 43,200 lines) is built without a scavenge promoting half of it (p50 29 ms
 * with V8's default 16 MB semi-spaces, 13-16 ms with 32).
 */
export const INDEXER_THREAD_LIMITS = { maxYoungGenerationSizeMb: 96 } as const;

export class IndexerClient implements IndexerSink {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private accepted: number;
  private dead: Error | null = null;
  /** The watermark when the store opened, then as of the last `flushed()`. */
  height: number;
  readonly store: HistoryHandle;

  private constructor(
    private readonly worker: Worker,
    opened: { height: number; writable: boolean },
    private readonly log: (line: string) => void,
  ) {
    this.height = this.accepted = opened.height;
    this.writable = opened.writable;
    worker.on('message', (m: FromIndexer) => {
      if (m.t === 'log') log(m.line);
      else if (m.t === 'answer') {
        const p = this.pending.get(m.id);
        if (p === undefined) return;
        this.pending.delete(m.id);
        if (m.error !== undefined) p.reject(new Error(m.error));
        else p.resolve(m.value);
      }
    });
    worker.on('error', (err) => this.fail(err));
    worker.on('exit', (code) => this.fail(new Error(`the indexer thread exited (${code})`)));
    const read = (method: string) => (...args: unknown[]) => this.call({ t: 'read', id: this.nextId++, method, args });
    this.store = {
      indexedHeight: read('indexedHeight'), trades: read('trades'), candles: read('candles'), funding: read('funding'), liquidations: read('liquidations'),
      openInterest: read('openInterest'), bookSnapshots: read('bookSnapshots'), transfers: read('transfers'), dailyStats: read('dailyStats'),
      coinDailyStats: read('coinDailyStats'), totals: read('totals'),
      volumeSince: async (since: number) => new Map((await this.call({ t: 'read', id: this.nextId++, method: 'volumeSince', args: [since] })) as Map<string, { volume: string; trades: number }>),
      close: () => this.close(),
    } as HistoryHandle;
  }

  /** Whether this node writes the history (PostgreSQL: one writer per database). */
  readonly writable: boolean;

  static async start(config: HistoryStoreConfig, log: (line: string) => void): Promise<IndexerClient> {
    const worker = new Worker(new URL('./worker-entry.js', import.meta.url), { workerData: config, resourceLimits: INDEXER_THREAD_LIMITS });
    let onError: (err: Error) => void = () => {};
    let onExit: (code: number) => void = () => {};
    let onMessage: (m: FromIndexer) => void = () => {};
    const opened = await new Promise<{ height: number; writable: boolean }>((resolve, reject) => {
      onError = reject;
      onExit = (code) => reject(new Error(`the indexer thread exited (${code}) before opening the store`));
      onMessage = (m) => {
        if (m.t === 'opened' && m.error === undefined) resolve({ height: m.height ?? 0, writable: m.writable ?? false });
        else if (m.t === 'opened') reject(new Error(m.error));
      };
      worker.on('error', onError).on('exit', onExit).on('message', onMessage);
    }).catch(async (err: Error) => {
      await worker.terminate();
      throw err;
    }).finally(() => worker.off('error', onError).off('exit', onExit).off('message', onMessage));
    return new IndexerClient(worker, opened, log);
  }

  /** Hands over a committed block (in height order). */
  push(block: IndexedBlock): void {
    if (this.dead !== null || !this.writable || block.height <= this.accepted) return;
    this.accepted = block.height;
    this.worker.postMessage({ t: 'blocks', json: JSON.stringify([block]) } satisfies ToIndexer);
  }

  async flushed(): Promise<void> {
    this.height = (await this.call({ t: 'flushed', id: this.nextId++ })) as number;
  }

  async seedCandles(markets: (readonly [string, number, number])[]): Promise<void> {
    await this.call({ t: 'seed', id: this.nextId++, markets });
  }

  /** Writes what is queued, closes the store and ends the thread. */
  async close(): Promise<void> {
    if (this.dead === null) await this.call({ t: 'close', id: this.nextId++ }).catch((err: Error) => this.log(`closing the history: ${err.message}`));
    this.dead ??= new Error('the history is closed');
    await this.worker.terminate();
  }

  private call(m: ToIndexer & { id: number }): Promise<unknown> {
    if (this.dead !== null) return Promise.reject(this.dead);
    return new Promise((resolve, reject) => {
      this.pending.set(m.id, { resolve, reject });
      this.worker.postMessage(m);
    });
  }

  private fail(err: Error): void {
    if (this.dead !== null) return;
    this.dead = err;
    this.log(`history indexer thread failed: ${err.message}`);
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }
}
