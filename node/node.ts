// A running node: storage, state, mempool, consensus engine and API servers, wired together.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  BftEngine, DEFAULT_TIMEOUTS, FileGuardStore, FileWal, Libp2pTransport, SignGuard, SoloEngine, WalGuardStore,
  txHash, type ConsensusEngine, type TimeoutConfig, type ValidatorKey,
} from '../consensus/index.ts';
import {
  BRIDGE_TX_WINDOW_MS, Exchange, exchangeDomain, exchangeError, restoreExchange, stateHash, type AuthConfig, type ExchangeError,
} from '../exchange/index.ts';
import { DEV_ACCOUNTS, loadGenesis, type GenesisFile, type LoadedGenesis } from '../genesis/index.ts';
import { EthServer, Limits, RestServer, SPEC_RATE_LIMITS, TlsFront, WsServer, type ExchangeRequest, type RateLimitConfig } from '../rpc/index.ts';
// The relayer and the devnet's bridge deployment load ethers (most of a second of module loading
// at every start): they are imported only by a node that has bridge chains.
import type { BridgeRelayer, BridgeChainConfig } from './bridge/relayer.ts';
import { bridgeSignerKey } from './bridge/signer-key.ts';
import { EvmChain, EvmStore, exchangePrecompiles } from '../evm/index.ts';
import { ExchangeViewWindow } from './exchange-view.ts';
import { EvmPool } from './evm-pool.ts';
import { admit, verifySigned } from './admission.ts';
import { NodeApiKeyStore } from './api-keys.ts';
import { ArrivalOrder } from './arrival-order.ts';
import { Chain } from './chain.ts';
import { EventBus } from './event-bus.ts';
import { Mempool } from './mempool.ts';
import { CANDLE_INTERVALS, CandleBook } from './candles.ts';
import { BackgroundPoolRecovery, InlineRecovery, type SignerRecovery } from './signer-pool.ts';
import { DevnetPriceFeeder } from './price-feeder.ts';
import { decodeSystemTx, encodeOracleTx, verifySystemTx } from './system-tx.ts';
import { decodeRequest, isEvmTx } from './tx-codec.ts';
import { devnetBackend } from './devnet-backend.ts';
import { makeNodeApi } from './node-api.ts';
import { ChainStore, type StoredHead } from './storage.ts';
import { IndexerClient, progressReporter, rebuildHistory, sampleBlock } from './indexer/index.ts';
import { DATA_LOCK_FILE, DataDirLockedError, DataLock } from './data-lock.ts';
import { MetricsServer, NodeMetrics } from './metrics.ts';
import type { Logger } from './logger.ts';
import { NodeStartError } from './start-error.ts';
import { checkDataDirLogs } from './data-check.ts';
import { writeFileIfChanged } from './atomic-file.ts';
import { NODE_KEY, VALIDATOR_KEY, loadOrCreateKeyFile } from './key-files.ts';
import { explorerAssets } from '../explorer/index.ts';
import { pinEventLoop, type ThreadPinning } from './thread-pinning.ts';

export interface NodeConfig {
  readonly dataDir: string;
  readonly genesis: GenesisFile;
  /** Wipe the data directory first. */
  readonly fresh: boolean;
  readonly host: string;
  readonly restPort: number;
  /** WebSocket port (path /ws); null serves none. */
  readonly wsPort: number | null;
  /** EVM JSON-RPC port (HTTP and WebSocket); null serves none. */
  readonly rpcPort: number | null;
  /** Bytes a WebSocket connection may have unsent before it is closed as too slow. */
  readonly wsMaxBackpressure: number;
  /** Public WebSocket streams go out at most this often (ms), the blocks in between merged; 0: every block. */
  readonly wsPublicIntervalMs: number;
  readonly batchDelayMs: number;
  readonly emptyBlockIntervalMs: number;
  /** The single validator starts a block no sooner than this after the one before (consensus/solo.ts). */
  readonly minBlockIntervalMs: number;
  readonly maxBlockTxs: number;
  readonly snapshotInterval: number;
  /** Worker threads recovering signers (0: on the main thread). */
  readonly signerWorkers: number;
  /** The event loop on one CPU and the node's other threads on the rest (node/thread-pinning.ts). */
  readonly pinEventLoop: boolean;
  /** Publish the validator's oracle prices this often (ms); 0 publishes none. */
  readonly oracleIntervalMs: number;
  readonly mempoolCapacity: number;
  /** Largest request body; it bounds a transaction's size too. */
  readonly maxBodyBytes: number;
  /** Every rate limit of the API (rpc/limits.ts; docs/api.md, Rate limits). */
  readonly rateLimits: RateLimitConfig;
  /** Bytes of transactions in one block at most. */
  readonly maxBlockBytes: number;
  readonly log: (line: string) => void;
  /** Wall clock (ms); block times and nonce admission use it. */
  readonly now: () => number;
  /** Multi-validator networks: where libp2p listens and the peers it dials; null on a devnet. */
  readonly p2p: { readonly listen: string; readonly peers: readonly string[] } | null;
  /** BFT round timeouts. */
  readonly timeouts: TimeoutConfig;
  /** Block sync progress (BFT): our head and the peers'; equal when caught up. */
  readonly onSyncProgress?: (height: number, target: number) => void;
  /** External chains the bridge relayer watches (docs/bridge.md); none: no relayer. */
  readonly bridgeChains: readonly NodeBridgeChain[];
  /** How often the relayer reads its chains (ms). */
  readonly bridgePollMs: number;
  /**
   * Where the history indexer writes (docs/history.md): null for the embedded level store in the
   * data directory, or a `postgres://` URL.
   */
  readonly indexerDb: string | null;
  /** Keep the history at all (`--no-history`: no indexer; `/v4` and `/stats` answer 503). */
  readonly history: boolean;
  /**
   * TLS 1.3 (PEM certificate chain and key) for REST, WebSocket and JSON-RPC (docs/operations.md);
   * null: plain HTTP, which a testnet or mainnet node serves on a loopback host only.
   */
  readonly tls: { readonly cert: string | Buffer; readonly key: string | Buffer } | null;
  /** Prometheus metrics (GET /metrics) and GET /status on metricsHost:metricsPort; null: off. */
  readonly metricsPort: number | null;
  readonly metricsHost: string;
  /** Leveled logs: failures go to its error(); absent, every line goes to `log`. */
  readonly logger?: Logger;
  /** Serve the explorer page at `/` on the REST port (built on its first request). */
  readonly explorer: boolean;
}

