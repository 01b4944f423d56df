// The fast transfer path against the VM: the same blocks executed with and without it give the
// same block hashes (so state roots, transaction and receipt roots, blooms and gas used), the same
// stored receipts, senders and block RLP, the same outcomes (errors worded by the VM), and the
// same balances. The blocks mix fast transfers with everything the fast path hands to the VM.
import { rm } from 'node:fs/promises';
import t from 'tap';
import { Wallet, getCreateAddress, Transaction, type TransactionLike } from 'ethers';
import { createAddressFromString } from '@ethereumjs/util';
import { encodeReceipt } from '@ethereumjs/vm';
import { EvmChain, EvmStore, transferReceipt, type EvmGenesis } from '../../evm/index.ts';
import { bytesToHex, hexToBytes } from '../../primitives/index.ts';
import { tempDir, wallets } from '../support/node.ts';

const CHAIN_ID = 42069;
const GWEI = 1_000_000_000n;
const [alice, bob, carol, dave] = wallets as [Wallet, Wallet, Wallet, Wallet];
const poor = new Wallet(Wallet.createRandom().privateKey);
const genesis: EvmGenesis = {
  chainId: CHAIN_ID,
  genesisTime: Date.UTC(2026, 0, 1),
  gasLimit: 30_000_000n,
  minBaseFee: GWEI,
  alloc: [
    ...[alice, bob, carol, dave].map((w) => ({ address: w.address, balance: 10n ** 22n })),
    // Can pay for one transfer at 10 gwei, not two.
    { address: poor.address, balance: 21_000n * 10n * GWEI + 5n },
  ],
};

const nonces = new Map<string, number>();
async function sign(from: Wallet, fields: TransactionLike, nonce?: number): Promise<Uint8Array> {
  const n = nonce ?? nonces.get(from.address) ?? 0;
  if (nonce === undefined) nonces.set(from.address, n + 1);
  const tx = Transaction.from({ type: 2, chainId: CHAIN_ID, nonce: n, gasLimit: 21000, maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: 0n, value: 1n, ...fields });
  return hexToBytes(await from.signTransaction(tx));
}

// Contracts: runtime STOP (code, no logs), and runtime LOG0 (a log and a bloom).
const STOP_INIT = '0x600060005360016000f3';
const LOG_INIT = '0x6560006000a0006000526006601af3';
const fresh = () => Wallet.createRandom().address;
const precompile = '0x0000000000000000000000000000000000000004';

async function blocks(): Promise<Uint8Array[][]> {
  const stopAt = getCreateAddress({ from: dave.address, nonce: 0 });
  const logAt = getCreateAddress({ from: dave.address, nonce: 1 });
  const someone = fresh();
  return [
    // Fast only: new recipients, a self-transfer, tips to the (new) coinbase, legacy and 2930 types, a high gas limit.
    [
      await sign(alice, { to: someone, value: 5n }),
      await sign(bob, { to: fresh(), value: 7n, maxPriorityFeePerGas: 2n * GWEI }),
      await sign(carol, { to: carol.address, value: 3n }),
      await sign(alice, { to: bob.address, value: 10n ** 18n, gasLimit: 50_000 }),
      await sign(bob, { type: 0, to: someone, value: 1n, gasPrice: 3n * GWEI, maxFeePerGas: undefined, maxPriorityFeePerGas: undefined }),
      await sign(carol, { type: 1, to: someone, value: 2n, gasPrice: 2n * GWEI, accessList: [], maxFeePerGas: undefined, maxPriorityFeePerGas: undefined }),
    ],
    // Failures the VM words: a nonce gap, a spent nonce, a fee cap under the base fee, funds for one transfer only.
    [
      await sign(alice, { to: someone }, 99),
      await sign(alice, { to: someone }, 0),
      await sign(poor, { to: someone, value: 5n }, 0),
      await sign(poor, { to: someone, value: 1n }, 1),
      await sign(bob, { to: someone, value: 1n, maxFeePerGas: GWEI / 2n }, nonces.get(bob.address)),
      await sign(carol, { to: someone, value: 4n }),
    ],
    // Value 0 (to an existing account, and to a new one: not created), to a precompile, a 2930 access list.
    [
      await sign(alice, { to: bob.address, value: 0n }),
      await sign(alice, { to: fresh(), value: 0n }),
      await sign(bob, { to: precompile, value: 1n, gasLimit: 30_000 }),
      await sign(carol, { type: 1, to: someone, value: 2n, gasPrice: 2n * GWEI, accessList: [{ address: someone, storageKeys: [] }], gasLimit: 30_000, maxFeePerGas: undefined, maxPriorityFeePerGas: undefined }),
      await sign(carol, { to: someone, value: 2n }),
    ],
    // Contracts: deployments, then transfers to them (code: the VM) between fast transfers, one with a log.
    [
      await sign(dave, { to: null, data: STOP_INIT, value: 0n, gasLimit: 100_000 }),
      await sign(dave, { to: null, data: LOG_INIT, value: 0n, gasLimit: 100_000 }),
      await sign(alice, { to: someone, value: 1n }),
    ],
    [
      await sign(alice, { to: someone, value: 1n }),
      await sign(bob, { to: stopAt, value: 9n, gasLimit: 30_000 }),
      await sign(carol, { to: someone, value: 1n, maxPriorityFeePerGas: GWEI }),
      await sign(bob, { to: logAt, value: 9n, gasLimit: 30_000 }),
      await sign(bob, { to: logAt, value: 1n }),
      await sign(alice, { to: someone, value: 1n }),
      await sign(alice, { to: someone, value: 1n, data: '0x01', gasLimit: 30_000 }),
      await sign(carol, { to: someone, value: 1n }),
    ],
    // Fast again after blocks that ran the VM.
    [await sign(alice, { to: someone, value: 1n }), await sign(bob, { to: alice.address, value: 1n })],
  ];
}

