// The bridge end to end on a devnet against real external chains (anvil): the devnet deploys the
// bridge and a test USDC, a deposit made there with ethers is credited once, a withdrawal comes
// out on anvil, a restart between the steps credits and releases nothing twice, an unreachable
// chain refuses withdrawals to it and delays only its own deposits, and a withdrawal that cannot
// be paid before its deadline is refunded.
import { Contract, JsonRpcProvider, Wallet } from 'ethers';
import t from 'tap';
import type { SvcNode } from '../../node/index.ts';
import { depositOnChain, startAnvil, type Anvil } from '../support/anvil.ts';
import { until } from '../support/network.ts';
import type { Client} from '../support/node.ts';
import { startNode, tempDir } from '../support/node.ts';

const ERC20 = ['function approve(address,uint256) returns (bool)', 'function balanceOf(address) view returns (uint256)'];
const BRIDGE = ['function deposit(uint256 amount, address user)', 'function withdrawn(bytes32) view returns (bool)'];

/** A fresh key that holds ETH and test USDC on `anvil` (given by the first development account). */
async function funded(anvil: Anvil, token: string): Promise<Wallet> {
  const w = Wallet.createRandom();
  await anvil.rpc('anvil_setBalance', [w.address, '0x8ac7230489e80000']); // 10 ETH
  const provider = new JsonRpcProvider(anvil.url, anvil.chainId, { staticNetwork: true });
  const dev = new Wallet('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80', provider);
  const usdc = new Contract(token, ['function transfer(address,uint256) returns (bool)'], dev);
  const nonce = Number(await anvil.rpc<string>('eth_getTransactionCount', [dev.address, 'pending']));
  await (await usdc.getFunction('transfer')(w.address, 10_000n * 10n ** 6n, { nonce })).wait();
  return w.connect(provider) as unknown as Wallet;
}

async function withdrawable(client: Client, user: string): Promise<string> {
  return (await client.info({ type: 'clearinghouseState', user })).body.withdrawable as string;
}

function chainOf(node: SvcNode, chainId: number): { contract: string; token: string } {
  const c = node.bridgeChains.find((x) => x.chainId === chainId);
  if (c === undefined || c.contract === undefined || c.token === undefined) throw new Error(`no bridge on chain ${chainId}`);
  return { contract: c.contract, token: c.token };
}