/** A bridge chain of this node; `devDeploy` (local networks only): deploy the bridge there, once. */
export type NodeBridgeChain = BridgeChainConfig & { readonly devDeploy?: { readonly token?: string } };

export const DEFAULT_NODE_CONFIG = {
  host: '127.0.0.1',
  restPort: 4001,
  wsPort: 4000 as number | null,
  rpcPort: 3001 as number | null,
  wsMaxBackpressure: 4 << 20,
  wsPublicIntervalMs: 10,
  batchDelayMs: 2,
  emptyBlockIntervalMs: 1000,
  minBlockIntervalMs: 0,
  maxBlockTxs: 10_000,
  snapshotInterval: 1000,
  oracleIntervalMs: 3000,
  signerWorkers: Math.max(1, Math.min(4, availableParallelism())),
  pinEventLoop: false,
  mempoolCapacity: 50_000,
  maxBodyBytes: 256 << 10,
  rateLimits: SPEC_RATE_LIMITS,
  maxBlockBytes: 4 << 20,
  fresh: false,
  log: (line: string) => console.log(line),
  now: () => Date.now(),
  p2p: null as NodeConfig['p2p'],
  timeouts: DEFAULT_TIMEOUTS,
  bridgeChains: [] as readonly NodeBridgeChain[],
  bridgePollMs: 1000,
  indexerDb: null as string | null,
  history: true,
  tls: null as NodeConfig['tls'],
  metricsPort: null as number | null,
  metricsHost: '127.0.0.1',
  explorer: true,
} satisfies Partial<NodeConfig>;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', 'localhost']);

/** A testnet or mainnet node serves TLS 1.3 only, but for a loopback-only local network (`svc testnet`). */
function checkTls(config: NodeConfig, genesis: GenesisFile): void {
  if (config.tls !== null || genesis.network === 'local' || LOOPBACK_HOSTS.has(config.host)) return;
  throw new NodeStartError(`a ${genesis.network} node serves REST, WebSocket and JSON-RPC over TLS 1.3 only: give it a certificate and key (config.json "tls" or --tls-cert and --tls-key; docs/operations.md), or listen on 127.0.0.1`);
}

export { NodeStartError };

async function loadOrCreateKey(dataDir: string): Promise<ValidatorKey> {
  return loadOrCreateKeyFile(dataDir, VALIDATOR_KEY);
}

/** The EVM's store, at the consensus head: an EVM block written above it by a crash is rewound. */
export async function openEvm(dataDir: string, genesis: LoadedGenesis, views: ExchangeViewWindow, chainHeight: number, replayFrom: number): Promise<EvmChain> {
  const store = new EvmStore(join(dataDir, 'evm'));
  await store.open();
  try {
    const evm = await EvmChain.open(store, genesis.evm, exchangePrecompiles(views), { precompilesAt: (height) => exchangePrecompiles(views, height) });
    if (evm.height > chainHeight) await evm.setHead(chainHeight);
    if (evm.height < replayFrom) throw new NodeStartError(`the EVM store is at height ${evm.height}, below the state snapshot at ${replayFrom}: the data directory is inconsistent`);
    return evm;
  } catch (err) {
    await store.close();
    throw err;
  }
}

