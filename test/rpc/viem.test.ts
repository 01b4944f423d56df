// viem against a running node: chain id, balances, an EIP-1559 transfer, a contract compiled here
// that reads the exchange's oracle price through the precompile at 0x…0807, and WebSocket
// subscriptions (newHeads and logs) with viem's watchers.
import t from 'tap';
import {
  createPublicClient, createWalletClient, defineChain, http, parseEther, webSocket, type Abi, type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { DEV_ACCOUNTS } from '../../genesis/index.ts';
import { startNode } from '../support/node.ts';
import { waitFor } from '../support/network.ts';
import { compile } from '../support/solc.ts';

const SOURCE = `
pragma solidity ^0.8.20;
contract OracleReader {
  event Price(uint32 indexed perp, uint64 px);
  function oracle(uint32 perp) public view returns (uint64) {
    (bool ok, bytes memory out) = address(0x0807).staticcall(abi.encode(perp));
    require(ok, "precompile failed");
    return abi.decode(out, (uint64));
  }
  function record(uint32 perp) external { emit Price(perp, oracle(perp)); }
}`;

t.test('viem: transfer, precompile-reading contract, subscriptions', async (t) => {
  const { node, client: rest } = await startNode(t, { emptyBlockIntervalMs: 200 });
  const url = node.rpcUrl as string;
  const chain = defineChain({ id: 42069, name: 'svc devnet', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [url], webSocket: [url.replace('http', 'ws')] } } });
  const pub = createPublicClient({ chain, transport: http(url), pollingInterval: 50 });
  const wsClient = createPublicClient({ chain, transport: webSocket(url.replace('http', 'ws')) });
  t.teardown(async () => (await wsClient.transport.getRpcClient()).close());
  const account = privateKeyToAccount(DEV_ACCOUNTS[2]!.privateKey as Hex);
  const wallet = createWalletClient({ chain, account, transport: http(url) });

  t.equal(await pub.getChainId(), 42069);
  t.equal(await pub.getBalance({ address: account.address }), parseEther('10000'));

  const heads: bigint[] = [];
  const stopHeads = wsClient.watchBlocks({ onBlock: (b) => void heads.push(b.number), emitOnBegin: false });
  t.teardown(stopHeads);

  const to = privateKeyToAccount(`0x${'42'.repeat(32)}`).address;
  const hash = await wallet.sendTransaction({ to, value: parseEther('2') });
  const receipt = await pub.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  t.equal(receipt.status, 'success');
  t.equal(receipt.type, 'eip1559');
  t.equal(await pub.getBalance({ address: to }), parseEther('2'));

  const { OracleReader } = compile(SOURCE);
  const abi = OracleReader!.abi as Abi;
  const deployHash = await wallet.deployContract({ abi, bytecode: OracleReader!.bytecode as Hex });
  const address = (await pub.waitForTransactionReceipt({ hash: deployHash, pollingInterval: 50 })).contractAddress as Hex;

  const meta = (await rest.info({ type: 'metaAndAssetCtxs' })).body;
  const btcOracle = meta[1][0].oraclePx as string; // BTC: szDecimals 5, so prices in 10^-1 USD
  const expected = BigInt(Math.round(Number(btcOracle) * 10));
  t.equal(await pub.readContract({ address, abi, functionName: 'oracle', args: [0] }), expected, 'the contract reads the BTC oracle price through 0x…0807');
  const raw = await pub.call({ to: '0x0000000000000000000000000000000000000807', data: `0x${'0'.repeat(64)}` });
  t.equal(BigInt(raw.data as Hex), expected, 'and so does a direct eth_call');
  const bad = await pub.readContract({ address, abi, functionName: 'oracle', args: [999] }).catch((e: Error) => e);
  t.match(String(bad), /precompile failed/, 'an unknown perp fails the precompile; the revert reason reaches viem');

  const events: unknown[] = [];
  const stopLogs = wsClient.watchContractEvent({ address, abi, eventName: 'Price', onLogs: (logs) => void events.push(...logs) });
  t.teardown(stopLogs);
  await waitFor('a newHeads notification', () => (heads.length > 0 ? true : undefined));
  const recordHash = await wallet.writeContract({ address, abi, functionName: 'record', args: [1] });
  await pub.waitForTransactionReceipt({ hash: recordHash, pollingInterval: 50 });
  const ev = await waitFor('the Price log over the logs subscription', () => events[0] as { args: { perp: number; px: bigint }; transactionHash: Hex } | undefined);
  t.equal(ev.args.perp, 1);
  t.equal(ev.transactionHash, recordHash);
  t.ok(ev.args.px > 0n, 'ETH oracle price logged');
  // viem fetches each head's block before calling onBlock, and those answers may come back out of
  // order; what the node guarantees is one notification per block, none missed.
  const sorted = [...heads].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  t.ok(sorted.every((h, i) => i === 0 || h === (sorted[i - 1] as bigint) + 1n), `newHeads arrive one per block, none missed: ${heads.join(', ')}`);
});
