// debug_traceTransaction of 1M-gas transactions over JSON-RPC (HTTP, the answer's JSON included):
// one that spends its gas on storage writes and hashing (what contracts mostly do), one on a tight
// arithmetic loop (the most opcode steps per gas, the struct logger's worst case). Each with the
// struct logger and callTracer; the median of 5 requests, wall clock from request to parsed
// answer; and the same call by eth_call without a tracer, the interpreter's own time. Then the
// same transactions on anvil (BENCH_SKIP_ANVIL=1 skips it), the named peer.
import { createRequire } from 'node:module';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Interface, JsonRpcProvider, Wallet } from 'ethers';
import { DEV_ACCOUNTS, devnetGenesis } from '../genesis/index.ts';
import { DEFAULT_NODE_CONFIG, SvcNode } from '../node/index.ts';
import { DEVNET_RATE_LIMITS } from '../rpc/index.ts';
import { startAnvil } from '../test/support/anvil.ts';

const SOURCE = `
pragma solidity ^0.8.20;
contract Burn {
  mapping(uint256 => uint256) s;
  function store(uint256 n) external { uint256 h; for (uint256 i = 0; i < n; i++) { h = uint256(keccak256(abi.encode(h, i))); s[i] = h; } }
  function spin(uint256 n) external pure returns (uint256 acc) { unchecked { for (uint256 i = 0; i < n; i++) { acc = acc * 31 + i; } } }
}`;

interface Solc { compile(input: string): string }

function compile(): { abi: unknown[]; bytecode: string } {
  const solc = createRequire(import.meta.url)('solc') as Solc;
  const out = JSON.parse(solc.compile(JSON.stringify({
    language: 'Solidity', sources: { 'b.sol': { content: SOURCE } },
    settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: 'prague', outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  }))) as { contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>> };
  const c = out.contracts['b.sol']!.Burn!;
  return { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
}

async function rpc(url: string, method: string, params: unknown[]): Promise<{ ms: number; bytes: number; result: unknown }> {
  const t0 = performance.now();
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const text = await res.text();
  const ms = performance.now() - t0;
  const body = JSON.parse(text) as { result?: unknown; error?: { message: string } };
  if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`);
  return { ms, bytes: text.length, result: body.result };
}

/** The largest n whose call stays within `gas` (binary search on eth_estimateGas). */
async function sizeFor(p: JsonRpcProvider, to: string, iface: Interface, fn: string, gas: bigint): Promise<number> {
  let lo = 1;
  let hi = 100_000;
  while (lo + 1 < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const est = await p.estimateGas({ to, data: iface.encodeFunctionData(fn, [mid]) }).catch(() => gas + 1n);
    if (est <= gas) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** Deploys the contract on the node at `url`, sends each 1M-gas transaction and times its traces. */
async function traceOn(label: string, url: string): Promise<void> {
  const p = new JsonRpcProvider(url, undefined, { staticNetwork: true, pollingInterval: 20 });
  try {
    const w = new Wallet(DEV_ACCOUNTS[0]!.privateKey, p);
    const { abi, bytecode } = compile();
    const iface = new Interface(abi as never);
    const deployed = await (await w.sendTransaction({ data: bytecode })).wait();
    const to = deployed!.contractAddress as string;
    for (const fn of (process.env.BENCH_TRACE_FNS ?? 'store,spin').split(',')) {
      const n = await sizeFor(p, to, iface, fn, 1_000_000n);
      const receipt = await (await w.sendTransaction({ to, data: iface.encodeFunctionData(fn, [n]), gasLimit: 1_000_000n })).wait();
      // The floor: the same call without a tracer (eth_call at the transaction's parent block).
      const calls: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        calls.push((await rpc(url, 'eth_call', [{ from: w.address, to, data: iface.encodeFunctionData(fn, [n]), gas: '0xf4240' }, `0x${(receipt!.blockNumber - 1).toString(16)}`])).ms);
      }
      calls.sort((a, b) => a - b);
      console.log(`${label} ${fn}(${n}): eth_call without a tracer: median ${calls[Math.floor(calls.length / 2)]!.toFixed(1)} ms (min ${calls[0]!.toFixed(1)})`);
      for (const [tracer, config] of [['struct logger', {}], ['callTracer', { tracer: 'callTracer' }]] as const) {
        const runs: number[] = [];
        let size = 0;
        let steps = 0;
        for (let i = 0; i < RUNS; i++) {
          const r = await rpc(url, 'debug_traceTransaction', [receipt!.hash, config]);
          runs.push(r.ms);
          size = r.bytes;
          steps = (r.result as { structLogs?: unknown[] }).structLogs?.length ?? 0;
        }
        runs.sort((a, b) => a - b);
        const mid = Math.floor(runs.length / 2);
        console.log(`${label} ${fn}(${n}): ${receipt!.gasUsed} gas, ${tracer}: median ${runs[mid]!.toFixed(1)} ms (min ${runs[0]!.toFixed(1)}, max ${runs[runs.length - 1]!.toFixed(1)}), ${(size / 1e6).toFixed(2)} MB${steps > 0 ? `, ${steps} steps` : ''}`);
      }
    }
  } finally {
    p.destroy();
  }
}

const RUNS = Number(process.env.BENCH_TRACE_RUNS ?? 5);

export async function benchEvmTrace(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-bench-trace-'));
  const node = await SvcNode.start({
    ...DEFAULT_NODE_CONFIG, genesis: devnetGenesis(), dataDir, restPort: 0, wsPort: null, rpcPort: 0, log: () => {}, oracleIntervalMs: 0, signerWorkers: 0, history: false, rateLimits: DEVNET_RATE_LIMITS,
  });
  try {
    await traceOn('svc', node.rpcUrl as string);
  } finally {
    await node.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
  if (process.env.BENCH_SKIP_ANVIL !== undefined) return;
  // The same transactions on anvil (its struct logger needs --steps-tracing), the wall clock of
  // the same client: a separate process, so its CPU is not this one's.
  const cleanups: (() => unknown)[] = [];
  try {
    const anvil = await startAnvil({ teardown: (fn) => cleanups.push(fn) }, 31337, ['--steps-tracing']);
    await traceOn('anvil', anvil.url);
  } catch (err) {
    console.log(`anvil could not run here: ${(err as Error).message}`);
  } finally {
    for (const fn of cleanups) await fn();
  }
}
