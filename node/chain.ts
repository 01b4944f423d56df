// The application side of consensus: executes decided blocks through exchange/, persists each
// block with everything derived from it in one batch, then answers waiting requests.
import {
  ValidatorSet, evidenceKey, headerHash, txHash, type BftApp, type Block, type Commit, type CommittedHead,
} from '../consensus/index.ts';
import {
  exchangeError, hyperliquidVault, knownHyperliquidSigner, knownSigner, snapshotState, type AuthConfig, stateHash, type Exchange, type ExchangeEvent, type FundingRateRecord,
  type FundingRecord, type LiquidationRecord, type TxResult,
} from '../exchange/index.ts';
import { bytesToHex, count, stageEnd, type PreparedBatch } from '../primitives/index.ts';
import type { EventBus } from './event-bus.ts';
import type { Mempool, PendingTx, RecoveredSigners } from './mempool.ts';
import type { ChainStore, StatusWrite, StoredHead } from './storage.ts';
import { decodeRequest, isEvmTx, toExchangeTx, type SignedRequest } from './tx-codec.ts';
import { svcActionOf } from '../rpc/index.ts';
import type { EvmChain, EvmTxInput, ExecutedEvmBlock, StoredReceipt } from '../evm/index.ts';
import { linkWork, settleLink } from './evm-link.ts';
import { EvmActionLog, runEvmActions } from './evm-actions.ts';
import { decodeSystemTx, verifySystemTx, type SystemTx } from './system-tx.ts';
import { acceptDevnetTx, decodeDevnetTx } from './devnet-tx.ts';
import type { CandleBook, StoredCandle } from './candles.ts';
import { PortfolioIndex } from './portfolio.ts';
import type { SignerRecovery } from './signer-pool.ts';
import { nextAppHash, nextAppHashOffLoop, writeOutputs, writtenAppHash, type OffLoopDigest, type WrittenOutputs } from './app-hash.ts';
import type { AppHashVersion } from '../genesis/index.ts';
import { txCandidates } from './signer-worker.ts';

const ZERO_32 = new Uint8Array(32);

/** One turn of the event loop (evm/chain.ts RanEvmBlock's pause). */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Address no key can sign for: the signer of a transaction that does not decode. */
const NO_SIGNER = '0x0000000000000000000000000000000000000000';

/**
 * Who signed a transaction: the signer admission chose (single validator, or a public key for an
 * EVM transaction); or, under BFT, resolved against state when it executes (every node applies
 * the same rule at the same point of the chain): the addresses its signature recovers to under
 * each allowed binding (the first known one is chosen, else the first), or lazily what admission
 * recovered from the same bytes, the bindings it did not reach recovered only when none of its
 * addresses is a known signer as the transaction executes (the same choice; a node recovers
 * each binding of a transaction at most once).
 */
export type SignerSpec = string | readonly string[] | { readonly recovered: RecoveredSigners; readonly bytes: Uint8Array };

/** Distinct non-null addresses, in order. */
function distinct(addresses: readonly (string | null)[]): string[] {
  const out: string[] = [];
  for (const a of addresses) if (a !== null && !out.includes(a)) out.push(a);
  return out;
}

export interface ExecutedBlock {
  /**
   * The signer each transaction executed as ('' for system transactions; for an EVM transaction
   * its sender's public key when known, else '').
   */
  readonly signers: string[];
  readonly results: { hash: string; result: TxResult }[];
  readonly events: ExchangeEvent[];
  readonly appHash: string;
  /** The full state hash, on snapshot heights. */
  readonly stateHash: string | undefined;
  /** The EVM block of this height; null when it was already stored (replay after a crash). */
  readonly evm: ExecutedEvmBlock | null;
  /** The outputs as the app hash wrote them, held, when asked for (`execute`'s `keepWritten`). */
  readonly written?: WrittenOutputs;
}

