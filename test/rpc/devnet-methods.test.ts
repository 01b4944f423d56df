// The devnet's anvil_* / hardhat_* / evm_* methods through viem's test client (anvil mode) and
// wallet client: each goes through a block as a devnet system transaction, so after a restart
// that replays every block from genesis (snapshot and EVM store removed) the node reaches the same
// state, the replay checking each block's app hash (which folds in the EVM state root).
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Level } from 'level';
import t from 'tap';
import {
  createPublicClient, createTestClient, createWalletClient, defineChain, http, parseEther, type Address, type Hex,
} from 'viem';
import { startNode, tempDir } from '../support/node.ts';
import { EthServer, type EthBackend } from '../../rpc/index.ts';
import { acceptDevnetTx, decodeDevnetTx, encodeDevnetTx } from '../../node/index.ts';
import { generateValidatorKey } from '../../consensus/index.ts';

// Runtime code that returns the word 42.
const RETURNS_42 = '0x602a60005260206000f3';

async function rpc(url: string, method: string, params: unknown[]): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
}

t.test('devnet methods through viem, replayed after a restart from genesis', async (t) => {
  const dataDir = await tempDir();
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const { node } = await startNode(t, { dataDir, emptyBlockIntervalMs: 60_000 });
  const url = node.rpcUrl as string;
  const chain = defineChain({ id: 42069, name: 'svc devnet', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [url] } } });
  const pub = createPublicClient({ chain, transport: http(url), pollingInterval: 50 });
  const test = createTestClient({ chain, mode: 'anvil', transport: http(url) });
  const whale = '0x00000000000000000000000000000000000c0ffe' as Address;
  const contract = '0x0000000000000000000000000000000000fa1742' as Address;
  const dest = '0x000000000000000000000000000000000000dea1' as Address;

  await test.setBalance({ address: whale, value: parseEther('123') });
  t.equal(await pub.getBalance({ address: whale }), parseEther('123'), 'anvil_setBalance');
  await test.setCode({ address: contract, bytecode: RETURNS_42 });
  t.equal(await pub.getCode({ address: contract }), RETURNS_42, 'anvil_setCode');
  t.equal(BigInt((await pub.call({ to: contract })).data as Hex), 42n, 'the code runs');
  const word = `0x${'ab'.repeat(32)}` as Hex;
  await test.setStorageAt({ address: contract, index: 7, value: word });
  t.equal(await pub.getStorageAt({ address: contract, slot: '0x7' }), word, 'anvil_setStorageAt');
  await test.setNonce({ address: whale, nonce: 5 });
  t.equal(await pub.getTransactionCount({ address: whale }), 5, 'anvil_setNonce');

  // Impersonation: eth_sendTransaction from an address nobody holds the key of.
  await test.impersonateAccount({ address: whale });
  const wallet = createWalletClient({ chain, transport: http(url) });
  const sent = await wallet.sendTransaction({ account: whale, to: dest, value: parseEther('2'), chain });
  const receipt = await pub.waitForTransactionReceipt({ hash: sent, pollingInterval: 50 });
  t.equal(receipt.status, 'success');
  t.equal(receipt.from, whale, 'sent as the impersonated account');
  t.equal(await pub.getBalance({ address: dest }), parseEther('2'));
  t.equal((await pub.getTransaction({ hash: sent })).from, whale);
  await test.stopImpersonatingAccount({ address: whale });
  const refused = await rpc(url, 'eth_sendTransaction', [{ from: whale, to: dest, value: '0x1' }]);
  t.match(refused.error?.message, /unknown account/, 'not after stopImpersonatingAccount');

  // The block clock: the next block's timestamp, then a shift forward.
  const head = await pub.getBlock();
  const next = head.timestamp + 1000n;
  await test.setNextBlockTimestamp({ timestamp: next });
  await test.mine({ blocks: 1 });
  const mined = await pub.getBlock();
  t.equal(mined.timestamp, next, 'evm_setNextBlockTimestamp then anvil_mine');
  await test.increaseTime({ seconds: 3600 });
  await test.mine({ blocks: 2 });
  const later = await pub.getBlock();
  t.ok(later.timestamp >= next + 3600n, 'evm_increaseTime');
  t.equal(later.number, mined.number + 3n, 'anvil_mine mines the blocks asked (one more carried the time shift)');
  const past = await rpc(url, 'evm_setNextBlockTimestamp', [Number(head.timestamp - 10n)]);
  t.match(past.error?.message, /only moves forward/, 'a timestamp in the past is refused');
  const evmMine = await rpc(url, 'evm_mine', []);
  t.equal(evmMine.result, '0x0');

  for (const m of ['evm_snapshot', 'evm_revert', 'anvil_reset']) {
    const r = await rpc(url, m, m === 'evm_revert' ? ['0x1'] : []);
    t.equal(r.error?.code, -32000, `${m} answers an error`);
    t.match(r.error?.message, /not supported/);
  }

  const before = {
    block: await pub.getBlock(),
    whale: await pub.getBalance({ address: whale }),
    dest: await pub.getBalance({ address: dest }),
    code: await pub.getCode({ address: contract }),
    slot: await pub.getStorageAt({ address: contract, slot: '0x7' }),
    nonce: await pub.getTransactionCount({ address: whale }),
    appHash: node.chain.storedHead.appHash,
  };
  await node.stop();
  // Replay everything: no exchange snapshot, no EVM store.
  const db = new Level<string, unknown>(join(dataDir, 'db'), { valueEncoding: 'json' });
  await db.sublevel<string, unknown>('meta', { valueEncoding: 'json' }).del('snapshot');
  await db.close();
  await rm(join(dataDir, 'evm'), { recursive: true, force: true });

  const again = await startNode(t, { dataDir, emptyBlockIntervalMs: 60_000 });
  t.equal(again.node.chain.storedHead.appHash, before.appHash, 'replay from genesis reaches the recorded app hash');
  const url2 = again.node.rpcUrl as string;
  const pub2 = createPublicClient({ chain, transport: http(url2) });
  const block = await pub2.getBlock({ blockNumber: before.block.number });
  t.equal(block.hash, before.block.hash, 'the same EVM block');
  t.equal(block.stateRoot, before.block.stateRoot);
  t.equal(block.timestamp, before.block.timestamp, 'the same clock');
  t.equal(await pub2.getBalance({ address: whale }), before.whale);
  t.equal(await pub2.getBalance({ address: dest }), before.dest);
  t.equal(await pub2.getCode({ address: contract }), before.code);
  t.equal(await pub2.getStorageAt({ address: contract, slot: '0x7' }), before.slot);
  t.equal(await pub2.getTransactionCount({ address: whale }), before.nonce);
  t.equal((await pub2.getTransactionReceipt({ hash: sent })).from, whale);
  // The clock shift is carried on: the next block is still ahead of consensus time.
  await createTestClient({ chain, mode: 'anvil', transport: http(url2) }).mine({ blocks: 1 });
  t.ok((await pub2.getBlock()).timestamp >= later.timestamp, 'the shifted clock continues after the restart');
});

