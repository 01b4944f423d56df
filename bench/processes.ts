// Node processes for the benchmarks: `svc testnet` homes and `svc start` processes on loopback.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE_FLAGS } from '../bin/node-flags.js';

const BIN = fileURLToPath(new URL('../bin/svc.js', import.meta.url));

export interface NodeProcess {
  readonly proc: ChildProcess;
  readonly rest: string;
  readonly ws: string;
  output(): string;
}

/** Runs an `svc` command to its end. */
export function runSvc(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [...NODE_FLAGS, BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString()));
    p.stderr.on('data', (c: Buffer) => (out += c.toString()));
    p.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`svc ${args.join(' ')} exited ${code}:\n${out}`))));
  });
}

/** `svc start --home` (or any serving command's args) until it prints its REST and WebSocket URLs. */
export function startSvc(args: string[], execArgv: string[] = []): Promise<NodeProcess> {
  const proc = spawn(process.execPath, [...NODE_FLAGS, ...execArgv, BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`svc ${args.join(' ')} printed no URLs:\n${out}`)), 60_000);
    let done = false;
    const onData = (c: Buffer) => {
      out += c.toString();
      if (done) return;
      const rest = /REST API\s+(http:\/\/\S+)/.exec(out)?.[1];
      const ws = /WebSocket\s+(ws:\/\/\S+)/.exec(out)?.[1];
      if (rest === undefined || ws === undefined) return;
      done = true;
      clearTimeout(timer);
      resolve({ proc, rest, ws, output: () => out });
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.once('exit', (code) => reject(new Error(`svc ${args.join(' ')} exited ${code}:\n${out}`)));
  });
}

/** Whether a loopback port can be listened on now. */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false)).listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * A base port for `svc testnet --base-port` whose ports for `validators` nodes (10 apart) are
 * free, below the kernel's ephemeral range (32768 and up on Linux): an outgoing connection of
 * anything running alongside takes ports from that range, so a base there can collide between
 * the check and the listen (a benchmark once failed with "cannot listen" that way), and a
 * validator restarted on its ports must find them free.
 */
export async function freeBasePort(validators: number): Promise<number> {
  const span = validators * 10;
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * ((12_000 - span) / 10)) * 10;
    const free = await Promise.all(Array.from({ length: span }, (_, i) => portIsFree(base + i)));
    if (free.every(Boolean)) return base;
  }
  throw new Error(`no ${span} free ports found below the ephemeral range`);
}

/** `svc testnet --validators n` in `dir`, then the n nodes started; resolves once all are past height 3. */
export async function startTestnet(dir: string, validators: number, execArgvOf: (i: number) => string[] = () => []): Promise<NodeProcess[]> {
  const base = await freeBasePort(validators);
  await runSvc(['testnet', '--validators', String(validators), '--out', dir, '--base-port', String(base)]);
  const nodes: NodeProcess[] = [];
  try {
    for (let i = 0; i < validators; i++) nodes.push(await startSvc(['start', '--home', join(dir, `node${i}`)], execArgvOf(i)));
  } catch (err) {
    await stopAll(nodes); // the ones started: no orphans left running beside the next benchmark
    throw err;
  }
  const deadline = Date.now() + 60_000;
  while ((await Promise.all(nodes.map((n) => height(n.rest)))).some((h) => h < 3)) {
    if (Date.now() > deadline) {
      stopAll(nodes);
      throw new Error('the testnet did not start committing');
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return nodes;
}

export async function height(rest: string): Promise<number> {
  const r = await fetch(`${rest}/v1/height`).catch(() => null);
  if (r === null || !r.ok) return -1;
  return Number(((await r.json()) as { height: string }).height);
}

/** Sends SIGINT to every node and waits for them to exit. */
export async function stopAll(nodes: readonly { proc: ChildProcess }[]): Promise<void> {
  for (const n of nodes) if (n.proc.exitCode === null) n.proc.kill('SIGINT');
  await Promise.all(nodes.map((n) => new Promise((r) => (n.proc.exitCode !== null || n.proc.signalCode !== null ? r(null) : n.proc.once('exit', r)))));
}

const ticksOf = (stat: string): number => {
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]); // utime + stime, in clock ticks (1/100 s)
};

/** CPU seconds of each thread of a process, by thread id (from /proc; threads that ended are missing). */
export function threadCpu(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      out.set(Number(tid), ticksOf(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')) / 100);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/** CPU seconds of a process's main thread (a node's event loop). */
export function eventLoopCpu(pid: number): number {
  return ticksOf(readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8')) / 100;
}

/** CPU seconds of a whole process, every thread it ever had. */
export function processCpu(pid: number): number {
  return ticksOf(readFileSync(`/proc/${pid}/stat`, 'utf8')) / 100;
}

export function rssMb(pid: number): number {
  return rssParts(pid).total;
}

/** A process's RSS and its file-backed part (mapped files: the binary, LevelDB's tables), in MB. */
export function rssParts(pid: number): { total: number; file: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const mb = (re: RegExp) => {
    const m = re.exec(status);
    return m === null ? NaN : Number(m[1]) / 1024;
  };
  return { total: mb(/VmRSS:\s+(\d+) kB/), file: mb(/RssFile:\s+(\d+) kB/) };
}
