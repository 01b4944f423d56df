// Four BFT validators as real nodes in this process (level storage, exchange execution, REST,
// libp2p on loopback): orders sent to different nodes end up in the same blocks, books and
// balances everywhere; one stopped validator does not stop the chain, two do; restarted
// validators resume and catch up.
import t from 'tap';
import { headerHash } from '../../consensus/index.ts';
import { stageReport } from '../../primitives/index.ts';
import { devnetGenesis } from '../../genesis/index.ts';
import { SvcNode } from '../../node/index.ts';
import { loopbackNetwork, until } from '../support/network.ts';
import { Client, limit, orderAction, wallets } from '../support/node.ts';

const [alice, bob] = wallets as [typeof wallets[0], typeof wallets[0]];

t.test('four validators: same blocks, books and balances; one down continues, two down halts, restart resumes', async (t) => {
  const n = 4;
  const net = await loopbackNetwork(t, n, (keys) => ({ ...devnetGenesis(), validators: keys.map((k) => ({ pubKey: k.publicKey, power: 1 })) }));
  const { keys } = net;
  const nodes: (SvcNode | null)[] = Array.from({ length: n }, () => null);
  const config = net.config;
  const start = async (i: number) => { nodes[i] = await SvcNode.start(config(i)); };
  const stop = async (i: number) => { await nodes[i]?.stop(); nodes[i] = null; };
  t.teardown(async () => { for (let i = 0; i < n; i++) await stop(i); });
  await Promise.all(keys.map((_, i) => start(i)));
  const live = () => nodes.filter((x): x is SvcNode => x !== null);
  const client = (i: number) => new Client(nodes[i]!.restUrl);
  await until('height 2 everywhere', () => live().every((x) => x.height >= 2));

  // Orders to two different nodes: a resting ask on node 1, a crossing IOC bid on node 3.
  const placed = await client(1).exchange(alice, orderAction(limit(0, false, '100000', '0.5')));
  t.equal(placed.body.status, 'ok', JSON.stringify(placed.body));
  const oid = placed.body.response.data.statuses[0].resting.oid;
  const taken = await client(3).exchange(bob, orderAction(limit(0, true, '100100', '0.2', 'Ioc')));
  t.same(taken.body.response.data.statuses, [{ filled: { totalSz: '0.2', avgPx: '100000', oid: oid + 1 } }]);
  // Signed under the literal binding: its action-binding address (admission's first candidate
  // on node 2 and, gossiped, on the others) is unknown, so admission recovers the literal one
  // too; execution takes both from admission. Recoveries run inline here (no signer workers),
  // so this thread's count covers the four nodes: at most two each.
  const settled = Math.max(...live().map((x) => x.height));
  await until('the orders above executed everywhere', () => live().every((x) => x.height >= settled));
  const recoveries = () => stageReport().counters['signer recoveries'] ?? 0;
  const before = recoveries();
  const literal = await client(2).exchange(bob, orderAction(limit(0, true, '90000', '0.1')), { binding: 'literal' });
  t.match(literal.body.response?.data?.statuses?.[0], { resting: {} }, `a literal-bound order rests: ${JSON.stringify(literal.body)}`);

  const target = Math.max(...live().map((x) => x.height)) + 1;
  await until('the same height everywhere', () => live().every((x) => x.height >= target));
  t.ok(recoveries() - before <= 2 * n, `a literal-bound action costs at most two recoveries per node (${recoveries() - before} for ${n} nodes)`);
  const views = async (i: number) => {
    const c = client(i);
    const book = await c.info({ type: 'l2Book', coin: 'BTC' });
    const state = await c.info({ type: 'clearinghouseState', user: bob.address.toLowerCase() });
    return JSON.stringify({ levels: book.body.levels, positions: state.body.assetPositions, margin: state.body.marginSummary });
  };
  const all = await Promise.all(nodes.map((_, i) => views(i)));
  t.equal(new Set(all).size, 1, 'books and balances agree on every node');
  t.match(all[0], /"sz":"0.3"/, 'the ask rests with 0.3 left');
  const hashesAt = async (h: number) => new Set(await Promise.all(live().map(async (x) => headerHash((await x.store.block(h))!.header))));
  for (let h = 1; h <= target; h++) t.equal((await hashesAt(h)).size, 1, `one block at height ${h}`);

  await stop(3);
  const at = Math.max(...live().map((x) => x.height));
  await until('three validators continue', () => live().every((x) => x.height >= at + 2));
  await stop(2);
  await new Promise((r) => setTimeout(r, 500)); // a height in flight may finish
  const halted = Math.max(...live().map((x) => x.height));
  await new Promise((r) => setTimeout(r, 1500));
  t.equal(Math.max(...live().map((x) => x.height)), halted, 'two of four validators cannot commit');

  await Promise.all([start(2), start(3)]);
  await until('all resume and catch up', () => live().length === 4 && live().every((x) => x.height >= halted + 2), 60_000);
  for (let h = 1; h <= halted + 2; h++) t.equal((await hashesAt(h)).size, 1, `one block at height ${h} after the restart`);
  const after = await Promise.all(nodes.map((_, i) => views(i)));
  t.equal(new Set(after).size, 1, 'books and balances still agree');
});
