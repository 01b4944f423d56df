// The node's WebSocket (`{ws_url}/ws`): subscriptions and posts on one connection that reconnects
// by itself (backoff 0.5 s doubling to 10 s) and sends every live subscription again once it is
// back. A post in flight when the connection drops is refused with TransportError: an exchange
// post may or may not have landed, and sending the same signed request again is safe (the node
// takes a nonce once). Works in browsers (global WebSocket) and in Node (the `ws` package).
import { TransportError } from './errors.ts';
import type { ExchangeResponse, InfoRequest, InfoType, InfoTypes, SignedRequest, Subscription, SubscriptionData } from './types.ts';

/** The subset of the WHATWG WebSocket this client uses. */
interface Socket {
  readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
}
export type SocketFactory = (url: string) => Socket;

export interface WsClientOptions {
  /** e.g. ws://127.0.0.1:4000/ws, or a function that finds it (asked at each connection). */
  readonly url: string | (() => Promise<string>);
  /** How to open a socket; default: the global WebSocket, else the `ws` package. */
  readonly socket?: SocketFactory;
  readonly minReconnectMs?: number;
  readonly maxReconnectMs?: number;
  /** Keep-alive ping period (the node closes connections idle for 60 s). */
  readonly pingMs?: number;
  readonly postTimeoutMs?: number;
  /** Told when the connection opens (again) or drops. */
  readonly onState?: (state: 'open' | 'closed', reconnects: number) => void;
}

type Handler = (data: unknown) => void;
interface Sub {
  readonly subscription: Subscription;
  readonly key: string;
  readonly handler: Handler;
}
interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

/** Channel of each subscription type's pushes (docs/websocket.md). */
const CHANNEL: Record<Subscription['type'], readonly string[]> = {
  allMids: ['allMids'], l2Book: ['l2Book'], bbo: ['bbo'], trades: ['trades'], candle: ['candle'],
  activeAssetCtx: ['activeAssetCtx', 'activeSpotAssetCtx'], orderUpdates: ['orderUpdates'], userFills: ['userFills'],
  userEvents: ['user'], userFundings: ['userFundings'], notification: ['notification'],
};

const OPEN = 1;

/** A subscription's identity: its type and parameters, addresses lowercase. */
export function subscriptionKey(s: Subscription): string {
  const r = s as Record<string, unknown>;
  const user = typeof r.user === 'string' ? r.user.toLowerCase() : '';
  return `${s.type}|${String(r.coin ?? '')}|${String(r.interval ?? '')}|${user}`;
}

/** The key part a push carries, where it carries one: coin (and interval) or user. */
function pushKey(channel: string, data: unknown): { coin?: string; interval?: string; user?: string } {
  const d = data as Record<string, unknown> | unknown[];
  if (Array.isArray(d)) return { coin: typeof (d[0] as { coin?: unknown })?.coin === 'string' ? (d[0] as { coin: string }).coin : undefined };
  if (d === null || typeof d !== 'object') return {};
  if (channel === 'candle') return { coin: String(d.s), interval: String(d.i) };
  return { coin: typeof d.coin === 'string' ? d.coin : undefined, user: typeof d.user === 'string' ? d.user.toLowerCase() : undefined };
}

function matches(sub: Subscription, k: { coin?: string; interval?: string; user?: string }): boolean {
  const r = sub as Record<string, unknown>;
  if (k.coin !== undefined && r.coin !== undefined && r.coin !== k.coin) return false;
  if (k.interval !== undefined && r.interval !== undefined && r.interval !== k.interval) return false;
  if (k.user !== undefined && typeof r.user === 'string' && r.user.toLowerCase() !== k.user) return false;
  return true;
}

export class WsClient {
  private socket: Socket | null = null;
  private readonly subs = new Set<Sub>();
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;
  private attempt = 0;
  private reconnects = 0;
  private opening: Promise<void> | null = null;
  private pinger: ReturnType<typeof setInterval> | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  /** The last `{channel: "error"}` text, for a subscription the node refused. */
  lastError: string | null = null;

  constructor(private readonly opts: WsClientOptions) {}

  /** Opens the connection (once; later calls wait for the same opening). */
  connect(): Promise<void> {
    if (this.socket?.readyState === OPEN) return Promise.resolve();
    this.closed = false;
    this.opening ??= this.open().finally(() => (this.opening = null));
    return this.opening;
  }

  /**
   * Subscribes; `onData` gets each push of the channel (data only). Returns the unsubscribe
   * function. The subscription survives reconnects.
   */
  async subscribe<T extends Subscription['type']>(
    subscription: Extract<Subscription, { type: T }>, onData: (data: SubscriptionData[T]) => void,
  ): Promise<() => void> {
    const sub: Sub = { subscription, key: subscriptionKey(subscription), handler: onData as Handler };
    const known = [...this.subs].some((s) => s.key === sub.key);
    this.subs.add(sub);
    // Not open yet: the opening sends every subscription in the set, this one included.
    if (this.socket?.readyState !== OPEN) {
      try {
        await this.connect();
      } catch (err) {
        this.subs.delete(sub); // refused: it is not kept for a later connection either
        throw err;
      }
    } else if (!known) this.sendJson({ method: 'subscribe', subscription });
    return () => {
      if (!this.subs.delete(sub)) return;
      const stillWanted = [...this.subs].some((s) => s.key === sub.key);
      if (!stillWanted && this.socket?.readyState === OPEN) this.sendJson({ method: 'unsubscribe', subscription });
    };
  }

