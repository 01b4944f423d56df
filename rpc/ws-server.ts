// The WebSocket API on uWebSockets.js (path /ws): post requests (info and exchange, answered on
// channel `post` with the request's id), subscriptions with Hyperliquid's message shapes pushed
// from committed blocks, ping/pong. Slow consumers are cut off by uWS's backpressure limit.
// Path /hyperliquid/ws serves the Hyperliquid dialect (rpc/hyperliquid/ws.ts) on the same
// connections' limits, idle rule and pub/sub; its connections never enter the root's paths.
import uWS from '@trufflesuite/uws-js-unofficial';
import type { ExchangeEvent, FillRecord } from '../exchange/index.ts';
import { canonicalize, normalizeAddress, stageEnd } from '../primitives/index.ts';
import type { NodeApi } from './api.ts';
import { UwsListener } from './uws-listener.ts';
import { handleExchange } from './exchange-endpoint.ts';
import { HttpError } from './http-errors.ts';
import { handleInfo } from './info.ts';
import type { Limits } from './limits.ts';
import { jsonObjectOf, shown } from './request-checks.ts';
import { HyperliquidWs, type WsCarrier } from './hyperliquid/ws.ts';
import { clientIp } from './tls-proxy.ts';

/** A committed block as the streams need it; declared here, supplied by node/. */
export interface FeedBlock {
  readonly header: { readonly height: number; readonly time: number };
  readonly events: readonly ExchangeEvent[];
  /** Candles changed by the block, Hyperliquid's shape (`s` coin, `i` interval). */
  readonly candles: readonly { readonly s: string; readonly i: string; readonly t: number }[];
}

export interface BlockFeed {
  onBlock(listener: (b: FeedBlock) => void): () => void;
}

export interface WsServerOptions {
  readonly host: string;
  readonly port: number;
  readonly log: (line: string) => void;
  /** Bytes buffered for one connection before it is closed as too slow. */
  readonly maxBackpressure: number;
  /**
   * Rate limits: WebSocket posts count against the `/info` and `/exchange` budgets of their IP,
   * and `config` bounds connections per IP and subscriptions per connection and per IP.
   */
  readonly limits: Limits;
  /**
   * Public streams are published at most this often (ms; longer with many connections, see
   * `publicInterval`): the blocks committed in between are merged (their trades and candle
   * changes in block order, the latest book, mids and contexts), so the fan-out to many
   * subscribers costs one write per subscriber per interval, not per block.
   */
  readonly publicIntervalMs: number;
  /** Behind TlsFront (tls-proxy.ts): the client's address comes from the PROXY header. */
  readonly behindProxy?: boolean;
}

/** See `publicInterval`. */
const PUBLIC_MS_PER_CONNECTION = 0.02;
const PUBLIC_INTERVAL_MAX_MS = 50;

type Trade = { coin: string; side: string; px: string; sz: string; hash: string; time: number; tid: number; users: [string, string] };
type Candle = FeedBlock['candles'][number];

/** Public stream changes of the blocks not yet published. */
interface PublicPending {
  readonly touchedCoins: Set<string>;
  readonly trades: Map<string, Trade[]>;
  /** By coin, interval and open time: the latest state of each candle, in first-change order. */
  readonly candles: Map<string, Candle>;
  /** Time of the latest block gathered. */
  time: number;
}

type Subscription =
  | { type: 'allMids' }
  | { type: 'l2Book' | 'trades' | 'bbo' | 'activeAssetCtx'; coin: string }
  | { type: 'candle'; coin: string; interval: string }
  | { type: 'userFills' | 'orderUpdates' | 'userEvents' | 'userFundings' | 'notification'; user: string };

interface Conn {
  readonly ip: string;
  /** The root API's subscriptions (none on a dialect connection, whose own the dialect keeps). */
  readonly subs: Map<string, Subscription>;
}

type Socket = uWS.WebSocket<Conn>;

/** Candle intervals of the spec. */
const CANDLE_INTERVALS = ['1m', '3m', '5m', '15m', '30m', '1h', '2h', '4h', '8h', '12h', '1d', '3d', '1w'];
const USER_TYPES = new Set(['userFills', 'orderUpdates', 'userEvents', 'userFundings', 'notification']);
const COIN_TYPES = new Set(['l2Book', 'trades', 'bbo', 'activeAssetCtx']);