export interface ChainOptions {
  /** Write a full state snapshot every this many blocks. */
  readonly snapshotInterval: number;
  readonly chainId: number;
  /**
   * Set under the BFT engine: blocks may come from other proposers, so signers are recovered for
   * every block and chosen at execution, and transactions leave the mempool when they commit.
   */
  readonly bft?: { readonly auth: AuthConfig; readonly recovery: SignerRecovery };
  /** The single-validator devnet: its devnet system transactions (node/devnet-tx.ts) execute. */
  readonly devnet?: boolean;
  /** Hashing off the event loop (the signer workers'), for big app hash inputs. */
  readonly hasher?: OffLoopDigest;
  /** How the app hash writes a block's outputs (the genesis' `appHashVersion`; node/app-hash.ts). */
  readonly appHashVersion: AppHashVersion;
}

export class Chain implements BftApp {
  /** The head after the last executed block; `headState` is the last durable one. */
  private execHead: StoredHead;
  /** The write of the last executed block, with its answers: each block's write waits for the one before. */
  private writing: Promise<void> = Promise.resolve();
  /** Each transaction reaped from the mempool (hash, signer, what admission parsed or decoded), keyed by its bytes object. */
  private readonly reaped = new WeakMap<Uint8Array, PendingTx>();
  /** The leaves of transactions this node proposed (BFT), keyed by their bytes object. */
  private readonly proposedLeaves = new WeakMap<Uint8Array, Uint8Array>();
  /** Keys of committed equivocation evidence (loaded by `loadEvidenceIndex`). */
  private readonly evidence = new Set<string>();
  /**
   * The validator set of the height after the head, taken from the state when the head moves
   * (while a block executes, the state may already hold the next epoch's set).
   */
  private nextValidators: { height: number; list: readonly unknown[]; set: ValidatorSet } | null = null;
  /** The set of the head's height, while the next height has not started. */
  private headValidators: { height: number; set: ValidatorSet } | null = null;
  /** Actions sent from the EVM and their results, for the `evmActions` info type (node-local). */
  readonly evmActions = new EvmActionLog();

  constructor(
    readonly store: ChainStore,
    readonly exchange: Exchange,
    private headState: StoredHead,
    private readonly mempool: Mempool,
    private readonly bus: EventBus,
    private readonly opts: ChainOptions,
    readonly candles: CandleBook,
    readonly evm: EvmChain,
    /** Told of each committed block's EVM part (after it is durable), for the EVM pool and feeds. */
    private readonly onEvmBlock: (b: ExecutedEvmBlock) => void = () => {},
    private readonly portfolio = new PortfolioIndex(),
  ) {
    this.execHead = headState;
  }

  /** The last executed block: the parent of the next one (ahead of `storedHead` while writes are in flight). */
  head(): CommittedHead {
    return this.execHead;
  }

  get storedHead(): StoredHead {
    return this.headState;
  }

  private get chainId(): number {
    return this.opts.chainId;
  }

  reapTxs(maxTxs: number, maxBytes: number): Uint8Array[] {
    return this.mempool.reap(maxTxs, maxBytes, this.evm.genesis.gasLimit).map((p) => {
      this.reaped.set(p.bytes, p);
      return p.bytes;
    });
  }

  pendingTxs(): number {
    return this.mempool.size;
  }

  /**
   * The validators of the height after the head: the exchange state's set after the head
   * (staking changes it only at the end of an epoch boundary block, for the heights after it).
   * The head's own height is answered too (its set is kept when the head moves): a message of
   * the height just committed may arrive before consensus starts the next one.
   */
  validatorSet(height: number): ValidatorSet {
    const head = this.headState.height;
    if (this.nextValidators?.height !== head + 1) this.takeValidators();
    const next = this.nextValidators as { height: number; set: ValidatorSet };
    if (height === next.height) return next.set;
    if (height === head && this.headValidators?.height === head) return this.headValidators.set;
    throw new Error(`invariant: validator set asked for height ${height} at head ${head}`);
  }

