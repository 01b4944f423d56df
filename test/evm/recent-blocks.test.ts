import t from 'tap';
import type { Block } from '@ethereumjs/block';
import { RecentBlocks } from '../../evm/index.ts';

const block = (txs: number) => ({ transactions: new Array(txs).fill(null) }) as unknown as Block;

t.test('bounded by transactions: the least recently used go first, the newest stays', async (t) => {
  const r = new RecentBlocks();
  for (let h = 1; h <= 10; h++) r.set(h, block(1_000));
  t.equal(r.get(1), undefined, 'the oldest were dropped');
  t.ok(r.get(10) !== undefined);
  t.ok(r.get(3) !== undefined, 'eight blocks of 1,000 fit');
  r.set(11, block(1_000));
  t.ok(r.get(3) !== undefined, 'a block read is kept over older unread ones');
  t.equal(r.get(4), undefined);
  r.set(12, block(100_000));
  t.ok(r.get(12) !== undefined, 'the newest block is kept whatever its size');
  t.equal(r.get(11), undefined, 'everything else made room');
});

t.test('bounded by blocks: empty blocks do not accumulate', async (t) => {
  const r = new RecentBlocks();
  for (let h = 1; h <= 1_000; h++) r.set(h, block(0));
  t.equal(r.get(1), undefined);
  t.equal(r.get(744), undefined);
  t.ok(r.get(745) !== undefined, 'the last 256 are kept');
});

t.test('setting a height again replaces it and counts once', async (t) => {
  const r = new RecentBlocks();
  for (let i = 0; i < 20; i++) r.set(1, block(4_000));
  r.set(2, block(4_000));
  t.ok(r.get(1) !== undefined && r.get(2) !== undefined, '8,000 transactions fit');
});
