// A load generator process (started by load.ts): signs its whole share of the run before the
// clock starts, then sends it over HTTP keep-alive connections (one request in flight per
// connection, as a client without pipelining) or WebSocket `post`s, at a fixed rate or as fast
// as answered, and reports every answer's latency and failure reason.
import { connect, type Socket } from 'node:net';
import WebSocket from 'ws';
import { flowAccounts, orderSigner } from './order-flow.ts';
import { loadAction, type LoadMix } from './load-flow.ts';

export interface SenderConfig {
  readonly id: number;
  readonly transport: 'http' | 'ws';
  readonly mix: LoadMix;
  /** Actions a second this sender offers; 0: as fast as answered. */
  readonly rate: number;
  readonly seconds: number;
  /** Actions to sign (the rate times the seconds, or a bound for an as-fast-as-answered run). */
  readonly count: number;
  /** The rate nonces are planned for (the offered rate, or the expected one). */
  readonly plannedRate: number;
  /** HTTP: connections; WebSocket: connections. */
  readonly conns: number;
  /** WebSocket, as fast as answered: posts in flight per connection. */
  readonly window: number;
  /** Devnet accounts this sender signs for: [first, count]. */
  readonly accounts: readonly [number, number];
}

export interface SenderReport {
  readonly kind: 'done';
  readonly sent: number;
  readonly ok: number;
  readonly orders: number;
  readonly reasons: Record<string, number>;
  /** Milliseconds from send to answer, one per answered action. */
  readonly latencies: number[];
  /** The second of the run each of `latencies` was sent in (0 is the first). */
  readonly sentSeconds: number[];
  /** Actions not answered when the sender gave up waiting. */
  readonly unanswered: number;
}

interface Frame {
  /** The request as sent, built by the transport from the signed body. */
  bytes: Buffer;
  readonly orders: number;
  /** The signing account's index: an account's actions all go over one connection, in order, as a client's would. */
  readonly account: number;
}

const HEAD_END = Buffer.from('\r\n\r\n');

function httpRequest(host: string, body: string): Buffer {
  const b = Buffer.from(body);
  return Buffer.concat([Buffer.from(`POST /exchange HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${b.length}\r\n\r\n`), b]);
}

/** The whole share, signed: each action's nonce planned for its send time (the devnet takes nonces within 60 s of its clock). */
function signAll(cfg: SenderConfig, start: number): { frames: Frame[]; bodies: string[] } {
  const accounts = flowAccounts(cfg.accounts[0], cfg.accounts[1]);
  const sign = orderSigner();
  const bodies: string[] = [];
  const frames: Frame[] = [];
  for (let k = 0; k < cfg.count; k++) {
    const { acct, action, orders } = loadAction(cfg.mix, k, accounts, (cfg.id + 1) * 1e12);
    bodies.push(JSON.stringify(sign(acct, action, start + (k * 1000) / cfg.plannedRate)));
    frames.push({ bytes: Buffer.alloc(0), orders, account: accounts.indexOf(acct) });
  }
  return { frames, bodies };
}

class Tally {
  ok = 0;
  orders = 0;
  answered = 0;
  readonly reasons: Record<string, number> = {};
  readonly latencies: number[] = [];
  readonly sentSeconds: number[] = [];
  /** When the run's clock started (performance.now()). */
  start = 0;

  answer(sentAt: number, ok: boolean, orders: number, reason: () => string): void {
    this.answered++;
    this.latencies.push(performance.now() - sentAt);
    this.sentSeconds.push(Math.max(0, Math.floor((sentAt - this.start) / 1000)));
    if (ok) {
      this.ok++;
      this.orders += orders;
    } else {
      const why = reason().slice(0, 100);
      this.reasons[why] = (this.reasons[why] ?? 0) + 1;
    }
  }
}

/**
 * The node closes a keep-alive connection idle for 10 s (docs/api.md); a connection idle this
 * long is replaced before its next request, as HTTP clients' pools do, so no request races the close.
 */
const REUSE_IDLE_MS = 8_000;

/** One keep-alive connection: writes a request when the previous one is answered. */
class HttpConn {
  private buf: Buffer = Buffer.alloc(0);
  private sentAt = 0;
  private orders = 0;
  /** When the connection last finished a request (or connected). */
  private idleSince = performance.now();
  private inFlight = false;
  readonly ready: Promise<void>;
  private socket: Socket;