type PublicSubscription = Exclude<Subscription, { user: string }>;
const isPublic = (s: Subscription): s is PublicSubscription => !('user' in s);

export class WsServer {
  private readonly app: uWS.TemplatedApp;
  private readonly listener: UwsListener;
  private readonly conns = new Set<uWS.WebSocket<Conn>>();
  private readonly perIp = new Map<string, number>();
  /** Subscriptions of all the connections of an IP. */
  private readonly subsPerIp = new Map<string, number>();
  /**
   * Public streams (books, trades, mids, contexts, candles) by topic, the subscription's canonical
   * key: each block's message is built and serialized once and fanned out by uWS's pub/sub, so a
   * thousand subscribers cost one JSON.stringify, not a thousand.
   */
  private readonly topics = new Map<string, PublicSubscription>();
  /** Connections with a user stream, by user: a block's user events reach them without a scan of every connection. */
  private readonly byUser = new Map<string, Set<uWS.WebSocket<Conn>>>();
  private pending: PublicPending | null = null;
  private lastPublish = -Infinity;
  private publishTimer: NodeJS.Timeout | null = null;
  private readonly unsubscribeFeed: () => void;
  /**
   * Messages written this turn of the event loop, per connection, in order: sent together under
   * one cork after it (one socket write per connection, not one per message, for the answers a
   * block releases at once). Published topics flush it first, so no connection sees a published
   * message before one sent to it earlier.
   */
  private readonly outbox = new Map<uWS.WebSocket<Conn>, string[]>();
  private outboxScheduled = false;
  private readonly hyperliquid: HyperliquidWs<Socket>;

  constructor(
    private readonly api: NodeApi,
    feed: BlockFeed,
    private readonly opts: WsServerOptions,
  ) {
    this.app = uWS.App();
    this.listener = new UwsListener(this.app);
    this.hyperliquid = new HyperliquidWs(api, this.carrier());
    this.app.ws<Conn>('/ws', this.behavior(false));
    this.app.ws<Conn>('/hyperliquid/ws', this.behavior(true));
    this.app.any('/*', (res) => {
      res.writeStatus('404 Not Found').writeHeader('Content-Type', 'application/json').end(JSON.stringify({ error: 'not_found', message: 'WebSocket endpoints are /ws and /hyperliquid/ws' }));
    });
    this.unsubscribeFeed = feed.onBlock((b) => this.onBlock(b));
  }

  /** One route's behavior: the root API's (`dialect` false) or the Hyperliquid dialect's; the same limits and rules. */
  private behavior(dialect: boolean): uWS.WebSocketBehavior<Conn> {
    const opts = this.opts;
    return {
      idleTimeout: 60,
      sendPingsAutomatically: false,
      maxPayloadLength: 256 * 1024,
      maxBackpressure: opts.maxBackpressure,
      closeOnBackpressureLimit: 1,
      upgrade: (res, req, context) => {
        const ip = clientIp(res, this.opts.behindProxy === true);
        const max = opts.limits.config.wsConnectionsPerIp;
        if ((this.perIp.get(ip) ?? 0) >= max) {
          // Nothing refills here: a connection closing frees a place; 10 s is a fair pause.
          const body = { error: 'rate_limit_exceeded', message: `Too many WebSocket connections: at most ${max} per IP`, retry_after: 10 };
          res.cork(() => {
            res.writeStatus('429 Too Many Requests').writeHeader('Content-Type', 'application/json').writeHeader('Retry-After', '10').end(JSON.stringify(body));
          });
          return;
        }
        res.upgrade<Conn>({ ip, subs: new Map() }, req.getHeader('sec-websocket-key'), req.getHeader('sec-websocket-protocol'), req.getHeader('sec-websocket-extensions'), context);
      },
      open: (ws) => {
        this.conns.add(ws);
        const ip = ws.getUserData().ip;
        this.perIp.set(ip, (this.perIp.get(ip) ?? 0) + 1);
        if (dialect) this.hyperliquid.open(ws);
      },
      message: dialect
        ? (ws, message) => void this.hyperliquid.onMessage(ws, Buffer.from(message).toString('utf8')).catch((err: unknown) => this.failed(ws, err))
        : (ws, message) => {
          const t0 = performance.now();
          void this.onMessage(ws, Buffer.from(message).toString('utf8')).catch((err: unknown) => this.failed(ws, err));
          stageEnd('requests', t0);
        },
      close: (ws) => {
        this.conns.delete(ws);
        if (dialect) this.hyperliquid.close(ws);
        for (const sub of ws.getUserData().subs.values()) if (!isPublic(sub)) this.unindex(ws, sub.user);
        const ip = ws.getUserData().ip;
        this.countSubs(ip, -ws.getUserData().subs.size);
        const n = (this.perIp.get(ip) ?? 1) - 1;
        if (n === 0) this.perIp.delete(ip);
        else this.perIp.set(ip, n);
      },
    };
  }

