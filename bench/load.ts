// The hot path's load generator: a real devnet (`svc devnet`) or a 4-validator loopback testnet
// (`svc testnet` + `svc start`), and sender processes (load-sender.ts) that sign everything
// before the clock starts, then send signed actions over HTTP keep-alive connections or
// WebSocket posts. Prints actions/s and orders/s answered, latency from send to answer, failures
// by reason, the node's CPU per action over all threads and on its event loop (from /proc), per
// thread role and per stage (the node's SIGUSR2 report), and its RSS over the run.
//   LOAD_NET devnet|testnet (devnet), LOAD_TRANSPORT http|ws (http), LOAD_MIX single|batch|mixed
//   (single), LOAD_RATE actions/s offered in total, 0 = as fast as answered (5000), LOAD_SECONDS
//   (20), LOAD_SENDERS processes (2), LOAD_CONNS per sender (http 64, ws 4; at least one per
//   account, each account on its own), LOAD_WINDOW posts in flight per WebSocket when as fast as
//   answered (256), LOAD_NODE_ARGS extra `svc devnet` flags,
//   LOAD_PROFILE a directory for the (first) node's CPU profile, LOAD_EXEC_ARGV Node flags for the
//   devnet process (--perf-basic-prof to read it with `perf`, --trace-gc), LOAD_NODE_OUT a file
//   for that node's output (written when it stops), LOAD_SENDER_ARGV Node flags for the senders,
//   LOAD_WARMUP seconds of sending before CPU, blocks and stages are counted (0).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEV_ACCOUNTS } from '../genesis/index.ts';
import { STAGES, type StageReport } from '../primitives/index.ts';
import { LOAD_MIXES, type LoadMix } from './load-flow.ts';
import { processCpu, rssParts, startSvc, startTestnet, stopAll, threadCpu, type NodeProcess } from './processes.ts';
import type { SenderConfig, SenderReport } from './load-sender.ts';

const SENDER = fileURLToPath(new URL('./load-sender.ts', import.meta.url));

export interface LoadOptions {
  readonly net: 'devnet' | 'testnet';
  readonly transport: 'http' | 'ws';
  readonly mix: LoadMix;
  /** Actions a second offered in total; 0: as fast as answered. */
  readonly rate: number;
  readonly seconds: number;
  readonly senders: number;
  readonly conns: number;
  readonly window: number;
  readonly nodeArgs: readonly string[];
  /** A directory for the (first) node's CPU profile, or null. */
  readonly profile: string | null;
  /** Print the tables (the bench) or stay quiet (the test). */
  readonly print: boolean;
  /**
   * Seconds of sending before CPU, blocks and stages are counted (default 0): a node that has
   * run for seconds still compiles its hot code, which a long-running one paid for long ago.
   */
  readonly warmup?: number;
}

export interface LoadReport {
  readonly sent: number;
  readonly ok: number;
  readonly unanswered: number;
  readonly orders: number;
  readonly reasons: Record<string, number>;
  readonly actionsPerSecond: number;
  readonly ordersPerSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  /** Node CPU per action sent, µs: all threads and the event loop (the first node of a testnet). */
  readonly cpuPerAction: number;
  readonly loopPerAction: number;
  readonly rssMb: readonly number[];
}

/** An environment variable's space-separated flags (none when unset). */
function words(v: string | undefined): string[] {
  return (v ?? '').split(' ').filter((a) => a !== '');
}

export function loadOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): LoadOptions {
  const transport = env.LOAD_TRANSPORT === 'ws' ? 'ws' : 'http';
  const mix = (LOAD_MIXES as readonly string[]).includes(env.LOAD_MIX ?? '') ? (env.LOAD_MIX as LoadMix) : 'single';
  return {
    net: env.LOAD_NET === 'testnet' ? 'testnet' : 'devnet',
    transport,
    mix,
    rate: Number(env.LOAD_RATE ?? 5000),
    seconds: Number(env.LOAD_SECONDS ?? 20),
    senders: Number(env.LOAD_SENDERS ?? 2),
    conns: Number(env.LOAD_CONNS ?? (transport === 'http' ? 64 : 4)),
    window: Number(env.LOAD_WINDOW ?? 256),
    nodeArgs: words(env.LOAD_NODE_ARGS),
    profile: env.LOAD_PROFILE ?? null,
    print: true,
    warmup: Math.max(0, Number(env.LOAD_WARMUP) || 0),
  };
}

