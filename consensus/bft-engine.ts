// The BFT engine: a Replica driven by real timers and a transport, committing decided blocks
// through the same ConsensusApp seam as the single-validator engine. Blocks are built from
// pending transactions as soon as there are some (after a small batching delay) and empty at a
// slow cadence; block times are checked by the others (after the parent, not ahead of their clock).
import { evidenceHash, txRoot, type Block, type BlockHeader, type Commit } from './block.ts';
import { blockValueId, checkBlock, decodeBlock, encodeBlock } from './block-codec.ts';
import type { CommitCertificate } from './certificate.ts';
import type { Timeout, TimeoutConfig } from './driver.ts';
import type { ConsensusApp, ConsensusEngine, ValidatorSource } from './engine.ts';
import { evidenceKey, type Evidence } from './evidence.ts';
import { Replica, type ConsensusMessage, type Decision, type ReplicaHost } from './replica.ts';
import type { SignGuard } from './sign-guard.ts';
import type { ValidatorSet } from './types.ts';
import type { Wal } from './wal.ts';

/** What the BFT engine needs beyond the single-validator seam, the validator set of each height included. */
export interface BftApp extends ConsensusApp, ValidatorSource {
  /**
   * Pending transactions for a proposal, in admission order, left in the pool: a proposal may
   * lose, so transactions leave the pool only when a block carrying them commits.
   */
  proposalTxs(maxTxs: number, maxBytes: number): Uint8Array[];
  /** A committed block and its commit, for peers catching up. */
  storedBlock(height: number): Promise<{ block: Block; commit: Commit } | undefined>;
  /** Whether a piece of evidence (by `evidenceKey`) is already in the chain. */
  evidenceCommitted(key: string): boolean;
}

/** Carries consensus messages between nodes; libp2p in a node, memory in tests. */
export interface ConsensusTransport {
  broadcast(msg: ConsensusMessage): void;
  send(peer: string, msg: ConsensusMessage): void;
  /** Installs the one handler for incoming messages. */
  onMessage(handler: (from: string, msg: ConsensusMessage) => void): void;
}

export interface BftOptions {
  readonly chainId: number;
  /** null for a full node; a node with a key signs at the heights whose set holds its key. */
  readonly guard: SignGuard | null;
  readonly wal: Wal;
  readonly transport: ConsensusTransport;
  readonly timeouts: TimeoutConfig;
  readonly now: () => number;
  /** After the first pending transaction, wait this long so the block batches its neighbours. */
  readonly batchDelayMs: number;
  /** A proposer with nothing pending proposes an empty block after this long (keep it below timeoutPropose). */
  readonly emptyBlockIntervalMs: number;
  readonly maxBlockTxs: number;
  readonly maxBlockBytes: number;
  /** How far ahead of our clock a proposed block time may be. */
  readonly maxClockDriftMs: number;
  /** Rebroadcast own messages and status this often. */
  readonly tickMs: number;
  readonly evidenceMaxAge: number;
  readonly onFatal: (err: unknown) => void;
  readonly log?: (line: string) => void;
  /** Called on each tick while peers are more than a few heights ahead (block sync): our head and theirs. */
  readonly onSyncProgress?: (height: number, target: number) => void;
  /** A round timeout of the current height elapsed (metrics). */
  readonly onTimeout?: (step: Timeout['step']) => void;
}

/** Peers this many heights ahead count as "catching up" for progress reports. */
const SYNC_REPORT_GAP = 3;

const EVIDENCE_POOL_LIMIT = 100;
const EVIDENCE_PER_BLOCK = 8;

export function commitFromCertificate(c: CommitCertificate): Commit {
  return { height: c.height, round: c.round, blockHash: c.valueId, signatures: c.signatures };
}

export function certificateFromCommit(c: Commit): CommitCertificate | null {
  return c.round === undefined ? null : { height: c.height, round: c.round, valueId: c.blockHash, signatures: c.signatures };
}

