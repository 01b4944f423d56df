// Admission of raw transactions as wallets see it: geth's wording for duplicates and underpriced
// replacements, a replacement that pays 10% more, and a nonce gap that waits until it is filled.
import t from 'tap';
import { JsonRpcProvider, Wallet, parseEther } from 'ethers';
import { DEV_ACCOUNTS } from '../../genesis/index.ts';
import { startNode } from '../support/node.ts';

type Sent = { result?: string; error?: { code: number; message: string } };

/** A devnet with its JSON-RPC provider, and `send`: one raw transaction, answered as geth words it. */
async function devnet(t: { teardown(fn: () => unknown): void }, batchDelayMs: number): Promise<{ provider: JsonRpcProvider; send: (raw: string) => Promise<Sent> }> {
  const { node } = await startNode(t, { emptyBlockIntervalMs: 100, batchDelayMs });
  const url = node.rpcUrl as string;
  const provider = new JsonRpcProvider(url, undefined, { staticNetwork: true, pollingInterval: 50, cacheTimeout: -1 });
  t.teardown(() => provider.destroy());
  const send = async (raw: string): Promise<Sent> => {
    const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: [raw] }) });
    return (await res.json()) as Sent;
  };
  return { provider, send };
}

t.test('txpool: already known, replacement, nonce gaps', async (t) => {
  const { provider, send } = await devnet(t, 200);
  const wallet = new Wallet(DEV_ACCOUNTS[4]!.privateKey);
  const to = Wallet.createRandom().address;
  // `m` scales both fee caps (10 gwei max fee, 1 gwei tip per unit).
  const sign = (nonce: number, m: bigint, value = 1n) => wallet.signTransaction({
    type: 2, chainId: 42069, nonce, to, value, gasLimit: 21000, maxFeePerGas: 10_000_000_000n * m, maxPriorityFeePerGas: 1_000_000_000n * m,
  });

  // Nonces 1 and 2 arrive before 0: they wait, then all three are mined in order.
  const gapped = await send(await sign(2, 1n));
  t.match(gapped, { result: /^0x[0-9a-f]{64}$/ }, 'a future nonce is accepted');
  t.match(await send(await sign(2, 1n)), { error: { code: -32000, message: 'already known' } });
  t.match(await send(await sign(2, 1n, 2n)), { error: { code: -32000, message: 'replacement transaction underpriced' } });
  const replaced = await send(await sign(2, 2n, 3n));
  t.match(replaced, { result: /^0x/ }, 'a replacement paying more than 10% more replaces it');
  await send(await sign(1, 1n));
  const first = await send(await sign(0, 1n));
  const receipt = await provider.waitForTransaction(replaced.result as string, 1, 15_000);
  t.equal(receipt?.status, 1, 'the gap filled, the replacement is mined');
  t.equal(await provider.getTransaction(gapped.result as string), null, 'the replaced transaction is gone');
  t.equal((await provider.getTransactionReceipt(first.result as string))?.status, 1);
  t.equal(await provider.getBalance(to), 1n + 1n + 3n);
  t.equal(await provider.getTransactionCount(wallet.address, 'pending'), 3);
  t.match(await send(await sign(0, 2n)), { error: { code: -32000, message: /^nonce too low/ } });
  const rich = parseEther('100000');
  t.match(await send(await sign(3, 1n, rich)), { error: { code: -32000, message: /^insufficient funds for gas \* price \+ value/ } });
});

t.test('txpool: legacy and EIP-2930 transactions recover their sender; unprotected legacy is refused', async (t) => {
  const { provider, send } = await devnet(t, 5);
  const wallet = new Wallet(DEV_ACCOUNTS[5]!.privateKey);
  const to = Wallet.createRandom().address;
  const gasPrice = 10_000_000_000n;
  const legacy = await send(await wallet.signTransaction({ type: 0, chainId: 42069, nonce: 0, to, value: 5n, gasLimit: 21000, gasPrice }));
  const accessList = await send(await wallet.signTransaction({ type: 1, chainId: 42069, nonce: 1, to, value: 7n, gasLimit: 30000, gasPrice, accessList: [{ address: to, storageKeys: [] }] }));
  for (const [name, sent] of [['legacy (EIP-155)', legacy], ['EIP-2930', accessList]] as const) {
    t.match(sent, { result: /^0x[0-9a-f]{64}$/ }, `${name} accepted`);
    const receipt = await provider.waitForTransaction(sent.result as string, 1, 15_000);
    t.equal(receipt?.status, 1, `${name} mined`);
    t.equal(receipt?.from.toLowerCase(), wallet.address.toLowerCase(), `${name}: its sender recovered`);
  }
  t.equal(await provider.getBalance(to), 12n);
  // Without a chain id (pre-EIP-155), as geth refuses it over RPC.
  const unprotected = await wallet.signTransaction({ type: 0, nonce: 2, to, value: 1n, gasLimit: 21000, gasPrice });
  t.match(await send(unprotected), { error: { code: -32000, message: 'only replay-protected (EIP-155) transactions allowed over RPC' } });
});
