// WebSocket fan-out under load: a real devnet process; 1,000 WebSocket connections (spread over
// subscriber processes and loopback addresses 127.0.0.2.., since the node allows 100 per IP)
// subscribed to `l2Book` and `trades` of BTC; sender processes posting signed orders over
// WebSocket at a paced 5,000 actions/s: a market-making mix of quotes, cancels by cloid and
// takers, a fifth of the actions trading (see the sender). Prints the delay from the block's
// time (set before execution, so an upper bound of the delay from commit) to delivery at every
// subscriber, p50/p99/max per interval, and the node's resident memory over the run.
//   BENCH_SECONDS (default 300), BENCH_RATE (5000), BENCH_CONNS (1000), BENCH_PROFILE (a directory:
//   the node's CPU profile).
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { flowAccounts, marketMakingAction, orderSigner } from './order-flow.ts';
import { spawnDevnet } from '../test/support/process.ts';
import { tempDir } from '../test/support/node.ts';
import { eventLoopCpu, processCpu, rssMb } from './processes.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 300);
const RATE = Number(process.env.BENCH_RATE ?? 5000);
const CONNS = Number(process.env.BENCH_CONNS ?? 1000);
const SUBSCRIBER_PROCS = 2;
const SENDER_PROCS = 2;
const PER_IP = 100;
const SELF = fileURLToPath(import.meta.url);

