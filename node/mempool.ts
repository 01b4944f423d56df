// Admitted transactions waiting for a block, in admission order. Bounded; deduplicated by hash
// and by (signer, nonce) so a nonce cannot be admitted twice while the first is pending.
import type { ExchangeTx, TxResult } from '../exchange/index.ts';

export interface PendingTx {
  readonly bytes: Uint8Array;
  readonly tx: ExchangeTx;
}

export class Mempool {
  private queue: PendingTx[] = [];
  private head = 0;
  private readonly byHash = new Map<string, PendingTx>();
  private readonly nonces = new Set<string>();
  private readonly waiters = new Map<string, ((r: TxResult) => void)[]>();

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.queue.length - this.head;
  }

  full(): boolean {
    return this.size >= this.capacity;
  }

  hasNonce(signer: string, nonce: number): boolean {
    return this.nonces.has(`${signer}:${nonce}`);
  }

  /** Adds a transaction (or joins the one already pending with the same hash); resolves with its result. */
  add(p: PendingTx): Promise<TxResult> {
    return new Promise((resolve) => {
      const waiting = this.waiters.get(p.tx.hash);
      if (waiting !== undefined) return void waiting.push(resolve);
      this.waiters.set(p.tx.hash, [resolve]);
      this.byHash.set(p.tx.hash, p);
      this.nonces.add(`${p.tx.signer}:${p.tx.nonce}`);
      this.queue.push(p);
    });
  }

  /** Removes and returns up to `max` transactions in admission order. */
  reap(max: number): PendingTx[] {
    const out = this.queue.slice(this.head, this.head + max);
    this.head += out.length;
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    for (const p of out) {
      this.byHash.delete(p.tx.hash);
      this.nonces.delete(`${p.tx.signer}:${p.tx.nonce}`);
    }
    return out;
  }

  /** Answers everyone waiting on `hash` (after its block is durable). */
  settle(hash: string, result: TxResult): void {
    const waiting = this.waiters.get(hash);
    if (waiting === undefined) return;
    this.waiters.delete(hash);
    for (const resolve of waiting) resolve(result);
  }
}
