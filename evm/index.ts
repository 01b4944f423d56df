// evm/: the embedded EVM (ethereumjs on a level-backed Merkle Patricia trie) and its view of
// exchange state. It knows nothing of networks or clocks: blocks come in, state and receipts out.
export { EvmChain, evmTimestamp, impersonate, RELEASE_GAS, type EvmRelease, type EvmGenesis, type EvmTxInput, type EvmSignedInput, type EvmDevnetInput, type EvmTxOutcome, type ExecutedEvmBlock, type RanEvmBlock, type Pause, type DecodedEvmTx } from './chain.ts';
export { EvmStore, type StoredEvmBlock, type StoredReceipt, type StoredLog } from './store.ts';
export { decodeStoredBlock, encodeStoredBlock } from './stored-block.ts';
export { makeCommon, EVM_HARDFORK } from './common.ts';
export { CallSession, MAX_TX_GAS, type CallRequest, type StateOverrides, type AccountOverride } from './call.ts';
export { exchangePrecompiles, ExchangeViewUnavailable, PRECOMPILE, type ExchangeView, type ExchangeViews, type DelegationView } from './precompiles.ts';
export { orderedTrieRoot } from './ordered-trie.ts';
export { LevelTrieDB } from './level-db.ts';
export { TrieBatch, EMPTY_TRIE_ROOT } from './trie-batch.ts';
export { RecentBlocks } from './recent-blocks.ts';
export { signatureParts, type SignatureParts } from './signing-hash.ts';
export { transferReceipt } from './transfer.ts';
export { decodeTransaction } from './tx-decode.ts';
export { CORE_WRITER, CORE_WRITER_CODE_HEX, RAW_ACTION_TOPIC, SEND_RAW_ACTION_SELECTOR, BURN_WORDS, rawActionOf } from './core-writer.ts';
export { impersonatedTxBytes, type DevnetOp, type EvmClock, type ImpersonatedFields } from './devnet.ts';
export { makeTracer, traceRun, MAX_STRUCT_LOGS, type TraceConfig, type Tracer } from './trace.ts';
export { traceStoredBlock, type TxTrace } from './trace-run.ts';