interface Report {
  kind: 'delays';
  delays: number[];
  messages: number;
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** CPU seconds the node's threads used: [event loop, all threads] (from /proc, immune to other load). */
function cpuSeconds(pid: number): [number, number] {
  return [eventLoopCpu(pid), processCpu(pid)];
}

function child(role: string, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', SELF], { env: { ...process.env, BENCH_ROLE: role, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

export async function benchWsFanout(): Promise<void> {
  const dataDir = await tempDir('svc-bench-ws-');
  // BENCH_PROFILE=<dir>: the node writes a CPU profile there when it stops.
  const profile = process.env.BENCH_PROFILE;
  const node = await spawnDevnet(['--data-dir', dataDir], 30_000, profile === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profile}`]);
  // The WebSocket line follows the REST one.
  const deadline = Date.now() + 10_000;
  while (!/WebSocket\s+ws:/.test(node.output()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const wsUrl = /WebSocket\s+(ws:\/\/\S+)/.exec(node.output())?.[1];
  const pid = node.proc.pid as number;
  const children: ChildProcess[] = [];
  try {
    if (wsUrl === undefined) throw new Error(`no WebSocket URL in:\n${node.output()}`);
    // Subscribers first; they report once connected and subscribed.
    const delays: number[][] = [];
    let messages = 0;
    const ready: Promise<void>[] = [];
    for (let i = 0; i < SUBSCRIBER_PROCS; i++) {
      const c = child('subscriber', { WS_URL: wsUrl, CONNS: String(Math.ceil(CONNS / SUBSCRIBER_PROCS)), FIRST_CONN: String(i * Math.ceil(CONNS / SUBSCRIBER_PROCS)) });
      children.push(c);
      ready.push(new Promise((resolve) => c.once('message', () => resolve())));
      c.on('message', (m: Report | { kind: 'ready' }) => {
        if (m.kind !== 'delays') return;
        delays.push(m.delays);
        messages += m.messages;
      });
    }
    await Promise.all(ready);
    const senders = Array.from({ length: SENDER_PROCS }, (_, i) => child('sender', { WS_URL: wsUrl, RATE: String(RATE / SENDER_PROCS), SENDER: String(i), SECONDS: String(SECONDS) }));
    children.push(...senders);
    const sent = senders.map((s) => new Promise<{ sent: number; ok: number; failed: number; postP99: number; reasons: Record<string, number> }>((resolve) => s.on('message', (m: { kind: string }) => m.kind === 'done' && resolve(m as never))));
    // The senders sign the whole run's actions first (signing is not what is measured, and done
    // while sending it took a sixth of the machine); the clock starts when both send.
    const signStart = Date.now();
    await Promise.all(senders.map((s) => new Promise<void>((resolve) => s.on('message', (m: { kind: string }) => m.kind === 'sending' && resolve()))));
    console.log(`senders signed ${RATE * SECONDS} actions in ${((Date.now() - signStart) / 1000).toFixed(1)} s`);
    const rows: Record<string, Record<string, string | number>> = {};
    const memory: number[] = [];
    const started = Date.now();
    const cpu0 = cpuSeconds(pid);
    const genCpu0 = children.map((c) => cpuSeconds(c.pid as number)[1]);
    const interval = Math.max(10, Math.floor(SECONDS / 10));
    for (let t = interval; t <= SECONDS; t += interval) {
      await new Promise((r) => setTimeout(r, started + t * 1000 - Date.now()));
      memory.push(rssMb(pid));
      const window = delays.splice(0).flat().sort((a, b) => a - b);
      rows[`${t - interval}-${t} s`] = {
        deliveries: window.length,
        'p50 ms': pct(window, 50),
        'p99 ms': pct(window, 99),
        'max ms': window[window.length - 1] ?? NaN,
        'node RSS MB': Math.round(memory[memory.length - 1] as number),
      };
    }
    const cpu1 = cpuSeconds(pid);
    const genCpuOf = (from: number, to: number) => children.slice(from, to).reduce((sum, c, i) => sum + cpuSeconds(c.pid as number)[1] - (genCpu0[from + i] as number), 0);
    const subscriberCpu = genCpuOf(0, SUBSCRIBER_PROCS);
    const genCpu = subscriberCpu + genCpuOf(SUBSCRIBER_PROCS, children.length);
    const totals = await Promise.all(sent);
    console.table(rows);
    const all = totals.reduce((a, b) => ({ sent: a.sent + b.sent, ok: a.ok + b.ok, failed: a.failed + b.failed, postP99: Math.max(a.postP99, b.postP99), reasons: {} }));
    console.log(`${CONNS} connections, ${messages} messages delivered; ${all.sent} actions sent at a target of ${RATE}/s over ${SECONDS} s (${Math.round(all.sent / SECONDS)}/s), ${all.ok} ok, ${all.failed} failed; post answer p99 ${all.postP99.toFixed(0)} ms`);
    const reasons = totals.flatMap((x) => Object.entries(x.reasons)).sort((a, b) => b[1] - a[1]);
    if (reasons.length > 0) console.log(`failures: ${reasons.slice(0, 5).map(([why, n]) => `${n} × ${why}`).join('; ')}`);
    console.log(`node RSS over the run (MB): ${memory.map((m) => Math.round(m)).join(' ')}`);
    const perAction = (i: 0 | 1) => ((cpu1[i] - cpu0[i]) * 1e6) / Math.max(1, all.sent);
    console.log(`node CPU per action: event loop ${perAction(0).toFixed(0)} µs, all threads ${perAction(1).toFixed(0)} µs (event loop busy ${(((cpu1[0] - cpu0[0]) / SECONDS) * 100).toFixed(0)}%)`);
    // On a small machine the load generators compete with the node: their share says how much of it was left.
    const cores = availableParallelism();
    console.log(`cores used: node ${((cpu1[1] - cpu0[1]) / SECONDS).toFixed(2)}, load generators ${(genCpu / SECONDS).toFixed(2)} (subscribers ${(subscriberCpu / SECONDS).toFixed(2)}, senders ${((genCpu - subscriberCpu) / SECONDS).toFixed(2)}), of ${cores}`);
  } finally {
    for (const c of children) c.kill('SIGKILL');
    await node.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** A subscriber process: CONNS connections from 127.0.0.x, each on l2Book and trades of BTC. */
async function subscriber(): Promise<void> {
  const url = process.env.WS_URL as string;
  const n = Number(process.env.CONNS);
  const first = Number(process.env.FIRST_CONN);
  let delays: number[] = [];
  let messages = 0;
  // Read in the frame's bytes: a message is 1 to 5 kB and 60,000 of them arrive a second, so
  // decoding each to a string would cost this process more than finding one field does.
  const TIME = Buffer.from('"time":');
  const SUB_ACK = Buffer.from('{"channel":"subscriptionResponse"');
  const timeOf = (data: Buffer): number | null => {
    const at = data.indexOf(TIME);
    if (at < 0) return null;
    let t = 0;
    for (let i = at + TIME.length; i < data.length; i++) {
      const c = data[i] as number;
      if (c < 0x30 || c > 0x39) break;
      t = t * 10 + (c - 0x30);
    }
    return t;
  };
  const sockets: WebSocket[] = [];
  await Promise.all(
    Array.from({ length: n }, (_, k) => new Promise<void>((resolve, reject) => {
      const ip = `127.0.${Math.floor((first + k) / PER_IP / 250)}.${2 + (Math.floor((first + k) / PER_IP) % 250)}`;
      const ws = new WebSocket(url, { localAddress: ip, perMessageDeflate: false });
      sockets.push(ws);
      let subscribed = 0;
      ws.on('error', reject);
      ws.on('open', () => {
        ws.send(JSON.stringify({ method: 'subscribe', subscription: { type: 'l2Book', coin: 'BTC' } }));
        ws.send(JSON.stringify({ method: 'subscribe', subscription: { type: 'trades', coin: 'BTC' } }));
      });
      ws.on('message', (data: Buffer) => {
        const now = Date.now();
        if (subscribed < 2 && data.subarray(0, SUB_ACK.length).equals(SUB_ACK)) {
          if (++subscribed === 2) resolve();
          return;
        }
        const time = timeOf(data);
        if (time === null) return;
        messages++;
        if (subscribed === 2) delays.push(now - time);
      });
    })),
  );
  process.send?.({ kind: 'ready' });
  // As clients do: a ping every 30 s (the node closes connections idle for 60 s).
  setInterval(() => {
    for (const ws of sockets) ws.send('{"method":"ping"}');
  }, 30_000);
  setInterval(() => {
    process.send?.({ kind: 'delays', delays, messages } satisfies Report);
    delays = [];
    messages = 0;
  }, 1000);
}

/** A sender process: signs the run's orders, then posts them over one WebSocket at RATE per second, paced per millisecond. */
async function sender(): Promise<void> {
  const url = process.env.WS_URL as string;
  const rate = Number(process.env.RATE);
  const seconds = Number(process.env.SECONDS);
  const id = Number(process.env.SENDER);
  // Five accounts per sender (the flow's makers and takers), cloids apart from the other sender's.
  const accounts = flowAccounts(id * 5, 5);
  const sign = orderSigner();
  const pending = new Map<number, number>();
  const answers: number[] = [];
  let ok = 0;
  let failed = 0;
  const reasons = new Map<string, number>();
  const onAnswer = (data: Buffer) => {
    const m = JSON.parse(data.toString()) as { channel: string; data: { id: number; response: { status: string } } };
    if (m.channel !== 'post') return;
    const t0 = pending.get(m.data.id);
    pending.delete(m.data.id);
    if (t0 !== undefined) answers.push(Date.now() - t0);
    if (m.data.response.status === 'ok') ok++;
    else {
      failed++;
      const why = String((m.data.response as { response?: unknown }).response).slice(0, 60);
      reasons.set(why, (reasons.get(why) ?? 0) + 1);
    }
  };
  const total = Math.ceil(rate * seconds);
  // Nonces must be near the time an action is sent (the devnet accepts 60 s either side): each is
  // signed for its planned send time, from a start estimated by timing the first signatures.
  const frame = (k: number, start: number) => {
    const { acct, action } = marketMakingAction(k, accounts, id * 1e12);
    return JSON.stringify({ method: 'post', id: k, request: { type: 'exchange', payload: sign(acct, action, start + (k * 1000) / rate) } });
  };
  const probe = Math.min(total, 2000);
  const t0 = Date.now();
  for (let k = 0; k < probe; k++) frame(k, t0);
  for (const acct of accounts) acct.nonce = 0; // the probe's nonces were never sent
  const plannedStart = Date.now() + ((Date.now() - t0) / probe) * total * 1.1 + 1000;
  const frames = Array.from({ length: total }, (_, k) => frame(k, plannedStart));
  if (Date.now() < plannedStart) await new Promise((r) => setTimeout(r, plannedStart - Date.now()));
  // Connected once signed: an idle connection would be closed after 60 s.
  const ws = new WebSocket(url, { localAddress: `127.0.9.${10 + id}`, perMessageDeflate: false });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  ws.on('message', onAnswer);
  process.send?.({ kind: 'sending' });
  let sent = 0;
  const start = Date.now();
  await new Promise<void>((resolve) => {
    const tick = () => {
      const elapsed = Date.now() - start;
      if (elapsed >= seconds * 1000) return resolve();
      const due = Math.min(total, Math.floor((elapsed * rate) / 1000));
      while (sent < due) {
        pending.set(sent, Date.now());
        ws.send(frames[sent] as string);
        frames[sent] = '';
        sent++;
      }
      setTimeout(tick, 1); // a millisecond's worth at a time, without spinning a core
    };
    tick();
  });
  const deadline = Date.now() + 10_000;
  while (pending.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  answers.sort((x, y) => x - y);
  process.send?.({ kind: 'done', sent, ok, failed, postP99: pct(answers, 99), reasons: Object.fromEntries(reasons) });
}

if (process.env.BENCH_ROLE === 'subscriber') await subscriber();
else if (process.env.BENCH_ROLE === 'sender') await sender();
