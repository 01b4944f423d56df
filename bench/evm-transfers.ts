// Simple EVM transfers submitted with eth_sendRawTransaction and mined, on this node and on anvil
// (npm @foundry-rs/anvil-linux-amd64, 1-second blocks; see ANVIL_MINING), with the same signed transactions, side
// by side in one run. Transactions are signed up front (native secp256k1) from many senders, sent
// in batches of BATCH over HTTP, and counted as mined when every
// sender's nonce (eth_getTransactionCount latest) has reached its count.
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTx } from '@ethereumjs/tx';
import { bytesToHex, privateToAddress } from '@ethereumjs/util';
import { makeCommon } from '../evm/index.ts';
import { devnetGenesis } from '../genesis/index.ts';

/**
 * 40,000 by default: anvil mines on one-second boundaries, so a run of 10,000 ends on its second
 * or third (5,000 or 3,333 a second whatever it spends), and such a run measures this node's
 * warm-up more than its rate.
 */
const N = Number(process.env.BENCH_EVM_TXS ?? 40_000);
const SENDERS = Number(process.env.BENCH_EVM_SENDERS ?? 500);
const BATCH = 200;
/** Batches in flight at once (HTTP requests); the transactions are in nonce-major order. */
const CONCURRENCY = Number(process.env.BENCH_EVM_CONCURRENCY ?? 4);
const CHAIN_ID = 42069;

interface NativeSign {
  ecdsaSign(msg: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number };
  privateKeyVerify(key: Uint8Array): boolean;
}

interface Workload {
  readonly senders: { address: string; count: number }[];
  /** Raw transactions, interleaved across senders (nonce-major). */
  readonly raws: string[];
}

function sign(): Workload {
  const native = createRequire(import.meta.url)('secp256k1/bindings.js') as NativeSign;
  const common = makeCommon(CHAIN_ID);
  const keys = Array.from({ length: SENDERS }, () => {
    let k: Buffer;
    do k = randomBytes(32);
    while (!native.privateKeyVerify(k));
    return k;
  });
  const perSender = Math.ceil(N / SENDERS);
  const to = bytesToHex(randomBytes(20));
  const raws: string[] = [];
  for (let nonce = 0; nonce < perSender; nonce++) {
    for (const key of keys) {
      if (raws.length >= N) break;
      const tx = createTx({ type: 2, chainId: BigInt(CHAIN_ID), nonce: BigInt(nonce), to, value: 1n, gasLimit: 21000n, maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 0n }, { common });
      const { signature, recid } = native.ecdsaSign(tx.getHashedMessageToSign(), key);
      const signed = tx.addSignature(BigInt(recid), signature.subarray(0, 32), signature.subarray(32));
      raws.push(bytesToHex(signed.serialize()));
    }
  }
  const senders = keys.map((k, i) => ({ address: bytesToHex(privateToAddress(k)), count: Math.floor(N / SENDERS) + (i < N % SENDERS ? 1 : 0) }));
  return { senders, raws };
}

/**
 * The signed workload; BENCH_EVM_WORKLOAD=<file> keeps it in that file and reads it back when its
 * size matches (alternated runs of two builds then send the same transactions, without signing
 * them again each run).
 */
async function workload(): Promise<Workload> {
  const file = process.env.BENCH_EVM_WORKLOAD;
  if (file !== undefined) {
    const kept = await readFile(file, 'utf8').then((t) => JSON.parse(t) as Workload, () => null);
    if (kept !== null && kept.raws.length === N && kept.senders.length === SENDERS) return kept;
  }
  const w = sign();
  if (file !== undefined) await writeFile(file, JSON.stringify(w));
  return w;
}

/**
 * Keep-alive connections for the client, as many as batches in flight (and one for polling). Plain
 * node:http with bodies encoded before the clock: fetch's streams cost the client about 1 s of CPU
 * for 40,000 transfers, on the cores both nodes share with it.
 */
const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY + 1 });

/** POSTs a JSON body and parses the JSON answer. */
function post(url: string, body: Buffer): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { 'Content-Type': 'application/json', 'Content-Length': body.length } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch (err) {
          reject(err);
        }
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

