// node/: wiring of storage, mempool, execution, consensus engine and API servers.
export { SvcNode, DEFAULT_NODE_CONFIG, authConfig, type NodeConfig, type NodeBridgeChain } from './node.ts';
export { NodeStartError, DataDirDamagedError } from './start-error.ts';
export { checkDataDirLogs } from './data-check.ts';
export { checkLog, BLOCK_SIZE, HEADER_SIZE, type LogCheck, type LogProblem } from './leveldb-log.ts';
export { crc32c, maskCrc, unmaskCrc } from './crc32c.ts';
export { writeFileAtomic, writeFileIfChanged } from './atomic-file.ts';
export { API_KEY_MASTER, NODE_KEY, VALIDATOR_KEY, loadOrCreateKeyFile, readKeyFile, type KeyFile } from './key-files.ts';
export { bridgeSignerKey, type BridgeSignerKey } from './bridge/signer-key.ts';
export type { BridgeChainConfig } from './bridge/relayer.ts';
export { BRIDGE_ABI } from './bridge/abi-text.ts';
export type { CommittedBlockEvent } from './event-bus.ts';
export { WorkerPoolRecovery, BackgroundPoolRecovery, InlineRecovery, type SignerGuess, type SignerRecovery } from './signer-pool.ts';
export { runJobs, type RecoveryJob, type RecoveryOut } from './signer-worker.ts';
export { isPackable, packJobs, packOuts, unpackJobs, unpackOuts, type PackableJob } from './signer-wire.ts';
export { THREAD_BUNDLE_CACHE, buildThreadBundle, currentBundle, threadEntry } from './thread-bundle.js';
export { PortfolioIndex, portfolioView, PORTFOLIO_SAMPLE_MS, type PortfolioSample } from './portfolio.ts';
export { Mempool, type PendingTx } from './mempool.ts';
export { ArrivalOrder } from './arrival-order.ts';
export { ChainStore as ChainStoreForTests, ORDER_BUCKET, type StatusWrite } from './storage.ts';
export { decodeChainBlock, encodeChainBlock, type StoredBlock } from './stored-block.ts';
export { packFills, packOrderStatus, unpackFills, unpackOrderStatus, type OrderStatusRecord } from './stored-records.ts';
export { RecordBytes } from './stored-record-bytes.ts';
export {
  Indexer, IndexerClient, INDEXER_THREAD_LIMITS, LevelHistoryStore, PostgresHistoryStore, RETENTION, indexedBlock, sampleBlock, openHistoryStore, migrate, HISTORY_MIGRATIONS,
  PACK_ROWS, packTrades, unpackTrades,
  type HistoryStore, type HistoryBatch, type IndexedBlock, type HistoryStoreConfig, type CoinHourRow,
} from './indexer/index.ts';
export { NodeApiKeyStore, API_KEY_MASTER_FILE } from './api-keys.ts';
export { APP_HASH_V2_FIELDS, nextAppHash, nextAppHashOffLoop, writeOutputs, writeV2 as appHashV2Bytes, type BlockOutputs, type WrittenOutputs } from './app-hash.ts';
export { STORED_FILLS, STORED_ORDER_STATUS, STORED_ORDER_STATUSES, readStoredFills, readStoredOrderStatus, readStoredOrderStatuses } from './app-hash-records.ts';
export { createLogger, isLogLevel, LOG_LEVELS, type LogLevel, type Logger, type LoggerOptions } from './logger.ts';
export { NodeMetrics, MetricsServer, SVC_VERSION, type NodeStatus, type MetricSources } from './metrics.ts';
export { DataLock, DataDirLockedError, DATA_LOCK_FILE } from './data-lock.ts';
export { EvmActionLog, decodeAction, runEvmActions, evmActionHash, ACTION_IDS, ACTION_VERSION, type ActionContext, type EvmActionRecord } from './evm-actions.ts';
export { ExchangeViewWindow, VIEW_WINDOW, validatorAddress } from './exchange-view.ts';
export { encodeDevnetTx, decodeDevnetTx, acceptDevnetTx } from './devnet-tx.ts';
export { verifyDataDir, scanStoredActions, type VerifyReport, type VerifyOptions, type RebuiltState } from './verify.ts';
export { CandleBook, CANDLE_INTERVALS, type StoredCandle } from './candles.ts';