/** The node's network identity (libp2p), separate from its validator key: a 32-byte ed25519 seed. */
async function loadOrCreateNodeKey(dataDir: string): Promise<Uint8Array> {
  return loadOrCreateKeyFile(dataDir, NODE_KEY);
}

export async function openStore(dataDir: string): Promise<ChainStore> {
  const store = new ChainStore(join(dataDir, 'db'));
  try {
    await store.open();
  } catch (err) {
    const cause = (err as Error & { cause?: Error }).cause?.message ?? (err as Error).message;
    throw new NodeStartError(`cannot open the database in ${dataDir} (is another node using it?): ${cause}`);
  }
  return store;
}

/** Empties a data directory but for our lock, refusing while another node holds its database. */
async function wipe(dataDir: string): Promise<void> {
  if (existsSync(join(dataDir, 'db'))) await (await openStore(dataDir)).close();
  for (const name of await readdir(dataDir)) {
    if (name !== DATA_LOCK_FILE) await rm(join(dataDir, name), { recursive: true, force: true });
  }
}

/** This process's lock on the data directory (node/data-lock.ts). */
function lockDataDir(dataDir: string): DataLock {
  try {
    return DataLock.acquire(dataDir);
  } catch (err) {
    if (err instanceof DataDirLockedError) throw new NodeStartError(err.message);
    throw err;
  }
}

/** How this chain's signed requests are checked (its EIP-712 domain, source and bindings). */
export function authConfig(genesis: LoadedGenesis): AuthConfig {
  return {
    domain: exchangeDomain(genesis.file.chainId),
    source: genesis.file.network === 'mainnet' ? 'a' : 'b',
    literalNonceBinding: genesis.file.auth.literalNonceBinding,
    hyperliquid: genesis.hyperliquidChains.length === 0 ? null : { chains: genesis.hyperliquidChains },
  };
}

/**
 * Signer recovery on worker threads; inline when `signerWorkers` is 0 or workers cannot start,
 * and while they boot (the node does not wait for them: BackgroundPoolRecovery).
 */
function startRecovery(auth: AuthConfig, config: NodeConfig): SignerRecovery {
  if (config.signerWorkers === 0) return new InlineRecovery(auth);
  return new BackgroundPoolRecovery(auth, config.signerWorkers, (err) => {
    (config.logger?.warn ?? config.log)(`signer workers could not start (${err.message}); recovering on the main thread`);
  });
}

/** The chains the relayer watches; on a devnet, the bridges it deploys (or deployed before) on local chains. */
async function setUpBridgeChains(config: NodeConfig, genesis: LoadedGenesis, key: ValidatorKey): Promise<BridgeChainConfig[]> {
  const out: BridgeChainConfig[] = [];
  for (const c of config.bridgeChains) {
    if (c.devDeploy === undefined) {
      out.push(c);
      continue;
    }
    if (genesis.file.network !== 'local') throw new NodeStartError(`the node deploys a bridge only on a local network; give ${c.url} its contract`);
    try {
      const { devBridge, deployerKey } = await import('./bridge/dev-deploy.ts');
      const deployed = await devBridge({
        url: c.url, dataDir: config.dataDir, deployer: deployerKey(DEV_ACCOUNTS[0]?.privateKey as string), signer: bridgeSignerKey(key).address,
        serviceChainId: genesis.file.chainId, mintTo: DEV_ACCOUNTS.map((a) => a.address.toLowerCase()), log: config.log,
        ...(c.devDeploy.token !== undefined ? { token: c.devDeploy.token } : {}),
      });
      out.push({ ...deployed, confirmations: c.confirmations });
    } catch (err) {
      throw new NodeStartError(`cannot set up the bridge on ${c.url}: ${(err as Error).message}`);
    }
  }
  return out;
}

/**
 * Opens the chain's state at its last snapshot (or at genesis, without one or with `useSnapshot`
 * false): `from`, and the stored head `to` that replay brings it to. A snapshot whose state does
 * not hash to the hash recorded with it is not used: the state is rebuilt from genesis instead.
 */
export async function openChainState(
  store: ChainStore, genesis: LoadedGenesis, opts: { readonly useSnapshot?: boolean; readonly warn?: (line: string) => void } = {},
): Promise<{ exchange: Exchange; from: StoredHead; to: StoredHead | undefined }> {
  const known = await store.genesisHash();
  if (known !== undefined && known !== genesis.hash) {
    throw new NodeStartError(`the data directory holds another chain (genesis ${known}); start with --fresh to wipe it`);
  }
  if (known === undefined) await store.setGenesisHash(genesis.hash);
  const to = await store.head();
  const snapshot = opts.useSnapshot === false ? undefined : await store.snapshot();
  if (snapshot !== undefined) {
    const exchange = restoreExchange(genesis.exchange, snapshot.state);
    if (exchange.height !== snapshot.head.height) {
      throw new NodeStartError(`the state snapshot is at height ${exchange.height} but names head ${snapshot.head.height}: the data directory is inconsistent`);
    }
    const hash = snapshot.stateHash === undefined ? undefined : stateHash(exchange.state);
    if (hash === snapshot.stateHash) return { exchange, from: snapshot.head, to };
    opts.warn?.(`the state snapshot at height ${snapshot.head.height} in ${store.path} hashes to ${hash}, not to the ${snapshot.stateHash} recorded with it: ignoring it and replaying every block from genesis`);
  }
  const exchange = Exchange.fromGenesis(genesis.exchange, genesis.balances, genesis.file.genesisTime);
  const from: StoredHead = { height: 0, hash: genesis.hash, time: genesis.file.genesisTime, appHash: stateHash(exchange.state), fillSeq: 0 };
  return { exchange, from, to };
}