t.test('devnet bridge: deposit, withdrawal, restarts, a chain down, a refund', async (t) => {
  const a = await startAnvil(t, 31337);
  const b = await startAnvil(t, 31338);
  const dataDir = await tempDir();
  const bridgeChains = [a, b].map((x) => ({ url: x.url, confirmations: 1, devDeploy: {} }));
  let { node, client } = await startNode(t, { history: true, dataDir, bridgeChains, bridgePollMs: 100 });
  await until('both chains registered', async () => (await client.info({ type: 'bridge' })).body.chains.length === 2);
  const info = (await client.info({ type: 'bridge' })).body;
  t.match(info, { defaultChainId: 31337, withdrawalMinimum: '10', withdrawalFee: '1', withdrawalTimeout: 86400 });
  t.same(info.chains.map((c: { chainId: number; status: string }) => [c.chainId, c.status]), [[31337, 'Active'], [31338, 'Active']]);
  const A = chainOf(node, 31337);
  const B = chainOf(node, 31338);

  // A deposit to an address the exchange has never seen activates it.
  const user = await funded(a, A.token);
  const U = user.address.toLowerCase();
  t.equal((await client.info({ type: 'clearinghouseState', user: U })).body.withdrawable, '0');
  await depositOnChain(a, user, A.token, A.contract, 250_000_000n, U); // 250 USDC
  await until('the deposit credited', async () => (await withdrawable(client, U)) === '250');

  // Withdraw 100: 99 arrive on anvil, 1 is the fee; the status moves pending -> signed -> completed.
  const dest = Wallet.createRandom().address;
  const out = await client.exchange(user, { type: 'withdraw', destination: dest, amount: '100' });
  t.match(out.body, { status: 'ok', response: { type: 'withdraw', data: { amount: '99', fee: '1', destination: dest.toLowerCase(), status: 'pending' } } });
  const id = out.body.response.data.withdrawalId as string;
  t.equal(await withdrawable(client, U), '150', 'debited at once');
  const provider = new JsonRpcProvider(a.url, a.chainId, { staticNetwork: true });
  const usdcA = new Contract(A.token, ERC20, provider);
  await until('the withdrawal completed', async () => (await client.info({ type: 'withdrawals', user: U })).body[0]?.status === 'completed');
  t.equal(await usdcA.getFunction('balanceOf')(dest), 99_000_000n, '99 USDC arrived');
  const [w] = (await client.info({ type: 'withdrawals', user: U })).body;
  t.match(w, { withdrawalId: id, chainId: 31337, amount: '99', fee: '1', status: 'completed', txHash: /^0x[0-9a-f]{64}$/ });
  t.equal(w.signatures.length, 1, "the devnet validator's signature");

  // Bad withdrawals change nothing.
  t.same((await client.exchange(user, { type: 'withdraw', destination: dest, amount: '9.99' })).body, { status: 'err', response: 'Amount below minimum: withdrawals start at 10 USDC' });
  t.same((await client.exchange(user, { type: 'withdraw', destination: dest, amount: '151' })).body, { status: 'err', response: 'Insufficient balance' });
  t.same((await client.exchange(user, { type: 'withdraw', destination: '0x1234', amount: '20' })).body, { status: 'err', response: 'Invalid destination' });
  t.match((await client.exchange(user, { type: 'withdraw', destination: dest, amount: '20', chainId: 1 })).body, { status: 'err', response: /chain 1 has no bridge/ });
  t.match((await client.exchange(user, { type: 'withdraw', destination: dest, amount: '20.0000001' })).body, { status: 'err', response: /at most 6 decimals/ });
  t.equal(await withdrawable(client, U), '150');

  // Restart; a deposit made while the node is down is credited after it, once; nothing is paid twice.
  await node.stop();
  await depositOnChain(a, user, A.token, A.contract, 5_000_000n, U);
  ({ node, client } = await startNode(t, { history: true, dataDir, bridgeChains, bridgePollMs: 100 }));
  await until('the deposit made while down credited', async () => (await withdrawable(client, U)) === '155');
  t.same(chainOf(node, 31337), A, 'the same contracts after a restart');
  await depositOnChain(a, user, A.token, A.contract, 1_000_000n, U);
  await until('one more deposit', async () => (await withdrawable(client, U)) === '156');
  t.equal(await usdcA.getFunction('balanceOf')(dest), 99_000_000n, 'the withdrawal was not paid again');
  t.equal((await client.info({ type: 'bridge' })).body.totals.deposited, '256', 'each deposit credited once');

  // A withdrawal that cannot be paid (the relayer has no gas) is refunded whole once its deadline passes on the chain.
  const signer = node.bridgeSigner;
  await a.rpc('anvil_setBalance', [signer, '0x0']);
  const stuck = await client.exchange(user, { type: 'withdraw', destination: dest, amount: '50' });
  const stuckId = stuck.body.response.data.withdrawalId as string;
  t.equal(await withdrawable(client, U), '106');
  await until('signed', async () => (await client.info({ type: 'withdrawals', user: U })).body.find((x: { withdrawalId: string }) => x.withdrawalId === stuckId)?.status === 'signed');
  await a.rpc('evm_increaseTime', [86_400 + 60]);
  await a.rpc('evm_mine', []);
  await until('refunded', async () => (await client.info({ type: 'withdrawals', user: U })).body.find((x: { withdrawalId: string }) => x.withdrawalId === stuckId)?.status === 'refunded');
  t.equal(await withdrawable(client, U), '156', 'amount and fee back');
  t.equal(await new Contract(A.contract, BRIDGE, provider).getFunction('withdrawn')(stuckId), false, 'never paid');
  await a.rpc('anvil_setBalance', [signer, '0x8ac7230489e80000']);

  // Chain A down: withdrawals to it are refused; chain B still credits deposits and pays out.
  const userB = await funded(b, B.token);
  await a.stop();
  await until('chain A seen down', async () => (await client.info({ type: 'bridge' })).body.watched.some((w: { chainId: number; up: boolean }) => w.chainId === 31337 && !w.up), 30_000);
  t.same((await client.exchange(user, { type: 'withdraw', destination: dest, amount: '20' })).body, { status: 'err', response: 'Bridge temporarily unavailable' });
  t.equal(await withdrawable(client, U), '156');
  await depositOnChain(b, userB, B.token, B.contract, 30_000_000n, U);
  await until('chain B deposit credited', async () => (await withdrawable(client, U)) === '186');
  const toB = await client.exchange(user, { type: 'withdraw', destination: dest, amount: '20', chainId: 31338 });
  t.match(toB.body, { status: 'ok', response: { data: { status: 'pending' } } });
  const providerB = new JsonRpcProvider(b.url, b.chainId, { staticNetwork: true });
  await until('paid on chain B', async () => (await new Contract(B.token, ERC20, providerB).getFunction('balanceOf')(dest)) === 19_000_000n);

  // The history holds every deposit, withdrawal and refund, and the totals add up.
  await until('indexed', async () => (await client.raw(`/v4/withdrawals?user=${U}`)).body.data?.length === 4);
  const deposits = (await client.raw(`/v4/deposits?user=${U}`)).body.data;
  t.same(deposits.map((d: { usdc: string; chainId: number }) => [d.usdc, d.chainId]), [['30', 31338], ['1', 31337], ['5', 31337], ['250', 31337]], 'newest first');
  t.match(deposits[0], { user: U, type: 'deposit', fee: '0', hash: /^0x[0-9a-f]{64}$/, time: Number, height: Number, id: Number });
  const withdrawals = (await client.raw(`/v4/withdrawals?user=${U}`)).body.data;
  t.same(withdrawals.map((w: { type: string; usdc: string; fee: string }) => [w.type, w.usdc, w.fee]), [['withdraw', '19', '1'], ['withdrawRefund', '50', '0'], ['withdraw', '49', '1'], ['withdraw', '99', '1']]);
  t.equal(withdrawals[1].hash, stuckId, 'a refund names its withdrawal');
  t.same((await client.raw('/stats/total_deposits')).body, { total_deposits: 286 });
  t.same((await client.raw('/stats/total_withdrawals')).body, { total_withdrawals: 120 }, 'net of the refund, fees included');
});
