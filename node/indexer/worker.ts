// The indexer's thread: it owns the history store, derives and writes the history from the
// blocks the node posts (as JSON text: one string crosses the thread boundary, not an object
// graph), and answers the node's reads of the store.
import { parentPort, workerData } from 'node:worker_threads';
import { Indexer } from './indexer.ts';
import type { IndexedBlock } from './indexed-block.ts';
import { openHistoryStore, type HistoryStoreConfig } from './open-store.ts';
import type { HistoryStore } from './store.ts';
import type { ToIndexer } from './client.ts';

const port = parentPort;
if (port === null) throw new Error('node/indexer/worker.ts runs as a worker thread');
const config = workerData as HistoryStoreConfig;

let store: HistoryStore;
try {
  store = await openHistoryStore(config);
} catch (err) {
  port.postMessage({ t: 'opened', error: (err as Error).message });
  process.exit(0);
}
const indexer = new Indexer(store, { log: (line) => port.postMessage({ t: 'log', line }) });
const height = await indexer.open();
port.postMessage({ t: 'opened', height, writable: store.writable });

/** Store methods the node may call. */
const READS = new Set([
  'indexedHeight', 'trades', 'candles', 'funding', 'liquidations', 'openInterest', 'bookSnapshots', 'transfers', 'dailyStats', 'coinDailyStats',
  'totals', 'volumeSince',
]);

port.on('message', (m: ToIndexer) => {
  switch (m.t) {
    case 'blocks':
      for (const b of JSON.parse(m.json) as IndexedBlock[]) indexer.push(b);
      return;
    case 'read': {
      if (!READS.has(m.method)) {
        port.postMessage({ t: 'answer', id: m.id, error: `no read ${m.method}` });
        return;
      }
      const fn = (store as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[m.method] as (...a: unknown[]) => Promise<unknown>;
      fn.apply(store, m.args).then(
        (value) => port.postMessage({ t: 'answer', id: m.id, value }),
        (err: Error) => port.postMessage({ t: 'answer', id: m.id, error: err.message }),
      );
      return;
    }
    case 'seed':
      indexer.seedCandles(m.markets).then(
        () => port.postMessage({ t: 'answer', id: m.id, value: null }),
        (err: Error) => port.postMessage({ t: 'answer', id: m.id, error: err.message }),
      );
      return;
    case 'flushed':
      indexer.flushed().then(
        () => port.postMessage({ t: 'answer', id: m.id, value: indexer.height }),
        (err: Error) => port.postMessage({ t: 'answer', id: m.id, error: err.message }),
      );
      return;
    case 'close':
      indexer.flushed().catch(() => {}).then(() => store.close()).then(
        () => port.postMessage({ t: 'answer', id: m.id, value: null }),
        (err: Error) => port.postMessage({ t: 'answer', id: m.id, error: err.message }),
      );
      return;
  }
});
