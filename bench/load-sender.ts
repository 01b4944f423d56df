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

/**
 * Every signed body of the run in a few large buffers, with each action's place, orders and
 * account in typed arrays. A sender holds millions of actions for a long run: as one object (and
 * a Buffer) each, its major collections took hundreds of ms, stalls that showed in the run's
 * latencies as the node's. What is built per send (the transport's framing) dies young.
 */
class Bodies {
  private readonly chunks: Buffer[] = [];
  private pos = 0;
  readonly chunk: Uint16Array;
  readonly offset: Uint32Array;
  readonly length: Uint32Array;
  readonly orders: Uint8Array;
  /** The signing account's index: an account's actions go over its own connections, as a client's would. */
  readonly account: Uint32Array;

  constructor(readonly count: number) {
    this.chunk = new Uint16Array(count);
    this.offset = new Uint32Array(count);
    this.length = new Uint32Array(count);
    this.orders = new Uint8Array(count);
    this.account = new Uint32Array(count);
  }

  set(k: number, body: string, orders: number, account: number): void {
    const n = Buffer.byteLength(body);
    let last = this.chunks[this.chunks.length - 1];
    if (last === undefined || this.pos + n > last.length) {
      last = Buffer.allocUnsafe(Math.max(Math.min(BODY_CHUNK, this.count * 1024), n));
      this.chunks.push(last);
      this.pos = 0;
    }
    last.write(body, this.pos, 'utf8');
    this.chunk[k] = this.chunks.length - 1;
    this.offset[k] = this.pos;
    this.length[k] = n;
    this.pos += n;
    this.orders[k] = orders;
    this.account[k] = account;
  }

  body(k: number): Buffer {
    const at = this.offset[k] as number;
    return (this.chunks[this.chunk[k] as number] as Buffer).subarray(at, at + (this.length[k] as number));
  }
}

const BODY_CHUNK = 64 << 20;

const HEAD_END = Buffer.from('\r\n\r\n');

/** An HTTP request for a body, built as it is sent. */
function httpRequest(host: string, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`POST /exchange HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`), body]);
}

/** A WebSocket `post` of action k's body, built as it is sent (the answer carries the id). */
function wsPost(k: number, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`{"method":"post","id":${k},"request":{"type":"exchange","payload":`), body, WS_POST_END]);
}

const WS_POST_END = Buffer.from('}}');
const WS_OK = Buffer.from('"response":{"status":"ok"');

/** The whole share, signed: each action's nonce planned for its send time (the devnet takes nonces within 60 s of its clock). */
function signAll(cfg: SenderConfig, start: number): Bodies {
  const accounts = flowAccounts(cfg.accounts[0], cfg.accounts[1]);
  const sign = orderSigner();
  const bodies = new Bodies(cfg.count);
  for (let k = 0; k < cfg.count; k++) {
    const { acct, action, orders } = loadAction(cfg.mix, k, accounts, (cfg.id + 1) * 1e12);
    bodies.set(k, JSON.stringify(sign(acct, action, start + (k * 1000) / cfg.plannedRate)), orders, accounts.indexOf(acct));
  }
  return bodies;
}

class Tally {
  ok = 0;
  orders = 0;
  answered = 0;
  readonly reasons: Record<string, number> = {};
  /** Per answer, in answer order (typed: no heap object an answer). */
  readonly latencies: Float64Array;
  readonly sentSeconds: Uint32Array;
  /** When the run's clock started (performance.now()). */
  start = 0;

  constructor(count: number) {
    this.latencies = new Float64Array(count);
    this.sentSeconds = new Uint32Array(count);
  }

