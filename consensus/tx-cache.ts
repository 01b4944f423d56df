// The transactions a node has gossiped or been gossiped, by key (`txKey`), so that proposals can
// name them instead of carrying them again. Bounded by bytes, oldest first out: a transaction
// lives in a proposal within seconds of its gossip, and one evicted early only makes a compact
// proposal miss (its receiver then asks for the whole one).
import { txKey } from './block-codec.ts';

export class TxCache {
  private readonly txs = new Map<string, Uint8Array>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  /** Adds `tx` (kept as given: pass bytes nobody changes later). */
  add(tx: Uint8Array): void {
    const key = txKey(tx);
    if (this.txs.has(key)) return;
    this.txs.set(key, tx);
    this.bytes += tx.length;
    for (const [k, old] of this.txs) {
      if (this.bytes <= this.maxBytes) break;
      this.txs.delete(k);
      this.bytes -= old.length;
    }
  }

  has(key: string): boolean {
    return this.txs.has(key);
  }

  get(key: string): Uint8Array | undefined {
    return this.txs.get(key);
  }
}