t.test('a node without the devnet backend answers method-not-found; execution refuses devnet transactions off the devnet', async (t) => {
  // A network's node: its backend has no devnet part (node/node.ts gives one only to the single-validator devnet).
  const backend = { chain: {}, clientVersion: 'x', sendRawTransaction: async () => '0x', pendingNonce: () => undefined, pendingTx: () => undefined } as unknown as EthBackend;
  const server = new EthServer(backend, { onEvmBlock: () => () => {} }, { host: '127.0.0.1', port: 0, maxBodyBytes: 1 << 20, log: () => {}, maxBackpressure: 1 << 20, now: Date.now });
  const port = await server.listen();
  t.teardown(() => server.close());
  for (const m of ['anvil_setBalance', 'evm_mine', 'eth_sendTransaction', 'evm_snapshot', 'hardhat_setBalance', 'anvil_impersonateAccount']) {
    const out = await rpc(`http://127.0.0.1:${port}`, m, []);
    t.equal(out.error?.code, -32601, `${m}: -32601`);
  }
  const key = generateValidatorKey();
  const tx = decodeDevnetTx(encodeDevnetTx(7, key, { kind: 'setBalance', address: `0x${'11'.repeat(20)}`, balance: 5n }, 1, 0));
  t.ok(tx !== null);
  const validators = [{ pubKey: key.publicKey }];
  t.same(acceptDevnetTx(tx!, 7, true, validators), { kind: 'setBalance', address: `0x${'11'.repeat(20)}`, balance: 5n });
  t.match(acceptDevnetTx(tx!, 7, false, validators), /refused on this chain/);
  t.match(acceptDevnetTx(tx!, 8, true, validators), /not signed/, 'another chain id');
  t.match(acceptDevnetTx(tx!, 7, true, [{ pubKey: generateValidatorKey().publicKey }]), /not signed/, 'not a validator');
});