  /** The dialect's view of this server: sends, the subscription limits, pub/sub. */
  private carrier(): WsCarrier<Socket> {
    return {
      limits: this.opts.limits,
      log: (line) => this.opts.log(line),
      ip: (ws) => ws.getUserData().ip,
      send: (ws, msg) => this.send(ws, msg),
      sendText: (ws, text) => this.queue(ws, text),
      alive: (ws) => this.conns.has(ws),
      takeSubscription: (ws, held) => {
        const refused = this.subscriptionRefused(ws.getUserData().ip, held);
        if (refused === null) this.countSubs(ws.getUserData().ip, 1);
        return refused;
      },
      releaseSubscriptions: (ws, n) => this.countSubs(ws.getUserData().ip, -n),
      join: (ws, topic) => {
        if (this.conns.has(ws)) ws.subscribe(topic);
      },
      leave: (ws, topic) => {
        if (this.conns.has(ws)) ws.unsubscribe(topic);
      },
      publish: (topic, text) => {
        this.flushOutbox();
        this.app.publish(topic, text, false);
      },
      subscribers: (topic) => this.app.numSubscribers(topic),
    };
  }

  /** Why a connection holding `held` subscriptions may not take one more, or null. */
  private subscriptionRefused(ip: string, held: number): string | null {
    const { wsSubscriptionsPerConnection: perConn, wsSubscriptionsPerIp: perIp } = this.opts.limits.config;
    if (held >= perConn) return `At most ${perConn} subscriptions per connection`;
    if ((this.subsPerIp.get(ip) ?? 0) >= perIp) return `At most ${perIp} subscriptions per IP (all its connections)`;
    return null;
  }

  listen(): Promise<number> {
    return this.listener.listen(this.opts.host, this.opts.port);
  }

  /** Open connections (metrics). */
  get connections(): number {
    return this.conns.size;
  }

  close(): void {
    if (this.publishTimer !== null) clearTimeout(this.publishTimer);
    this.unsubscribeFeed();
    this.listener.close();
  }

  private send(ws: uWS.WebSocket<Conn>, msg: unknown): void {
    if (!this.conns.has(ws)) return;
    const t0 = performance.now();
    this.queue(ws, JSON.stringify(msg));
    stageEnd('answers', t0);
  }

  private queue(ws: uWS.WebSocket<Conn>, text: string): void {
    if (!this.conns.has(ws)) return;
    const texts = this.outbox.get(ws);
    if (texts !== undefined) texts.push(text);
    else this.outbox.set(ws, [text]);
    if (this.outboxScheduled) return;
    this.outboxScheduled = true;
    setImmediate(() => this.flushOutbox());
  }

  private flushOutbox(): void {
    this.outboxScheduled = false;
    if (this.outbox.size === 0) return;
    const t0 = performance.now();
    for (const [ws, texts] of this.outbox) {
      // A connection closed since: its close handler ran, so uWS no longer holds it.
      if (!this.conns.has(ws)) continue;
      ws.cork(() => {
        for (const text of texts) ws.send(text, false);
      });
    }
    this.outbox.clear();
    stageEnd('answers', t0);
  }

