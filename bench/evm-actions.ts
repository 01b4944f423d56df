// Write actions from contracts against the same actions over /exchange, in one run (issue 22:
// "write actions from contracts at no less than a third of the rate of the same actions through
// /exchange"). The same ORDERS limit orders (BTC, 0.001 each, alternating sides around 100,000 so
// about half trade), spread over 8 accounts, first as signed REST orders (8 development wallets,
// CONCURRENCY in flight, each answered once its block commits), then on a fresh node as EVM
// transactions from SENDERS externally owned accounts, each calling one of 8 deployed contracts
// whose `limitOrder` sends the order through the write system contract (signed up front with
// ethers, sent with eth_sendRawTransaction in batches of 200, 4 in flight; counted when every
// sender's nonce shows its transactions mined: a mined EVM block's actions ran in the same block).
import { rm } from 'node:fs/promises';
import { ContractFactory, Interface, JsonRpcProvider, NonceManager, Wallet, type InterfaceAbi } from 'ethers';
import { DEV_ACCOUNTS, devnetGenesis } from '../genesis/index.ts';
import { DEFAULT_NODE_CONFIG, SvcNode } from '../node/index.ts';
import { DEVNET_RATE_LIMITS } from '../rpc/index.ts';
import { signRequest } from '../test/support/signing.ts';
import { tempDir } from '../test/support/node.ts';
import { compile } from '../test/support/solc.ts';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 4000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 128);
const SENDERS = Number(process.env.BENCH_EVM_SENDERS ?? 64);
const ACCOUNTS = 8;
const BATCH = 200;
const CHAIN_ID = 42069;

const SOURCE = `
pragma solidity ^0.8.20;
interface ICoreWriter { function sendRawAction(bytes calldata data) external; }
contract Trader {
  function limitOrder(uint32 asset, bool isBuy, uint64 limitPx, uint64 sz, bool reduceOnly, uint8 tif, uint128 cloid) external {
    ICoreWriter(0x3333333333333333333333333333333333333333).sendRawAction(abi.encodePacked(uint8(1), uint24(1), abi.encode(asset, isBuy, limitPx, sz, reduceOnly, tif, cloid)));
  }
}`;

/** The i-th order of the workload: side and price (the same for both paths). */
function order(i: number): { isBuy: boolean; px: number } {
  const isBuy = i % 2 === 0;
  return { isBuy, px: isBuy ? 100000 + (i % 7) * 10 : 100000 + (i % 5) * 10 };
}

async function startNode(senders: readonly string[]): Promise<{ node: SvcNode; dataDir: string }> {
  const dataDir = await tempDir('svc-bench-');
  const genesis = devnetGenesis();
  // A 1G-gas block, so block size does not cap the EVM rate; the senders funded.
  const evm = genesis.evm as NonNullable<typeof genesis.evm>;
  genesis.evm = { ...evm, gasLimit: '1000000000', alloc: [...evm.alloc, ...senders.map((address) => ({ address, balance: '1000000000000000000000' }))] };
  const node = await SvcNode.start({ ...DEFAULT_NODE_CONFIG, genesis, dataDir, restPort: 0, wsPort: null, rpcPort: 0, log: () => {}, rateLimits: DEVNET_RATE_LIMITS });
  return { node, dataDir };
}