  constructor(private readonly url: string, private readonly tally: Tally, private readonly onFree: (c: HttpConn) => void) {
    this.socket = this.open();
    this.ready = new Promise((resolve, reject) => this.socket.once('connect', resolve).once('error', reject));
  }

  private open(): Socket {
    const u = new URL(this.url);
    const socket = connect({ host: u.hostname, port: Number(u.port) });
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', () => {}); // 'close' follows
    // Closed under a request (the node stopped, or closed it): that request is answered by nobody.
    socket.on('close', () => {
      if (socket !== this.socket || !this.inFlight) return;
      this.inFlight = false;
      this.tally.answer(this.sentAt, false, this.orders, () => 'connection closed before the answer');
      this.socket = this.open();
      this.buf = Buffer.alloc(0);
      this.onFree(this);
    });
    return socket;
  }

  send(frame: Frame): void {
    this.sentAt = performance.now();
    if (this.sentAt - this.idleSince > REUSE_IDLE_MS) {
      const old = this.socket;
      this.socket = this.open(); // writes before the connection is up are queued by the socket
      this.buf = Buffer.alloc(0);
      old.destroy();
    }
    this.orders = frame.orders;
    this.inFlight = true;
    this.socket.write(frame.bytes);
  }

  private onData(chunk: Buffer): void {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    const end = this.buf.indexOf(HEAD_END);
    if (end < 0) return;
    const head = this.buf.toString('latin1', 0, end);
    const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
    if (this.buf.length < end + 4 + length) return;
    const body = this.buf.toString('utf8', end + 4, end + 4 + length);
    this.buf = this.buf.subarray(end + 4 + length);
    const status = head.slice(9, 12);
    const ok = status === '200' && body.startsWith('{"status":"ok"');
    this.inFlight = false;
    this.idleSince = performance.now();
    this.tally.answer(this.sentAt, ok, this.orders, () => (status === '200' ? body : `HTTP ${status} ${body}`));
    this.onFree(this);
  }

  close(): void {
    this.inFlight = false;
    this.socket.destroy();
  }
}

async function sendHttp(cfg: SenderConfig, urls: readonly string[], bodies: string[], frames: Frame[], tally: Tally): Promise<number> {
  const hostOf = (url: string) => new URL(url).host;
  frames.forEach((f, k) => (f.bytes = httpRequest(hostOf(urls[f.account % urls.length] as string), bodies[k] as string)));
  bodies.length = 0;
  let next = 0;
  let due = cfg.rate === 0 ? frames.length : 0;
  // Each account has its own connections (to one node of a testnet), as a client would: its
  // actions arrive in order, at most that many in flight.
  const accounts = cfg.accounts[1];
  const free: HttpConn[][] = Array.from({ length: accounts }, () => []);
  const pump = () => {
    while (next < due) {
      const idle = free[(frames[next] as Frame).account] as HttpConn[];
      if (idle.length === 0) return;
      (idle.pop() as HttpConn).send(frames[next++] as Frame);
    }
  };
  const conns = Array.from({ length: Math.max(cfg.conns, accounts) }, (_, i) => {
    const account = i % accounts;
    const conn = new HttpConn(urls[account % urls.length] as string, tally, () => {
      (free[account] as HttpConn[]).push(conn);
      pump();
    });
    return { conn, account };
  });
  await Promise.all(conns.map((c) => c.conn.ready));
  process.send?.({ kind: 'ready' });
  await new Promise<void>((resolve) => process.once('message', () => resolve()));
  const start = performance.now();
  tally.start = start;
  for (const c of conns) (free[c.account] as HttpConn[]).push(c.conn);
  await pace(cfg, start, (d) => {
    due = cfg.rate === 0 ? frames.length : d;
    pump();
  });
  due = next; // the run is over: what is in flight is answered, nothing more is sent
  await drain(tally, () => next);
  for (const c of conns) c.conn.close();
  return next;
}

