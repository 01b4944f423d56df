// The seam between consensus and the application. consensus/ orders opaque transactions; node/
// implements ConsensusApp (mempool, execution, storage). The BFT engine implements the same
// ConsensusEngine as the single-validator one, so execution is not rewired when it lands.
import type { Block, Commit } from './block.ts';
import type { ValidatorSet } from './types.ts';

export interface CommittedHead {
  readonly height: number;
  /** Header hash of the last committed block (the genesis hash at height 0). */
  readonly hash: string;
  readonly time: number;
  /** App hash after executing the last committed block. */
  readonly appHash: string;
}

/** What consensus needs from the application; declared here, supplied by node/. */
export interface ConsensusApp {
  /** Last committed block: durably stored, or executed with its write queued (`executeBlock`). */
  head(): CommittedHead;
  /** Pending transactions in admission order, at most `maxTxs` and `maxBytes`, removed from the pool. */
  reapTxs(maxTxs: number, maxBytes: number): Uint8Array[];
  pendingTxs(): number;
  /**
   * A pending transaction's `txLeaf` when the application computed it already (its signer
   * workers hash each transaction as they recover its signer), so proposing does not hash its
   * bytes again; undefined when not known.
   */
  txLeaf?(tx: Uint8Array): Uint8Array | undefined;
  /** Executes and durably stores a decided block; resolves when it is on disk. */
  commitBlock(block: Block, commit: Commit): Promise<void>;
  /**
   * Optional pipelining (the single validator, whose blocks are decided when proposed): executes
   * the block and resolves once `head()` has moved to it, with `durable`, which settles once it is
   * on disk (writes are applied in block order; a failed write fails those after it).
   */
  executeBlock?(block: Block, commit: Commit): Promise<{ readonly durable: Promise<void> }>;
}

export interface ConsensusEngine {
  start(): void;
  /** The application has new transactions; propose soon. */
  notifyTxs(): void;
  /** Finishes the block in flight, then stops. */
  stop(): Promise<void>;
}

/**
 * The validator set of each height, from the application (node/ reads it from the exchange state:
 * staking changes it at epoch boundaries). Asked for the height after the committed head only, so
 * it is a function of the chain up to that head: every node derives the same set before the
 * height is decided, and block sync verifies each certificate against the set of its height.
 */
export interface ValidatorSource {
  validatorSet(height: number): ValidatorSet;
}