  /** Records the state's set as the set of the height after the head (call with the state at the head). */
  private takeValidators(): void {
    const list = this.exchange.state.validators();
    const height = this.headState.height + 1;
    const prev = this.nextValidators;
    if (prev !== null && prev.height === height - 1) this.headValidators = { height: prev.height, set: prev.set };
    const set = prev?.list === list ? prev.set : new ValidatorSet(list.map((v) => ({ publicKey: v.pubKey, power: v.power })));
    this.nextValidators = { height, list, set };
  }

  proposalTxs(maxTxs: number, maxBytes: number): Uint8Array[] {
    return this.mempool.peek(maxTxs, maxBytes, this.evm.genesis.gasLimit).map((p) => {
      if (p.leaf !== undefined) this.proposedLeaves.set(p.bytes, p.leaf);
      return p.bytes;
    });
  }

  txLeaf(tx: Uint8Array): Uint8Array | undefined {
    return this.reaped.get(tx)?.leaf ?? this.proposedLeaves.get(tx);
  }

  async storedBlock(height: number): Promise<{ block: Block; commit: Commit } | undefined> {
    const s = await this.store.block(height);
    if (s === undefined) return undefined;
    return { block: { header: s.header, txs: s.txs, ...(s.evidence !== undefined ? { evidence: s.evidence } : {}) }, commit: s.commit };
  }

  evidenceCommitted(key: string): boolean {
    return this.evidence.has(key);
  }

  async loadEvidenceIndex(): Promise<void> {
    for (const k of await this.store.evidenceKeys()) this.evidence.add(k);
  }

  /** Addresses each user transaction's signature recovers to, under every allowed binding, in order. */
  private async recoverCandidates(block: Block, hashes: readonly string[], bft: NonNullable<ChainOptions['bft']>): Promise<SignerSpec[]> {
    return Promise.all(block.txs.map(async (bytes, i) => {
      // An EVM transaction's sender is recovered by the EVM itself when no key comes with it.
      if (isEvmTx(bytes) || decodeSystemTx(bytes) !== null || decodeDevnetTx(bytes) !== null) return '';
      // Admitted here (sent to this node or gossiped to it): admission recovered candidates from these bytes.
      const recovered = this.mempool.pending(hashes[i] as string)?.recovered;
      if (recovered !== undefined) return { recovered, bytes };
      // Else decoded and recovered under every binding on a worker: one job of bytes per transaction.
      return bft.recovery.candidates(bytes);
    }));
  }

