// The bridge on a 4-validator loopback network (in-process nodes, real libp2p, level storage)
// against anvil: validators register the chain and attest a deposit made with ethers, which every
// node credits once; each validator signs a withdrawal, one submits it, and it comes out on anvil
// once; a validator stopped and restarted between the steps credits and releases nothing twice.
import type { Contract} from 'ethers';
import { ContractFactory, JsonRpcProvider, NonceManager, Wallet, type BaseContract } from 'ethers';
import t from 'tap';
import { compileContracts } from '../../contracts/index.ts';
import type { ValidatorKey } from '../../consensus/index.ts';
import { devnetGenesis } from '../../genesis/index.ts';
import { SvcNode, bridgeSignerKey, type NodeConfig } from '../../node/index.ts';
import { depositOnChain, startAnvil } from '../support/anvil.ts';
import { loopbackNetwork, until } from '../support/network.ts';
import { Client } from '../support/node.ts';

const DEV0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

t.test('four validators: a deposit credited once everywhere, a withdrawal released once, across a restart', async (t) => {
  const anvil = await startAnvil(t);
  const provider = new JsonRpcProvider(anvil.url, anvil.chainId, { staticNetwork: true });
  const genesisOf = (keys: readonly ValidatorKey[]) => ({
    ...devnetGenesis(), network: 'testnet' as const, auth: { literalNonceBinding: false },
    validators: keys.map((k) => ({ pubKey: k.publicKey, power: 1, bridgeSigner: bridgeSignerKey(k).address })),
  });
  const chainId = devnetGenesis().chainId;
  const n = 4;
  const net = await loopbackNetwork(t, n, genesisOf);
  const keys = net.keys;
  const signers = keys.map((k) => bridgeSignerKey(k).address);

  // The operator deploys USDC and the bridge with the validators' signers; the signers get gas.
  const deployer = new NonceManager(new Wallet(DEV0, provider));
  const c = compileContracts();
  const usdc = (await (await new ContractFactory(c.TestUSDC.abi as never, c.TestUSDC.bytecode, deployer).deploy()).waitForDeployment()) as BaseContract & Contract;
  const sorted = [...signers].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
  // Deployed with three of the four signers (as before the fourth validator joined): the
  // validators bring the contract to today's set themselves.
  const initial = sorted.filter((s) => s !== signers[3]);
  const bridge = (await (await new ContractFactory(c.SvcBridge.abi as never, c.SvcBridge.bytecode, deployer)
    .deploy(await usdc.getAddress(), chainId, initial, initial.map(() => 1))).waitForDeployment()) as BaseContract & Contract;
  const contract = (await bridge.getAddress()).toLowerCase();
  for (const s of signers) await anvil.rpc('anvil_setBalance', [s, '0x8ac7230489e80000']);
  const user = new Wallet(Wallet.createRandom().privateKey, provider);
  const U = user.address.toLowerCase();
  await anvil.rpc('anvil_setBalance', [user.address, '0x8ac7230489e80000']);
  await (await usdc.getFunction('mint')(user.address, 1_000_000_000n)).wait();

  const nodes: (SvcNode | null)[] = Array.from({ length: n }, () => null);
  const config = (i: number): NodeConfig => ({ ...net.config(i), bridgeChains: [{ url: anvil.url, chainId: anvil.chainId, confirmations: 1, contract }], bridgePollMs: 200 });
  const start = async (i: number) => { nodes[i] = await SvcNode.start(config(i)); };
  const stop = async (i: number) => { await nodes[i]?.stop(); nodes[i] = null; };
  t.teardown(async () => { for (let i = 0; i < n; i++) await stop(i); });
  await Promise.all(keys.map((_, i) => start(i)));
  const client = (i: number) => new Client(nodes[i]!.restUrl);
  const everywhere = async (f: (c: Client) => Promise<boolean>) => (await Promise.all(nodes.map((x) => (x === null ? true : f(new Client(x.restUrl)))))).every(Boolean);
  const withdrawable = async (c: Client) => (await c.info({ type: 'clearinghouseState', user: U })).body.withdrawable as string;

  await until('the chain registered on every node', () => everywhere(async (c) => (await c.info({ type: 'bridge' })).body.chains.length === 1), 60_000);
  await until('the contract holds the four validators', async () => ((await bridge.getFunction('signers')()) as [string[]])[0].length === 4, 60_000);
  await until('every node recorded the new set', () => everywhere(async (c) => (await c.info({ type: 'bridge' })).body.chains[0].validatorSet.nonce === 1), 60_000);
  t.same(((await bridge.getFunction('signers')()) as [string[]])[0].map((s) => s.toLowerCase()), sorted, 'signed by three of the three old signers, sent by one');

  // A deposit: credited on every node once 3 of 4 validators attested it.
  const token = await usdc.getAddress();
  const deposit = (amount: bigint) => depositOnChain(anvil, user, token, contract, amount);
  await deposit(400_000_000n);
  await until('the deposit credited on every node', () => everywhere(async (c) => (await withdrawable(c)) === '400'), 60_000);

  // A validator goes down; the other three still credit a deposit, and the restarted one catches up.
  await stop(2);
  await deposit(50_000_000n);
  await until('credited by three', () => everywhere(async (c) => (await withdrawable(c)) === '450'), 60_000);
  await start(2);
  await until('the restarted validator agrees', () => everywhere(async (c) => (await withdrawable(c)) === '450'), 60_000);

  // A withdrawal sent to node 3: every validator signs, one submits, it comes out on anvil once.
  const dest = Wallet.createRandom().address;
  const out = await client(3).exchange(user, { type: 'withdraw', destination: dest, amount: '200' });
  t.match(out.body, { status: 'ok', response: { data: { amount: '199', status: 'pending' } } });
  await until('completed on every node', () => everywhere(async (c) => (await c.info({ type: 'withdrawals', user: U })).body[0]?.status === 'completed'), 90_000);
  t.equal(await usdc.getFunction('balanceOf')(dest), 199_000_000n);
  const w = (await client(0).info({ type: 'withdrawals', user: U })).body[0];
  t.ok(w.signatures.length >= 3, `signed by ${w.signatures.length} validators`);

  // Restart two validators in turn: nothing is credited or paid twice.
  await stop(0);
  await start(0);
  await stop(1);
  await start(1);
  const height = Math.max(...nodes.map((x) => x?.height ?? 0));
  await until('blocks after the restarts', () => nodes.every((x) => x !== null && x.height >= height + 3), 60_000);
  t.ok(await everywhere(async (c) => (await withdrawable(c)) === '250'), '450 - 200 on every node');
  t.ok(await everywhere(async (c) => (await c.info({ type: 'bridge' })).body.totals.deposited === '450'));
  t.equal(await usdc.getFunction('balanceOf')(dest), 199_000_000n, 'paid once');
});