/** Starts the indexer thread on the configured store and brings the history up to the chain's head from the stored blocks. */
async function startIndexer(config: NodeConfig, genesis: LoadedGenesis, store: ChainStore, chain: Chain, evm: EvmChain, starting: Promise<IndexerClient>): Promise<IndexerClient> {
  let indexer: IndexerClient;
  try {
    indexer = await starting;
  } catch (err) {
    throw new NodeStartError(`cannot open the history store: ${(err as Error).message}`);
  }
  const state = chain.exchange.state;
  await indexer.seedCandles(state.markets.map((m) => [m.name, m.pxDecimals, m.szDecimals] as const));
  const from = indexer.height;
  if (indexer.writable && from < chain.storedHead.height) {
    config.log(`history is at block ${from}, the chain at ${chain.storedHead.height}: indexing the blocks in between`);
    await rebuildHistory({ indexer, store, genesis, evm, head: chain.storedHead, snapshotInterval: config.snapshotInterval, progress: progressReporter(config.log) });
  }
  return indexer;
}

export class SvcNode {
  private stopping: Promise<void> | null = null;
  /** Released last in stop(). */
  private dataLock: DataLock | null = null;
  /** TLS 1.3 terminators in front of the API servers (config.tls). */
  private fronts: TlsFront[] = [];
  private pinning: ThreadPinning | null = null;
  private metricsServer: MetricsServer | null = null;
  /** The node's metrics (null when the metrics port is off). */
  metrics: NodeMetrics | null = null;
  metricsPort: number | null = null;

  private constructor(
    readonly config: NodeConfig,
    readonly genesis: LoadedGenesis,
    readonly validatorKey: ValidatorKey,
    readonly store: ChainStore,
    readonly chain: Chain,
    readonly bus: EventBus,
    private readonly engine: ConsensusEngine,
    private readonly rest: RestServer,
    readonly restPort: number,
    private readonly halted: () => boolean,
    private readonly oracleTimer: NodeJS.Timeout | null,
    private readonly recovery: SignerRecovery,
    private readonly ws: WsServer | null,
    readonly wsPort: number | null,
    readonly evm: EvmChain,
    private readonly eth: EthServer | null,
    readonly rpcPort: number | null,
    private readonly transport: Libp2pTransport | null,
    private readonly relayer: BridgeRelayer | null,
    readonly indexer: IndexerClient | null,
    /** The API's rate limits (the historical tiers included), shared by the REST and WebSocket servers. */
    readonly limits: Limits,
  ) {}

  /** The chains the relayer watches, with the contracts (and on a devnet the USDC) it uses. */
  get bridgeChains(): readonly (BridgeChainConfig & { readonly token?: string })[] {
    return this.relayer?.chains ?? [];
  }

  /** The address this validator's withdrawal signatures recover to (docs/bridge.md). */
  get bridgeSigner(): string {
    return bridgeSignerKey(this.validatorKey).address;
  }

  /** libp2p addresses with this node's peer id (BFT nodes), for other nodes' peer lists. */
  get p2pAddresses(): string[] {
    const t = this.transport;
    return t === null ? [] : t.addresses.map((a) => (a.includes('/p2p/') ? a : `${a}/p2p/${t.peerId}`));
  }

  /** The EVM JSON-RPC endpoint (HTTP; the same port serves WebSocket). */
  get rpcUrl(): string | null {
    return this.rpcPort === null ? null : `${this.config.tls === null ? 'http' : 'https'}://${this.config.host}:${this.rpcPort}`;
  }

  get wsUrl(): string | null {
    return this.wsPort === null ? null : `${this.config.tls === null ? 'ws' : 'wss'}://${this.config.host}:${this.wsPort}/ws`;
  }

  /** Settles once the signer workers serve (the node serves before, recovering inline while they boot), or recovery stays inline. */
  signersReady(): Promise<void> {
    return this.recovery instanceof BackgroundPoolRecovery ? this.recovery.ready() : Promise.resolve();
  }

  get restUrl(): string {
    return `${this.config.tls === null ? 'http' : 'https'}://${this.config.host}:${this.restPort}`;
  }

  get height(): number {
    return this.chain.storedHead.height;
  }