/** Seconds at the start of a run whose latencies are also printed apart (the cold node's queue). */
const WARM_SECONDS = 5;

function pct(sorted: Float64Array, p: number): number {
  return sorted.length === 0 ? NaN : (sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number);
}

/** p50/p99 of the actions sent in each second of the run: a queue that built up shows where it did. */
function bySecond(reports: readonly SenderReport[]): string[] {
  const buckets: number[][] = [];
  for (const r of reports) r.sentSeconds.forEach((sec, i) => (buckets[sec] ??= []).push(r.latencies[i] as number));
  return Array.from(buckets, (b = []) => {
    const sorted = Float64Array.from(b).sort();
    return `${pct(sorted, 50).toFixed(0)}/${pct(sorted, 99).toFixed(0)}`;
  });
}

function sender(cfg: SenderConfig): ChildProcess {
  return spawn(process.execPath, [...words(process.env.LOAD_SENDER_ARGV), '--import', 'tsx', SENDER], { env: { ...process.env, LOAD_SENDER: JSON.stringify(cfg) }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

function nextMessage<T>(c: ChildProcess, kind: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: { kind: string }) => {
      if (m.kind !== kind) return;
      c.off('message', onMessage);
      c.off('exit', onExit);
      resolve(m as T);
    };
    const onExit = (code: number | null) => reject(new Error(`a sender exited (${code}) before "${kind}"`));
    c.on('message', onMessage);
    c.once('exit', onExit);
  });
}