  /** An info request over the socket; answers what `POST /info` would. */
  postInfo<T extends InfoType>(req: InfoRequest<T>): Promise<InfoTypes[T]['res']> {
    return this.post('info', req) as Promise<InfoTypes[T]['res']>;
  }

  /** A signed exchange request over the socket (not spotDeploy); answers the `/exchange` envelope. */
  postExchange<D = unknown>(req: SignedRequest): Promise<ExchangeResponse<D>> {
    return this.post('exchange', req) as Promise<ExchangeResponse<D>>;
  }

  /** Closes for good: no reconnect; posts in flight are refused. */
  close(): void {
    this.closed = true;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.stopPing();
    this.failPending('WebSocket closed by the client');
    this.socket?.close(1000, 'bye');
    this.socket = null;
  }

  private async post(type: 'info' | 'exchange', payload: unknown): Promise<unknown> {
    await this.connect();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new TransportError(`post ${id} not answered in ${this.opts.postTimeoutMs ?? 30_000} ms`));
      }, this.opts.postTimeoutMs ?? 30_000);
      this.pending.set(id, { resolve, reject, timer });
      this.sendJson({ method: 'post', id, request: { type, payload } });
    });
  }

  private async open(): Promise<void> {
    const factory = this.opts.socket ?? (await defaultFactory());
    const url = typeof this.opts.url === 'string' ? this.opts.url : await this.opts.url();
    await new Promise<void>((resolve, reject) => {
      const s = factory(url);
      let opened = false;
      s.onopen = () => {
        opened = true;
        this.socket = s;
        this.attempt = 0;
        this.startPing();
        // Everything subscribed before the drop (or before this first open), once per key.
        const sent = new Set<string>();
        for (const sub of this.subs) {
          if (sent.has(sub.key)) continue;
          sent.add(sub.key);
          this.sendJson({ method: 'subscribe', subscription: sub.subscription });
        }
        this.opts.onState?.('open', this.reconnects);
        resolve();
      };
      s.onmessage = (ev) => this.onMessage(typeof ev.data === 'string' ? ev.data : String(ev.data));
      s.onerror = () => {
        if (!opened) reject(new TransportError(`cannot connect to ${url}`));
      };
      s.onclose = () => {
        if (this.socket === s) this.socket = null;
        this.stopPing();
        if (!opened) return reject(new TransportError(`cannot connect to ${url}`));
        this.failPending('WebSocket connection lost before the answer');
        this.opts.onState?.('closed', this.reconnects);
        if (!this.closed) this.scheduleReconnect();
      };
    });
  }

  private scheduleReconnect(): void {
    const min = this.opts.minReconnectMs ?? 500;
    const delay = Math.min(min * 2 ** this.attempt, this.opts.maxReconnectMs ?? 10_000);
    this.attempt++;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (this.closed) return;
      this.reconnects++;
      this.connect().catch(() => {
        if (!this.closed) this.scheduleReconnect();
      });
    }, delay);
  }

  private onMessage(text: string): void {
    let msg: { channel?: string; data?: unknown };
    try {
      msg = JSON.parse(text) as typeof msg;
    } catch {
      return;
    }
    const channel = msg.channel;
    if (channel === 'post') {
      const d = msg.data as { id: number; response: unknown };
      const p = this.pending.get(d.id);
      if (p === undefined) return;
      this.pending.delete(d.id);
      clearTimeout(p.timer);
      p.resolve(d.response);
      return;
    }
    if (channel === 'error') {
      this.lastError = String(msg.data);
      // A refused info post names its id: "post <id>: <message>".
      const m = /^post (\d+): (.*)$/s.exec(this.lastError);
      const p = m === null ? undefined : this.pending.get(Number(m[1]));
      if (m !== null && p !== undefined) {
        this.pending.delete(Number(m[1]));
        clearTimeout(p.timer);
        p.reject(new TransportError(m[2] as string));
      }
      return;
    }
    if (channel === undefined || channel === 'pong' || channel === 'subscriptionResponse') return;
    const key = pushKey(channel, msg.data);
    for (const sub of this.subs) {
      if (CHANNEL[sub.subscription.type].includes(channel) && matches(sub.subscription, key)) sub.handler(msg.data);
    }
  }

  private sendJson(msg: unknown): void {
    if (this.socket?.readyState !== OPEN) throw new TransportError('WebSocket is not open');
    this.socket.send(JSON.stringify(msg));
  }

  private startPing(): void {
    this.stopPing();
    this.pinger = setInterval(() => {
      if (this.socket?.readyState === OPEN) this.socket.send('{"method":"ping"}');
    }, this.opts.pingMs ?? 50_000);
    (this.pinger as { unref?: () => void }).unref?.();
  }

  private stopPing(): void {
    if (this.pinger !== null) clearInterval(this.pinger);
    this.pinger = null;
  }

  private failPending(why: string): void {
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new TransportError(`post ${id}: ${why}`));
    }
    this.pending.clear();
  }
}

async function defaultFactory(): Promise<SocketFactory> {
  const G = (globalThis as { WebSocket?: new (url: string) => Socket }).WebSocket;
  if (G !== undefined) return (url) => new G(url);
  const { WebSocket } = (await import('ws')) as unknown as { WebSocket: new (url: string) => Socket };
  return (url) => new WebSocket(url);
}
