// Agents (API wallets) and USD transfers over REST, through the typed client (client/).
import { Wallet } from 'ethers';
import t from 'tap';
import type { OrderWire } from '../../client/index.ts';
import { DEV_ACCOUNTS } from '../../genesis/index.ts';
import { startNode } from '../support/node.ts';

const [aliceKey, bobKey] = DEV_ACCOUNTS as [typeof DEV_ACCOUNTS[0], typeof DEV_ACCOUNTS[0]];
const A = aliceKey.address;
const B = bobKey.address;
const bid = (a: number, p: string, s: string): OrderWire => ({ a, b: true, p, s, r: false, t: { limit: { tif: 'Gtc' } } });
const errorOf = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e);

t.test('approve an agent, trade through it, revoke it', async (t) => {
  const { svc } = await startNode(t);
  const alice = svc(aliceKey.privateKey);
  const agentKey = Wallet.createRandom().privateKey;
  const agentAddress = new Wallet(agentKey).address.toLowerCase();
  await alice.exchange.approveAgent(agentAddress, 'bot');
  t.same(await alice.info.extraAgents(A), [{ address: agentAddress, name: 'bot', validUntil: null }]);

  const viaAgent = svc(agentKey, { vaultAddress: A });
  t.match(await viaAgent.exchange.order([bid(0, '90000', '0.1')]), [{ resting: { oid: Number } }]);
  t.match(await alice.info.openOrders(A), [{ coin: 'BTC', limitPx: '90000' }], 'the order belongs to the main account');

  t.match(await errorOf(svc(agentKey, { vaultAddress: B }).exchange.order([bid(0, '90000', '0.1')])), { status: 403 }, "Alice's agent cannot sign for Bob");
  t.match(await errorOf(svc(agentKey).exchange.order([bid(0, '90000', '0.1')])), { status: 401 }, 'without vaultAddress the agent is an unknown account');
  t.match(await errorOf(viaAgent.exchange.usdTransfer(B, '1')), { status: 403 }, 'an agent cannot move funds');
  t.match(await errorOf(viaAgent.exchange.approveAgent(B, 'x')), { status: 403 }, 'nor approve agents');

  await alice.exchange.revokeAgent('bot');
  t.match(await errorOf(viaAgent.exchange.order([bid(0, '90000', '0.1')])), { status: 403, key: 'forbidden', message: 'Agent not authorized' });
  t.same(await alice.info.extraAgents(A), []);
});

t.test('usdTransfer: instant and free, activates the destination, checks amount and address', async (t) => {
  const { svc } = await startNode(t);
  const alice = svc(aliceKey.privateKey);
  const freshKey = Wallet.createRandom().privateKey;
  const fresh = svc(freshKey);
  await alice.exchange.usdTransfer(fresh.address, '1234.5');
  t.equal((await alice.info.clearinghouseState(fresh.address)).marginSummary.accountValue, '1234.5');
  t.equal((await alice.info.clearinghouseState(A)).marginSummary.accountValue, '998765.5');
  t.match(await fresh.exchange.order([bid(2, '140', '1')]), [{ resting: {} }], 'the destination is activated');

  t.match(await errorOf(alice.exchange.usdTransfer('0x1234', '1')), { status: 400, details: { field: 'action.destination' } });
  t.match(await errorOf(alice.exchange.usdTransfer(A, '1')), { name: 'ActionError', message: /destination is the sender/ });
  t.match(await errorOf(alice.exchange.usdTransfer(B, '2000000')), { name: 'ActionError', message: 'Insufficient balance' });
  t.match(await errorOf(alice.exchange.usdTransfer(B, '-1')), { name: 'ActionError', message: /not a positive USDC amount/ });
});

t.test('withdraw without a bridge chain: refused, nothing moves; never by an agent (the bridge itself: bridge-devnet.test.ts)', async (t) => {
  const { svc } = await startNode(t);
  const bob = svc(bobKey.privateKey);
  const dest = Wallet.createRandom().address;
  t.same(await bob.exchange.send({ type: 'withdraw', destination: dest, amount: '250.5' }), { status: 'err', response: 'Bridge temporarily unavailable: no bridge chain is registered' });
  t.same(await bob.exchange.send({ type: 'withdraw', destination: '0xnope', amount: '100' }), { status: 'err', response: 'Invalid destination' });
  const missing = await errorOf(bob.exchange.send({ type: 'withdraw', destination: dest } as never));
  t.match(missing, { status: 400, details: { field: 'action.amount' } });
  const agentKey = Wallet.createRandom().privateKey;
  await bob.exchange.approveAgent(new Wallet(agentKey).address, '');
  t.match(await errorOf(svc(agentKey, { vaultAddress: B }).exchange.withdraw(dest, '100')), { status: 403 }, 'an agent cannot withdraw');
  t.equal((await bob.info.clearinghouseState(B)).withdrawable, '1000000', 'no refused withdrawal moved funds');
  t.same(await bob.info.withdrawals(B), []);
});

t.test('sub-accounts: created by the master, funded, traded with vaultAddress, listed', async (t) => {
  const { svc } = await startNode(t);
  const alice = svc(aliceKey.privateKey);
  const sub = (await alice.exchange.createSubAccount('hedge')) as string;
  t.match(sub, /^0x[0-9a-f]{40}$/);
  t.match(await errorOf(alice.exchange.createSubAccount('hedge')), { name: 'ActionError', message: /exists/ });

  await alice.exchange.subAccountTransfer(sub, true, 50_000_000_000); // 50,000 USDC in
  t.match(await svc(aliceKey.privateKey, { vaultAddress: sub }).exchange.order([bid(1, '3000', '1')]), [{ resting: {} }], 'the master trades for it');
  t.match(await errorOf(svc(bobKey.privateKey, { vaultAddress: sub }).exchange.order([bid(1, '3000', '1')])), { status: 403 }, 'nobody else does');

  t.match(await alice.info.subAccounts(A), [{ name: 'hedge', subAccountUser: sub, master: A, clearinghouseState: { marginSummary: { accountValue: '50000' } }, spotState: { balances: [{ coin: 'USDC' }] } }]);
  t.match(await errorOf(alice.exchange.subAccountTransfer(sub, false, 60_000_000_000)), { name: 'ActionError', message: 'Insufficient balance' });
  t.match(await errorOf(svc(bobKey.privateKey).exchange.subAccountTransfer(sub, true, 1)), { name: 'ActionError', message: /is not a sub-account of/ });
});