  static async start(config: NodeConfig): Promise<SvcNode> {
    loadGenesis(config.genesis); // refuse a bad genesis before touching the data directory
    checkTls(config, config.genesis);
    await mkdir(config.dataDir, { recursive: true });
    const lock = lockDataDir(config.dataDir);
    try {
      if (config.fresh) await wipe(config.dataDir);
      const node = await SvcNode.open(config);
      node.dataLock = lock;
      return node;
    } catch (err) {
      lock.release();
      throw err;
    }
  }

  /** Starts the node on a data directory this process holds the lock of. */
  private static async open(config: NodeConfig): Promise<SvcNode> {
    await checkDataDirLogs(config.dataDir, config.logger?.warn ?? config.log);
    const key = await loadOrCreateKey(config.dataDir);
    const genesis = loadGenesis(config.genesis, { localValidator: key.publicKey, localBridgeSigner: bridgeSignerKey(key).address });
    const solo = genesis.file.validators.length === 0 || (genesis.file.validators.length === 1 && genesis.file.validators[0]?.pubKey === key.publicKey);
    if (!solo && config.p2p === null) {
      throw new NodeStartError('this genesis names other validators: give the node p2p settings (listen address and peers)');
    }
    const store = await openStore(config.dataDir);
    const cleanups: (() => Promise<void>)[] = [];
    try {
      return await SvcNode.assemble(config, genesis, key, store, cleanups);
    } catch (err) {
      for (const c of cleanups) await c();
      await store.close();
      throw err;
    }
  }

