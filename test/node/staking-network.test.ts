// Four BFT validators and one full node as real nodes in this process (level storage, exchange
// execution, REST, libp2p on loopback), with staking: the full node's key is registered and
// delegated to, more stake goes to validator 0, and at the epoch boundary the set changes (the
// full node joins with the most power, validator 0's power grows, one genesis validator leaves
// as the set holds four). Blocks keep committing through the change, the joined node signs, the
// one that left does not, and quorums follow the power: with the two smallest validators
// stopped, the other two still hold more than 2/3 of it.
import t from 'tap';
import { headerHash, type ValidatorKey } from '../../consensus/index.ts';
import { registrationBytes } from '../../exchange/index.ts';
import { devnetGenesis } from '../../genesis/index.ts';
import { SvcNode } from '../../node/index.ts';
import { loopbackNetwork, until } from '../support/network.ts';
import { Client, wallets } from '../support/node.ts';

const UNIT = 100_000_000;
const EPOCH = 5;

t.test('stake moves at an epoch boundary: a validator joins, one leaves, power changes, blocks keep committing', async (t) => {
  const n = 5;
  const operators = wallets.slice(0, 4).map((w) => w.address.toLowerCase());
  const net = await loopbackNetwork(t, n, (keys) => ({
    ...devnetGenesis(),
    // Validators 0-3 at genesis, 1 SVC each, owned by dev accounts 0-3; node 4 starts as a full node.
    validators: keys.slice(0, 4).map((k, i) => ({ pubKey: k.publicKey, power: 1, operator: operators[i] as string })),
    staking: { token: 'SVC', epochBlocks: EPOCH, minStake: '1', maxValidators: 4, unbondingDelayMs: 1000, delegationLockMs: 0 },
  }), { emptyBlockIntervalMs: 100 });
  const keys: readonly ValidatorKey[] = net.keys;
  const nodes: (SvcNode | null)[] = Array.from({ length: n }, () => null);
  const config = net.config;
  const stop = async (i: number) => { await nodes[i]?.stop(); nodes[i] = null; };
  t.teardown(async () => { for (let i = 0; i < n; i++) await stop(i); });
  await Promise.all(keys.map(async (_, i) => { nodes[i] = await SvcNode.start(config(i)); }));
  const live = () => nodes.filter((x): x is SvcNode => x !== null);
  const client = (i: number) => new Client(nodes[i]!.restUrl);
  await until('height 2 everywhere', () => live().every((x) => x.height >= 2));
  const signersAt = async (node: SvcNode, h: number) => new Set((await node.store.block(h))!.commit.signatures.map((s) => s.validator));

  // The stake moves: dev account 4 registers node 4's key and delegates 10 SVC to it; account 5
  // delegates 5 SVC more to validator 0.
  const ok = { status: 'ok', response: { type: 'default' } };
  const [w4, w5] = [wallets[4]!, wallets[5]!];
  const k4 = keys[4]!;
  const signature = k4.sign(registrationBytes(devnetGenesis().chainId, w4.address.toLowerCase(), k4.publicKey));
  t.same((await client(0).exchange(w4, { type: 'registerValidator', pubKey: k4.publicKey, signature, name: 'joiner' })).body, ok);
  t.same((await client(1).exchange(w4, { type: 'cDeposit', wei: 10 * UNIT })).body, ok);
  t.same((await client(2).exchange(w4, { type: 'tokenDelegate', validator: k4.publicKey, wei: 10 * UNIT, isUndelegate: false })).body, ok);
  t.same((await client(3).exchange(w5, { type: 'cDeposit', wei: 5 * UNIT })).body, ok);
  t.same((await client(4).exchange(w5, { type: 'tokenDelegate', validator: keys[0]!.publicKey, wei: 5 * UNIT, isUndelegate: false })).body, ok);
  const moved = Math.max(...live().map((x) => x.height));
  const boundary = Math.ceil((moved + 1) / EPOCH) * EPOCH; // the first boundary after the last action
  await until('the boundary and a few blocks after it everywhere', () => live().every((x) => x.height >= boundary + 3));

  // Everyone agrees on the new set: node 4 with 10, validator 0 with 6, and two of validators 1-3
  // (the smaller keys on equal stake); the largest key among them left.
  const summaries = await Promise.all(live().map(async (_, i) => JSON.stringify((await client(i).info({ type: 'validatorSummaries' })).body)));
  t.equal(new Set(summaries).size, 1, 'every node reads the same validators');
  const rest = keys.slice(1, 4).map((k) => k.publicKey).sort();
  const [stay1, stay2, left] = rest as [string, string, string];
  const active = (JSON.parse(summaries[0]!) as { validator: string; power: number; isActive: boolean }[]).filter((v) => v.isActive).map((v) => [v.validator, v.power]);
  t.same(active, [[k4.publicKey, 10], [keys[0]!.publicKey, 6], [stay1, 1], [stay2, 1]], 'power follows the stake; of the three equal validators the largest key left');
  for (const x of live()) t.same(x.chain.validatorSet(x.height + 1).validators.map((v) => [v.publicKey, v.power]), active, 'consensus uses the same set');

  // Blocks after the boundary: signed by the new set (node 4 included, the one that left never).
  const after = boundary + 1;
  await until('node 4 signs a commit', async () => {
    const top = nodes[0]!.height;
    for (let h = after; h <= top; h++) if ((await signersAt(nodes[0]!, h)).has(k4.publicKey)) return true;
    return false;
  });
  const top = nodes[0]!.height;
  const outside: number[] = [];
  for (let h = after; h <= top; h++) {
    const proposer = (await nodes[0]!.store.block(h))!.header.proposer;
    if ((await signersAt(nodes[0]!, h)).has(left) || !active.some(([k]) => k === proposer)) outside.push(h);
  }
  t.same(outside, [], `heights ${after}-${top}: signed and proposed by the new set only`);
  const hashesAt = async (h: number) => new Set(await Promise.all(live().map(async (x) => headerHash((await x.store.block(h))!.header))));
  let forks = 0;
  for (let h = 1; h <= top; h++) if ((await hashesAt(h)).size !== 1) forks++;
  t.equal(forks, 0, `one block at each height 1-${top} on all five nodes`);

  // Quorum by power: stop the validator that left and both 1-SVC validators; node 4 and
  // validator 0 hold 16 of 18 and keep committing.
  const indexOf = (pub: string) => keys.findIndex((k) => k.publicKey === pub);
  await stop(indexOf(left));
  await stop(indexOf(stay1));
  await stop(indexOf(stay2));
  const at = Math.max(...live().map((x) => x.height));
  await until('two validators with 16 of 18 power continue', () => live().every((x) => x.height >= at + 3));
  t.equal(live().length, 2);
  t.pass('blocks commit with two of four validators up, as they hold more than 2/3 of the power');
});
