// Recently used blocks, decoded, so reads do not decode RLP again. Bounded by blocks and by the
// transactions they hold: a decoded transaction is an object graph of a few kilobytes, and a
// cache that grew with the chain (or with the heights RPC clients ask for) would hold every one.
import type { Block } from '@ethereumjs/block';

/** At most this many blocks... */
const MAX_BLOCKS = 256;
/** ...holding at most this many transactions together (the newest block is kept whatever its size). */
const MAX_TXS = 8_192;

export class RecentBlocks {
  /** Insertion order is use order: a hit moves the block to the end. */
  private readonly map = new Map<number, Block>();
  private txs = 0;

  get(height: number): Block | undefined {
    const block = this.map.get(height);
    if (block !== undefined) {
      this.map.delete(height);
      this.map.set(height, block);
    }
    return block;
  }

  set(height: number, block: Block): void {
    const old = this.map.get(height);
    if (old !== undefined) {
      this.map.delete(height);
      this.txs -= old.transactions.length;
    }
    this.map.set(height, block);
    this.txs += block.transactions.length;
    for (const [h, b] of this.map) {
      if (this.map.size <= 1 || (this.map.size <= MAX_BLOCKS && this.txs <= MAX_TXS)) break;
      this.map.delete(h);
      this.txs -= b.transactions.length;
    }
  }

  clear(): void {
    this.map.clear();
    this.txs = 0;
  }
}
