// contracts/Bridge.sol on a real chain (anvil): deposits emit numbered events; a withdrawal pays
// only on signatures of more than 2/3 of the power over its whole content, in ascending signer
// order, once, before its deadline; the validator set changes only on a quorum of the old one.
import type { Contract} from 'ethers';
import { ContractFactory, Interface, JsonRpcProvider, Wallet, solidityPackedKeccak256, type BaseContract } from 'ethers';
import t from 'tap';
import { compileContracts } from '../../contracts/index.ts';
import { withdrawalDigest } from '../../exchange/index.ts';
import { BRIDGE_ABI } from '../../node/index.ts';
import { startAnvil } from '../support/anvil.ts';

const SERVICE_CHAIN = 42069;

t.test('the relayer ABI is the compiled contract ABI', async (t) => {
  const compiled = new Interface(compileContracts().SvcBridge.abi as never);
  for (const fragment of new Interface(BRIDGE_ABI).fragments) {
    const name = 'name' in fragment ? (fragment.name as string) : '';
    const match = compiled.fragments.find((f) => 'name' in f && f.name === name && f.type === fragment.type);
    t.equal(match?.format('full'), fragment.format('full'), name);
  }
});

t.test('the contracts compile from source with the pinned solc', async (t) => {
  const a = compileContracts();
  t.match(a.compiler, /^0\.8\.\d+/);
  t.ok(a.SvcBridge.bytecode.length > 1000);
});

