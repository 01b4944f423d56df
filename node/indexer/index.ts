// node/indexer/: the history indexer and its stores (level by default, PostgreSQL when configured).
export { Indexer, sampleBlock, RETENTION, BOOK_SNAPSHOT_MS, BOOK_SNAPSHOT_DEPTH, DAY_MS, type IndexedBlock, type IndexProgress } from './indexer.ts';
export { LevelHistoryStore, CANDLE_BUCKET_SLOTS } from './level-store.ts';
export { rebuildHistory, progressReporter } from './rebuild.ts';
export type { HistoryStore, HistoryBatch, CoinHourRow } from './store.ts';