  /** A message whose handling threw (a bug): logged, answered as an error; the node goes on. */
  private failed(ws: uWS.WebSocket<Conn>, err: unknown): void {
    this.opts.log(`websocket message failed: ${err instanceof Error ? (err.stack ?? err.message) : 'a non-Error was thrown'}`);
    this.error(ws, 'Internal error handling the message');
  }

  private error(ws: uWS.WebSocket<Conn>, message: string): void {
    this.send(ws, { channel: 'error', data: message });
  }

  private async onMessage(ws: uWS.WebSocket<Conn>, text: string): Promise<void> {
    const msg = jsonObjectOf(text);
    if (msg === null) return this.error(ws, `Malformed message: ${text.slice(0, 100)}`);
    switch (msg.method) {
      case 'ping':
        return this.send(ws, { channel: 'pong' });
      case 'subscribe':
      case 'unsubscribe':
        return this.onSubscription(ws, msg.method, msg.subscription);
      case 'post':
        return this.onPost(ws, msg);
      default:
        return this.error(ws, `Unknown method: ${shown(msg.method)}`);
    }
  }

  private parseSubscription(raw: unknown): Subscription | string {
    if (typeof raw !== 'object' || raw === null) return 'Missing subscription';
    const s = raw as Record<string, unknown>;
    const type = s.type;
    if (type === 'allMids') return { type };
    if (type === 'candle') {
      if (typeof s.coin !== 'string' || this.api.l2Book(s.coin) === null) return `Unknown coin: ${shown(s.coin)}`;
      if (typeof s.interval !== 'string' || !CANDLE_INTERVALS.includes(s.interval)) return `Unknown interval: ${shown(s.interval)}`;
      return { type, coin: s.coin, interval: s.interval };
    }
    if (typeof type === 'string' && COIN_TYPES.has(type)) {
      if (typeof s.coin !== 'string' || this.api.l2Book(s.coin) === null) return `Unknown coin: ${shown(s.coin)}`;
      return { type: type as 'l2Book', coin: s.coin };
    }
    if (typeof type === 'string' && USER_TYPES.has(type)) {
      const user = normalizeAddress(s.user);
      if (user === null) return `Invalid user: ${shown(s.user)}`;
      return { type: type as 'userFills', user };
    }
    return `Unknown subscription type: ${shown(type)}`;
  }

  private onSubscription(ws: uWS.WebSocket<Conn>, method: 'subscribe' | 'unsubscribe', raw: unknown): void {
    const sub = this.parseSubscription(raw);
    if (typeof sub === 'string') return this.error(ws, sub);
    const subs = ws.getUserData().subs;
    const key = canonicalize(sub);
    if (method === 'unsubscribe') {
      if (!subs.delete(key)) return this.error(ws, `Not subscribed: ${key}`);
      this.countSubs(ws.getUserData().ip, -1);
      if (isPublic(sub)) ws.unsubscribe(key);
      else if (![...subs.values()].some((o) => !isPublic(o) && o.user === sub.user)) this.unindex(ws, sub.user);
      return this.send(ws, { channel: 'subscriptionResponse', data: { method, subscription: raw } });
    }
    if (subs.has(key)) return this.error(ws, `Already subscribed: ${key}`);
    const ip = ws.getUserData().ip;
    const refused = this.subscriptionRefused(ip, subs.size);
    if (refused !== null) return this.error(ws, refused);
    subs.set(key, sub);
    this.countSubs(ip, 1);
    if (!isPublic(sub)) (this.byUser.get(sub.user) ?? this.byUser.set(sub.user, new Set()).get(sub.user)!).add(ws);
    this.send(ws, { channel: 'subscriptionResponse', data: { method, subscription: raw } });
    void this.snapshot(ws, sub).then(() => {
      // Pushes start after the snapshot, and only while the connection lives.
      if (!isPublic(sub) || !this.conns.has(ws) || !subs.has(key)) return;
      ws.subscribe(key);
      this.topics.set(key, sub);
    });
  }

