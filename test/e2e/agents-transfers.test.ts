// Agents (API wallets) and USD transfers over REST, signed with ethers.
import { Wallet } from 'ethers';
import t from 'tap';
import { limit, orderAction, startNode, wallets } from '../support/node.ts';

const [alice, bob] = wallets as [typeof wallets[0], typeof wallets[0]];
const A = alice.address.toLowerCase();
const ZERO = '0x0000000000000000000000000000000000000000';

t.test('approve an agent, trade through it, revoke it', async (t) => {
  const { client } = await startNode(t);
  const agent = new Wallet(Wallet.createRandom().privateKey);
  const nonce = Date.now();
  const approve = await client.exchange(alice, { type: 'approveAgent', agentAddress: agent.address, agentName: 'bot', nonce }, { nonce });
  t.same(approve.body, { status: 'ok', response: { type: 'default' } });
  t.same((await client.info({ type: 'extraAgents', user: A })).body, [{ address: agent.address.toLowerCase(), name: 'bot', validUntil: null }]);

  const viaAgent = await client.exchange(agent, orderAction(limit(0, true, '90000', '0.1')), { vaultAddress: A });
  t.match(viaAgent.body.response.data.statuses, [{ resting: { oid: Number } }]);
  t.match((await client.info({ type: 'openOrders', user: A })).body, [{ coin: 'BTC', limitPx: '90000' }], 'the order belongs to the main account');

  const forBob = await client.exchange(agent, orderAction(limit(0, true, '90000', '0.1')), { vaultAddress: bob.address.toLowerCase() });
  t.equal(forBob.status, 403, "Alice's agent cannot sign for Bob");
  const noVault = await client.exchange(agent, orderAction(limit(0, true, '90000', '0.1')));
  t.equal(noVault.status, 401, 'without vaultAddress the agent is an unknown account');
  const agentTransfer = await client.exchange(agent, { type: 'usdTransfer', destination: bob.address, amount: '1' }, { vaultAddress: A });
  t.equal(agentTransfer.status, 403, 'an agent cannot move funds');
  const n2 = Date.now() + 1;
  const agentApprove = await client.exchange(agent, { type: 'approveAgent', agentAddress: bob.address, agentName: 'x', nonce: n2 }, { nonce: n2, vaultAddress: A });
  t.equal(agentApprove.status, 403, 'nor approve agents');

  const n3 = Date.now() + 2;
  const revoke = await client.exchange(alice, { type: 'approveAgent', agentAddress: ZERO, agentName: 'bot', nonce: n3 }, { nonce: n3 });
  t.same(revoke.body, { status: 'ok', response: { type: 'default' } });
  const after = await client.exchange(agent, orderAction(limit(0, true, '90000', '0.1')), { vaultAddress: A });
  t.equal(after.status, 403);
  t.match(after.body, { error: 'forbidden', message: 'Agent not authorized' });
  t.same((await client.info({ type: 'extraAgents', user: A })).body, []);
});

t.test('usdTransfer: instant and free, activates the destination, checks amount and address', async (t) => {
  const { client } = await startNode(t);
  const fresh = new Wallet(Wallet.createRandom().privateKey);
  const sent = await client.exchange(alice, { type: 'usdTransfer', destination: fresh.address, amount: '1234.5' });
  t.same(sent.body, { status: 'ok', response: { type: 'default' } });
  t.equal((await client.info({ type: 'clearinghouseState', user: fresh.address.toLowerCase() })).body.marginSummary.accountValue, '1234.5');
  t.equal((await client.info({ type: 'clearinghouseState', user: A })).body.marginSummary.accountValue, '998765.5');
  const trades = await client.exchange(fresh, orderAction(limit(2, true, '140', '1')));
  t.match(trades.body.response.data.statuses, [{ resting: {} }], 'the destination is activated');

  const malformed = await client.exchange(alice, { type: 'usdTransfer', destination: '0x1234', amount: '1' });
  t.equal(malformed.status, 400);
  t.same(malformed.body.details, { field: 'action.destination' });
  const self = await client.exchange(alice, { type: 'usdTransfer', destination: alice.address, amount: '1' });
  t.match(self.body, { status: 'err', response: /destination is the sender/ });
  const tooMuch = await client.exchange(alice, { type: 'usdTransfer', destination: bob.address, amount: '2000000' });
  t.same(tooMuch.body, { status: 'err', response: 'Insufficient balance' });
  const bad = await client.exchange(alice, { type: 'usdTransfer', destination: bob.address, amount: '-1' });
  t.match(bad.body, { status: 'err', response: /not a positive USDC amount/ });
});