async function sendWs(cfg: SenderConfig, urls: readonly string[], bodies: string[], frames: Frame[], tally: Tally): Promise<number> {
  bodies.forEach((b, k) => ((frames[k] as Frame).bytes = Buffer.from(`{"method":"post","id":${k},"request":{"type":"exchange","payload":${b}}}`)));
  bodies.length = 0;
  const sentAt = new Float64Array(frames.length);
  const sockets = await Promise.all(Array.from({ length: cfg.conns }, (_, i) => new Promise<WebSocket>((resolve, reject) => {
    // Connection i carries the accounts i, i + conns, ...; on a testnet it goes to node i mod n.
    const ws = new WebSocket(urls[i % urls.length] as string, { perMessageDeflate: false });
    ws.once('open', () => resolve(ws)).once('error', reject);
  })));
  const inFlight = new Int32Array(cfg.conns);
  let next = 0;
  let due = 0;
  let over = false;
  const pump = () => {
    const limit = over ? next : cfg.rate === 0 ? frames.length : due;
    while (next < limit && next < frames.length) {
      const c = (frames[next] as Frame).account % cfg.conns;
      if (cfg.rate === 0 && (inFlight[c] as number) >= cfg.window) break;
      inFlight[c] = (inFlight[c] as number) + 1;
      sentAt[next] = performance.now();
      (sockets[c] as WebSocket).send((frames[next] as Frame).bytes);
      next++;
    }
  };
  const idAt = Buffer.from('"id":');
  sockets.forEach((ws, c) => ws.on('message', (data: Buffer) => {
    const at = data.indexOf(idAt);
    if (at < 0) return;
    let id = 0;
    for (let i = at + idAt.length; i < data.length; i++) {
      const d = (data[i] as number) - 0x30;
      if (d < 0 || d > 9) break;
      id = id * 10 + d;
    }
    const text = data.toString();
    const ok = text.includes('"response":{"status":"ok"');
    inFlight[c] = (inFlight[c] as number) - 1;
    tally.answer(sentAt[id] as number, ok, (frames[id] as Frame).orders, () => text.replace(/^.*"response":/, ''));
    if (cfg.rate === 0) pump();
  }));
  process.send?.({ kind: 'ready' });
  await new Promise<void>((resolve) => process.once('message', () => resolve()));
  const start = performance.now();
  tally.start = start;
  await pace(cfg, start, (d) => {
    due = d;
    pump();
  });
  over = true;
  await drain(tally, () => next);
  for (const ws of sockets) ws.close();
  return next;
}

/** Calls `tick` with the actions due so far every millisecond until the run's end. */
function pace(cfg: SenderConfig, start: number, tick: (due: number) => void): Promise<void> {
  return new Promise((resolve) => {
    const step = () => {
      const elapsed = performance.now() - start;
      if (elapsed >= cfg.seconds * 1000) return resolve();
      tick(Math.min(cfg.count, Math.floor((elapsed * cfg.rate) / 1000)));
      setTimeout(step, 1);
    };
    step();
  });
}

/** Waits (at most 15 s) for the answers of everything sent. */
async function drain(tally: Tally, sent: () => number): Promise<void> {
  const deadline = performance.now() + 15_000;
  while (tally.answered < sent() && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

async function main(): Promise<void> {
  const cfg = JSON.parse(process.env.LOAD_SENDER as string) as SenderConfig;
  // Nonces are planned from when sending will start, one time for all senders (the devnet takes
  // nonces within 60 s of its clock, and senders' own guesses of a long run's signing time differ
  // by more). Each reports how long it expects to sign, from the CPU time of a sample signed after
  // a first one warmed the signer up (the sample runs while the nodes start: its wall time was
  // three to four times the signing's own); the parent answers with the start. A quarter of a
  // short run is sample enough.
  const sample = Math.max(1, Math.min(Math.ceil(cfg.count / 4), 2000));
  signAll({ ...cfg, count: sample }, Date.now());
  const cpu0 = process.cpuUsage();
  signAll({ ...cfg, count: sample }, Date.now());
  const cpu = process.cpuUsage(cpu0);
  const planned = new Promise<{ start: number }>((resolve) => process.once('message', resolve));
  process.send?.({ kind: 'estimate', ms: ((cpu.user + cpu.system) / 1000 / sample) * cfg.count });
  const { start } = await planned;
  const { frames, bodies } = signAll(cfg, start);
  process.send?.({ kind: 'signed' });
  // The nodes' base URLs (http://host:port or ws://host:port/ws), used in turn by the connections:
  // known once the nodes started, which they did while this process signed.
  const { urls } = await new Promise<{ urls: readonly string[] }>((resolve) => process.once('message', resolve));
  const tally = new Tally();
  const sent = cfg.transport === 'http' ? await sendHttp(cfg, urls, bodies, frames, tally) : await sendWs(cfg, urls, bodies, frames, tally);
  const report: SenderReport = {
    kind: 'done', sent, ok: tally.ok, orders: tally.orders, reasons: tally.reasons, latencies: tally.latencies, sentSeconds: tally.sentSeconds, unanswered: sent - tally.answered,
  };
  process.send?.(report, () => process.exit(0));
}

await main();