  private countSubs(ip: string, delta: number): void {
    const n = (this.subsPerIp.get(ip) ?? 0) + delta;
    if (n <= 0) this.subsPerIp.delete(ip);
    else this.subsPerIp.set(ip, n);
  }

  /** The first message of a subscription, where Hyperliquid sends one. */
  private async snapshot(ws: uWS.WebSocket<Conn>, sub: Subscription): Promise<void> {
    switch (sub.type) {
      case 'allMids':
        return this.send(ws, { channel: 'allMids', data: { mids: this.api.allMids() } });
      case 'l2Book':
        return this.send(ws, { channel: 'l2Book', data: this.api.l2Book(sub.coin) });
      case 'userFills':
        return this.send(ws, { channel: 'userFills', data: { isSnapshot: true, user: sub.user, fills: await this.api.userFills(sub.user) } });
      case 'activeAssetCtx': {
        const ctx = this.assetCtx(sub.coin);
        return ctx === null ? undefined : this.send(ws, { channel: ctx.channel, data: { coin: sub.coin, ctx: ctx.ctx } });
      }
      default:
        return;
    }
  }

  private async onPost(ws: uWS.WebSocket<Conn>, msg: Record<string, unknown>): Promise<void> {
    const id = msg.id;
    const request = msg.request as Record<string, unknown> | undefined;
    if (typeof id !== 'number' || typeof request !== 'object' || request === null) return this.error(ws, 'A post needs a numeric id and a request');
    const payload = request.payload as Record<string, unknown>;
    if (typeof payload !== 'object' || payload === null) return this.error(ws, 'Missing request.payload');
    const { ip } = ws.getUserData();
    const { limits } = this.opts;
    try {
      if (request.type === 'info') {
        limits.info(ip, payload);
        const answer = await handleInfo(this.api, payload);
        limits.infoAnswered(ip, payload.type, answer);
        return this.send(ws, { channel: 'post', data: { id, response: answer } });
      }
      if (request.type === 'exchange') {
        limits.exchangeIp(ip, payload.action);
        const action = payload.action as Record<string, unknown> | undefined;
        if (action?.type === 'spotDeploy') throw new HttpError('bad_request', 'spotDeploy is not available over WebSocket; use POST /exchange');
        // The connection's data object identifies it to the node (its signer is probably the last one's).
        return this.send(ws, { channel: 'post', data: { id, response: await handleExchange(this.api, payload, ws.getUserData()) } });
      }
      return this.error(ws, `Unknown request type: ${shown(request.type)}`);
    } catch (err) {
      const message = err instanceof HttpError ? err.message : 'Internal server error';
      if (!(err instanceof HttpError)) this.opts.log(`ws post failed: ${(err as Error).stack ?? String(err)}`);
      // Over WS, failures of an exchange post are its envelope's err (DESIGN), of an info post an error.
      if (request.type === 'exchange') return this.send(ws, { channel: 'post', data: { id, response: { status: 'err', response: message } } });
      return this.send(ws, { channel: 'error', data: `post ${id}: ${message}` });
    }
  }

  private unindex(ws: uWS.WebSocket<Conn>, user: string): void {
    const set = this.byUser.get(user);
    if (set === undefined) return;
    set.delete(ws);
    if (set.size === 0) this.byUser.delete(user);
  }

  /** The messages the gathered blocks give a public subscription (none when they did not touch it). */
  private publicMessages(sub: PublicSubscription, p: PublicPending, book: (coin: string) => unknown): unknown[] {
    const { touchedCoins, trades } = p;
    switch (sub.type) {
      case 'allMids':
        return touchedCoins.size > 0 ? [{ channel: 'allMids', data: { mids: this.api.allMids() } }] : [];
      case 'l2Book':
        return touchedCoins.has(sub.coin) ? [{ channel: 'l2Book', data: book(sub.coin) }] : [];
      case 'bbo': {
        if (!touchedCoins.has(sub.coin)) return [];
        const levels = (book(sub.coin) as { levels: [unknown[], unknown[]] } | null)?.levels;
        return [{ channel: 'bbo', data: { coin: sub.coin, time: p.time, bbo: [levels?.[0][0] ?? null, levels?.[1][0] ?? null] } }];
      }
      case 'trades': {
        const t = trades.get(sub.coin);
        return t === undefined ? [] : [{ channel: 'trades', data: t }];
      }
      case 'candle':
        return [...p.candles.values()].filter((c) => c.s === sub.coin && c.i === sub.interval).map((c) => ({ channel: 'candle', data: c }));
      case 'activeAssetCtx': {
        if (!touchedCoins.has(sub.coin)) return [];
        const ctx = this.assetCtx(sub.coin);
        return ctx === null ? [] : [{ channel: ctx.channel, data: { coin: sub.coin, ctx: ctx.ctx } }];
      }
    }
  }

