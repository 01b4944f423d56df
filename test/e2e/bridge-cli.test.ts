// `svc devnet --bridge-chain URL` as a real process wired to anvil in one command, killed with
// SIGKILL between the steps: each deposit is credited once and the withdrawal paid once.
import { rm } from 'node:fs/promises';
import { Contract, JsonRpcProvider, Wallet } from 'ethers';
import t from 'tap';
import { depositOnChain, startAnvil } from '../support/anvil.ts';
import { until } from '../support/network.ts';
import { Client, tempDir } from '../support/node.ts';
import { spawnDevnet } from '../support/process.ts';

// Development account 3: funded with ETH by anvil and with test USDC by the devnet's deployment.
const KEY = '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6';

t.test('svc devnet --bridge-chain: deposit and withdraw through kill -9 restarts', async (t) => {
  const anvil = await startAnvil(t);
  const dataDir = await tempDir();
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const args = ['--data-dir', dataDir, '--bridge-chain', anvil.url];
  let dev = await spawnDevnet(args, 60_000);
  t.teardown(() => dev.stop('SIGKILL'));
  // The banner goes on after the REST URL the spawn waits for: wait for its bridge line too.
  const line = /bridge\s+chain 31337 at \S+: SvcBridge (0x[0-9a-f]{40}), USDC (0x[0-9a-f]{40})/;
  await until('the banner to name the bridge', () => line.test(dev.output()), 10_000);
  const m = line.exec(dev.output());
  t.ok(m, 'the banner names the bridge and the USDC it deployed');
  const [, bridge, token] = m as unknown as [string, string, string];
  const client = () => new Client(dev.url);
  const wallet = new Wallet(KEY, new JsonRpcProvider(anvil.url, anvil.chainId, { staticNetwork: true }));
  const user = wallet.address.toLowerCase();
  const withdrawable = async () => (await client().info({ type: 'clearinghouseState', user })).body.withdrawable as string;
  const start = await withdrawable(); // a development account: 1,000,000 USDC at genesis
  t.equal(start, '1000000');

  await until('registered', async () => (await client().info({ type: 'bridge' })).body.chains.length === 1);
  await depositOnChain(anvil, wallet, token, bridge, 25_000_000n);
  await until('credited', async () => (await withdrawable()) === '1000025');
  await dev.stop('SIGKILL');
  await depositOnChain(anvil, wallet, token, bridge, 5_000_000n);
  dev = await spawnDevnet(args, 60_000);
  await until('the deposit made while it was dead credited', async () => (await withdrawable()) === '1000030');

  const dest = Wallet.createRandom().address;
  const out = await client().exchange(wallet, { type: 'withdraw', destination: dest, amount: '30' });
  t.match(out.body, { status: 'ok', response: { data: { amount: '29', status: 'pending' } } });
  const usdc = new Contract(token, ['function balanceOf(address) view returns (uint256)'], wallet.provider);
  await until('paid on anvil', async () => (await usdc.getFunction('balanceOf')(dest)) === 29_000_000n);
  await until('completed', async () => (await client().info({ type: 'withdrawals', user })).body[0]?.status === 'completed');
  await dev.stop('SIGKILL');
  dev = await spawnDevnet(args, 60_000);
  t.notMatch(dev.output(), /deployed on chain/, 'the restart reuses the contracts');
  const head = (await client().raw('/v1/height')).body.height as number;
  await until('a few blocks later', async () => (await client().raw('/v1/height')).body.height >= head + 3);
  t.equal(await withdrawable(), '1000000', 'each deposit once, the withdrawal once');
  t.equal(await usdc.getFunction('balanceOf')(dest), 29_000_000n, 'paid once');
  t.equal((await client().info({ type: 'bridge' })).body.totals.deposited, '30');
});
