// The single-validator engine against an in-memory application (the ConsensusApp seam).
import t from 'tap';
import {
  SoloEngine, commitSignBytes, generateValidatorKey, headerHash, txHash, txRoot, verifyValidatorSignature,
  type Block, type Commit, type CommittedHead, type ConsensusApp,
} from '../../consensus/index.ts';

class MemoryApp implements ConsensusApp {
  pending: Uint8Array[] = [];
  blocks: { block: Block; commit: Commit }[] = [];
  private last: CommittedHead = { height: 0, hash: '0x00', time: 1000, appHash: '0x11' };
  waiters: (() => void)[] = [];

  head(): CommittedHead {
    return this.last;
  }
  reapTxs(maxTxs: number): Uint8Array[] {
    return this.pending.splice(0, maxTxs);
  }
  pendingTxs(): number {
    return this.pending.length;
  }
  async commitBlock(block: Block, commit: Commit): Promise<void> {
    this.blocks.push({ block, commit });
    this.last = { height: block.header.height, hash: headerHash(block.header), time: block.header.time, appHash: `0x${block.header.height.toString(16).padStart(2, '0')}` };
    this.waiters.splice(0).forEach((w) => w());
  }
  async untilHeight(h: number, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.last.height < h) {
      if (Date.now() > deadline) throw new Error(`height ${h} not reached`);
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }
}

t.test('blocks chain, carry the previous app hash, and are signed', async (t) => {
  const app = new MemoryApp();
  const key = generateValidatorKey();
  let clock = 5000;
  const engine = new SoloEngine(app, { chainId: 7, key, now: () => clock, batchDelayMs: 0, emptyBlockIntervalMs: 5, minBlockIntervalMs: 0, maxBlockTxs: 2, maxBlockBytes: 1 << 20, onFatal: (e) => t.fail(String(e)) });
  app.pending.push(new Uint8Array([1]), new Uint8Array([2]), new Uint8Array([3]));
  engine.start();
  await app.untilHeight(3);
  await engine.stop();
  const [b1, b2, b3] = app.blocks as [typeof app.blocks[0], typeof app.blocks[0], typeof app.blocks[0]];
  t.equal(b1.block.txs.length, 2, 'at most maxBlockTxs per block');
  t.equal(b2.block.txs.length, 1);
  t.equal(b3.block.txs.length, 0, 'then empty blocks at the slow cadence');
  t.equal(b1.block.header.parentHash, '0x00');
  t.equal(b2.block.header.parentHash, headerHash(b1.block.header));
  t.equal(b2.block.header.appHash, '0x01', 'app hash of the parent');
  t.ok(b2.block.header.time > b1.block.header.time, 'time strictly increases even when the clock stands still');
  t.equal(b1.block.header.txRoot, txRoot(b1.block.txs));
  for (const { block, commit } of app.blocks) {
    const sig = commit.signatures[0]!;
    t.equal(sig.validator, key.publicKey);
    t.ok(verifyValidatorSignature(key.publicKey, commitSignBytes(7, block.header.height, commit.blockHash), sig.signature));
    t.notOk(verifyValidatorSignature(key.publicKey, commitSignBytes(8, block.header.height, commit.blockHash), sig.signature), 'bound to the chain id');
  }
  clock += 1;
});

t.test('a block starts no sooner than the minimum interval after the one before', async (t) => {
  const app = new MemoryApp();
  const reapedAt: number[] = [];
  const reap = app.reapTxs.bind(app);
  app.reapTxs = (maxTxs: number) => {
    reapedAt.push(performance.now());
    return reap(maxTxs);
  };
  const interval = 200;
  const engine = new SoloEngine(app, { chainId: 7, key: generateValidatorKey(), now: () => Date.now(), batchDelayMs: 0, emptyBlockIntervalMs: 3_600_000, minBlockIntervalMs: interval, maxBlockTxs: 100, maxBlockBytes: 1 << 20, onFatal: (e) => t.fail(String(e)) });
  t.teardown(() => engine.stop());
  app.pending.push(new Uint8Array([1]));
  engine.start();
  await app.untilHeight(1);
  t.equal(app.blocks[0]?.block.txs.length, 1, 'the first action goes at once');
  app.pending.push(new Uint8Array([2]));
  engine.notifyTxs();
  app.pending.push(new Uint8Array([3]));
  engine.notifyTxs();
  await app.untilHeight(2);
  t.same(app.blocks[1]?.block.txs.map((tx) => tx[0]), [2, 3], 'the actions that arrived meanwhile share the next block');
  // A timer never fires early (1 ms of rounding between the timer's clock and performance.now()).
  t.ok((reapedAt[1] as number) - (reapedAt[0] as number) >= interval - 1, 'which started no sooner than the interval after the first');
});

t.test('transaction roots', async (t) => {
  const a = new Uint8Array([1]);
  const b = new Uint8Array([2]);
  t.not(txRoot([a, b]), txRoot([b, a]), 'order matters');
  t.not(txRoot([a]), txHash(a), 'leaves are domain-separated');
  t.equal(txRoot([a, b, a]), txRoot([a, b, a]));
  t.match(txRoot([]), /^0x[0-9a-f]{64}$/);
});