  /**
   * A market's context: a perpetual's `metaAndAssetCtxs` entry (channel `activeAssetCtx`), or a
   * spot pair's `spotMetaAndAssetCtxs` entry (channel `activeSpotAssetCtx`, as Hyperliquid; by
   * pair name or `@<pair index>`).
   */
  private assetCtx(coin: string): { channel: 'activeAssetCtx' | 'activeSpotAssetCtx'; ctx: unknown } | null {
    const [meta, ctxs] = this.api.metaAndAssetCtxs();
    const i = meta.universe.findIndex((u) => u.name === coin);
    if (i >= 0) return { channel: 'activeAssetCtx', ctx: ctxs[i] };
    const [spotMeta, spotCtxs] = this.api.spotMetaAndAssetCtxs();
    const at = /^@(\d+)$/.exec(coin);
    const p = at !== null ? Number(at[1]) : spotMeta.universe.findIndex((u) => u.name === coin);
    const ctx = spotCtxs[p];
    return ctx === undefined ? null : { channel: 'activeSpotAssetCtx', ctx };
  }

  /** Pushes one committed block to every subscription it concerns (public streams merged per interval). */
  private onBlock(b: FeedBlock): void {
    if (this.conns.size === 0) return;
    const p = (this.pending ??= { touchedCoins: new Set(), trades: new Map(), candles: new Map(), time: 0 });
    p.time = b.header.time;
    const fills = new Map<string, FillRecord[]>();
    const orders = new Map<string, unknown[]>();
    const fundings = new Map<string, unknown[]>();
    const notices = new Map<string, string[]>();
    const makers = new Map<number, string>();
    // Only what a stream subscribed now will send: user events of users with a user stream, and
    // trades while some connection (of either dialect) has a trades stream. The rest would be
    // gathered, held until the next public publish, and dropped.
    const byUser = this.byUser;
    const trades = this.hasTradesStream() || this.hyperliquid.hasTradesStream();
    for (const e of b.events) {
      if (e.kind === 'fill') {
        p.touchedCoins.add(e.fill.coin);
        if (byUser.has(e.user)) (fills.get(e.user) ?? fills.set(e.user, []).get(e.user)!).push(e.fill);
        if (!trades) continue;
        if (!e.fill.crossed) makers.set(e.fill.tid, e.user);
        else {
          const maker = makers.get(e.fill.tid) ?? '';
          const users: [string, string] = e.fill.side === 'B' ? [e.user, maker] : [maker, e.user];
          const list = p.trades.get(e.fill.coin) ?? p.trades.set(e.fill.coin, []).get(e.fill.coin)!;
          list.push({ coin: e.fill.coin, side: e.fill.side, px: e.fill.px, sz: e.fill.sz, hash: e.fill.hash, time: e.fill.time, tid: e.fill.tid, users });
        }
      } else if (e.kind === 'order') {
        p.touchedCoins.add(e.order.coin);
        if (byUser.has(e.user)) (orders.get(e.user) ?? orders.set(e.user, []).get(e.user)!).push({ order: e.order, status: e.status, statusTimestamp: e.statusTimestamp });
      } else if (e.kind === 'funding') {
        if (byUser.has(e.user)) (fundings.get(e.user) ?? fundings.set(e.user, []).get(e.user)!).push(e.funding);
      } else if (e.kind === 'liquidation' && byUser.has(e.user)) {
        const l = e.liquidation;
        const text = `Liquidated: ${l.liquidatedPositions.map((x) => `${x.szi} ${x.coin}`).join(', ')} (account value ${l.accountValue} below maintenance ${l.maintenanceMargin})`;
        (notices.get(e.user) ?? notices.set(e.user, []).get(e.user)!).push(text);
      }
    }
    for (const c of b.candles) {
      const key = `${c.s}|${c.i}|${c.t}`;
      p.candles.delete(key); // re-inserted: a candle's latest state goes out after the ones changed before it
      p.candles.set(key, c);
    }
    const wait = this.lastPublish + this.publicInterval() - performance.now();
    if (wait <= 0) this.publishPublic();
    else this.publishTimer ??= setTimeout(() => this.publishPublic(), wait);
    this.hyperliquid.onBlock(b);
    if (fills.size + orders.size + fundings.size + notices.size === 0) return;
    const users = new Set([...fills.keys(), ...orders.keys(), ...fundings.keys(), ...notices.keys()]);
    for (const user of users) {
      for (const ws of this.byUser.get(user) ?? []) {
        for (const sub of ws.getUserData().subs.values()) {
          if (isPublic(sub) || sub.user !== user) continue;
          this.sendUserStream(ws, sub, fills, orders, fundings, notices);
        }
      }
    }
  }