async function restRun(wallets: readonly Wallet[]): Promise<{ seconds: number; failures: number; blocks: number }> {
  const { node, dataDir } = await startNode([]);
  try {
    const base = Date.now();
    const bodies: string[] = [];
    for (let i = 0; i < ORDERS; i++) {
      const { isBuy, px } = order(i);
      const action = { type: 'order', orders: [{ a: 0, b: isBuy, p: String(px), s: '0.001', r: false, t: { limit: { tif: 'Gtc' } } }], grouping: 'na' };
      bodies.push(JSON.stringify(await signRequest(wallets[i % ACCOUNTS] as Wallet, action, base + i)));
    }
    const url = `${node.restUrl}/exchange`;
    const h0 = node.height;
    let next = 0;
    let failures = 0;
    const started = performance.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < bodies.length) {
        const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: bodies[next++] as string });
        const json = (await res.json()) as { status?: string; response?: { data?: { statuses?: { error?: string }[] } } };
        if (json.status !== 'ok' || json.response?.data?.statuses?.[0]?.error !== undefined) failures++;
      }
    }));
    return { seconds: (performance.now() - started) / 1000, failures, blocks: node.height - h0 };
  } finally {
    await node.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function evmRun(wallets: readonly Wallet[]): Promise<{ seconds: number; failures: number; blocks: number; errors: string[] }> {
  const senders = Array.from({ length: SENDERS }, () => new Wallet(Wallet.createRandom().privateKey));
  const { node, dataDir } = await startNode(senders.map((s) => s.address));
  try {
    const url = node.rpcUrl as string;
    const provider = new JsonRpcProvider(url, undefined, { staticNetwork: true, pollingInterval: 50 });
    const deployer = new NonceManager((wallets[0] as Wallet).connect(provider));
    const { Trader } = compile(SOURCE);
    const factory = new ContractFactory(Trader!.abi as InterfaceAbi, Trader!.bytecode, deployer);
    const contracts: string[] = [];
    for (let i = 0; i < ACCOUNTS; i++) {
      const c = await factory.deploy();
      await c.waitForDeployment();
      contracts.push((await c.getAddress()).toLowerCase());
    }
    // Each contract's exchange account: activated and funded like a development wallet's share.
    for (const [i, c] of contracts.entries()) {
      const body = await signRequest(wallets[i] as Wallet, { type: 'usdTransfer', destination: c, amount: '100000' }, Date.now() + i);
      const res = (await (await fetch(`${node.restUrl}/exchange`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })).json()) as { status: string };
      if (res.status !== 'ok') throw new Error(`funding ${c}: ${JSON.stringify(res)}`);
    }
    provider.destroy();
    const iface = new Interface(Trader!.abi as InterfaceAbi);
    const raws: string[] = [];
    const counts = new Array<number>(SENDERS).fill(0);
    for (let i = 0; i < ORDERS; i++) {
      const { isBuy, px } = order(i);
      const s = i % SENDERS;
      const data = iface.encodeFunctionData('limitOrder', [0, isBuy, BigInt(px) * 100_000_000n, 100_000n, false, 2, 0]);
      raws.push(await (senders[s] as Wallet).signTransaction({ type: 2, chainId: CHAIN_ID, nonce: counts[s]!++, to: contracts[i % ACCOUNTS], data, gasLimit: 200_000, maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 0n }));
    }
    const batches: string[] = [];
    for (let i = 0; i < raws.length; i += BATCH) batches.push(JSON.stringify(raws.slice(i, i + BATCH).map((raw, id) => ({ jsonrpc: '2.0', id, method: 'eth_sendRawTransaction', params: [raw] }))));
    const errors: string[] = [];
    const h0 = node.height;
    const started = performance.now();
    let next = 0;
    await Promise.all(Array.from({ length: 4 }, async () => {
      while (next < batches.length) {
        const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: batches[next++] as string });
        for (const r of (await res.json()) as { error?: { message: string } }[]) if (r.error !== undefined && errors.length < 5) errors.push(r.error.message);
      }
    }));
    let pending = senders.map((s, i) => ({ address: s.address, count: counts[i] as number }));
    const deadline = performance.now() + 300_000;
    while (pending.length > 0 && performance.now() < deadline) {
      const out = (await (await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(pending.map((s, id) => ({ jsonrpc: '2.0', id, method: 'eth_getTransactionCount', params: [s.address, 'latest'] }))) })).json()) as { id: number; result: string }[];
      const done = new Set(out.filter((r) => Number(r.result) >= (pending[r.id] as { count: number }).count).map((r) => r.id));
      pending = pending.filter((_, i) => !done.has(i));
      if (pending.length > 0) await new Promise((r) => setTimeout(r, 20));
    }
    const seconds = (performance.now() - started) / 1000;
    if (pending.length > 0) errors.push(`${pending.length} senders not fully mined after 300 s`);
    // Every order reached the exchange: the contracts' recorded actions (the last 100 each) all ran.
    let failures = 0;
    for (const c of contracts) {
      for (const r of node.chain.evmActions.of(c)) {
        const res = r.result as { status: string; response?: { data?: { statuses?: { error?: string }[] } } };
        if (res.status !== 'ok' || res.response?.data?.statuses?.[0]?.error !== undefined) failures++;
      }
    }
    return { seconds, failures, blocks: node.height - h0, errors };
  } finally {
    await node.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

export async function benchEvmActions(): Promise<void> {
  const wallets = DEV_ACCOUNTS.slice(0, ACCOUNTS).map((a) => new Wallet(a.privateKey));
  const rest = await restRun(wallets);
  const evm = await evmRun(wallets);
  const restRate = ORDERS / rest.seconds;
  const evmRate = ORDERS / evm.seconds;
  console.table({
    'REST /exchange orders': { orders: ORDERS, seconds: rest.seconds.toFixed(2), 'orders/s': Math.round(restRate), blocks: rest.blocks, failures: rest.failures },
    'contract orders (CoreWriter)': { orders: ORDERS, seconds: evm.seconds.toFixed(2), 'orders/s': Math.round(evmRate), blocks: evm.blocks, failures: evm.failures },
  });
  console.log(`contract / REST rate: ${(evmRate / restRate).toFixed(2)} (target >= 0.33)${evm.errors.length > 0 ? `; errors: ${evm.errors.join('; ')}` : ''}`);
}
