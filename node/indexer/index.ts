// node/indexer/: the history indexer and its stores (level by default, PostgreSQL when configured).
export { Indexer, RETENTION, type IndexProgress } from './indexer.ts';
export { indexedBlock, sampleBlock, sampleState, BOOK_SNAPSHOT_MS, BOOK_SNAPSHOT_DEPTH, type IndexedBlock, type TradeTuple } from './indexed-block.ts';
export { LevelHistoryStore } from './level-store.ts';
export { PACK_ROWS, packTrades, unpackTrades, type PackedTrades } from './trade-pack.ts';
export { CANDLE_BUCKET_SLOTS } from './candle-line.ts';
export { rebuildHistory, progressReporter, type IndexerSink } from './rebuild.ts';
export type { HistoryStore, HistoryBatch, CoinHourRow } from './store.ts';
export { IndexerClient, INDEXER_THREAD_LIMITS, type HistoryHandle } from './client.ts';
export { openHistoryStore, type HistoryStoreConfig } from './open-store.ts';
export { PostgresHistoryStore } from './postgres-store.ts';
export { migrate, HISTORY_MIGRATIONS } from './pg-migrate.ts';
