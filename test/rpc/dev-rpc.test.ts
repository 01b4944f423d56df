// The developer JSON-RPC through viem: eth_getProof (proofs checked against the block's state
// root with @ethereumjs/mpt's verifier), eth_createAccessList, pending-transaction filters and
// the newPendingTransactions subscription, and eth_simulateV1 (viem's simulateCalls and
// simulateBlocks).
import t from 'tap';
import { verifyMerkleProof } from '@ethereumjs/mpt';
import {
  createPublicClient, createWalletClient, defineChain, fromRlp, hexToBigInt, http, keccak256, parseEther, toHex, webSocket, type Abi, type Address, type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { DEV_ACCOUNTS } from '../../genesis/index.ts';
import { startNode } from '../support/node.ts';
import { waitFor } from '../support/network.ts';
import { compile } from '../support/solc.ts';

const SOURCE = `
pragma solidity ^0.8.20;
contract Store {
  uint256 public a = 5;
  mapping(uint256 => uint256) public m;
  event Put(uint256 k, uint256 v);
  function put(uint256 k, uint256 v) external { m[k] = v; emit Put(k, v); }
  function sum(uint256 k) external view returns (uint256) { return a + m[k]; }
  function fail() external pure { revert("no way"); }
}`;

const bytes = (h: string) => new Uint8Array(Buffer.from(h.slice(2), 'hex'));
/** An RLP integer (empty for zero). */
const int = (h: Hex) => (h === '0x' ? 0n : hexToBigInt(h));

t.test('getProof, createAccessList, pending transactions, simulateV1 through viem', async (t) => {
  const { node } = await startNode(t, { emptyBlockIntervalMs: 200 });
  const url = node.rpcUrl as string;
  const chain = defineChain({ id: 42069, name: 'svc devnet', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [url], webSocket: [url.replace('http', 'ws')] } } });
  const pub = createPublicClient({ chain, transport: http(url), pollingInterval: 50 });
  const account = privateKeyToAccount(DEV_ACCOUNTS[4]!.privateKey as Hex);
  const wallet = createWalletClient({ chain, account, transport: http(url) });
  const { Store } = compile(SOURCE);
  const abi = Store!.abi as Abi;
  const deployed = await pub.waitForTransactionReceipt({ hash: await wallet.deployContract({ abi, bytecode: Store!.bytecode as Hex }), pollingInterval: 50 });
  const store = deployed.contractAddress as Address;
  await pub.waitForTransactionReceipt({ hash: await wallet.writeContract({ abi, address: store, functionName: 'put', args: [3n, 40n] }), pollingInterval: 50 });

  t.test('eth_getProof verifies against the block state root', async (t) => {
    const block = await pub.getBlock();
    const slot = keccak256(`0x${(3n).toString(16).padStart(64, '0')}${(1n).toString(16).padStart(64, '0')}` as Hex); // m[3]
    const proof = await pub.getProof({ address: store, storageKeys: [toHex(0n, { size: 32 }), slot, toHex(99n, { size: 32 })], blockNumber: block.number });
    t.equal(keccak256(proof.accountProof[0]!), block.stateRoot, 'the proof starts at the block\'s state root');
    const leaf = await verifyMerkleProof(bytes(keccak256(store)), proof.accountProof.map(bytes));
    t.ok(leaf !== null, 'the account is in the trie');
    const [nonce, balance, storageRoot, codeHash] = fromRlp(toHex(leaf!)) as Hex[];
    t.equal(int(nonce!), BigInt(proof.nonce));
    t.equal(int(balance!), proof.balance);
    t.equal(storageRoot, proof.storageHash);
    t.equal(codeHash, keccak256((await pub.getCode({ address: store }))!));
    const values = [5n, 40n, 0n];
    for (const [i, sp] of proof.storageProof.entries()) {
      t.equal(sp.value, values[i], `slot ${i} value`);
      if (sp.value === 0n) {
        t.equal(await verifyMerkleProof(bytes(keccak256(sp.key as Hex)), sp.proof.map(bytes)), null, 'an empty slot is proven absent');
        continue;
      }
      t.equal(keccak256(sp.proof[0]!), proof.storageHash, 'the storage proof starts at the storage root');
      const v = await verifyMerkleProof(bytes(keccak256(sp.key as Hex)), sp.proof.map(bytes));
      t.equal(int(fromRlp(toHex(v!)) as Hex), sp.value, `slot ${i} proven`);
    }
    const absent = await pub.getProof({ address: '0x00000000000000000000000000000000deadbeef', storageKeys: [], blockNumber: block.number });
    t.equal(await verifyMerkleProof(bytes(keccak256('0x00000000000000000000000000000000deadbeef')), absent.accountProof.map(bytes)), null, 'an absent account is proven absent');
  });

  t.test('eth_createAccessList', async (t) => {
    const data = (await import('viem')).encodeFunctionData({ abi, functionName: 'sum', args: [3n] });
    const list = await pub.createAccessList({ account: account.address, to: store, data });
    const slot = keccak256(`0x${(3n).toString(16).padStart(64, '0')}${(1n).toString(16).padStart(64, '0')}` as Hex);
    t.equal(list.accessList.length, 1);
    t.equal(list.accessList[0]!.address, store.toLowerCase(), 'the contract');
    t.same([...list.accessList[0]!.storageKeys].sort(), [toHex(0n, { size: 32 }), slot].sort(), 'the slots the call reads');
    const without = await pub.estimateGas({ account: account.address, to: store, data });
    t.ok(list.gasUsed > 0n && list.gasUsed < without + 5000n, `gas used with the list: ${list.gasUsed}`);
  });

  t.test('pending transactions: polling filter and subscription', async (t) => {
    const ws = createPublicClient({ chain, transport: webSocket(url.replace('http', 'ws')) });
    t.teardown(async () => (await ws.transport.getRpcClient()).close());
    const seen: Hex[] = [];
    const stop = ws.watchPendingTransactions({ onTransactions: (hashes) => void seen.push(...hashes) });
    t.teardown(stop);
    const filter = await pub.createPendingTransactionFilter();
    await new Promise((r) => setTimeout(r, 200)); // the subscription's request goes out first (no answer to wait for)
    const hash = await wallet.sendTransaction({ to: '0x000000000000000000000000000000000000beef', value: 1n });
    await waitFor('the subscription', () => (seen.includes(hash) ? true : undefined));
    t.ok(seen.includes(hash), 'newPendingTransactions pushed the hash');
    t.ok((await pub.getFilterChanges({ filter })).includes(hash), 'eth_newPendingTransactionFilter collected it');
    t.same(await pub.getFilterChanges({ filter }), [], 'and only once');
  });

  t.test('eth_simulateV1 through simulateCalls and simulateBlocks', async (t) => {
    const dest = '0x000000000000000000000000000000000000d00d' as Address;
    const sim = await pub.simulateCalls({
      account: account.address,
      traceTransfers: true,
      calls: [
        { to: dest, value: parseEther('1') },
        { to: store, abi, functionName: 'put', args: [3n, 60n] },
        { to: store, abi, functionName: 'sum', args: [3n] },
        { to: store, abi, functionName: 'fail' },
      ],
    });
    t.equal(sim.results[0]!.status, 'success');
    t.match(sim.results[0]!.logs?.[0], { address: '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee' }, 'the ETH transfer as an ERC-7528 log');
    t.equal(sim.results[1]!.logs?.length, 1, 'the Put log');
    t.equal(sim.results[2]!.result, 65n, 'a later call sees an earlier one\'s state');
    t.equal(sim.results[3]!.status, 'failure');
    t.match(String(sim.results[3]!.error), /no way/);
    t.equal(await pub.readContract({ abi, address: store, functionName: 'sum', args: [3n] }), 45n, 'nothing was committed');

    const head = await pub.getBlock();
    const blocks = await pub.simulateBlocks({
      blocks: [
        { calls: [{ account: account.address, to: store, abi, functionName: 'put', args: [7n, 1n] }] },
        { blockOverrides: { time: head.timestamp + 100n }, stateOverrides: [{ address: store, stateDiff: [{ slot: toHex(0n, { size: 32 }), value: toHex(1000n, { size: 32 }) }] }], calls: [{ to: store, abi, functionName: 'sum', args: [7n] }] },
      ],
    });
    t.equal(blocks.length, 2);
    t.equal(blocks[0]!.number, head.number + 1n);
    t.equal(blocks[1]!.number, head.number + 2n);
    t.equal(blocks[1]!.timestamp, head.timestamp + 100n, 'block overrides');
    t.equal(blocks[1]!.calls[0]!.result, 1001n, 'state overrides and the earlier block\'s writes');
  });
});
