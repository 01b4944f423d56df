// The n = 1 case of BFT: a single validator whose own signature is +2/3 of the voting power.
// Proposes as soon as transactions are pending (after a small batching delay, and no sooner than
// a minimum interval after the block before) and an empty block at a slow cadence; one block in
// flight at a time.
import { commitSignBytes, headerHash, txRoot, type Block, type BlockHeader, type Commit } from './block.ts';
import type { ConsensusApp, ConsensusEngine } from './engine.ts';
import type { ValidatorKey } from './validator-key.ts';
import { stageEnd } from '../primitives/index.ts';

export interface SoloOptions {
  readonly chainId: number;
  readonly key: ValidatorKey;
  /** Wall clock in ms; block times are max(now, parent + 1). */
  readonly now: () => number;
  /** Wait this long after the first pending transaction so a block batches its neighbours. */
  readonly batchDelayMs: number;
  /** Produce an empty block after this long without transactions. */
  readonly emptyBlockIntervalMs: number;
  /**
   * A block starts at least this long after the one before started. Under load, blocks back to
   * back would each pay a block's fixed work (its fsync'd write, header and signature, EVM block,
   * publishing) for a few actions; spaced, the same actions share fewer blocks
   * (docs/performance.md). An action arriving after a quiet spell still waits only `batchDelayMs`.
   */
  readonly minBlockIntervalMs: number;
  readonly maxBlockTxs: number;
  readonly maxBlockBytes: number;
  /** Called when committing fails: the node cannot continue safely. */
  readonly onFatal: (err: unknown) => void;
}

export class SoloEngine implements ConsensusEngine {
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> | null = null;
  /**
   * Writes of executed blocks not yet on disk (at most two: one being written, one executed and
   * queued behind it). A block executes while the one before it is written; the block after
   * waits for the older write, so transactions gather into blocks while the disk syncs.
   */
  private writes: Promise<void>[] = [];
  private running = false;
  private failed = false;
  private dueAt = 0;
  /** When the last block started (performance.now()), for `minBlockIntervalMs`. */
  private lastStart = -Infinity;

  constructor(
    private readonly app: ConsensusApp,
    private readonly opts: SoloOptions,
  ) {}

  start(): void {
    this.running = true;
    this.schedule(this.app.pendingTxs() > 0 ? this.opts.batchDelayMs : this.opts.emptyBlockIntervalMs);
  }

  notifyTxs(): void {
    if (!this.running || this.inFlight !== null) return;
    this.schedule(this.opts.batchDelayMs);
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await this.inFlight;
    await Promise.all(this.writes);
  }

  /**
   * Arms the production timer to fire in `delayMs` (or at the minimum interval), unless it is
   * already due sooner. Timing is on the monotonic clock, as the timer's is: `now` (the wall
   * clock, block times) may be set back or stand still.
   */
  private schedule(delayMs: number): void {
    const now = performance.now();
    const dueAt = Math.max(now + delayMs, this.lastStart + this.opts.minBlockIntervalMs);
    if (this.timer !== null) {
      if (this.dueAt <= dueAt) return;
      clearTimeout(this.timer);
    }
    this.dueAt = dueAt;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.inFlight = this.produce().finally(() => {
        this.inFlight = null;
        if (this.running) this.schedule(this.app.pendingTxs() > 0 ? 0 : this.opts.emptyBlockIntervalMs);
      });
    }, dueAt - now);
  }

  private async produce(): Promise<void> {
    while (this.writes.length >= 2) await this.writes.shift();
    if (!this.running) return;
    const t0 = performance.now();
    this.lastStart = t0;
    const head = this.app.head();
    const txs = this.app.reapTxs(this.opts.maxBlockTxs, this.opts.maxBlockBytes);
    const header: BlockHeader = {
      chainId: this.opts.chainId,
      height: head.height + 1,
      time: Math.max(this.opts.now(), head.time + 1),
      parentHash: head.hash,
      txRoot: txRoot(txs, (tx) => this.app.txLeaf?.(tx)),
      appHash: head.appHash,
      proposer: this.opts.key.publicKey,
    };
    const block: Block = { header, txs };
    const blockHash = headerHash(header);
    const commit: Commit = {
      height: header.height,
      blockHash,
      signatures: [
        { validator: this.opts.key.publicKey, signature: this.opts.key.sign(commitSignBytes(this.opts.chainId, header.height, blockHash)) },
      ],
    };
    stageEnd('consensus', t0);
    const fail = (err: unknown) => {
      this.running = false;
      if (this.failed) return;
      this.failed = true;
      this.opts.onFatal(err);
    };
    try {
      if (this.app.executeBlock === undefined) return await this.app.commitBlock(block, commit);
      const { durable } = await this.app.executeBlock(block, commit);
      const write = durable.catch(fail).finally(() => {
        this.writes = this.writes.filter((w) => w !== write);
      });
      this.writes.push(write);
    } catch (err) {
      fail(err);
    }
  }
}
