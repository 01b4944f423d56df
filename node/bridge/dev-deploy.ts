// A devnet's bridge on a local chain (anvil, hardhat): deployed once from the first development
// account (funded on those chains by the same mnemonic) and remembered in <data dir>/bridge.json,
// so a restart finds the same contracts. With no token given it deploys TestUSDC and mints each
// development account 1,000,000 USDC; the validator's bridge signer gets gas for payouts.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ContractFactory, Interface, Wallet } from 'ethers';
import type { Address } from '../../primitives/index.ts';
import { writeFileAtomic } from '../atomic-file.ts';
import { ChainRpc } from './json-rpc.ts';
import { sendTransaction, type BridgeChainConfig } from './relayer.ts';
import type { BridgeSignerKey } from './signer-key.ts';

export interface DevBridgeRecord {
  readonly url: string;
  readonly chainId: number;
  readonly contract: Address;
  readonly token: Address;
  readonly fromBlock: number;
}

export interface DevBridgeOptions {
  readonly url: string;
  readonly dataDir: string;
  /** Pays for the deployment (the first development account). */
  readonly deployer: BridgeSignerKey;
  /** The validator's bridge signer: the contract's only signer, funded with gas. */
  readonly signer: Address;
  readonly serviceChainId: number;
  /** Fund these with test USDC when it is deployed here. */
  readonly mintTo: readonly Address[];
  /** An existing USDC on that chain; absent: deploy TestUSDC. */
  readonly token?: Address;
  readonly log: (line: string) => void;
}

const MINT = 1_000_000n * 10n ** 6n;
const SIGNER_GAS = 10n ** 19n; // 10 ETH

async function receipt(rpc: ChainRpc, hash: string): Promise<{ contractAddress: string | null; blockNumber: string; status: string }> {
  const until = Date.now() + 60_000;
  for (;;) {
    const r = await rpc.call<{ contractAddress: string | null; blockNumber: string; status: string } | null>('eth_getTransactionReceipt', [hash]);
    if (r !== null) {
      if (r.status !== '0x1') throw new Error(`transaction ${hash} reverted`);
      return r;
    }
    if (Date.now() > until) throw new Error(`transaction ${hash} not mined within 60 s`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

async function readRecords(path: string): Promise<DevBridgeRecord[]> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as DevBridgeRecord[];
  } catch {
    return [];
  }
}

/** The bridge of `url` for this devnet: the recorded one when its code is still there, else a new deployment. */
export async function devBridge(o: DevBridgeOptions): Promise<BridgeChainConfig & { token: Address }> {
  const rpc = new ChainRpc(o.url);
  const path = join(o.dataDir, 'bridge.json');
  const records = await readRecords(path);
  let chainId: number;
  try {
    chainId = await rpc.chainId();
  } catch (err) {
    // Down at start: a bridge deployed there before is watched as it is (the relayer reports the chain down).
    const before = records.find((r) => r.url === o.url);
    if (before === undefined) throw err;
    return { url: o.url, chainId: before.chainId, confirmations: 1, contract: before.contract, fromBlock: before.fromBlock, token: before.token };
  }
  const known = records.find((r) => r.chainId === chainId);
  if (known !== undefined) {
    const code = await rpc.call<string>('eth_getCode', [known.contract, 'latest']);
    if (code !== '0x') return { url: o.url, chainId, confirmations: 1, contract: known.contract, fromBlock: known.fromBlock, token: known.token };
    throw new Error(`the bridge ${known.contract} this devnet registered for chain ${chainId} is no longer on ${o.url} (was that chain restarted?); start the devnet with --fresh`);
  }
  // Compiled only here: a node that merely relays needs no compiler.
  const { compileContracts } = await import('../../contracts/index.ts');
  const c = compileContracts();
  const deploy = async (bytecode: string, abi: readonly unknown[], args: unknown[]): Promise<{ address: string; block: number }> => {
    const tx = await new ContractFactory(abi as never, bytecode).getDeployTransaction(...args);
    const r = await receipt(rpc, await sendTransaction(rpc, chainId, o.deployer, null, tx.data));
    return { address: (r.contractAddress as string).toLowerCase(), block: Number(BigInt(r.blockNumber)) };
  };
  let token = o.token?.toLowerCase();
  let fromBlock = -1;
  if (token === undefined) {
    const t = await deploy(c.TestUSDC.bytecode, c.TestUSDC.abi, []);
    token = t.address;
    fromBlock = t.block;
    const usdc = new Interface(c.TestUSDC.abi as never);
    for (const to of o.mintTo) await receipt(rpc, await sendTransaction(rpc, chainId, o.deployer, token, usdc.encodeFunctionData('mint', [to, MINT])));
  }
  const bridge = await deploy(c.SvcBridge.bytecode, c.SvcBridge.abi, [token, o.serviceChainId, [o.signer], [1]]);
  if (fromBlock < 0) fromBlock = bridge.block;
  await receipt(rpc, await sendTransaction(rpc, chainId, o.deployer, o.signer, '0x', SIGNER_GAS));
  const record: DevBridgeRecord = { url: o.url, chainId, contract: bridge.address, token, fromBlock };
  await writeFileAtomic(path, `${JSON.stringify([...records, record], null, 2)}\n`);
  o.log(`bridge: deployed on chain ${chainId}: SvcBridge ${bridge.address}, USDC ${token}${o.token === undefined ? ' (TestUSDC, 1,000,000 minted to each development account)' : ''}`);
  return { url: o.url, chainId, confirmations: 1, contract: bridge.address, fromBlock, token };
}

/** The deployer's key as a bridge signer key shape (address and private key). */
export function deployerKey(privateKey: string): BridgeSignerKey {
  return { privateKey, address: new Wallet(privateKey).address.toLowerCase() };
}
