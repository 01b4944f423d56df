// The history indexer under a heavy fill rate: alone (synthetic blocks handed over as the node
// does), and through the whole node: `svc devnet` in its own
// process, and a sender process posting signed actions over WebSocket at a paced rate. Each
// cycle is a 50-order maker batch and a taker that sweeps it (100 fills), sides alternating so
// positions stay near flat. The same load runs against a node that keeps no history
// (--no-history), one with the embedded store, and one writing to PostgreSQL (a throwaway server,
// durable, started here).
// Prints fills/s, the delay of the sweeps (post to answer: the block's execution and commit),
// the node's CPU per fill from /proc, and how far the history lagged the chain.
//   BENCH_SECONDS (default 20), BENCH_FILLS (fills a second offered to the indexer alone, default
//   20000), BENCH_NODE_FILLS (to the whole node, default 5000).
import { spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { flowAccounts, orderSigner } from './order-flow.ts';
import { tempDir } from '../test/support/node.ts';
import { processCpu } from './processes.ts';
import { IndexerClient, indexedBlock, type HistoryStoreConfig } from '../node/index.ts';
import type { ExchangeEvent } from '../exchange/index.ts';
import { freePort } from '../test/support/network.ts';
import { startPostgres } from '../test/support/postgres.ts';
import pg from 'pg';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
/** Fills a second offered to the indexer alone, and to the whole node (which sustains about 5,000 today: #21). */
const FILLS = Number(process.env.BENCH_FILLS ?? 20_000);
const NODE_FILLS = Number(process.env.BENCH_NODE_FILLS ?? 5_000);
const LEVELS = 50;
const SELF = fileURLToPath(import.meta.url);
const BIN = fileURLToPath(new URL('../bin/svc.js', import.meta.url));

interface Node {
  readonly proc: ChildProcess;
  readonly rest: string;
  readonly ws: string;
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function startDevnet(dataDir: string, extra: string[]): Promise<Node> {
  const [rest, ws, rpc] = [await freePort(), await freePort(), await freePort()];
  const args = [BIN, 'devnet', '--data-dir', dataDir, '--rest-port', String(rest), '--ws-port', String(ws), '--rpc-port', String(rpc), '--oracle-interval', '0', ...extra];
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the devnet printed no URLs:\n${out}`)), 60_000);
    const onData = (c: Buffer) => {
      out += c.toString();
      if (/WebSocket\s+ws:\/\//.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.once('exit', (code) => reject(new Error(`the devnet exited ${code}:\n${out}`)));
  });
  return { proc, rest: `http://127.0.0.1:${rest}`, ws: `ws://127.0.0.1:${ws}/ws` };
}

async function health(rest: string): Promise<{ height: number; indexed: number | null }> {
  const b = (await (await fetch(`${rest}/v1/health`)).json()) as { height: string; indexed_height: string | null };
  return { height: Number(b.height), indexed: b.indexed_height === null ? null : Number(b.indexed_height) };
}

interface Report {
  readonly sent: number;
  readonly ok: number;
  readonly failed: number;
  readonly fills: number;
  readonly delays: number[];
  readonly reasons: Record<string, number>;
}

async function runOnce(label: string, extra: string[]): Promise<string> {
  const dir = await tempDir('svc-bench-history-');
  let node: Node | null = null;
  let sender: ChildProcess | null = null;
  try {
    node = await startDevnet(dir, extra);
    const cpu0 = processCpu(node.proc.pid as number);
    const t0 = performance.now();
    sender = spawn(process.execPath, ['--import', 'tsx', SELF], {
      env: { ...process.env, BENCH_ROLE: 'history-sender', WS_URL: node.ws, FILLS: String(NODE_FILLS), SECONDS: String(SECONDS) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const report = await new Promise<Report>((resolve, reject) => {
      sender?.on('message', (m: { kind: string }) => m.kind === 'done' && resolve(m as never));
      sender?.once('exit', (code) => reject(new Error(`sender exited ${code}`)));
    });
    const elapsed = (performance.now() - t0) / 1000;
    const cpu = processCpu(node.proc.pid as number) - cpu0;
    const atEnd = await health(node.rest);
    // Then the history catches up (when the node keeps one).
    let catchUp = 0;
    if (atEnd.indexed !== null) {
      const c0 = performance.now();
      while ((await health(node.rest)).indexed! < atEnd.height) await new Promise((r) => setTimeout(r, 20));
      catchUp = performance.now() - c0;
    }
    const d = report.delays.sort((a, b) => a - b);
    const reasons = Object.entries(report.reasons).sort((a, b) => b[1] - a[1]);
    if (reasons.length > 0) console.log(`${label} failures: ${reasons.slice(0, 3).map(([why, n]) => `${n} × ${why}`).join('; ')}`);
    const lag = atEnd.indexed === null ? '-' : `${atEnd.height - atEnd.indexed} blocks, caught up in ${catchUp.toFixed(0)} ms`;
    return `| ${label} | ${(report.fills / elapsed).toFixed(0)} | ${report.ok}/${report.sent} | ${pct(d, 50).toFixed(1)} | ${pct(d, 99).toFixed(1)} | ${((cpu / Math.max(1, report.fills)) * 1e6).toFixed(1)} µs | ${((cpu / elapsed) * 100).toFixed(0)}% | ${lag} |`;
  } finally {
    sender?.kill('SIGKILL');
    node?.proc.kill('SIGINT');
    if (node !== null && node.proc.exitCode === null) await new Promise((r) => node?.proc.once('exit', r));
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The indexer alone, at the offered fill rate: blocks of 400 fills (200 trades against 50 price
 * levels) every 20 ms of block time, handed over as the node does (compacted from the events and
 * posted to the indexer thread). The commit thread's cost is the hand-over's wall time (it is
 * synchronous); the rest runs on the indexer thread.
 */
async function indexerAlone(label: string, config: (dir: string) => HistoryStoreConfig): Promise<string> {
  const dir = await tempDir('svc-bench-indexer-');
  const client = await IndexerClient.start(config(dir), (line) => console.log(line));
  try {
    await client.seedCandles([['BTC', 0, 5]]);
    const users = Array.from({ length: 10 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`);
    const perBlock = 400;
    const blocksPerSecond = FILLS / perBlock;
    const total = Math.round(blocksPerSecond * SECONDS);
    let time = Date.UTC(2026, 0, 1);
    let tid = 1;
    let handOver = 0;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let h = 1; h <= total; h++) {
      // Paced: block h is due at h / blocksPerSecond seconds.
      const due = t0 + (h / blocksPerSecond) * 1000;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const events: ExchangeEvent[] = [];
      const prev = time;
      time += 1000 / blocksPerSecond;
      for (let i = 0; i < perBlock / 2; i++, tid++) {
        const f = { coin: 'BTC', px: String(100_010 + (i % LEVELS) * 10), sz: '0.001', time, startPosition: '0', dir: 'Open Long', closedPnl: '0', hash: `0x${tid.toString(16).padStart(64, '0')}`, oid: tid, fee: '0.0045', feeToken: 'USDC', tid };
        events.push({ kind: 'fill', user: users[h % 10] as string, fill: { ...f, side: 'A', crossed: false } });
        events.push({ kind: 'fill', user: users[(h + 1) % 10] as string, fill: { ...f, side: 'B', crossed: true } });
      }
      const s0 = performance.now();
      client.push(indexedBlock(h, time, prev, events, { markets: [['BTC', 0, 5]], openInterest: [], books: [] }));
      handOver += performance.now() - s0;
    }
    const sent = performance.now();
    await client.flushed();
    const caughtUp = performance.now() - sent;
    const elapsed = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const fills = total * perBlock;
    return `| ${label} | ${(fills / elapsed).toFixed(0)} | ${((handOver * 1000) / fills).toFixed(2)} µs | ${(((cpu.user + cpu.system) / fills)).toFixed(1)} µs | ${caughtUp.toFixed(0)} ms |`;
  } finally {
    await client.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function benchHistoryIndexer(): Promise<void> {
  // A throwaway PostgreSQL (durable: fsync and synchronous commit on), a fresh database per run.
  const server = await startPostgres({ durable: true });
  let databases = 0;
  const freshDatabase = async (): Promise<string> => {
    const name = `bench${++databases}`;
    const c = new pg.Client({ connectionString: server.url });
    await c.connect();
    await c.query(`CREATE DATABASE ${name}`);
    await c.end();
    return server.url.replace(/\/[^/]*$/, `/${name}`);
  };
  try {
    await runBenches(freshDatabase);
  } finally {
    await server.stop();
  }
}

async function runBenches(freshDatabase: () => Promise<string>): Promise<void> {
  const alone: string[] = [];
  alone.push(await indexerAlone('embedded store', (dir) => ({ kind: 'level', path: dir })));
  const url = await freshDatabase();
  alone.push(await indexerAlone('PostgreSQL', () => ({ kind: 'postgres', url })));
  console.log(`the indexer alone, offered ${FILLS} fills/s for ${SECONDS} s (blocks of 400 fills):`);
  console.log('| store | fills/s indexed | hand-over on the commit thread, per fill | process CPU per fill (both threads, synthetic blocks included) | behind when the load stopped |');
  console.log('|---|---|---|---|---|');
  for (const r of alone) console.log(r);
  const rows: string[] = [];
  rows.push(await runOnce('no history', ['--no-history']));
  rows.push(await runOnce('embedded store', []));
  rows.push(await runOnce('PostgreSQL', ['--indexer-db', await freshDatabase()]));
  console.log(`\nthe whole node, offered ${NODE_FILLS} fills/s (${NODE_FILLS / (2 * LEVELS)} sweeps of ${LEVELS} makers a second), ${SECONDS} s:`);
  console.log('| node | fills/s | answered ok | sweep p50 ms | sweep p99 ms | node CPU per fill | node CPU | history lag at the end |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
}

/** Posts cycles of a maker batch and a sweeping taker, paced to FILLS fills a second. */
async function sender(): Promise<void> {
  const fillsPerSecond = Number(process.env.FILLS);
  const seconds = Number(process.env.SECONDS);
  const accounts = flowAccounts(0, 10);
  const sign = orderSigner();
  const ws = await new Promise<WebSocket>((resolve, reject) => {
    const s = new WebSocket(process.env.WS_URL as string, { perMessageDeflate: false });
    s.once('open', () => resolve(s)).once('error', reject);
  });
  const pending = new Map<number, { t0: number; sweep: boolean }>();
  const delays: number[] = [];
  const reasons: Record<string, number> = {};
  let ok = 0;
  let failed = 0;
  let fills = 0;
  ws.on('message', (data: Buffer) => {
    const m = JSON.parse(data.toString()) as { channel: string; data: { id: number; response: { status: string; response?: { data?: { statuses?: unknown[] } } | string } } };
    if (m.channel !== 'post') return;
    const p = pending.get(m.data.id);
    pending.delete(m.data.id);
    const r = m.data.response;
    if (r.status === 'ok') {
      ok++;
      if (p?.sweep === true) {
        delays.push(performance.now() - p.t0);
        const st = (r.response as { data?: { statuses?: { filled?: { totalSz: string } }[] } }).data?.statuses?.[0];
        const filled = Number(st?.filled?.totalSz ?? 0);
        fills += 2 * Math.round(filled / 0.001);
      }
    } else {
      failed++;
      const why = String(r.response).slice(0, 60);
      reasons[why] = (reasons[why] ?? 0) + 1;
    }
  });
  const cyclesPerSecond = fillsPerSecond / (2 * LEVELS);
  let cycles = 0;
  let id = 0;
  const started = performance.now();
  const post = (acct: (typeof accounts)[number], action: unknown, sweep: boolean) => {
    pending.set(id, { t0: performance.now(), sweep });
    ws.send(JSON.stringify({ method: 'post', id, request: { type: 'exchange', payload: sign(acct, action) } }));
    id++;
  };
  await new Promise<void>((resolve) => {
    const tick = () => {
      const elapsed = performance.now() - started;
      if (elapsed >= seconds * 1000) return resolve();
      const due = Math.floor((elapsed * cyclesPerSecond) / 1000);
      while (cycles < due) {
        // Even cycles: asks above the mid, swept by a buy; odd cycles: bids below, swept by a sell.
        const asks = cycles % 2 === 0;
        const maker = accounts[cycles % accounts.length] as (typeof accounts)[number];
        const taker = accounts[(cycles + 1) % accounts.length] as (typeof accounts)[number];
        const orders = Array.from({ length: LEVELS }, (_, i) => ({
          a: 0, b: !asks, p: String(asks ? 100_010 + i * 10 : 99_990 - i * 10), s: '0.001', r: false, t: { limit: { tif: 'Gtc' } },
        }));
        post(maker, { type: 'order', orders, grouping: 'na' }, false);
        post(taker, { type: 'order', orders: [{ a: 0, b: asks, p: asks ? '101000' : '99000', s: String(LEVELS / 1000), r: false, t: { limit: { tif: 'Ioc' } } }], grouping: 'na' }, true);
        cycles++;
      }
      setTimeout(tick, 1);
    };
    tick();
  });
  const deadline = performance.now() + 30_000;
  while (pending.size > 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  process.send?.({ kind: 'done', sent: id, ok, failed, fills, delays, reasons });
  ws.close();
}

if (process.env.BENCH_ROLE === 'history-sender') await sender();
