// The indexer thread: one per process, hosting the history of each node the process runs (one in
// production; many, one after another, in a test process). For each it owns the history store,
// derives and writes the history from the blocks the node posts (as JSON text: one string crosses
// the thread boundary, not an object graph), and answers the node's reads of the store.
import { parentPort } from 'node:worker_threads';
import { currentThreadId } from '../../primitives/index.ts';
import { Indexer } from './indexer.ts';
import type { IndexedBlock } from './indexed-block.ts';
import { openHistoryStore } from './open-store.ts';
import type { HistoryStore } from './store.ts';
import type { ToIndexer } from './client.ts';

const port = parentPort;
if (port === null) throw new Error('node/indexer/worker.ts runs as a worker thread');
port.postMessage({ t: 'thread', tid: currentThreadId() });

/** Store methods a node may call. */
const READS = new Set([
  'indexedHeight', 'trades', 'candles', 'funding', 'liquidations', 'openInterest', 'bookSnapshots', 'transfers', 'dailyStats', 'coinDailyStats',
  'totals', 'volumeSince',
]);

const hosted = new Map<number, { store: HistoryStore; indexer: Indexer }>();

function answer(id: number, work: () => Promise<unknown>): void {
  work().then(
    (value) => port?.postMessage({ t: 'answer', id, value }),
    (err: Error) => port?.postMessage({ t: 'answer', id, error: err.message }),
  );
}

function of(client: number): { store: HistoryStore; indexer: Indexer } {
  const h = hosted.get(client);
  if (h === undefined) throw new Error(`no history open for client ${client}`);
  return h;
}

port.on('message', (m: ToIndexer) => {
  switch (m.t) {
    case 'open':
      answer(m.id, async () => {
        const store = await openHistoryStore(m.config);
        const indexer = new Indexer(store, { log: (line) => port.postMessage({ t: 'log', client: m.client, line }) });
        const height = await indexer.open().catch(async (err: unknown) => {
          await store.close();
          throw err;
        });
        hosted.set(m.client, { store, indexer });
        return { height, writable: store.writable };
      });
      return;
    case 'blocks': {
      const h = hosted.get(m.client);
      if (h !== undefined) for (const b of JSON.parse(m.json) as IndexedBlock[]) h.indexer.push(b);
      return;
    }
    case 'read':
      answer(m.id, async () => {
        if (!READS.has(m.method)) throw new Error(`no read ${m.method}`);
        const store = of(m.client).store as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
        return (store[m.method] as (...a: unknown[]) => Promise<unknown>).apply(store, m.args);
      });
      return;
    case 'seed':
      answer(m.id, () => of(m.client).indexer.seedCandles(m.markets));
      return;
    case 'flushed':
      answer(m.id, async () => {
        const { indexer } = of(m.client);
        await indexer.flushed();
        return indexer.height;
      });
      return;
    case 'close':
      answer(m.id, async () => {
        const h = hosted.get(m.client);
        if (h === undefined) return null;
        hosted.delete(m.client);
        await h.indexer.flushed().catch(() => {});
        await h.store.close();
        return null;
      });
      return;
  }
});
