// The EVM as a real process: a restarted devnet serves the same EVM blocks, receipts and state,
// after a clean stop and after SIGKILL right after a receipt was served.
import { rm } from 'node:fs/promises';
import t from 'tap';
import { JsonRpcProvider, Wallet, parseEther, type TransactionReceipt } from 'ethers';
import { DEV_ACCOUNTS } from '../../genesis/index.ts';
import { tempDir } from '../support/node.ts';
import { spawnDevnet, type DevnetProcess } from '../support/process.ts';

/** The JSON-RPC URL from the banner (printed just after the REST line spawnDevnet waits for). */
async function provider(node: DevnetProcess): Promise<JsonRpcProvider> {
  const deadline = Date.now() + 10_000;
  let url: string | undefined;
  while ((url = /EVM JSON-RPC\s+(http:\/\/\S+)/.exec(node.output())?.[1]) === undefined) {
    if (Date.now() > deadline) throw new Error(`no JSON-RPC URL in:\n${node.output()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return new JsonRpcProvider(url, undefined, { staticNetwork: true, pollingInterval: 50, cacheTimeout: -1 });
}

t.test('EVM state, blocks and receipts survive restarts', async (t) => {
  const dataDir = await tempDir();
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const dest = Wallet.createRandom().address;

  let node = await spawnDevnet(['--data-dir', dataDir]);
  t.teardown(() => node.stop('SIGKILL'));
  let p = await provider(node);
  const first = (await (await new Wallet(DEV_ACCOUNTS[3]!.privateKey, p).sendTransaction({ to: dest, value: parseEther('3') })).wait()) as TransactionReceipt;
  const block = await p.getBlock(first.blockNumber);
  p.destroy();
  t.equal(await node.stop('SIGINT'), 0);

  node = await spawnDevnet(['--data-dir', dataDir]);
  p = await provider(node);
  t.equal(await p.getBalance(dest), parseEther('3'), 'balance after a clean restart');
  t.equal((await p.getTransactionReceipt(first.hash))?.blockHash, first.blockHash, 'receipt after a clean restart');
  t.equal((await p.getBlock(first.blockNumber))?.stateRoot, block?.stateRoot, 'same block');
  const second = (await (await new Wallet(DEV_ACCOUNTS[3]!.privateKey, p).sendTransaction({ to: dest, value: parseEther('4') })).wait()) as TransactionReceipt;
  p.destroy();
  await node.stop('SIGKILL');

  node = await spawnDevnet(['--data-dir', dataDir]);
  p = await provider(node);
  t.equal(await p.getBalance(dest), parseEther('7'), 'nothing acknowledged is lost after SIGKILL');
  t.equal((await p.getTransactionReceipt(second.hash))?.status, 1);
  const third = await (await new Wallet(DEV_ACCOUNTS[3]!.privateKey, p).sendTransaction({ to: dest, value: 1n })).wait();
  t.equal(third?.status, 1, 'and the chain goes on');
  p.destroy();
});
