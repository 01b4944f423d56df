// ethers v6 against a running node's JSON-RPC: chain id, balances, EIP-1559 transfers, a
// Solidity contract compiled here (deploy, call, logs, revert reason), wallet-facing errors.
import t from 'tap';
import { Contract, ContractFactory, JsonRpcProvider, Wallet, parseEther, type TransactionReceipt } from 'ethers';
import { DEV_ACCOUNTS } from '../../genesis/index.ts';
import { startNode } from '../support/node.ts';
import { compile } from '../support/solc.ts';

const SOURCE = `
pragma solidity ^0.8.20;
contract Counter {
  uint256 public value;
  event Set(address indexed who, uint256 value);
  function set(uint256 v) external {
    require(v != 13, "unlucky number");
    value = v;
    emit Set(msg.sender, v);
  }
  function prevHash() external view returns (bytes32) { return blockhash(block.number - 1); }
}`;

t.test('ethers: transfers, contract deploy/call/logs/revert, errors', async (t) => {
  const { node } = await startNode(t, { emptyBlockIntervalMs: 200 });
  // cacheTimeout -1: ethers otherwise reuses an identical request's answer for 250 ms, and blocks
  // here come faster than that (a nonce read before a deploy would be served again after it).
  const provider = new JsonRpcProvider(node.rpcUrl as string, undefined, { staticNetwork: true, pollingInterval: 50, cacheTimeout: -1 });
  t.teardown(() => provider.destroy());
  const alice = new Wallet(DEV_ACCOUNTS[0]!.privateKey, provider);
  const bob = new Wallet(DEV_ACCOUNTS[1]!.privateKey, provider);

  t.equal((await provider.getNetwork()).chainId, 42069n, 'chain id from the genesis');
  t.equal(await provider.getBalance(alice.address), parseEther('10000'), 'dev accounts funded');
  const latest = await provider.getBlock('latest');
  t.ok(latest !== null && latest.baseFeePerGas !== null && latest.baseFeePerGas > 0n, 'blocks carry baseFeePerGas');

  const dest = Wallet.createRandom().address;
  const sent = await alice.sendTransaction({ to: dest, value: parseEther('1.5') });
  t.equal(sent.type, 2, 'EIP-1559 by default');
  const receipt = (await sent.wait()) as TransactionReceipt;
  t.equal(receipt.status, 1);
  t.equal(receipt.gasUsed, 21000n);
  t.equal(receipt.logsBloom, `0x${'00'.repeat(256)}`, 'a transfer logs nothing: an all-zero bloom (stored without it)');
  t.equal(await provider.getBalance(dest), parseEther('1.5'));
  t.equal(await provider.getTransactionCount(alice.address), 1);
  const byHash = await provider.getTransaction(sent.hash);
  t.equal(byHash?.from.toLowerCase(), alice.address.toLowerCase());
  t.equal(byHash?.blockNumber, receipt.blockNumber);

  const { Counter } = compile(SOURCE);
  const factory = new ContractFactory(Counter!.abi as never, Counter!.bytecode, bob);
  const deployed = await factory.deploy();
  await deployed.waitForDeployment();
  const address = await deployed.getAddress();
  t.not(await provider.getCode(address), '0x', 'contract code stored');
  const counter = new Contract(address, Counter!.abi as never, bob);

  const setTx = await counter.getFunction('set')(42n);
  const setReceipt = (await setTx.wait()) as TransactionReceipt;
  t.equal(setReceipt.logs.length, 1);
  t.not(setReceipt.logsBloom, `0x${'00'.repeat(256)}`, 'a receipt with a log keeps its bloom');
  const parsed = counter.interface.parseLog(setReceipt.logs[0]!);
  t.equal(parsed?.name, 'Set');
  t.equal(parsed?.args[1], 42n);
  t.equal(await counter.getFunction('value')(), 42n, 'eth_call reads the stored value');
  t.equal(BigInt(await provider.getStorage(address, 0)), 42n, 'eth_getStorageAt');

  const n = await provider.getBlockNumber();
  t.equal(await counter.getFunction('prevHash')({ blockTag: n }), (await provider.getBlock(n - 1))?.hash, 'BLOCKHASH serves stored blocks');

  const logs = await provider.getLogs({ address, fromBlock: 0, toBlock: 'latest', topics: [counter.interface.getEvent('Set')!.topicHash] });
  t.equal(logs.length, 1, 'eth_getLogs finds the event');
  t.equal(logs[0]?.transactionHash, setReceipt.hash);

  const reverted = await counter.getFunction('set').staticCall(13n).catch((e: unknown) => e);
  t.match(reverted, { code: 'CALL_EXCEPTION', reason: 'unlucky number' }, 'eth_call revert reason decoded by ethers');
  const estimate = await counter.getFunction('set').estimateGas(13n).catch((e: unknown) => e);
  t.match(estimate, { code: 'CALL_EXCEPTION', reason: 'unlucky number' }, 'eth_estimateGas revert reason');
  const gas = await counter.getFunction('set').estimateGas(7n);
  t.ok(gas > 21000n && gas < 100000n, `estimate ${gas}`);

  // Wallet-facing rejections, in geth's words.
  const stale = await alice.sendTransaction({ to: dest, value: 1n, nonce: 0 }).catch((e: unknown) => e);
  t.match(stale, { code: 'NONCE_EXPIRED' }, 'nonce too low');
  const poor = new Wallet(Wallet.createRandom().privateKey, provider);
  const broke = await poor.sendTransaction({ to: dest, value: 1n, gasLimit: 21000n }).catch((e: unknown) => e);
  t.match(broke, { code: 'INSUFFICIENT_FUNDS' }, 'insufficient funds for gas * price + value');
});
