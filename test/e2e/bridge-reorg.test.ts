// A re-organisation of the source chain inside the confirmation depth credits nothing: with 3
// confirmations a deposit that anvil drops (evm_revert to before it, then other blocks) is never
// credited, and the deposit that replaces it is credited once.
import { JsonRpcProvider, Wallet } from 'ethers';
import t from 'tap';
import { depositOnChain, startAnvil } from '../support/anvil.ts';
import { until } from '../support/network.ts';
import { startNode } from '../support/node.ts';

const KEY = '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a'; // development account 4

t.test('a deposit dropped by a re-org inside the confirmation depth is never credited', async (t) => {
  const anvil = await startAnvil(t);
  const { node, client } = await startNode(t, { bridgeChains: [{ url: anvil.url, confirmations: 3, devDeploy: {} }], bridgePollMs: 50 });
  const { contract, token } = node.bridgeChains[0] as { contract: string; token: string };
  const wallet = new Wallet(KEY, new JsonRpcProvider(anvil.url, anvil.chainId, { staticNetwork: true }));
  const user = wallet.address.toLowerCase();
  const withdrawable = async () => (await client.info({ type: 'clearinghouseState', user })).body.withdrawable as string;
  await until('registered', async () => (await client.info({ type: 'bridge' })).body.chains.length === 1);
  t.equal(await withdrawable(), '1000000');

  const snapshot = await anvil.rpc<string>('evm_snapshot', []);
  await depositOnChain(anvil, wallet, token, contract, 70_000_000n); // approve and deposit: 2 blocks, so 1 block short of 3 confirmations
  await anvil.rpc('evm_revert', [snapshot]);
  for (let i = 0; i < 5; i++) await anvil.rpc('evm_mine', []);
  const head = Number(await anvil.rpc<string>('eth_blockNumber', []));
  await until('the relayer scanned past the re-org', async () => (await client.info({ type: 'bridge' })).body.watched[0].scanned >= head - 2);
  t.equal(await withdrawable(), '1000000', 'the dropped deposit was not credited');

  await depositOnChain(anvil, wallet, token, contract, 80_000_000n);
  for (let i = 0; i < 2; i++) await anvil.rpc('evm_mine', []);
  await until('the surviving deposit credited', async () => (await withdrawable()) === '1000080');
  t.equal((await client.info({ type: 'bridge' })).body.totals.deposited, '80');
});
