// EvmChain on its own: genesis funding, EIP-1559 transfers in blocks, receipts, rejected
// transactions left out, deterministic state roots, and the same state after reopening the store.
import { rm } from 'node:fs/promises';
import t from 'tap';
import { Wallet, parseEther, Transaction } from 'ethers';
import { createAddressFromString } from '@ethereumjs/util';
import { createBlock, createBlockFromRLP } from '@ethereumjs/block';
import { EvmChain, EvmStore, makeCommon, type EvmGenesis } from '../../evm/index.ts';
import { tempDir, wallets } from '../support/node.ts';
import { bytesToHex, hexToBytes } from '../../primitives/index.ts';

const genesis: EvmGenesis = {
  chainId: 42069,
  genesisTime: Date.UTC(2026, 0, 1),
  gasLimit: 30_000_000n,
  minBaseFee: 1_000_000_000n,
  alloc: wallets.map((w) => ({ address: w.address, balance: parseEther('10000') })),
};

async function transfer(from: Wallet, nonce: number, to: string, value: bigint): Promise<Uint8Array> {
  const raw = await from.signTransaction(Transaction.from({
    type: 2, chainId: 42069, nonce, to, value, gasLimit: 21000, maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n,
  }));
  return hexToBytes(raw);
}

async function balance(chain: EvmChain, address: string): Promise<bigint> {
  const sm = await chain.stateAt(chain.head.header.stateRoot);
  return (await sm.getAccount(createAddressFromString(address)))?.balance ?? 0n;
}

t.test('transfers execute in blocks with receipts and persist across reopen', async (t) => {
  const dir = await tempDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const [alice, bob] = wallets as [Wallet, Wallet];
  const dest = Wallet.createRandom().address;
  let store = new EvmStore(dir);
  await store.open();
  let chain = await EvmChain.open(store, genesis);
  t.equal(chain.height, 0);
  t.equal(await balance(chain, alice.address), parseEther('10000'));
  const genesisRoot = chain.stateRoot;

  const txs = [await transfer(alice, 0, dest, 5n), await transfer(alice, 1, dest, 7n), await transfer(bob, 5, dest, 1n)];
  const out = await chain.executeBlock(1, genesis.genesisTime + 1500, txs.map((bytes) => ({ bytes, publicKey: null })), true);
  t.equal(out.outcomes[0]?.error, null);
  t.equal(out.outcomes[1]?.error, null);
  t.match(out.outcomes[2]?.error, /nonce/, 'a wrong nonce is left out of the block');
  t.equal(out.block.transactions.length, 2);
  t.equal(out.stored.receipts[1]?.cumulativeGasUsed, 42000n, 'cumulative gas 42000');
  t.equal(out.block.header.timestamp, BigInt(Math.floor((genesis.genesisTime + 1500) / 1000)));
  t.not(out.stateRoot, genesisRoot);
  t.equal(await balance(chain, dest), 12n);
  const spent = parseEther('10000') - (await balance(chain, alice.address));
  t.equal(spent, 12n + 2n * 21000n * (1_000_000_000n + 1_000_000_000n), 'value plus base fee and tip per gas');

  const empty = await chain.executeBlock(2, genesis.genesisTime + 2000, [], false);
  t.equal(empty.stateRoot, out.stateRoot, 'an empty block keeps the state root');
  // Built on the decoding Common without createBlock: the block ethereumjs builds from the same header.
  const plain = createBlock({ header: { ...empty.block.header.toJSON() } }, { common: makeCommon(genesis.chainId) });
  t.equal(bytesToHex(empty.stored.rlp), bytesToHex(plain.serialize()), 'the empty block serializes as ethereumjs builds it');
  t.equal(empty.stored.hash, bytesToHex(plain.hash()), 'with its hash');
  t.equal(bytesToHex(createBlockFromRLP(empty.stored.rlp, { common: makeCommon(genesis.chainId) }).hash()), empty.hash, 'and decodes back to it');
  t.equal(await chain.findTx(`0x${Buffer.from(out.block.transactions[1]!.hash()).toString('hex')}`), undefined, 'no receipt before the node marks the block durable');
  t.equal(chain.readHeight, 0, 'nor does a reader see the executed blocks as latest (eth_blockNumber)');
  chain.markDurable(1);
  t.equal(chain.readHeight, 1, 'each as its consensus block becomes durable');
  // As the node does once the consensus block is on disk, which it writes after the EVM block's write.
  await Promise.all([out.written, empty.written]);
  chain.markDurable(2);
  t.equal(chain.readHeight, 2);
  const found = await chain.findTx(`0x${Buffer.from(out.block.transactions[1]!.hash()).toString('hex')}`);
  t.equal(found?.index, 1);
  await chain.flushed(); // block writes are queued behind execution
  await store.close();

  store = new EvmStore(dir);
  await store.open();
  chain = await EvmChain.open(store, genesis);
  t.equal(chain.height, 2, 'reopened at the stored head');
  t.equal(await balance(chain, dest), 12n, 'with the same state');
  t.equal((await chain.blockAt(1))?.stored.hash, out.hash);
  await chain.flushed(); // block writes are queued behind execution
  await store.close();

  // Same inputs on a fresh chain: same roots and hashes.
  const dir2 = await tempDir();
  t.teardown(() => rm(dir2, { recursive: true, force: true }));
  const store2 = new EvmStore(dir2);
  await store2.open();
  const again = await EvmChain.open(store2, genesis);
  const out2 = await again.executeBlock(1, genesis.genesisTime + 1500, txs.map((bytes) => ({ bytes, publicKey: null })), false);
  t.equal(out2.hash, out.hash, 'deterministic block hash');
  await again.flushed();
  await store2.close();
});