export class BftEngine implements ConsensusEngine, ReplicaHost {
  readonly replica: Replica;
  private readonly timers = new Set<NodeJS.Timeout>();
  private running = false;
  private syncing = false;
  private committing: Promise<void> | null = null;
  /** A proposal the driver asked for and we have not built yet. */
  private wanted: { height: number; round: number; timer: NodeJS.Timeout | null; dueAt: number } | null = null;
  private readonly evidencePool = new Map<string, Evidence>();
  /** Blocks by their payload bytes: built here or decoded at the proposal, not decoded again when decided. */
  private readonly decodedBlocks = new WeakMap<Uint8Array, Block>();

  constructor(
    private readonly app: BftApp,
    private readonly opts: BftOptions,
  ) {
    this.replica = new Replica(this, { chainId: opts.chainId, guard: opts.guard, wal: opts.wal, timeouts: opts.timeouts });
    opts.transport.onMessage((from, msg) => {
      if (this.running) this.guardFatal(() => this.replica.receive(from, msg));
    });
  }

  start(): void {
    this.running = true;
    this.guardFatal(() => this.replica.start(this.app.head().height + 1));
    this.every(this.opts.tickMs, () => {
      this.replica.tick();
      this.reportSync();
    });
  }

  notifyTxs(): void {
    const w = this.wanted;
    if (!this.running || w === null || this.app.pendingTxs() === 0) return;
    this.proposeIn(w.height, w.round, this.opts.batchDelayMs);
  }

  async stop(): Promise<void> {
    this.running = false;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await this.committing;
    this.opts.guard?.close();
  }

  /** Reports block sync progress while peers are ahead, and once more when caught up. */
  private reportSync(): void {
    const target = this.replica.bestPeerHeight() - 1; // a peer at height h has decided h - 1
    const head = this.app.head().height;
    if (target - head > SYNC_REPORT_GAP || (this.syncing && target > head)) {
      this.syncing = true;
      this.opts.onSyncProgress?.(head, target);
    } else if (this.syncing) {
      this.syncing = false;
      this.opts.onSyncProgress?.(head, head);
    }
  }