  /**
   * Runs a block through the state machine. Used for new blocks and for replay at start-up;
   * `hashes` are the transactions' hashes when the caller has them already. Exchange and system
   * transactions run first, in block order; then the block's EVM transactions, in block order, as
   * one EVM block, so the EVM's read precompiles see the exchange state at the end of the block.
   * With `keepWritten`, the outputs as the app hash wrote them (versions 2 and 3) come back held,
   * for the caller to release.
   */
  async execute(block: Block, signers: readonly SignerSpec[], hashes: readonly string[] = block.txs.map(txHash), sync = false, keepWritten = false): Promise<ExecutedBlock> {
    const { header } = block;
    this.exchange.beginBlock(header.height, header.time);
    const results: ExecutedBlock['results'] = [];
    const events: ExchangeEvent[] = [];
    const chosen: string[] = [];
    const evmTxs: EvmTxInput[] = [];
    block.txs.forEach((bytes, i) => {
      if (isEvmTx(bytes)) {
        // The signer of an EVM transaction is its sender's public key, when recovered at admission.
        const key = signers[i];
        const publicKey = typeof key === 'string' && key.length === 130 ? key : null;
        chosen.push(publicKey ?? '');
        // As admission decoded it, when it came through this node's pool.
        const decoded = this.reaped.get(bytes)?.evm ?? this.mempool.pending(hashes[i] as string)?.evm;
        evmTxs.push(decoded === undefined ? { bytes, publicKey } : { bytes, publicKey, decoded });
        return;
      }
      const system = decodeSystemTx(bytes);
      if (system !== null) {
        chosen.push('');
        results.push({ hash: hashes[i] as string, result: this.executeSystem(system, events) });
        return;
      }
      const devnet = decodeDevnetTx(bytes);
      if (devnet !== null) {
        // Applied in the EVM part, in block order with the EVM transactions.
        chosen.push('');
        const op = acceptDevnetTx(devnet, this.chainId, this.opts.devnet === true, this.exchange.state.validators());
        if (typeof op !== 'string') evmTxs.push({ devnet: op });
        results.push({ hash: hashes[i] as string, result: typeof op === 'string' ? { status: 'err', error: exchangeError('INVALID_ACTION', op) } : { status: 'ok', response: { type: 'default' } } });
        return;
      }
      // Admitted here: the request as admission parsed it, which the bytes encode (its action as
      // canonical JSON, which parses back to the same values); else decoded from the bytes.
      const req = this.reaped.get(bytes)?.req ?? this.mempool.pending(hashes[i] as string)?.req ?? decodeRequest(bytes);
      const signer = req === null ? NO_SIGNER : this.chooseSigner(signers[i], req);
      chosen.push(signer);
      const hash = hashes[i] as string;
      let outcome: { result: TxResult; events: readonly ExchangeEvent[] };
      if (req === null) outcome = { result: { status: 'err', error: exchangeError('INVALID_ACTION', 'transaction does not decode') }, events: [] };
      else if (req.dialect === 'hyperliquid') outcome = this.executeDialect(hash, req, signer, header.time);
      else outcome = this.exchange.execute(toExchangeTx(hash, req, signer));
      results.push({ hash, result: outcome.result });
      events.push(...outcome.events);
    });
    events.push(...this.exchange.endBlock());
    const link = linkWork(this.exchange);
    let evm: ExecutedEvmBlock | null = null;
    let replayRoot = '';
    let commit: (() => Promise<ExecutedEvmBlock>) | null = null;
    let released: readonly boolean[];
    let receipts: readonly StoredReceipt[];
    let txHash: (i: number) => string;
    if (this.evm.height >= header.height) {
      // Replay after a crash that stored the EVM block but not the consensus one's successors.
      const stored = await this.evm.blockAt(header.height);
      if (stored === undefined) throw new Error(`EVM block ${header.height} missing below the EVM head ${this.evm.height}`);
      replayRoot = bytesToHex(stored.block.header.stateRoot);
      released = stored.stored.released ?? [];
      receipts = stored.stored.receipts;
      txHash = (i) => bytesToHex(stored.block.transactions[i]?.hash() ?? ZERO_32);
    } else {
      // The EVM store is fsync'd when the block acknowledges EVM transactions, and at snapshot
      // heights so it is never behind a durable exchange snapshot; otherwise an empty EVM block
      // lost to a power cut is rebuilt by replay.
      const evmSync = (sync && evmTxs.length > 0) || header.height % this.opts.snapshotInterval === 0;
      const run = await this.evm.runBlock(header.height, header.time, evmTxs, evmSync, link.releases);
      commit = () => run.commit(nextTurn);
      released = run.released;
      receipts = run.receipts;
      txHash = (i) => run.hashes[i] ?? bytesToHex(ZERO_32);
    }
    // Linked tokens: refunds of failed releases and credits of transfers to system addresses, after the EVM part.
    settleLink(this.exchange, link.releases, released, receipts, link.watch);
    // Then the actions the EVM block sent through the write system contract, in log order (node/evm-actions.ts).
    if (receipts.length > 0) runEvmActions(this.exchange, receipts, txHash, results, events, this.evmActions);
    // The exchange state is final for the block: while the EVM block's roots are computed and its
    // write queued, requests get turns of the event loop (admission keeps the signer workers
    // busy). They read the EVM head before the block, which the commit moves at its end.
    if (commit !== null) evm = await commit();
    const evmRoot = evm?.stateRoot ?? replayRoot;
    const full = header.height % this.opts.snapshotInterval === 0 ? stateHash(this.exchange.state) : undefined;
    const prev = this.execHead.appHash;
    const hasher = this.opts.hasher;
    const outputs = { results, events, state: full, evm: evmRoot };
    const version = this.opts.appHashVersion;
    if (version === 1) {
      const appHash = hasher === undefined ? nextAppHash(prev, outputs, version) : await nextAppHashOffLoop(prev, outputs, version, hasher);
      return { signers: chosen, results, events, evm, stateHash: full, appHash };
    }
    const written = writeOutputs(outputs);
    let appHash: string;
    try {
      appHash = await writtenAppHash(prev, written, version, hasher);
    } finally {
      if (!keepWritten) written.release();
    }
    return { signers: chosen, results, events, evm, stateHash: full, appHash, ...(keepWritten ? { written } : {}) };
  }