function rpc(url: string, body: unknown): Promise<unknown> {
  return post(url, Buffer.from(JSON.stringify(body)));
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function waitFor(url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await rpc(url, { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** CPU seconds (user + system, all threads) a process has used, from /proc (Linux; null elsewhere). */
async function cpuSeconds(pid: number | undefined): Promise<number | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in ticks of 1/100 s
  } catch {
    return null;
  }
}

/** CPU seconds of each thread of a process, by thread id (Linux). */
async function threadSeconds(pid: number | undefined): Promise<Map<string, [string, number]> | null> {
  try {
    const out = new Map<string, [string, number]>();
    for (const task of await readdir(`/proc/${pid}/task`)) {
      const stat = await readFile(`/proc/${pid}/task/${task}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(task, [stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), (Number(f[11]) + Number(f[12])) / 100]);
    }
    return out;
  } catch {
    return null;
  }
}

/**
 * Sends every raw transaction, then waits until all are mined; returns seconds, errors, and the
 * CPU seconds the node used meanwhile (a figure the shared machine's load moves less than time).
 */
async function run(url: string, w: Workload, pid?: number): Promise<{ seconds: number; errors: string[]; cpu: number | null; client: number }> {
  const errors: string[] = [];
  // Request bodies are built before the clock starts, the same for both nodes: the client's JSON
  // work is not what is measured, and it shares the machine's cores with the node.
  const batches: Buffer[] = [];
  for (let i = 0; i < w.raws.length; i += BATCH) {
    batches.push(Buffer.from(JSON.stringify(w.raws.slice(i, i + BATCH).map((raw, id) => ({ jsonrpc: '2.0', id, method: 'eth_sendRawTransaction', params: [raw] })))));
  }
  const cpu0 = await cpuSeconds(pid);
  const threads0 = process.env.BENCH_DEBUG === undefined ? null : await threadSeconds(pid);
  const t0 = performance.now();
  const client0 = process.cpuUsage(); // this process: the load generator
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < batches.length) {
      const body = batches[next++] as Buffer;
      if (process.env.BENCH_DEBUG !== undefined) console.log(`batch ${next}`);
      const out = (await post(url, body)) as { error?: { message: string } }[];
      for (const r of out) if (r.error !== undefined && errors.length < 5) errors.push(r.error.message);
    }
  }));
  if (process.env.BENCH_DEBUG !== undefined) console.log(`sent in ${((performance.now() - t0) / 1000).toFixed(2)} s`);
  const deadline = performance.now() + 300_000;
  let pending = w.senders;
  while (pending.length > 0 && performance.now() < deadline) {
    const out = (await rpc(url, pending.map((s, id) => ({ jsonrpc: '2.0', id, method: 'eth_getTransactionCount', params: [s.address, 'latest'] })))) as { id: number; result: string }[];
    if (process.env.BENCH_DEBUG !== undefined) console.log(JSON.stringify(out[0]));
    const done = new Set(out.filter((r) => Number(r.result) >= (pending[r.id] as { count: number }).count).map((r) => r.id));
    pending = pending.filter((_, i) => !done.has(i));
    if (pending.length > 0) await new Promise((r) => setTimeout(r, 50));
    if (process.env.BENCH_DEBUG !== undefined) console.log(`pending senders ${pending.length}, errors ${errors.join('; ')}`);
  }
  if (pending.length > 0) errors.push(`${pending.length} senders not fully mined after 300 s`);
  const seconds = (performance.now() - t0) / 1000;
  const cpu1 = await cpuSeconds(pid);
  if (process.env.BENCH_DEBUG !== undefined && threads0 !== null) {
    const threads1 = await threadSeconds(pid);
    for (const [tid, [name, cpu]] of threads1 ?? []) {
      const d = cpu - (threads0.get(tid)?.[1] ?? 0);
      if (d > 0.01) console.log(`thread ${tid} ${name}: ${d.toFixed(2)} s`);
    }
  }
  const client = process.cpuUsage(client0);
  return { seconds, errors, cpu: cpu0 === null || cpu1 === null ? null : cpu1 - cpu0, client: (client.user + client.system) / 1e6 };
}

async function startSvc(w: Workload, dir: string): Promise<{ url: string; proc: ChildProcess }> {
  const genesis = devnetGenesis();
  // A 1G-gas block (47,619 transfers) instead of the devnet's 30M, so block size does not cap the rate.
  genesis.evm = { ...(genesis.evm as NonNullable<typeof genesis.evm>), gasLimit: '1000000000', alloc: w.senders.map((s) => ({ address: s.address, balance: '1000000000000000000000' })) };
  const path = join(dir, 'genesis.json');
  await writeFile(path, JSON.stringify(genesis));
  const entry = fileURLToPath(new URL('./evm-node.ts', import.meta.url));
  const prof = process.env.BENCH_PROF === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROF}`];
  const flags = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter((f) => f !== '');
  // BENCH_NODE_STDOUT=<file>: the node's standard output (with --trace-gc among BENCH_NODE_FLAGS, its collections).
  const stdoutFile = process.env.BENCH_NODE_STDOUT;
  const proc = spawn(process.execPath, [...prof, ...flags, '--import', 'tsx', entry, path, join(dir, 'data')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    proc.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      if (stdoutFile !== undefined) appendFileSync(stdoutFile, c);
      const m = /RPC (\S+)/.exec(out);
      if (m !== null) resolve(m[1] as string);
    });
    proc.once('exit', (code) => reject(new Error(`svc node exited with ${code}`)));
  });
  return { url, proc };
}

/**
 * Anvil mines on an interval with the same 1G block gas limit as the svc genesis here: in automine
 * mode (one block per transaction) anvil 1.7.1 stalls on this workload (nonces stop advancing
 * with thousands of transactions from hundreds of senders). BENCH_ANVIL_AUTOMINE=1 tries it anyway.
 */
const ANVIL_MINING = process.env.BENCH_ANVIL_AUTOMINE === undefined ? ['--block-time', '1', '--gas-limit', '1000000000'] : [];

async function startAnvil(w: Workload): Promise<{ url: string; proc: ChildProcess }> {
  const bin = fileURLToPath(new URL('../node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil', import.meta.url));
  const port = await freePort();
  const proc = spawn(bin, ['--port', String(port), '--chain-id', String(CHAIN_ID), '--silent', '--accounts', '0', '--no-request-size-limit', ...ANVIL_MINING], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(url);
  if (process.env.BENCH_DEBUG !== undefined) console.log('anvil up');
  for (let i = 0; i < w.senders.length; i += 500) {
    await rpc(url, w.senders.slice(i, i + 500).map((s, id) => ({ jsonrpc: '2.0', id, method: 'anvil_setBalance', params: [s.address, '0x3635c9adc5dea00000'] })));
  }
  return { url, proc };
}

function stop(proc: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (proc.exitCode !== null) return resolve();
    proc.once('exit', () => resolve());
    proc.kill('SIGTERM');
    setTimeout(() => proc.kill('SIGKILL'), 10_000).unref();
  });
}

export async function benchEvmTransfers(): Promise<void> {
  const t0 = performance.now();
  const w = await workload();
  console.log(`signed ${w.raws.length} EIP-1559 transfers from ${w.senders.length} senders in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-evm-'));
  const rows: { name: string; seconds: number; errors: string[]; cpu: number | null; client: number }[] = [];
  try {
    if (process.env.BENCH_SKIP_SVC === undefined) {
      const svc = await startSvc(w, dir);
      try {
        rows.push({ name: 'svc', ...(await run(svc.url, w, svc.proc.pid)) });
        console.log(`svc: ${(rows[0] as { seconds: number }).seconds.toFixed(2)} s`);
      } finally {
        await stop(svc.proc);
      }
    }
    let anvil: { url: string; proc: ChildProcess } | null = null;
    try {
      if (process.env.BENCH_SKIP_ANVIL !== undefined) throw new Error('skipped (BENCH_SKIP_ANVIL)');
      anvil = await startAnvil(w);
      rows.push({ name: process.env.BENCH_ANVIL_AUTOMINE === undefined ? 'anvil (1 s blocks)' : 'anvil (automine)', ...(await run(anvil.url, w, anvil.proc.pid)) });
    } catch (err) {
      console.log(`anvil could not run here: ${(err as Error).message}`);
    } finally {
      if (anvil !== null) await stop(anvil.proc);
    }
  } finally {
    agent.destroy();
    await rm(dir, { recursive: true, force: true });
  }
  console.log(`load average ${(await readFile('/proc/loadavg', 'utf8').catch(() => '?')).split(' ').slice(0, 3).join(' ')}`);
  console.log('| node | transfers | seconds | tx/s | node CPU s | CPU µs per transfer | bench client CPU s | errors |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const perTx = r.cpu === null ? '?' : Math.round((r.cpu * 1e6) / w.raws.length);
    console.log(`| ${r.name} | ${w.raws.length} | ${r.seconds.toFixed(2)} | ${Math.round(w.raws.length / r.seconds)} | ${r.cpu?.toFixed(2) ?? '?'} | ${perTx} | ${r.client.toFixed(2)} | ${r.errors.join('; ') || '-'} |`);
  }
  const [svc, anvil] = rows;
  if (svc !== undefined && anvil !== undefined) console.log(`ratio svc / anvil: ${(anvil.seconds / svc.seconds).toFixed(2)}`);
}