  private guardFatal(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.running = false;
      this.opts.onFatal(err);
    }
  }

  private after(ms: number, fn: () => void): NodeJS.Timeout {
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (this.running) this.guardFatal(fn);
    }, ms);
    this.timers.add(t);
    return t;
  }

  private every(ms: number, fn: () => void): void {
    this.after(ms, () => {
      fn();
      this.every(ms, fn);
    });
  }

  // ReplicaHost

  validatorSet(height: number): ValidatorSet {
    return this.app.validatorSet(height);
  }

  checkValue(height: number, payload: Uint8Array): { valueId: string; valid: boolean } | null {
    const block = this.decodedBlocks.get(payload) ?? decodeBlock(payload);
    if (block === null) return null;
    this.decodedBlocks.set(payload, block);
    const head = this.app.head();
    const problem = height !== head.height + 1 ? 'not the next height' : checkBlock(block, {
      chainId: this.opts.chainId, parent: head, validators: this.app.validatorSet(height), now: this.opts.now(),
      maxClockDriftMs: this.opts.maxClockDriftMs, evidenceMaxAge: this.opts.evidenceMaxAge,
      evidenceCommitted: (k) => this.app.evidenceCommitted(k),
    });
    if (problem !== null) this.opts.log?.(`block ${height} from ${block.header.proposer.slice(0, 8)} refused: ${problem}`);
    return { valueId: blockValueId(block), valid: problem === null };
  }

  /** Round 0 waits for transactions (or the empty-block cadence); later rounds propose at once. */
  requestValue(height: number, round: number): void {
    if (this.wanted?.timer) this.clear(this.wanted.timer);
    this.wanted = { height, round, timer: null, dueAt: Infinity };
    if (round > 0) return this.proposeIn(height, round, 0);
    this.proposeIn(height, round, this.app.pendingTxs() > 0 ? this.opts.batchDelayMs : this.opts.emptyBlockIntervalMs);
  }

  private clear(t: NodeJS.Timeout): void {
    clearTimeout(t);
    this.timers.delete(t);
  }

  /** Arms the proposal timer to fire in `ms`, unless it is due sooner already (arrivals must not push it back). */
  private proposeIn(height: number, round: number, ms: number): void {
    const w = this.wanted;
    if (w === null || w.height !== height || w.round !== round) return;
    const dueAt = performance.now() + ms;
    if (w.timer !== null) {
      if (w.dueAt <= dueAt) return;
      this.clear(w.timer);
    }
    w.dueAt = dueAt;
    w.timer = this.after(ms, () => {
      if (this.wanted !== w) return;
      this.wanted = null;
      const block = this.buildBlock(height);
      const payload = encodeBlock(block);
      this.decodedBlocks.set(payload, block);
      if (!this.replica.proposeValue(height, round, payload)) {
        this.opts.log?.(`own block for height ${height} round ${round} fails our checks; not proposed`);
      }
    });
  }

  private buildBlock(height: number): Block {
    const head = this.app.head();
    const txs = this.app.proposalTxs(this.opts.maxBlockTxs, this.opts.maxBlockBytes);
    const evidence = [...this.evidencePool.values()]
      .filter((e) => e.first.message.height < height && !this.app.evidenceCommitted(evidenceKey(e)))
      .slice(0, EVIDENCE_PER_BLOCK);
    const header: BlockHeader = {
      chainId: this.opts.chainId, height, time: Math.max(this.opts.now(), head.time + 1), parentHash: head.hash,
      txRoot: txRoot(txs, (tx) => this.app.txLeaf?.(tx)), appHash: head.appHash, proposer: (this.opts.guard as SignGuard).publicKey,
      ...(evidence.length > 0 ? { evidenceHash: evidenceHash(evidence) } : {}),
    };
    return { header, txs, ...(evidence.length > 0 ? { evidence } : {}) };
  }

  decided(d: Decision): void {
    this.wanted = null;
    const block = this.decodedBlocks.get(d.payload) ?? decodeBlock(d.payload);
    if (block === null) throw new Error(`invariant: decided value at ${d.height} is not a block`);
    const committing: Promise<void> = this.app.commitBlock(block, commitFromCertificate(d.certificate)).then(
      () => {
        for (const e of block.evidence ?? []) this.evidencePool.delete(evidenceKey(e));
        if (!this.running) return;
        this.guardFatal(() => this.replica.startHeight(d.height + 1));
        this.reportSync();
      },
      (err: unknown) => {
        this.running = false;
        this.opts.onFatal(err);
      },
    ).finally(() => {
      // startHeight can decide the next height at once (a node catching up holds its certificate
      // already), and that commit is `committing` now: clearing it would let `stop` return while
      // it runs, and the node snapshot a state ahead of its durable head.
      if (this.committing === committing) this.committing = null;
    });
    this.committing = committing;
  }

  serveSync(peer: string, from: number, to: number): void {
    void (async () => {
      for (let h = from; h <= to; h++) {
        const stored = await this.app.storedBlock(h);
        const certificate = stored === undefined ? null : certificateFromCommit(stored.commit);
        if (stored === undefined || certificate === null || !this.running) return;
        this.opts.transport.send(peer, { kind: 'decided', payload: encodeBlock(stored.block), certificate });
      }
    })().catch((err: unknown) => this.opts.log?.(`serving blocks to ${peer}: ${(err as Error).message}`));
  }

  scheduleTimeout(timeout: Timeout, durationMs: number): void {
    this.after(durationMs, () => {
      if (timeout.height === this.replica.height) this.opts.onTimeout?.(timeout.step);
      this.replica.timeoutElapsed(timeout);
    });
  }

  broadcast(msg: ConsensusMessage): void {
    this.opts.transport.broadcast(msg);
  }

  send(peer: string, msg: ConsensusMessage): void {
    this.opts.transport.send(peer, msg);
  }

  evidence(e: Evidence): void {
    const key = evidenceKey(e);
    if (this.evidencePool.size >= EVIDENCE_POOL_LIMIT || this.app.evidenceCommitted(key)) return;
    this.evidencePool.set(key, e);
    this.opts.log?.(`equivocation by ${e.kind === 'duplicateVote' ? e.first.message.validator : e.first.message.proposer} at height ${e.first.message.height}`);
  }
}