  /** The signer a transaction executes as (see `SignerSpec`). */
  private chooseSigner(spec: SignerSpec | undefined, req: SignedRequest): string {
    if (spec === undefined) return NO_SIGNER;
    if (typeof spec === 'string') return spec;
    const vault = req.vaultAddress;
    const known = req.dialect === 'hyperliquid'
      ? (c: readonly string[]) => knownHyperliquidSigner(this.exchange, c, vault)
      : (c: readonly string[]) => knownSigner(this.exchange, c.map((address) => ({ address })), vault);
    let candidates: readonly string[];
    if ('recovered' in spec) {
      const { addresses, complete } = spec.recovered;
      candidates = distinct(addresses);
      const found = known(candidates);
      if (found !== null || complete) return found ?? candidates[0] ?? NO_SIGNER;
      // Rare (admission stopped at a signer that is no longer known): the bindings it did not reach.
      const auth = this.opts.bft?.auth;
      if (auth !== undefined) candidates = distinct([...candidates, ...txCandidates(auth, spec.bytes, addresses.length)]);
    } else candidates = spec;
    return known(candidates) ?? candidates[0] ?? NO_SIGNER;
  }

  /**
   * A Hyperliquid-dialect transaction: its action translated from the signed form (the same
   * translation admission ran), refused after its `expiresAfter`, run as the account it acts for.
   */
  private executeDialect(hash: string, req: SignedRequest, signer: string, time: number): { result: TxResult; events: readonly ExchangeEvent[] } {
    const refuse = (message: string) => ({ result: { status: 'err', error: exchangeError('INVALID_ACTION', message) } as TxResult, events: [] });
    if (req.expiresAfter !== undefined && req.expiresAfter !== null && time > req.expiresAfter) {
      return refuse(`Action expired: expiresAfter ${req.expiresAfter} is before the block time ${time}`);
    }
    const translated = svcActionOf(req.action, req.nonce);
    if ('error' in translated) return refuse(translated.error);
    const vaultAddress = hyperliquidVault(this.exchange, signer, req.vaultAddress);
    return this.exchange.execute({ hash, signer, nonce: req.nonce, vaultAddress, action: translated.action });
  }

  /** A validator's system transaction: its signature is checked here, its content by exchange/. */
  private executeSystem(tx: SystemTx, events: ExchangeEvent[]): TxResult {
    if (!verifySystemTx(this.chainId, tx)) return { status: 'err', error: exchangeError('INVALID_SIGNATURE') };
    const s = tx.system;
    if (s.type === 'bridge') {
      const done = this.exchange.submitBridge({ validator: s.validator, time: s.time, claims: s.claims, signatures: s.signatures });
      events.push(...done.events);
      return done.result;
    }
    return this.exchange.submitOracle({ validator: s.validator, time: s.time, prices: s.prices });
  }

  async commitBlock(block: Block, commit: Commit): Promise<void> {
    await (await this.executeBlock(block, commit)).durable;
  }

