// Admitted transactions waiting for a block, in admission order. Bounded; deduplicated by hash
// and by (signer, nonce) so a nonce cannot be admitted twice while the first is pending.
import type { TxResult } from '../exchange/index.ts';
import type { SignedRequest } from './tx-codec.ts';
import type { DecodedEvmTx } from '../evm/index.ts';

export interface RecoveredSigners {
  readonly addresses: readonly (string | null)[];
  /** Every allowed binding (or chain) was tried. */
  readonly complete: boolean;
}

export interface PendingTx {
  readonly bytes: Uint8Array;
  readonly hash: string;
  /** Recovered signer of a user action; '' for a validator's system transaction. */
  readonly signer: string;
  /** The action's nonce; null for system and EVM transactions. */
  readonly nonce: number | null;
  /** An EVM transaction's gas limit; absent for the others. */
  readonly gas?: bigint;
  /** Its `txLeaf` when admission's signer worker computed it (the proposer's transaction root takes it). */
  readonly leaf?: Uint8Array;
  /**
   * A user action's signer candidates as admission recovered them from these bytes: the address
   * under each allowed binding in order (null: none), as far as admission went (it stops at a
   * known signer), or every address of a dialect request. Execution chooses among them and
   * recovers only the bindings admission did not reach.
   */
  readonly recovered?: RecoveredSigners;
  /** The request these bytes encode, as admission parsed it (execution need not decode them again). */
  readonly req?: SignedRequest;
  /** An EVM transaction as admission decoded it, with its sender (execution need not decode it again). */
  readonly evm?: DecodedEvmTx;
}

export class Mempool {
  private queue: PendingTx[] = [];
  private head = 0;
  /** Pending transactions; the queue may also hold tombstones of ones committed out of order. */
  private live = 0;
  private readonly byHash = new Map<string, PendingTx>();
  private readonly nonces = new Set<string>();
  /** Resolved with the result once the block is durable, or null if the node halted first. */
  private readonly waiters = new Map<string, ((r: TxResult | null) => void)[]>();

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.live;
  }

  full(): boolean {
    return this.size >= this.capacity;
  }

  hasNonce(signer: string, nonce: number): boolean {
    return this.nonces.has(`${signer}:${nonce}`);
  }

  /** Adds a transaction (or joins the one already pending with the same hash); resolves with its result. */
  add(p: PendingTx): Promise<TxResult | null> {
    return new Promise((resolve) => {
      const waiting = this.waiters.get(p.hash);
      if (waiting !== undefined) return void waiting.push(resolve);
      this.waiters.set(p.hash, [resolve]);
      this.enqueue(p);
    });
  }

  /**
   * Adds a transaction nobody waits on (an EVM transaction: its outcome is read from receipts),
   * without the promise and waiter list `add` keeps until its block is durable. A hash already
   * pending is left as it is.
   */
  enqueue(p: PendingTx): void {
    if (this.byHash.has(p.hash)) return;
    this.byHash.set(p.hash, p);
    if (p.nonce !== null) this.nonces.add(`${p.signer}:${p.nonce}`);
    this.queue.push(p);
    this.live += 1;
  }

  /** Whether a transaction with this hash is waiting. */
  has(hash: string): boolean {
    return this.byHash.has(hash);
  }

  /** Takes a waiting transaction out (an EVM transaction replaced by a better-paying one); its waiters get null. */
  drop(hash: string): void {
    const p = this.byHash.get(hash);
    if (p === undefined) return;
    this.byHash.delete(hash); // its queue entry is now a tombstone
    if (p.nonce !== null) this.nonces.delete(`${p.signer}:${p.nonce}`);
    this.live -= 1;
    for (const resolve of this.waiters.get(hash) ?? []) resolve(null);
    this.waiters.delete(hash);
  }

  /**
   * Removes and returns transactions in admission order: at most `maxTxs`, and `maxBytes` unless
   * the first alone exceeds it, and EVM transactions whose gas limits add up to at most `maxGas`
   * (the EVM block gas limit). Reaping stops at the first that does not fit, so order is kept.
   */
  reap(maxTxs: number, maxBytes: number, maxGas = 2n ** 64n): PendingTx[] {
    const out: PendingTx[] = [];
    let bytes = 0;
    let gas = 0n;
    while (out.length < maxTxs && this.head < this.queue.length) {
      const p = this.queue[this.head] as PendingTx;
      if (this.byHash.get(p.hash) !== p) {
        this.head += 1; // a tombstone: dropped, or committed out of order
        continue;
      }
      if (out.length > 0 && bytes + p.bytes.length > maxBytes) break;
      if (p.gas !== undefined && gas + p.gas > maxGas) break;
      bytes += p.bytes.length;
      gas += p.gas ?? 0n;
      out.push(p);
      this.head += 1;
    }
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    this.live -= out.length;
    for (const p of out) {
      this.byHash.delete(p.hash);
      if (p.nonce !== null) this.nonces.delete(`${p.signer}:${p.nonce}`);
    }
    return out;
  }

  /**
   * Pending transactions in admission order, left in the pool (a BFT proposal may lose): at most
   * `maxTxs`, `maxBytes` unless the first alone exceeds it, and `maxGas` of EVM gas limits (as
   * `reap`). They leave with `commit`.
   */
  peek(maxTxs: number, maxBytes: number, maxGas = 2n ** 64n): PendingTx[] {
    const out: PendingTx[] = [];
    let bytes = 0;
    let gas = 0n;
    for (let i = this.head; i < this.queue.length && out.length < maxTxs; i++) {
      const p = this.queue[i] as PendingTx;
      if (this.byHash.get(p.hash) !== p) continue; // committed already: a tombstone
      if (out.length > 0 && bytes + p.bytes.length > maxBytes) break;
      if (p.gas !== undefined && gas + p.gas > maxGas) break;
      bytes += p.bytes.length;
      gas += p.gas ?? 0n;
      out.push(p);
    }
    return out;
  }

  /** The pending transaction with this hash, if any. */
  pending(hash: string): PendingTx | undefined {
    return this.byHash.get(hash);
  }

  /**
   * A block carrying `hash` committed (BFT: it may have been proposed elsewhere): the transaction
   * leaves the pool, if it was here, and its waiters get the result.
   */
  commit(hash: string, result: TxResult): void {
    const p = this.byHash.get(hash);
    if (p !== undefined) {
      this.byHash.delete(hash);
      if (p.nonce !== null) this.nonces.delete(`${p.signer}:${p.nonce}`);
      this.live -= 1;
      while (this.head < this.queue.length && this.byHash.get((this.queue[this.head] as PendingTx).hash) !== this.queue[this.head]) this.head += 1;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
    }
    this.settle(hash, result);
  }

  /** The node halted: nothing more will commit. Every waiting request is answered with null. */
  failAll(): void {
    for (const waiting of this.waiters.values()) for (const resolve of waiting) resolve(null);
    this.waiters.clear();
    this.byHash.clear();
    this.nonces.clear();
    this.queue = [];
    this.head = 0;
    this.live = 0;
  }

  /** Answers everyone waiting on `hash` (after its block is durable). */
  settle(hash: string, result: TxResult): void {
    const waiting = this.waiters.get(hash);
    if (waiting === undefined) return;
    this.waiters.delete(hash);
    for (const resolve of waiting) resolve(result);
  }
}