  /**
   * The interval between public publishes: the configured one, longer with many connections.
   * A publish costs each subscriber one write (about 4 µs on loopback), so 20 µs per connection
   * keeps the fan-out near a fifth of the event loop (1,000 connections: 20 ms), at most 50 ms.
   */
  private publicInterval(): number {
    return Math.min(PUBLIC_INTERVAL_MAX_MS, Math.max(this.opts.publicIntervalMs, this.conns.size * PUBLIC_MS_PER_CONNECTION));
  }

  /** Whether a connection has a trades stream (its messages are gathered only then). */
  private hasTradesStream(): boolean {
    for (const sub of this.topics.values()) if (sub.type === 'trades') return true;
    return false;
  }

  /** Publishes the public streams gathered since the last time, each topic's message serialized once. */
  private publishPublic(): void {
    if (this.publishTimer !== null) clearTimeout(this.publishTimer);
    this.publishTimer = null;
    this.lastPublish = performance.now();
    const p = this.pending;
    this.pending = null;
    if (p === null) return;
    const books = new Map<string, unknown>();
    const book = (coin: string) => books.get(coin) ?? books.set(coin, this.api.l2Book(coin)).get(coin);
    for (const [topic, sub] of this.topics) {
      if (this.app.numSubscribers(topic) === 0) {
        this.topics.delete(topic);
        continue;
      }
      this.flushOutbox();
      for (const msg of this.publicMessages(sub, p, book)) this.app.publish(topic, JSON.stringify(msg), false);
    }
    this.hyperliquid.publish(p);
  }

  private sendUserStream(
    ws: uWS.WebSocket<Conn>, sub: Exclude<Subscription, PublicSubscription>, fills: Map<string, FillRecord[]>, orders: Map<string, unknown[]>,
    fundings: Map<string, unknown[]>, notices: Map<string, string[]>,
  ): void {
    switch (sub.type) {
      case 'userFills': {
        const f = fills.get(sub.user);
        if (f !== undefined) this.send(ws, { channel: 'userFills', data: { user: sub.user, fills: f } });
        break;
      }
      case 'orderUpdates': {
        const o = orders.get(sub.user);
        if (o !== undefined) this.send(ws, { channel: 'orderUpdates', data: o });
        break;
      }
      case 'userFundings': {
        const f = fundings.get(sub.user);
        if (f !== undefined) this.send(ws, { channel: 'userFundings', data: { user: sub.user, fundings: f } });
        break;
      }
      case 'notification':
        for (const notification of notices.get(sub.user) ?? []) this.send(ws, { channel: 'notification', data: { notification } });
        break;
      case 'userEvents': {
        const f = fills.get(sub.user);
        if (f !== undefined) this.send(ws, { channel: 'user', data: { fills: f } });
        for (const funding of fundings.get(sub.user) ?? []) this.send(ws, { channel: 'user', data: { funding } });
        break;
      }
    }
  }
}