t.test('withdraw without a bridge chain: refused, nothing moves; never by an agent (the bridge itself: bridge-devnet.test.ts)', async (t) => {
  const { client } = await startNode(t);
  const dest = Wallet.createRandom().address;
  const B = bob.address.toLowerCase();
  t.same((await client.exchange(bob, { type: 'withdraw', destination: dest, amount: '250.5' })).body, { status: 'err', response: 'Bridge temporarily unavailable: no bridge chain is registered' });
  t.same((await client.exchange(bob, { type: 'withdraw', destination: '0xnope', amount: '100' })).body, { status: 'err', response: 'Invalid destination' });
  const missing = await client.exchange(bob, { type: 'withdraw', destination: dest });
  t.equal(missing.status, 400);
  t.same(missing.body.details, { field: 'action.amount' });
  const agent = new Wallet(Wallet.createRandom().privateKey);
  const nonce = Date.now();
  await client.exchange(bob, { type: 'approveAgent', agentAddress: agent.address, agentName: '', nonce }, { nonce });
  const viaAgent = await client.exchange(agent, { type: 'withdraw', destination: dest, amount: '100' }, { vaultAddress: B });
  t.equal(viaAgent.status, 403, 'an agent cannot withdraw');
  t.equal((await client.info({ type: 'clearinghouseState', user: B })).body.withdrawable, '1000000', 'no refused withdrawal moved funds');
  t.same((await client.info({ type: 'withdrawals', user: B })).body, []);
});

t.test('sub-accounts: created by the master, funded, traded with vaultAddress, listed', async (t) => {
  const { client } = await startNode(t);
  const created = await client.exchange(alice, { type: 'createSubAccount', name: 'hedge' });
  t.match(created.body, { status: 'ok', response: { type: 'createSubAccount', data: /^0x[0-9a-f]{40}$/ } });
  const sub = created.body.response.data as string;
  const dup = await client.exchange(alice, { type: 'createSubAccount', name: 'hedge' });
  t.match(dup.body, { status: 'err', response: /exists/ });

  const fund = await client.exchange(alice, { type: 'subAccountTransfer', subAccountUser: sub, isDeposit: true, usd: 50_000_000_000 });
  t.same(fund.body, { status: 'ok', response: { type: 'default' } }, '50,000 USDC in');
  const trade = await client.exchange(alice, orderAction(limit(1, true, '3000', '1')), { vaultAddress: sub });
  t.match(trade.body.response.data.statuses, [{ resting: {} }], 'the master trades for it');
  const stranger = await client.exchange(bob, orderAction(limit(1, true, '3000', '1')), { vaultAddress: sub });
  t.equal(stranger.status, 403, 'nobody else does');

  const listed = (await client.info({ type: 'subAccounts', user: A })).body;
  t.match(listed, [{ name: 'hedge', subAccountUser: sub, master: A, clearinghouseState: { marginSummary: { accountValue: '50000' } }, spotState: { balances: [{ coin: 'USDC' }] } }]);
  const back = await client.exchange(alice, { type: 'subAccountTransfer', subAccountUser: sub, isDeposit: false, usd: 60_000_000_000 });
  t.same(back.body, { status: 'err', response: 'Insufficient balance' });
  const notMine = await client.exchange(bob, { type: 'subAccountTransfer', subAccountUser: sub, isDeposit: true, usd: 1 });
  t.match(notMine.body, { status: 'err', response: /is not a sub-account of/ });
});