  /**
   * Executes a decided block and queues its write behind the writes of the blocks before it.
   * Resolves once the block has executed (the next one may build on it) with `durable`, which
   * settles once the block is on disk and its requests are answered; a failed write fails the
   * writes queued after it. Everything written is derived here, before the next block executes.
   */
  async executeBlock(block: Block, commit: Commit): Promise<{ readonly durable: Promise<void> }> {
    let executed: ExecutedBlock;
    let t0: number;
    if (this.opts.bft !== undefined) {
      const hashes = block.txs.map(txHash);
      const candidates = await this.recoverCandidates(block, hashes, this.opts.bft);
      t0 = performance.now();
      executed = await this.execute(block, candidates, hashes, block.txs.length > 0, true);
    } else {
      t0 = performance.now();
      const admitted = block.txs.map((tx, i) => {
        const known = this.reaped.get(tx);
        if (known === undefined) throw new Error(`invariant: transaction ${i} of block ${block.header.height} was not admitted here`);
        return known;
      });
      executed = await this.execute(block, admitted.map((a) => a.signer), admitted.map((a) => a.hash), block.txs.length > 0, true);
    }
    stageEnd('execution', t0);
    count('blocks');
    count('block transactions', block.txs.length);
    const t1 = performance.now();
    const signers = executed.signers;
    const hash = headerHash(block.header);
    // `at`: the event's index, where the store finds the record the app hash wrote.
    const fills: { user: string; seq: number; fill: (ExchangeEvent & { kind: 'fill' })['fill']; at: number }[] = [];
    // The last status of each order in the block: an order placed and filled within one block
    // (most quotes in a busy block) is written once, with the value the later put would leave.
    // By user, then oid (no key string an order), to the event's index: the record is made once,
    // for the last.
    const lastStatus = new Map<string, Map<number, number>>();
    let fillSeq = this.execHead.fillSeq;
    const fundings: { user: string; seq: number; funding: FundingRecord }[] = [];
    const fundingRates: FundingRateRecord[] = [];
    const liquidations: LiquidationRecord[] = [];
    const events = executed.events;
    for (let at = 0; at < events.length; at++) {
      const e = events[at] as ExchangeEvent;
      if (e.kind === 'fill') fills.push({ user: e.user, seq: fillSeq++, fill: e.fill, at });
      else if (e.kind === 'order') {
        let mine = lastStatus.get(e.user);
        if (mine === undefined) lastStatus.set(e.user, (mine = new Map()));
        mine.set(e.order.oid, at);
      }
      else if (e.kind === 'funding') fundings.push({ user: e.user, seq: fillSeq++, funding: e.funding });
      else if (e.kind === 'fundingRate') fundingRates.push(e.rate);
      else if (e.kind === 'liquidation') liquidations.push(e.liquidation);
    }
    // With the app hash's records at hand the store copies those: no record object is made.
    const orderStatuses: StatusWrite[] = [];
    const recorded = executed.written !== undefined;
    for (const [user, mine] of lastStatus) {
      for (const [oid, at] of mine) {
        if (recorded) orderStatuses.push({ user, oid, at });
        else {
          const e = events[at] as ExchangeEvent & { kind: 'order' };
          orderStatuses.push({ user, record: { order: e.order, status: e.status, statusTimestamp: e.statusTimestamp } });
        }
      }
    }
    const head: StoredHead = { height: block.header.height, hash, time: block.header.time, appHash: executed.appHash, fillSeq };
    // Encoded below, before the next block executes: the snapshot's view holds live objects (trigger orders).
    const snapshot = executed.stateHash !== undefined ? { head, state: snapshotState(this.exchange.state), stateHash: executed.stateHash } : null;
    const candles = this.candles.apply(fills.map((f) => f.fill));
    const portfolio = this.portfolio.sample(this.exchange.state, block.header.time);
    this.execHead = head;
    this.bus.publishExecuted({ header: block.header, events: executed.events });
    const written = executed.written;
    const write = {
      block, signers, commit, head, fills, orderStatuses, fundings, fundingRates, liquidations, candles, portfolio, snapshot,
      sync: block.txs.length > 0, ...(written !== undefined ? { written } : {}),
    };
    // Encoded into LevelDB's batch now; the records need not live until the write.
    let prepared: PreparedBatch;
    try {
      prepared = this.store.prepareBlock(write);
    } finally {
      written?.release();
    }
    stageEnd('storage', t1);
    // The EVM block's write went out as it executed; the consensus block is written after it (the
    // EVM store may not lag a durable snapshot).
    const evmWritten = executed.evm?.written;
    // Handled here: a failed EVM write fails this block's write below (and halts the node) even
    // when the write before it failed first and the chain below never reaches it.
    evmWritten?.catch(() => {});
    const durable = this.writing.then(() => evmWritten).then(() => {
      const t = performance.now();
      const written = prepared.write();
      stageEnd('storage', t);
      return written;
    }, (err: unknown) => {
      prepared.discard();
      throw err;
    }).then(() => this.committed(block, hash, head, executed, candles));
    this.writing = durable;
    return { durable };
  }