async function open(t: { teardown(fn: () => unknown): void }, fastTransfers: boolean): Promise<EvmChain> {
  const dir = await tempDir();
  const store = new EvmStore(dir);
  await store.open();
  const chain = await EvmChain.open(store, genesis, [], { fastTransfers });
  t.teardown(async () => {
    await chain.flushed(); // block writes are queued behind execution
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  return chain;
}

t.test('the fast path gives the VM blocks, receipts, errors and state', async (t) => {
  const fast = await open(t, true);
  const vm = await open(t, false);
  const all = await blocks();
  const fastTxs: number[] = [];
  for (const [i, txs] of all.entries()) {
    const height = i + 1;
    const input = txs.map((bytes) => ({ bytes, publicKey: null }));
    const a = await fast.executeBlock(height, genesis.genesisTime + height * 1000, input, false);
    const b = await vm.executeBlock(height, genesis.genesisTime + height * 1000, input, false);
    t.equal(a.stateRoot, b.stateRoot, `block ${height}: state root`);
    t.equal(a.hash, b.hash, `block ${height}: block hash (roots, bloom, gas used)`);
    t.same(a.outcomes, b.outcomes, `block ${height}: outcomes`);
    t.same(a.stored, b.stored, `block ${height}: receipts, senders, RLP`);
    t.equal(bytesToHex(a.stored.rlp), bytesToHex(a.block.serialize()), `block ${height}: RLP as ethereumjs serializes`);
    t.equal(b.fastTxs, 0);
    fastTxs.push(a.fastTxs);
  }
  t.same(fastTxs, [6, 2, 2, 1, 4, 2], 'transactions that took the fast path, by block');
  const outcomes = (await fast.blockAt(2))?.block.transactions.length;
  t.equal(outcomes, 2, 'block 2 includes only the transactions that can run');
  t.ok((await fast.blockAt(4))?.stored.receipts.some((r) => r.contractAddress !== null), 'deployments ran');
  t.ok((await fast.blockAt(5))?.stored.receipts.some((r) => r.logs.length === 1), 'a log in a mixed block');
  t.ok((await fast.blockAt(5))?.stored.receipts.some((r) => r.status === 0), 'a failing call in a mixed block');
  for (const address of [alice.address, bob.address, carol.address, dave.address, poor.address, `0x${'00'.repeat(20)}`]) {
    const [x, y] = await Promise.all([fast, vm].map(async (c) => (await c.stateAt(c.head.header.stateRoot)).getAccount(createAddressFromString(address))));
    t.same([x?.nonce, x?.balance], [y?.nonce, y?.balance], `account ${address}`);
  }
  t.ok(((await (await fast.stateAt(fast.head.header.stateRoot)).getAccount(createAddressFromString(`0x${'00'.repeat(20)}`)))?.balance ?? 0n) > 0n, 'the coinbase was paid tips');
});

t.test('a sender known from the block (public key) gives the same block', async (t) => {
  const fast = await open(t, true);
  const vm = await open(t, false);
  const tx = await sign(alice, { to: bob.address, value: 1n }, 0);
  const decoded = fast.decodeTx(tx);
  const publicKey = bytesToHex(decoded.getSenderPublicKey());
  const a = await fast.executeBlock(1, genesis.genesisTime + 1000, [{ bytes: tx, publicKey, decoded: { tx: decoded, sender: alice.address.toLowerCase() } }], false);
  const b = await vm.executeBlock(1, genesis.genesisTime + 1000, [{ bytes: tx, publicKey: null }], false);
  t.equal(a.hash, b.hash);
  t.same(a.stored, b.stored);
});

t.test('a fast transfer receipt is encoded as encodeReceipt encodes it', async (t) => {
  for (const type of [0, 1, 2] as const) {
    for (const gas of [21_000n, 65_535n, 65_536n, 30_000_000n, 1_000_000_000n, 2n ** 64n - 1n]) {
      const expected = encodeReceipt({ status: 1, cumulativeBlockGasUsed: gas, bitvector: new Uint8Array(256), logs: [] }, type);
      t.equal(bytesToHex(transferReceipt(type, gas)), bytesToHex(expected), `type ${type}, cumulative gas ${gas}`);
    }
  }
});

t.test('random transfer blocks: the same blocks with and without the fast path', async (t) => {
  const fast = await open(t, true);
  const vm = await open(t, false);
  // Deterministic choices (xorshift), so a failure reproduces.
  let x = 2463534242;
  const rnd = (n: number) => {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    return x % n;
  };
  const senders = [alice, bob, carol, poor];
  const next = new Map<string, number>(senders.map((w) => [w.address, 0]));
  const targets = [alice.address, bob.address, dave.address, poor.address, ...Array.from({ length: 4 }, fresh)];
  let fastTotal = 0;
  for (let height = 1; height <= 8; height++) {
    const txs: Uint8Array[] = [];
    for (let i = 0; i < 25; i++) {
      const from = senders[rnd(senders.length)] as Wallet;
      // Now and then a nonce gap or a replayed nonce (left out), otherwise the next one.
      const n = next.get(from.address) as number;
      const nonce = rnd(12) === 0 ? n + 2 : rnd(12) === 0 && n > 0 ? n - 1 : n;
      if (nonce === n) next.set(from.address, n + 1);
      const value = [0n, 1n, 10n ** 18n, 10n ** 23n][rnd(4)] as bigint;
      const tip = [0n, 1n, GWEI][rnd(3)] as bigint;
      txs.push(await sign(from, { to: targets[rnd(targets.length)], value, gasLimit: 21_000 + rnd(3) * 10_000, maxPriorityFeePerGas: tip, maxFeePerGas: 10n * GWEI + tip }, nonce));
    }
    const input = txs.map((bytes) => ({ bytes, publicKey: null }));
    const a = await fast.executeBlock(height, genesis.genesisTime + height * 1000, input, false);
    const b = await vm.executeBlock(height, genesis.genesisTime + height * 1000, input, false);
    t.equal(a.hash, b.hash, `block ${height}: block hash`);
    t.same(a.outcomes, b.outcomes, `block ${height}: outcomes`);
    t.same(a.stored, b.stored, `block ${height}: receipts`);
    fastTotal += a.fastTxs;
    // A failed transaction leaves the sender's next nonce where the state has it.
    for (const w of senders) next.set(w.address, Number((await (await fast.stateAt(fast.head.header.stateRoot)).getAccount(createAddressFromString(w.address)))?.nonce ?? 0n));
  }
  t.ok(fastTotal > 50, `the fast path took its share of the 200 (${fastTotal}; the rest failed or went to the VM)`);
});

t.test('a block run, then committed with pauses, is the block executeBlock gives; the head moves at its end', async (t) => {
  const paused = await open(t, true);
  const whole = await open(t, true);
  const senders = [alice, bob, carol];
  const txs: Uint8Array[] = [];
  // To 90 new accounts: the state trie's batch pauses too (every 64 keys).
  for (let i = 0; i < 90; i++) txs.push(await sign(senders[i % 3] as Wallet, { to: fresh(), value: BigInt(i + 1) }, Math.floor(i / 3)));
  const input = txs.map((bytes) => ({ bytes, publicKey: null }));
  const before = await paused.headAccount(alice.address);
  const ran = await paused.runBlock(1, genesis.genesisTime + 1000, input, false);
  const seen: { height: number; balance: bigint | undefined }[] = [];
  const committed = await ran.commit(async () => {
    seen.push({ height: paused.height, balance: (await paused.headAccount(alice.address))?.balance });
    await new Promise((resolve) => setImmediate(resolve));
  });
  const reference = await whole.executeBlock(1, genesis.genesisTime + 1000, input, false);
  t.equal(committed.hash, reference.hash, 'same block hash');
  t.same(committed.stored, reference.stored, 'same stored block');
  t.same(committed.outcomes, reference.outcomes, 'same outcomes');
  t.same(ran.receipts, reference.stored.receipts, 'the run knew the receipts');
  t.same(ran.hashes, reference.outcomes.map((o) => o.hash), 'and the hashes');
  t.ok(seen.length >= 3, `the commit paused (${seen.length} times)`);
  t.ok(seen.every((s) => s.height === 0 && s.balance === before?.balance), 'readers saw the head before the block while it paused');
  t.equal(paused.height, 1, 'the head moved once the commit settled');
  t.not((await paused.headAccount(alice.address))?.balance, before?.balance, 'to the block\'s state');
});
