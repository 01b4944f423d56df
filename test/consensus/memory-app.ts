// An in-memory BftApp for engine tests: blocks in an array, app hash chained over block hashes.
import {
  evidenceKey, headerHash, type BftApp, type Block, type Commit, type CommittedHead, type ValidatorSet,
} from '../../consensus/index.ts';
import { bytesToHex, concatBytes, hexToBytes, keccak256 } from '../../primitives/index.ts';

export class MemoryApp implements BftApp {
  pool: Uint8Array[] = [];
  blocks: { block: Block; commit: Commit }[] = [];
  last: CommittedHead = { height: 0, hash: `0x${'00'.repeat(32)}`, time: Date.now() - 1000, appHash: `0x${'11'.repeat(32)}` };
  private committed = new Set<string>();
  private waiters: (() => void)[] = [];
  /** One set for every height. */
  constructor(readonly validators: ValidatorSet) {}
  validatorSet(): ValidatorSet { return this.validators; }
  head(): CommittedHead { return this.last; }
  reapTxs(): Uint8Array[] { throw new Error('the BFT engine does not reap'); }
  pendingTxs(): number { return this.pool.length; }
  proposalTxs(maxTxs: number): Uint8Array[] { return this.pool.slice(0, maxTxs); }
  async commitBlock(block: Block, commit: Commit): Promise<void> {
    const hash = headerHash(block.header);
    this.blocks.push({ block, commit });
    const appHash = bytesToHex(keccak256(concatBytes(hexToBytes(this.last.appHash), hexToBytes(hash))));
    this.last = { height: block.header.height, hash, time: block.header.time, appHash };
    const inBlock = new Set(block.txs.map((x) => Buffer.from(x).toString('hex')));
    this.pool = this.pool.filter((x) => !inBlock.has(Buffer.from(x).toString('hex')));
    for (const e of block.evidence ?? []) this.committed.add(evidenceKey(e));
    this.waiters.splice(0).forEach((w) => w());
  }
  async storedBlock(h: number) { return this.blocks[h - 1]; }
  evidenceCommitted(key: string): boolean { return this.committed.has(key); }
  async untilHeight(h: number, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.last.height < h) {
      if (Date.now() > deadline) throw new Error(`height ${h} not reached (at ${this.last.height})`);
      await new Promise<void>((r) => { this.waiters.push(r); setTimeout(r, 200); });
    }
  }
}