  /** After a block's write: the head moves, its requests are answered and its events published. */
  private committed(block: Block, hash: string, head: StoredHead, executed: ExecutedBlock, candles: readonly StoredCandle[]): void {
    const t2 = performance.now();
    this.headState = head;
    this.evm.markDurable(head.height);
    this.takeValidators();
    for (const e of block.evidence ?? []) this.evidence.add(evidenceKey(e));
    const settle = (hash: string, result: TxResult) => (this.opts.bft !== undefined ? this.mempool.commit(hash, result) : this.mempool.settle(hash, result));
    for (const r of executed.results) settle(r.hash, r.result);
    if (executed.evm !== null) {
      for (const o of executed.evm.outcomes) {
        settle(o.hash, o.error === null ? { status: 'ok', response: { type: 'default' } } : { status: 'err', error: exchangeError('INVALID_ACTION', o.error) });
      }
      this.onEvmBlock(executed.evm);
    }
    this.bus.publishBlock({ header: block.header, hash, results: executed.results, events: executed.events, candles: candles.map((c) => this.candles.view(c)) });
    stageEnd('answers', t2);
  }

  /** Persists a snapshot of the current state (clean shutdown), so start-up replays nothing. */
  async saveSnapshot(): Promise<void> {
    // A snapshot pairs the state with the durable head, so both must be at one height: the block
    // executed last may still be on its way to disk, and a state that ran ahead of a write that
    // never landed is not snapshotted at all (the next start replays from disk). A crash test once
    // caught a clean stop writing a snapshot whose state was one block past the head it named,
    // which every later start refused as inconsistent.
    await this.writing.catch(() => {});
    if (this.exchange.state.height !== this.headState.height) return;
    await this.evm.flushed();
    await this.evm.store.sync(); // the EVM store may not lag a durable snapshot
    await this.store.putSnapshot({ head: this.headState, state: snapshotState(this.exchange.state), stateHash: stateHash(this.exchange.state) });
  }

  /**
   * Re-executes stored blocks after the snapshot, checking each against its stored app hash.
   * `onBlock` sees each block's events with the state right after it (the history indexer).
   */
  async replay(to: StoredHead, onBlock?: (height: number, time: number, prevTime: number, events: readonly ExchangeEvent[]) => void | Promise<void>): Promise<void> {
    for (let h = this.headState.height + 1; h <= to.height; h++) {
      const prevTime = this.headState.time;
      const stored = await this.store.block(h);
      if (stored === undefined) throw new Error(`block ${h} missing from the store (head is ${to.height})`);
      const block: Block = { header: stored.header, txs: stored.txs };
      const executed = await this.execute(block, stored.signers);
      // Header h+1 records the app hash after h; the head records the last one.
      const recorded = h === to.height ? to.appHash : (await this.store.block(h + 1))?.header.appHash;
      if (recorded !== undefined && recorded !== executed.appHash) {
        throw new Error(`replay of block ${h} gives app hash ${executed.appHash}, the chain recorded ${recorded}`);
      }
      this.headState = { height: h, hash: headerHash(stored.header), time: stored.header.time, appHash: executed.appHash, fillSeq: to.fillSeq };
      this.execHead = this.headState;
      await onBlock?.(h, stored.header.time, prevTime, executed.events);
    }
    this.headState = to;
    this.execHead = to;
    this.evm.markDurable(to.height);
    this.takeValidators();
  }
}