/** The node's stage report: SIGUSR2 makes it print one line; the latest is read from its output. */
async function stages(node: NodeProcess): Promise<StageReport> {
  const count = () => node.output().split('\nstages ').length;
  const before = count();
  node.proc.kill('SIGUSR2');
  const deadline = Date.now() + 5000;
  while (count() === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  const line = node.output().split('\nstages ').pop()?.split('\n')[0] ?? '{}';
  return JSON.parse(line) as StageReport;
}

export async function runLoad(o: LoadOptions): Promise<LoadReport> {
  // Not test/support's tempDir: that module loads the node and ethers, which this process (and
  // load-short.test.ts) never runs.
  const dir = await mkdtemp(join(tmpdir(), 'svc-load-'));
  let nodes: NodeProcess[] = [];
  // Node flags for the devnet, or the first validator: the profile, and LOAD_EXEC_ARGV.
  const firstArgv = [...(o.profile === null ? [] : ['--cpu-prof', `--cpu-prof-dir=${o.profile}`]), ...words(process.env.LOAD_EXEC_ARGV)];
  const senders: ChildProcess[] = [];
  try {
    // The senders sign while the nodes start (each takes seconds); they get the URLs with `connect`.
    const starting = o.net === 'devnet'
      ? startSvc(['devnet', '--data-dir', dir, '--rest-port', '0', '--ws-port', '0', '--rpc-port', '0', '--oracle-interval', '0', ...o.nodeArgs], firstArgv).then((n) => [n])
      : startTestnet(dir, 4, (i) => (i === 0 ? firstArgv : []));
    starting.catch(() => {}); // awaited below
    // Accounts split between the senders (each signs for its own, so their nonces never collide),
    // an even count each: the mixes' two groups (load-flow.ts).
    const perSender = 2 * Math.floor(Math.min(10, DEV_ACCOUNTS.length) / o.senders / 2);
    if (perSender < 2) throw new Error(`LOAD_SENDERS=${o.senders}: each sender needs two of the ${Math.min(10, DEV_ACCOUNTS.length)} accounts`);
    const expected = o.rate > 0 ? o.rate : o.mix === 'batch' ? 6000 : 12_000;
    for (let i = 0; i < o.senders; i++) {
      const rate = o.rate / o.senders;
      senders.push(sender({
        id: i, transport: o.transport, mix: o.mix, rate, seconds: o.seconds,
        count: Math.ceil(((o.rate > 0 ? o.rate : expected * 1.5) * o.seconds) / o.senders),
        plannedRate: expected / o.senders, conns: o.conns, window: o.window, accounts: [i * perSender, perSender],
      }));
    }
    const signStarted = Date.now();
    // One start for every sender's nonces: when the slowest expects to have signed, with a margin.
    const planned = Promise.all(senders.map((s) => nextMessage<{ ms: number }>(s, 'estimate'))).then((estimates) => {
      const start = Date.now() + Math.max(...estimates.map((e) => e.ms)) * 1.2 + 1500;
      for (const s of senders) s.send({ kind: 'plan', start });
      return start;
    });
    const signing = Promise.all([planned, ...senders.map((s) => nextMessage(s, 'signed'))]).then(([start]) => ({ start, signSeconds: (Date.now() - signStarted) / 1000 }));
    signing.catch(() => {}); // awaited below
    nodes = await starting; // on failure the senders are killed below
    const urls = nodes.map((n) => (o.transport === 'http' ? n.rest : n.ws));
    // Nonces were planned from `start`: sending begins then (never more than a few seconds off).
    const { start, signSeconds } = await signing;
    console.log(`signed in ${signSeconds.toFixed(1)} s; sending starts in ${Math.max(0, (start - Date.now()) / 1000).toFixed(1)} s (the nonces' plan)`);
    if (Date.now() < start - 1000) await new Promise((r) => setTimeout(r, start - 1000 - Date.now()));
    const ready = senders.map((s) => nextMessage(s, 'ready'));
    for (const s of senders) s.send({ kind: 'connect', urls });
    await Promise.all(ready);
    const pids = nodes.map((n) => n.proc.pid as number);
    // Whole seconds: the senders report each answer's second of sending.
    const warmup = Math.floor(Math.min(o.warmup ?? 0, o.seconds / 2));
    const done = senders.map((s) => nextMessage<SenderReport>(s, 'done'));
    const sendingFrom = performance.now();
    for (const s of senders) s.send({ kind: 'go' });
    if (o.print) console.log(`sending for ${o.seconds} s (node pid ${pids.join(', ')})${warmup > 0 ? `; counting CPU from ${warmup} s` : ''}`);
    // RSS from the first second of sending, warm-up included ("at 60 s" means 60 s of sending).
    const rss: number[] = [];
    const rssFile: number[] = [];
    const sampler = setInterval(() => {
      const parts = rssParts(pids[0] as number);
      rss.push(parts.total);
      rssFile.push(parts.file);
    }, 1000);
    if (warmup > 0) await new Promise((r) => setTimeout(r, warmup * 1000 - (performance.now() - sendingFrom)));
    const stages0 = await stages(nodes[0] as NodeProcess);
    const threads0 = threadCpu(pids[0] as number);
    const cpu0 = pids.map(processCpu);
    const gen0 = senders.map((s) => processCpu(s.pid as number));
    const started = performance.now();
    // The main thread's heap every tenth of the run (SIGUSR2 reports), beside the RSS.
    const heap: string[] = [];
    let heapSample: Promise<void> = Promise.resolve();
    const heapSampler = setInterval(() => {
      heapSample = stages(nodes[0] as NodeProcess).then((r) => void heap.push(`${r.heap.usedMb}/${r.heap.totalMb}`));
    }, Math.max(1000, (o.seconds * 1000) / 10));
    // CPU is read when the last action is answered (or given up on), not after the drain's wait.
    const reports = await Promise.all(done.map(async (d, i) => {
      const r = await d;
      return { r, gen: processCpu((senders[i] as ChildProcess).pid as number) - (gen0[i] as number) };
    }));
    const elapsed = (performance.now() - started) / 1000;
    clearInterval(sampler);
    clearInterval(heapSampler);
    await heapSample; // its report line must not be taken for the final one
    const cpu = pids.map((p, i) => processCpu(p) - (cpu0[i] as number));
    const threads1 = threadCpu(pids[0] as number);
    const stages1 = await stages(nodes[0] as NodeProcess);
    // Every validator's compact proposals it had to ask for whole, over its whole life (the first
    // node's report is the one just read).
    const others = await Promise.all(nodes.slice(1).map(stages));
    const askedWhole = [stages1, ...others].reduce((a, r) => a + (r.counters?.['p2p proposals asked whole'] ?? 0), 0);
    const all = reports.map((x) => x.r);
    const sent = all.reduce((a, r) => a + r.sent, 0);
    /** Actions sent in the counted window (after the warm-up): what CPU is divided by. */
    const measured = warmup === 0 ? sent : all.reduce((a, r) => a + r.sentSeconds.filter((sec) => sec >= warmup).length + r.unanswered, 0);
    const ok = all.reduce((a, r) => a + r.ok, 0);
    const orders = all.reduce((a, r) => a + r.orders, 0);
    const unanswered = all.reduce((a, r) => a + r.unanswered, 0);
    const reasons: Record<string, number> = {};
    for (const r of all) for (const [k, v] of Object.entries(r.reasons)) reasons[k] = (reasons[k] ?? 0) + v;
    const lat = Float64Array.from(all.flatMap((r) => r.latencies)).sort();
    const seconds = Math.min((performance.now() - sendingFrom) / 1000, o.seconds);
    const perAction = (s: number) => (s * 1e6) / Math.max(1, measured);
    const loopCpu = (threads1.get(pids[0] as number) ?? 0) - (threads0.get(pids[0] as number) ?? 0);
    const report: LoadReport = {
      sent, ok, unanswered, orders, reasons,
      actionsPerSecond: ok / seconds, ordersPerSecond: orders / seconds,
      p50: pct(lat, 50), p99: pct(lat, 99), max: lat[lat.length - 1] ?? NaN,
      cpuPerAction: perAction(cpu[0] as number), loopPerAction: perAction(loopCpu), rssMb: rss,
    };
    if (o.print) {
      const offered = o.rate > 0 ? `${o.rate}/s offered` : 'as fast as answered';
      console.log(`${o.net}, ${o.transport}, ${o.mix} mix, ${offered}, ${o.seconds} s; ${o.senders} senders signed ${sent} actions in ${signSeconds.toFixed(1)} s before the clock`);
      console.table({
        answered: {
          'actions/s': Math.round(report.actionsPerSecond), 'orders/s': Math.round(report.ordersPerSecond), ok, sent, unanswered,
          'p50 ms': report.p50.toFixed(1), 'p99 ms': report.p99.toFixed(1), 'max ms': report.max.toFixed(1),
        },
      });
      const failures = Object.entries(reasons).sort((a, b) => b[1] - a[1]);
      if (failures.length > 0) console.log(`failures: ${failures.slice(0, 8).map(([why, n]) => `${n} × ${why}`).join('\n  ')}`);
      const genCpu = reports.reduce((a, x) => a + x.gen, 0);
      console.log(`cores used: ${nodes.length === 1 ? 'node' : 'nodes'} ${cpu.map((c) => (c / elapsed).toFixed(2)).join(' + ')}, load generators ${(genCpu / elapsed).toFixed(2)}, of ${availableParallelism()} (over ${elapsed.toFixed(1)} s, the run and the wait for its last answers)`);
      console.log(`node CPU per action: all threads ${report.cpuPerAction.toFixed(1)} µs, event loop ${report.loopPerAction.toFixed(1)} µs${nodes.length > 1 ? ` (first node; the four: ${cpu.map((c) => perAction(c).toFixed(0)).join(', ')} µs)` : ''}`);
      // Threads by role: the node names the threads it starts; the rest are V8's, libuv's and LevelDB's.
      const roles = new Map<string, number>();
      for (const [tid, s] of threads1) {
        const role = tid === pids[0] ? 'event loop' : (stages1.threads[String(tid)] ?? (process.env.LOAD_THREADS === '1' ? `thread ${tid}` : 'other threads (V8, libuv, LevelDB)'));
        roles.set(role, (roles.get(role) ?? 0) + s - (threads0.get(tid) ?? 0));
      }
      console.table(Object.fromEntries([...roles].map(([role, s]) => [role, { 'µs per action': perAction(s).toFixed(1), cores: (s / elapsed).toFixed(2) }])));
      const stageRows: Record<string, { 'µs per action': string }> = {};
      let timed = 0;
      for (const s of STAGES) {
        const ms = (stages1.stagesMs[s] ?? 0) - (stages0.stagesMs[s] ?? 0);
        timed += ms;
        stageRows[s] = { 'µs per action': perAction(ms / 1000).toFixed(1) };
      }
      stageRows['untimed (I/O, GC, timers)'] = { 'µs per action': perAction(loopCpu - timed / 1000).toFixed(1) };
      console.log('event loop by stage (wall time of synchronous sections):');
      console.table(stageRows);
      const counted = (name: string) => (stages1.counters?.[name] ?? 0) - (stages0.counters?.[name] ?? 0);
      const per = (a: string, b: string) => (counted(b) === 0 ? '-' : (counted(a) / counted(b)).toFixed(1));
      // Per block too: at low rates a node's cost is per block more than per action.
      const perBlock = counted('blocks') === 0 ? '-' : `${(((cpu[0] as number) * 1000) / counted('blocks')).toFixed(2)} ms`;
      // On a testnet, the first node's stream writes to its peers (consensus/p2p.ts batches them).
      const p2p = nodes.length > 1 ? `; p2p sends: ${counted('p2p sends')} (${(counted('p2p sends') / Math.max(1, counted('block transactions'))).toFixed(2)} per transaction), proposals asked whole on any node since start: ${askedWhole}` : '';
      console.log(`blocks: ${counted('blocks')} (${per('block transactions', 'blocks')} transactions each), node CPU per block ${perBlock}${nodes.length > 1 ? ' (first node)' : ''}; signer messages: ${counted('signer batches')} (${per('signer jobs', 'signer batches')} jobs each)${p2p}`);
      console.log(`latency by second sent, p50/p99 ms: ${bySecond(all).join(' ')}`);
      // A cold node meets the full rate at once: its first seconds' queue is printed apart.
      if (o.seconds > 2 * WARM_SECONDS) {
        const warm = Float64Array.from(all.flatMap((r) => r.latencies.filter((_, i) => (r.sentSeconds[i] as number) >= WARM_SECONDS))).sort();
        console.log(`latency of actions sent after the first ${WARM_SECONDS} s: p50 ${pct(warm, 50).toFixed(1)} ms, p99 ${pct(warm, 99).toFixed(1)} ms, max ${(warm[warm.length - 1] ?? NaN).toFixed(1)} ms`);
      }
      const step = Math.max(1, Math.floor(rss.length / 12));
      const every = (series: readonly number[]) => series.filter((_, i) => i % step === 0).map((m) => Math.round(m)).join(' ');
      console.log(`node RSS (MB) every ${step} s: ${every(rss)}; of it file-backed (the binary, LevelDB's mapped tables): ${every(rssFile)}`);
      if (rss.length > 120) {
        const atMinute = rss[59] as number;
        const after = Math.max(...rss.slice(60));
        console.log(`node RSS past the first minute: ${Math.round(atMinute)} MB at 60 s, at most ${Math.round(after)} MB after (${(100 * (after / atMinute - 1)).toFixed(1)}%)`);
        // The trend without the sawtooth (a heap's peak before its collection, a compaction's
        // mapped pages, each seconds long): each whole minute's median.
        const medians: number[] = [];
        for (let m = 0; (m + 1) * 60 <= rss.length; m++) {
          const minute = rss.slice(m * 60, (m + 1) * 60).sort((a, b) => a - b);
          medians.push(minute[30] as number);
        }
        if (medians.length >= 3) {
          const base = medians[1] as number;
          const top = Math.max(...medians.slice(2));
          console.log(`node RSS median by minute (MB): ${medians.map(Math.round).join(' ')}; the largest after the second minute against it: ${(100 * (top / base - 1)).toFixed(1)}%`);
        }
      }
      console.log(`event loop's V8 heap used/total (MB) every ${Math.max(1, o.seconds / 10)} s: ${heap.join(' ')}`);
    }
    return report;
  } finally {
    for (const s of senders) s.kill('SIGKILL');
    await stopAll(nodes);
    const outFile = process.env.LOAD_NODE_OUT;
    if (outFile !== undefined && nodes[0] !== undefined) await writeFile(outFile, nodes[0].output());
    await rm(dir, { recursive: true, force: true });
  }
}

export async function benchLoad(): Promise<void> {
  await runLoad(loadOptionsFromEnv());
}
