// The mempool's BFT side: proposals peek without removing; committed transactions leave, in any order.
import t from 'tap';
import { Mempool } from '../../node/index.ts';
import type { TxResult } from '../../exchange/index.ts';

const ok = { status: 'ok' } as unknown as TxResult;
const tx = (i: number) => ({ bytes: Uint8Array.of(i, i), hash: `h${i}`, signer: 's', nonce: i });

t.test('peek leaves transactions in the pool; commit removes them and answers their waiters', async (t) => {
  const m = new Mempool(10);
  const waits = [1, 2, 3, 4].map((i) => m.add(tx(i)));
  t.same(m.peek(2, 100).map((p) => p.hash), ['h1', 'h2']);
  t.same(m.peek(10, 3).map((p) => p.hash), ['h1'], 'byte bound, the first one always fits');
  t.equal(m.size, 4);
  m.commit('h3', ok); // a block proposed elsewhere took a later one first
  t.equal(m.size, 3);
  t.same(m.peek(10, 100).map((p) => p.hash), ['h1', 'h2', 'h4']);
  t.notOk(m.hasNonce('s', 3), 'its nonce is free again (state now holds it)');
  m.commit('h1', ok);
  m.commit('h9', ok); // never here: nothing to remove
  t.same(m.peek(10, 100).map((p) => p.hash), ['h2', 'h4']);
  t.equal(await waits[0], ok);
  t.equal(await waits[2], ok);
  m.commit('h2', ok);
  m.commit('h4', ok);
  t.equal(m.size, 0);
  t.same(m.peek(10, 100), []);
});

t.test('a transaction nobody waits on is queued in order, once; a later waiter joins it', async (t) => {
  const m = new Mempool(10);
  const evm = (i: number) => ({ bytes: Uint8Array.of(i), hash: `e${i}`, signer: 'k', nonce: null, gas: 21_000n });
  const first = m.add(tx(1));
  m.enqueue(evm(2));
  m.enqueue(evm(2)); // already pending: left as it is
  m.enqueue(evm(3));
  t.equal(m.size, 3);
  const joined = m.add(evm(3));
  t.equal(m.size, 3, 'joining adds no second entry');
  t.same(m.reap(10, 1_000).map((p) => p.hash), ['h1', 'e2', 'e3'], 'admission order');
  m.settle('h1', ok);
  m.settle('e2', ok); // nobody waits: nothing to answer
  m.settle('e3', ok);
  t.equal(await first, ok);
  t.equal(await joined, ok);
  t.equal(m.size, 0);
});
