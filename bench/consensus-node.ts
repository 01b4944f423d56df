// BFT through the whole node: `svc testnet --validators 4` and four `svc start` processes on
// loopback; a sender process posts signed orders over WebSocket to the four nodes in turn at a
// paced rate (the market-making mix of the ws-fanout bench: quotes, cancels by cloid, a fifth
// taking). A post is answered once the block holding it has executed on the node that took it,
// so the answer's delay is the delay from an action's arrival to its execution (plus loopback).
// Prints p50/p99/max of that delay, the blocks committed, and the nodes' CPU per action.
//   BENCH_SECONDS (default 20), BENCH_RATE (2000), BENCH_PROFILE (a directory: the first node's CPU profile).
import { spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { flowAccounts, marketMakingAction, orderSigner } from './order-flow.ts';
import { tempDir } from '../test/support/node.ts';
import { height, processCpu, startTestnet, stopAll, type NodeProcess } from './processes.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const RATE = Number(process.env.BENCH_RATE ?? 2000);
const SELF = fileURLToPath(import.meta.url);

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

export async function benchConsensusNode(): Promise<void> {
  const dir = await tempDir('svc-bench-bft-node-');
  const nodes: NodeProcess[] = [];
  let sender: ChildProcess | null = null;
  try {
    // BENCH_PROFILE=<dir>: the first node writes a CPU profile there when it stops.
    const profile = process.env.BENCH_PROFILE;
    nodes.push(...(await startTestnet(dir, 4, (i) => (i === 0 && profile !== undefined ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []))));
    const h0 = await height(nodes[0]!.rest);
    const cpu0 = nodes.map((n) => processCpu(n.proc.pid as number));
    sender = spawn(process.execPath, ['--import', 'tsx', SELF], {
      env: { ...process.env, BENCH_ROLE: 'bft-sender', WS_URLS: nodes.map((n) => n.ws).join(','), RATE: String(RATE), SECONDS: String(SECONDS) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const report = await new Promise<{ sent: number; ok: number; failed: number; delays: number[]; reasons: Record<string, number> }>((resolve, reject) => {
      sender?.on('message', (m: { kind: string }) => m.kind === 'done' && resolve(m as never));
      sender?.once('exit', (code) => reject(new Error(`sender exited ${code}`)));
    });
    const cpu = nodes.map((n, i) => processCpu(n.proc.pid as number) - (cpu0[i] as number));
    const h1 = await height(nodes[0]!.rest);
    const d = report.delays.sort((a, b) => a - b);
    console.log('| validators | offered actions/s | answered ok | blocks | p50 ms | p99 ms | max ms | node CPU per action |');
    console.log('|---|---|---|---|---|---|---|---|');
    const perAction = (cpu.reduce((a, b) => a + b, 0) / 4 / Math.max(1, report.sent)) * 1e6;
    console.log(`| 4 | ${RATE} | ${report.ok}/${report.sent} | ${h1 - h0} | ${pct(d, 50).toFixed(1)} | ${pct(d, 99).toFixed(1)} | ${(d[d.length - 1] ?? NaN).toFixed(1)} | ${perAction.toFixed(0)} µs (each node) |`);
    const reasons = Object.entries(report.reasons).sort((a, b) => b[1] - a[1]);
    if (reasons.length > 0) console.log(`failures: ${reasons.slice(0, 5).map(([why, n]) => `${n} × ${why}`).join('; ')}`);
  } finally {
    sender?.kill('SIGKILL');
    await stopAll(nodes);
    await rm(dir, { recursive: true, force: true });
  }
}

/** Signs and posts orders to the nodes in turn over WebSocket at RATE a second, paced per millisecond. */
async function bftSender(): Promise<void> {
  const urls = (process.env.WS_URLS as string).split(',');
  const rate = Number(process.env.RATE);
  const seconds = Number(process.env.SECONDS);
  const accounts = flowAccounts(0, 10);
  const sign = orderSigner();
  const sockets = await Promise.all(urls.map((url) => new Promise<WebSocket>((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    ws.once('open', () => resolve(ws)).once('error', reject);
  })));
  const pending = new Map<number, number>();
  const delays: number[] = [];
  const reasons: Record<string, number> = {};
  let ok = 0;
  let failed = 0;
  for (const ws of sockets) {
    ws.on('message', (data: Buffer) => {
      const m = JSON.parse(data.toString()) as { channel: string; data: { id: number; response: { status: string; response?: unknown } } };
      if (m.channel !== 'post') return;
      const t0 = pending.get(m.data.id);
      pending.delete(m.data.id);
      if (t0 !== undefined) delays.push(performance.now() - t0);
      if (m.data.response.status === 'ok') ok++;
      else {
        failed++;
        const why = String(m.data.response.response).slice(0, 60);
        reasons[why] = (reasons[why] ?? 0) + 1;
      }
    });
  }
  let sent = 0;
  const started = performance.now();
  await new Promise<void>((resolve) => {
    const tick = () => {
      const elapsed = performance.now() - started;
      if (elapsed >= seconds * 1000) return resolve();
      const due = Math.floor((elapsed * rate) / 1000);
      while (sent < due) {
        const { acct, action } = marketMakingAction(sent, accounts, 0);
        const body = sign(acct, action);
        pending.set(sent, performance.now());
        sockets[sent % sockets.length]!.send(JSON.stringify({ method: 'post', id: sent, request: { type: 'exchange', payload: body } }));
        sent++;
      }
      setTimeout(tick, 1);
    };
    tick();
  });
  const deadline = performance.now() + 15_000;
  while (pending.size > 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  process.send?.({ kind: 'done', sent, ok, failed, delays, reasons });
  for (const ws of sockets) ws.close();
}

if (process.env.BENCH_ROLE === 'bft-sender') await bftSender();