  answer(sentAt: number, ok: boolean, orders: number, reason: () => string): void {
    if (this.answered >= this.latencies.length) return; // never more answers than actions signed
    this.latencies[this.answered] = performance.now() - sentAt;
    this.sentSeconds[this.answered] = Math.max(0, Math.floor((sentAt - this.start) / 1000));
    this.answered++;
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

  send(request: Buffer, orders: number): void {
    this.sentAt = performance.now();
    if (this.sentAt - this.idleSince > REUSE_IDLE_MS) {
      const old = this.socket;
      this.socket = this.open(); // writes before the connection is up are queued by the socket
      this.buf = Buffer.alloc(0);
      old.destroy();
    }
    this.orders = orders;
    this.inFlight = true;
    this.socket.write(request);
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

async function sendHttp(cfg: SenderConfig, urls: readonly string[], bodies: Bodies, tally: Tally): Promise<number> {
  const hosts = urls.map((url) => new URL(url).host);
  let next = 0;
  let due = cfg.rate === 0 ? bodies.count : 0;
  // Each account has its own connections (to one node of a testnet), as a client would: its
  // actions arrive in order, at most that many in flight.
  const accounts = cfg.accounts[1];
  const free: HttpConn[][] = Array.from({ length: accounts }, () => []);
  const pump = () => {
    while (next < due) {
      const account = bodies.account[next] as number;
      const idle = free[account] as HttpConn[];
      if (idle.length === 0) return;
      (idle.pop() as HttpConn).send(httpRequest(hosts[account % hosts.length] as string, bodies.body(next)), bodies.orders[next] as number);
      next++;
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
    due = cfg.rate === 0 ? bodies.count : d;
    pump();
  });
  due = next; // the run is over: what is in flight is answered, nothing more is sent
  await drain(tally, () => next);
  for (const c of conns) c.conn.close();
  return next;
}

async function sendWs(cfg: SenderConfig, urls: readonly string[], bodies: Bodies, tally: Tally): Promise<number> {
  const sentAt = new Float64Array(bodies.count);
  // Each account has its own connections, as over HTTP: connection i carries account i mod
  // accounts (one signer per connection, as a client holds one key per connection; the node's
  // signer hints follow a connection's signer, node/signer-pool.ts). On a testnet an account's
  // connections all go to one node (account mod n), so its cancels never overtake its quotes.
  const accounts = cfg.accounts[1];
  const count = Math.max(cfg.conns, accounts);
  const sockets = await Promise.all(Array.from({ length: count }, (_, i) => new Promise<WebSocket>((resolve, reject) => {
    const ws = new WebSocket(urls[(i % accounts) % urls.length] as string, { perMessageDeflate: false });
    ws.once('open', () => resolve(ws)).once('error', reject);
  })));
  const connsOf = Array.from({ length: accounts }, (_, a) => Array.from({ length: count }, (_, i) => i).filter((i) => i % accounts === a));
  const turn = new Int32Array(accounts);
  const inFlight = new Int32Array(count);
  let next = 0;
  let due = 0;
  let over = false;
  const pump = () => {
    const limit = over ? next : cfg.rate === 0 ? bodies.count : due;
    while (next < limit && next < bodies.count) {
      const account = bodies.account[next] as number;
      const mine = connsOf[account] as number[];
      const c = mine[(turn[account] as number) % mine.length] as number;
      if (cfg.rate === 0 && (inFlight[c] as number) >= cfg.window) break;
      turn[account] = (turn[account] as number) + 1;
      inFlight[c] = (inFlight[c] as number) + 1;
      sentAt[next] = performance.now();
      (sockets[c] as WebSocket).send(wsPost(next, bodies.body(next)));
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
    const ok = data.includes(WS_OK);
    inFlight[c] = (inFlight[c] as number) - 1;
    tally.answer(sentAt[id] as number, ok, bodies.orders[id] as number, () => data.toString().replace(/^.*"response":/, ''));
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
  const bodies = signAll(cfg, start);
  process.send?.({ kind: 'signed' });
  // The nodes' base URLs (http://host:port or ws://host:port/ws), used in turn by the connections:
  // known once the nodes started, which they did while this process signed.
  const { urls } = await new Promise<{ urls: readonly string[] }>((resolve) => process.once('message', resolve));
  const tally = new Tally(bodies.count);
  const sent = cfg.transport === 'http' ? await sendHttp(cfg, urls, bodies, tally) : await sendWs(cfg, urls, bodies, tally);
  const report: SenderReport = {
    kind: 'done', sent, ok: tally.ok, orders: tally.orders, reasons: tally.reasons, latencies: Array.from(tally.latencies.subarray(0, tally.answered)), sentSeconds: Array.from(tally.sentSeconds.subarray(0, tally.answered)), unanswered: sent - tally.answered,
  };
  process.send?.(report, () => process.exit(0));
}

await main();