  /** `cleanups` collects what to close if assembly fails part-way. */
  private static async assemble(config: NodeConfig, genesis: LoadedGenesis, key: ValidatorKey, store: ChainStore, cleanups: (() => Promise<void>)[]): Promise<SvcNode> {
    // The indexer thread boots while the chain's state is rebuilt.
    const indexerStarting = config.history ? IndexerClient.start(config.indexerDb === null ? { kind: 'level', path: join(config.dataDir, 'history') } : { kind: 'postgres', url: config.indexerDb }, config.log) : null;
    indexerStarting?.catch(() => {}); // awaited (and its failure reported) below
    cleanups.push(async () => (await indexerStarting?.catch(() => null))?.close());
    const { exchange, from, to } = await openChainState(store, genesis, { warn: config.logger?.warn ?? config.log });
    const metrics = config.metricsPort === null ? null : new NodeMetrics({
      chainId: genesis.file.chainId, network: genesis.file.network, validatorKey: key.publicKey, genesisHash: genesis.hash,
    });
    if (metrics !== null) cleanups.push(async () => metrics.close());
    await writeFileIfChanged(join(config.dataDir, 'genesis.json'), `${JSON.stringify(config.genesis, null, 2)}\n`);
    const mempool = new Mempool(config.mempoolCapacity);
    const bus = new EventBus((err) => (config.logger?.error ?? config.log)(`event subscriber failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`));
    const candles = new CandleBook(exchange);
    // The read precompiles' views: the live state, and the market figures of recent blocks.
    const views = new ExchangeViewWindow(exchange);
    bus.onExecuted(() => views.record());
    const evm = await openEvm(config.dataDir, genesis, views, to?.height ?? 0, from.height);
    cleanups.push(() => evm.close());
    let pool: EvmPool | null = null;
    const auth = authConfig(genesis);
    const recovery = startRecovery(auth, config);
    cleanups.push(() => recovery.close()); // its worker threads would keep a failed start's process alive
    // A node with p2p settings runs the BFT engine (also for n = 1); a devnet runs the single validator.
    const p2p = config.p2p;
    // The devnet's anvil_* / evm_* methods: the single-validator engine, never on mainnet.
    const devnetMethods = p2p === null && genesis.file.network !== 'mainnet';
    const chain = new Chain(store, exchange, from, mempool, bus, {
      snapshotInterval: config.snapshotInterval, chainId: genesis.file.chainId, appHashVersion: genesis.appHashVersion, ...(p2p !== null ? { bft: { auth, recovery } } : { devnet: devnetMethods }),
      hasher: (bytes, digest) => recovery.digest(bytes, digest),
    }, candles, evm, (b) => {
      pool?.onBlock(b);
      bus.publishEvmBlock(b);
    });
    if (to !== undefined && to.height > from.height) await chain.replay(to);
    await chain.loadEvidenceIndex();
    const indexer = indexerStarting === null ? null : await startIndexer(config, genesis, store, chain, evm, indexerStarting);
    if (indexer !== null) {
      // Blocks go to the indexer as they commit, with the state samples taken right after each
      // executed (the next block may execute while this one is written), kept as their JSON.
      let prevTime = chain.storedHead.time;
      const samples = new Map<number, string>();
      bus.onExecuted(({ header, events }) => {
        samples.set(header.height, JSON.stringify(sampleBlock(exchange.state, header.height, header.time, prevTime, events)));
        prevTime = header.time;
      });
      bus.onBlock((e) => {
        const sample = samples.get(e.header.height);
        samples.delete(e.header.height);
        if (sample !== undefined) indexer.pushEncoded(e.header.height, sample);
      });
    }
    for (const m of exchange.state.markets) {
      for (const interval of Object.keys(CANDLE_INTERVALS)) {
        const last = await store.lastCandle(m.name, interval);
        if (last !== undefined) candles.seed([last]);
      }
      const since = (Math.floor(exchange.state.time / 3_600_000) - 23) * 3_600_000;
      candles.seedHours(await store.candleRange(m.name, '1h', since, Number.MAX_SAFE_INTEGER, 24));
    }
    let fatal: unknown = null;
    const onFatal = (err: unknown): void => {
      fatal = err;
      mempool.failAll();
      (config.logger?.error ?? config.log)(`fatal: cannot commit block: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    };
    let transport: Libp2pTransport | null = null;
    let engine: ConsensusEngine;
    if (p2p !== null) {
      // The validator set of each height comes from the chain's state (staking moves it at epoch
      // boundaries), so every node keeps its key's guard: it signs at the heights whose set holds
      // its key and follows at the others. The guard's records travel in the WAL (one fdatasync
      // per signature); sign_state.json is a copy. Read before the transport starts: a log the
      // guard cannot trust stops the start here.
      const wal = new FileWal(join(config.dataDir, 'consensus.wal'));
      let guard: SignGuard | null = null;
      try {
        guard = new SignGuard(key, new WalGuardStore(wal, new FileGuardStore(join(config.dataDir, 'sign_state.json'), { sync: false })));
      } catch (err) {
        throw new NodeStartError(`cannot tell what this validator's key signed last, so it will not sign: ${(err as Error).message}`);
      }
      cleanups.push(async () => guard?.close());
      const started = await Libp2pTransport.start({
        chainId: genesis.file.chainId, nodeKeySeed: await loadOrCreateNodeKey(config.dataDir), listen: p2p.listen, peers: p2p.peers, log: config.log,
      });
      transport = started;
      cleanups.push(() => started.stop());
      engine = new BftEngine(chain, {
        chainId: genesis.file.chainId,
        guard,
        wal,
        transport,
        timeouts: config.timeouts,
        now: config.now,
        batchDelayMs: config.batchDelayMs,
        emptyBlockIntervalMs: config.emptyBlockIntervalMs,
        maxBlockTxs: config.maxBlockTxs,
        maxBlockBytes: config.maxBlockBytes,
        maxClockDriftMs: 1000,
        tickMs: 500,
        evidenceMaxAge: 10_000,
        onFatal,
        log: config.log,
        ...(config.onSyncProgress !== undefined ? { onSyncProgress: config.onSyncProgress } : {}),
        ...(metrics !== null ? { onTimeout: (step: string) => metrics.timeout(step) } : {}),
      });
    } else {
      engine = new SoloEngine(chain, {
        chainId: genesis.file.chainId,
        key,
        now: config.now,
        batchDelayMs: config.batchDelayMs,
        emptyBlockIntervalMs: config.emptyBlockIntervalMs,
        minBlockIntervalMs: config.minBlockIntervalMs,
        maxBlockTxs: config.maxBlockTxs,
        maxBlockBytes: config.maxBlockBytes,
        onFatal,
      });
    }
    const bridgeChains = await setUpBridgeChains(config, genesis, key);
    const submitSystem = (bytes: Uint8Array): void => {
      void mempool.add({ bytes, hash: txHash(bytes), signer: '', nonce: null });
      engine.notifyTxs();
      transport?.broadcastTx(bytes);
    };
    const relayer = bridgeChains.length === 0 ? null : new (await import('./bridge/relayer.ts')).BridgeRelayer(bridgeChains, {
      exchange, validatorKey: key, signer: bridgeSignerKey(key), serviceChainId: genesis.file.chainId, submit: submitSystem,
      dataDir: config.dataDir, log: config.log, now: config.now, pollMs: config.bridgePollMs,
    });
    // A withdrawal to a chain this node watches but cannot reach is refused while it is down.
    const gate = (req: ExchangeRequest): ExchangeError | null => {
      if (relayer === null || typeof req.action !== 'object' || req.action === null) return null;
      const a = req.action as { type?: unknown; chainId?: unknown };
      if (a.type !== 'withdraw') return null;
      const chainId = typeof a.chainId === 'number' ? a.chainId : exchange.state.bridge.defaultChain()?.chainId;
      return chainId !== undefined && relayer.isDown(chainId) ? exchangeError('BRIDGE_UNAVAILABLE') : null;
    };
    const arrivals = new ArrivalOrder();
    const apiKeys = await NodeApiKeyStore.open(store.localStore('apikeys'), config.dataDir, genesis.exchange.nonceWindowMs, config.now());
    const limits: Limits = new Limits(config.rateLimits, { now: config.now, apiKeys, isStaker: (a) => api.isStaker(a) });
    // The signer's /exchange budget applies to API requests, not to peers' gossip.
    const signerLimit = { wait: (signer: string, action: unknown) => limits.exchangeSigner(signer, action), message: (wait: number) => limits.exchangeSignerMessage(wait) };
    const admission = (gossip: boolean) => ({
      auth, recovery, exchange, mempool, now: config.now, nonceWindowMs: genesis.exchange.nonceWindowMs, order: arrivals, gate,
      ...(gossip ? { limit: signerLimit } : {}),
      onAdmitted: (tx: Uint8Array, signer?: string) => {
        engine.notifyTxs();
        if (gossip) transport?.broadcastTx(tx, signer);
      },
    });
    // Transactions gossiped by peers go through the same admission; they are not gossiped again
    // (validators and full nodes dial every validator).
    transport?.onTx((from, bytes, signer) => {
      if (fatal !== null) return;
      const system = decodeSystemTx(bytes);
      if (system !== null) {
        // Only the current validators' own, fresh system transactions: anything else would take block space for nothing.
        if (!verifySystemTx(genesis.file.chainId, system)) return;
        if (!exchange.state.validators().some((v) => v.pubKey === system.system.validator)) return;
        if (Math.abs(system.system.time - config.now()) > BRIDGE_TX_WINDOW_MS) return; // the state refuses older bridge items anyway
        void mempool.add({ bytes, hash: txHash(bytes), signer: '', nonce: null });
        engine.notifyTxs();
        return;
      }
      if (isEvmTx(bytes)) {
        // Its own admission; a transaction this node already knows is refused quietly.
        void pool?.submit(bytes).catch(() => {});
        return;
      }
      const req = decodeRequest(bytes);
      if (req !== null) void admit(admission(false), req, signer === undefined ? undefined : { peer: from, signer });
    });
    const api = makeNodeApi({
      history: indexer?.store ?? null,
      candles,
      exchange,
      chain,
      store,
      healthy: () => fatal === null,
      ...(relayer !== null ? { bridgeStatus: () => relayer.status() } : {}),
      submit: (req, origin) =>
        fatal !== null
          ? Promise.resolve({ kind: 'unavailable', message: 'Node halted after a storage failure' })
          : admit(admission(true), req, origin === undefined ? undefined : { origin }),
      verifySigned: (req) => verifySigned(admission(false), req),
      stakerTierStake: genesis.api.stakerTierStake,
    });
    const evmPool = new EvmPool(evm, mempool, recovery, (bytes) => {
      engine.notifyTxs();
      transport?.broadcastTx(bytes);
    });
    pool = evmPool;
    // With TLS the servers listen on loopback ports behind TLS 1.3 terminators (rpc/tls-proxy.ts).
    const tls = config.tls;
    const bind = (port: number) => (tls === null ? { host: config.host, port } : { host: '127.0.0.1', port: 0, behindProxy: true });
    let wsPort: number | null = null;
    let rpcPort: number | null = null;
    const staticAssets = config.explorer ? explorerAssets(() => ({ wsPort, rpcPort })) : null;
    const rest = new RestServer(api, { ...bind(config.restPort), maxBodyBytes: config.maxBodyBytes, log: config.log, limits, apiKeys, now: config.now, staticAssets, ...(metrics !== null ? { metrics } : {}) });
    let restPort: number;
    try {
      restPort = await rest.listen();
    } catch (err) {
      rest.close();
      throw new NodeStartError((err as Error).message);
    }
    let ws: WsServer | null = null;
    if (config.wsPort !== null) {
      ws = new WsServer(api, bus, { ...bind(config.wsPort), log: config.log, maxBackpressure: config.wsMaxBackpressure, limits, publicIntervalMs: config.wsPublicIntervalMs });
      try {
        wsPort = await ws.listen();
      } catch (err) {
        rest.close();
        ws.close();
        throw new NodeStartError((err as Error).message);
      }
    }
    let eth: EthServer | null = null;
    if (config.rpcPort !== null) {
      eth = new EthServer({
        chain: evm,
        clientVersion: `svc/0.1.0/ethereumjs-vm-10.1.3/node-${process.version}`,
        sendRawTransaction: (bytes) => (fatal !== null ? Promise.reject(new Error('node halted after a storage failure')) : evmPool.submit(bytes)),
        pendingNonce: (a) => evmPool.pendingNonce(a),
        pendingTx: (h) => evmPool.pendingTx(h),
        onPendingTx: (l) => evmPool.onPending(l),
        ...(devnetMethods ? { devnet: devnetBackend(genesis.file.chainId, key, mempool, () => engine.notifyTxs(), config.now, () => fatal !== null) } : {}),
      }, { onEvmBlock: (l) => bus.onEvmBlock((b) => l(b.block, b.stored)) }, {
        ...bind(config.rpcPort), maxBodyBytes: 5 << 20, log: config.log, maxBackpressure: config.wsMaxBackpressure, now: config.now,
      });
      try {
        rpcPort = await eth.listen();
      } catch (err) {
        rest.close();
        ws?.close();
        eth.close();
        throw new NodeStartError((err as Error).message);
      }
    }
    const fronts: TlsFront[] = [];
    let metricsServer: MetricsServer | null = null;
    let metricsPort: number | null = null;
    try {
      if (tls !== null) {
        const front = async (publicPort: number, innerPort: number): Promise<number> => {
          const f = new TlsFront({ host: config.host, port: publicPort, cert: tls.cert, key: tls.key, targetPort: innerPort });
          fronts.push(f);
          return f.listen();
        };
        restPort = await front(config.restPort, restPort);
        if (wsPort !== null && config.wsPort !== null) wsPort = await front(config.wsPort, wsPort);
        if (rpcPort !== null && config.rpcPort !== null) rpcPort = await front(config.rpcPort, rpcPort);
      }
      if (metrics !== null && config.metricsPort !== null) {
        const bft = engine instanceof BftEngine ? engine : null;
        const liveWs = ws;
        metrics.attach({
          height: () => chain.storedHead.height,
          headTime: () => chain.storedHead.time,
          round: () => bft?.replica.driver.round ?? 0,
          peers: () => transport?.connectedPeers.length ?? 0,
          syncTarget: () => Math.max(chain.storedHead.height, (bft?.replica.bestPeerHeight() ?? 0) - 1),
          mempool: () => mempool.size,
          wsConnections: () => liveWs?.connections ?? 0,
          recoveryQueue: () => recovery.queueLength(),
          validator: () => exchange.state.validators().some((v) => v.pubKey === key.publicKey),
        });
        bus.onBlock((e) => metrics.blockCommitted(e.header.time, e.results.length, config.now()));
        metricsServer = new MetricsServer(metrics);
        metricsPort = await metricsServer.listen(config.metricsHost, config.metricsPort);
      }
    } catch (err) {
      for (const f of fronts) f.close();
      await metricsServer?.close();
      rest.close();
      ws?.close();
      eth?.close();
      throw new NodeStartError((err as Error).message);
    }
    engine.start();
    const feeder = config.oracleIntervalMs > 0 ? new DevnetPriceFeeder() : null;
    const oracleTimer = feeder === null ? null : setInterval(() => {
      if (fatal !== null) return;
      // Only validators of the current set publish (staking may add or remove this node's key).
      if (!exchange.state.validators().some((v) => v.pubKey === key.publicKey)) return;
      const prices = feeder.prices(exchange);
      if (prices === null) return;
      submitSystem(encodeOracleTx(genesis.file.chainId, key, config.now(), prices));
    }, config.oracleIntervalMs);
    relayer?.start();
    const node = new SvcNode(config, genesis, key, store, chain, bus, engine, rest, restPort, () => fatal !== null, oracleTimer, recovery, ws, wsPort, evm, eth, rpcPort, transport, relayer, indexer, limits);
    node.fronts = fronts;
    node.metrics = metrics;
    node.metricsServer = metricsServer;
    node.metricsPort = metricsPort;
    // Last: every thread the node starts with exists now (later ones are swept within a second).
    if (config.pinEventLoop) {
      const warn = config.logger?.warn ?? config.log;
      const pinning = pinEventLoop(warn);
      if (typeof pinning === 'string') warn(`--pin-event-loop: not pinned: ${pinning}`);
      else {
        node.pinning = pinning;
        config.log(`event loop pinned to CPU ${pinning.eventLoop}; ${pinning.pinned} other threads to CPU ${pinning.others.join(',')}`);
      }
    }
    return node;
  }

  /**
   * Stops accepting connections, lets the block in flight commit (the requests it holds are
   * answered on their open connections), then closes the servers, snapshots the state and closes
   * the store. Requests still in the mempool get no answer: not acknowledged, not committed.
   */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      for (const f of this.fronts) f.stopAccepting();
      this.rest.stopListening();
      if (this.oracleTimer !== null) clearInterval(this.oracleTimer);
      await this.relayer?.stop();
      await this.engine.stop();
      for (const f of this.fronts) f.close();
      this.rest.close();
      this.ws?.close();
      this.eth?.close();
      await this.transport?.stop();
      // After a failed commit, memory is ahead of disk: the next start replays from disk instead.
      if (!this.halted()) await this.chain.saveSnapshot();
      // What the indexer has not written yet is rebuilt from the blocks at the next start.
      await this.indexer?.close();
      await this.store.close();
      // EVM writes queued behind a failed one may still be running: the store closes after them.
      await this.evm.close();
      await this.recovery.close();
      await this.metricsServer?.close();
      this.metrics?.close();
      this.pinning?.stop();
      this.dataLock?.release();
    })();
    return this.stopping;
  }
}