t.test('SvcBridge on anvil', async (t) => {
  const anvil = await startAnvil(t);
  const provider = new JsonRpcProvider(anvil.url, anvil.chainId, { staticNetwork: true });
  const deployer = new Wallet('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80', provider);
  // Nonces from the chain for every transaction: ethers' own pending count can lag after a refused call.
  const nonce = async () => ({ nonce: Number(await anvil.rpc<string>('eth_getTransactionCount', [deployer.address, 'pending'])) });
  const c = compileContracts();
  const signers = Array.from({ length: 4 }, (_, i) => new Wallet(`0x${(i + 7).toString(16).padStart(64, '0')}`)).sort((a, b) => (BigInt(a.address) < BigInt(b.address) ? -1 : 1));
  const usdc = (await (await new ContractFactory(c.TestUSDC.abi as never, c.TestUSDC.bytecode, deployer).deploy(await nonce())).waitForDeployment()) as BaseContract & Contract;
  const bridge = (await (await new ContractFactory(c.SvcBridge.abi as never, c.SvcBridge.bytecode, deployer)
    .deploy(await usdc.getAddress(), SERVICE_CHAIN, signers.map((s) => s.address), [1, 1, 1, 1], await nonce())).waitForDeployment()) as BaseContract & Contract;
  const bridgeAddress = (await bridge.getAddress()).toLowerCase();
  const me = await deployer.getAddress();
  await (await usdc.getFunction('mint')(me, 1_000_000_000n, await nonce())).wait();
  await (await usdc.getFunction('approve')(bridgeAddress, 1_000_000_000n, await nonce())).wait();

  const rejects = (p: Promise<unknown>, re: RegExp, message = 'refused') => t.rejects(p, re, message);
  const user = '0x00000000000000000000000000000000000000c1';
  const r1 = await (await bridge.getFunction('deposit')(300_000_000n, user, await nonce())).wait();
  const r2 = await (await bridge.getFunction('deposit')(200_000_000n, user, await nonce())).wait();
  const events = [r1, r2].map((r) => bridge.interface.parseLog(r.logs.find((l: { address: string }) => l.address.toLowerCase() === bridgeAddress))!);
  t.same(events.map((e) => [e.name, e.args.getValue('depositId'), e.args.getValue('user').toLowerCase(), e.args.getValue('amount')]), [
    ['Deposit', 0n, user, 300_000_000n], ['Deposit', 1n, user, 200_000_000n],
  ]);
  await rejects(bridge.getFunction('deposit')(0n, user), /amount is zero/);

  const now = Number((await provider.getBlock('latest'))!.timestamp);
  const chain = { chainId: anvil.chainId, contract: bridgeAddress };
  const dest = '0x000000000000000000000000000000000000dead';
  const w = { withdrawalId: `0x${'42'.repeat(32)}`, destination: dest, amount: 99_000_000n * 100n, deadline: now + 3600 };
  const digest = withdrawalDigest(SERVICE_CHAIN, chain, w);
  const sigs = signers.map((s) => s.signingKey.sign(digest).serialized);
  const pay = async (list: string[], over: Partial<typeof w> = {}) => {
    const x = { ...w, ...over };
    return bridge.getFunction('withdraw')(x.withdrawalId, x.destination, x.amount / 100n, x.deadline, list, await nonce());
  };
  await rejects(pay(sigs.slice(0, 2)), /not enough voting power/, '2 of 4 is not more than 2/3');
  await rejects(pay([sigs[1]!, sigs[0]!, sigs[2]!]), /ascending signer order/, 'a signer twice or out of order');
  await rejects(pay([sigs[0]!, sigs[0]!, sigs[1]!]), /ascending signer order/);
  await rejects(pay(sigs.slice(0, 3), { amount: w.amount * 2n }), /ascending|not enough/, 'signatures over another amount');
  await rejects(pay(sigs.slice(0, 3), { destination: '0x000000000000000000000000000000000000beef' }), /ascending|not enough/, 'or another destination');
  await (await pay(sigs.slice(1, 4))).wait();
  t.equal(await usdc.getFunction('balanceOf')(dest), 99_000_000n, 'paid on 3 of 4');
  t.equal(await bridge.getFunction('withdrawn')(w.withdrawalId), true);
  await rejects(pay(sigs), /already withdrawn/, 'each id once');

  const late = { ...w, withdrawalId: `0x${'43'.repeat(32)}`, deadline: now + 10 };
  const lateSigs = signers.map((s) => s.signingKey.sign(withdrawalDigest(SERVICE_CHAIN, chain, late)).serialized);
  await anvil.rpc('evm_increaseTime', [60]);
  await anvil.rpc('evm_mine', []);
  await rejects(pay(lateSigs, late), /deadline passed/, 'never after the deadline');
  // A digest for another chain or contract does not pay here.
  const elsewhere = signers.map((s) => s.signingKey.sign(withdrawalDigest(SERVICE_CHAIN, { chainId: 1, contract: bridgeAddress }, { ...w, withdrawalId: `0x${'44'.repeat(32)}` })).serialized);
  await rejects(pay(elsewhere, { withdrawalId: `0x${'44'.repeat(32)}` }), /ascending|not enough/);

  // The validator set: replaced on a quorum of the current one, nonces in order.
  const next = [...signers.slice(0, 3)];
  const setDigest = (nonce: number) => {
    const domain = { name: 'SvcBridge', version: '1', chainId: anvil.chainId, verifyingContract: bridgeAddress };
    const types = { ValidatorSet: [{ name: 'serviceChainId', type: 'uint64' }, { name: 'nonce', type: 'uint64' }, { name: 'signersHash', type: 'bytes32' }, { name: 'powersHash', type: 'bytes32' }] };
    return { domain, types, value: { serviceChainId: SERVICE_CHAIN, nonce, signersHash: solidityPackedKeccak256(['address[]'], [next.map((s) => s.address)]), powersHash: solidityPackedKeccak256(['uint256[]'], [[5, 5, 5]]) } };
  };
  const d1 = setDigest(1);
  const setSigs = await Promise.all(signers.map((s) => s.signTypedData(d1.domain, d1.types, d1.value)));
  await rejects(bridge.getFunction('updateValidatorSet')(next.map((s) => s.address), [5, 5, 5], 2, setSigs.slice(0, 3)), /wrong validator set nonce/);
  await (await bridge.getFunction('updateValidatorSet')(next.map((s) => s.address), [5, 5, 5], 1, setSigs.slice(0, 3), await nonce())).wait();
  t.equal(await bridge.getFunction('totalPower')(), 15n);
  t.equal(await bridge.getFunction('powerOf')(signers[3]!.address), 0n, 'the removed signer has no power left');
});
