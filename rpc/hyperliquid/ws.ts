// The Hyperliquid dialect of the WebSocket API (`/hyperliquid/ws`): Hyperliquid's post envelope
// (`info` / `action` / `error` responses matched by id), its subscriptions with the dialect's coin
// names and shapes, and the user-state streams (clearinghouseState, openOrders, webData2, spotState,
// activeAssetData) pushed after each block that touches the user. It rides on the server's
// connections, limits and pub/sub.
import type { FeedBlock } from '../ws-server.ts';
import { HttpError, badRequest } from '../http-errors.ts';
import type { Limits } from '../limits.ts';
import type { NodeApi } from '../api.ts';
import { UnprocessableBody, handleHyperliquidExchange } from './exchange.ts';
import { handleHyperliquidInfo } from './info.ts';
import { jsonObjectOf, shown } from '../request-checks.ts';
import {
  CoinNames, infoCoin, hlFill, hlFrontendOrder, hlFunding, hlLedgerUpdate, hlOrderUpdate, isUserSubscription, parseHlSubscription, subscriptionKey,
  type HlPublicSubscription, type HlSubscription, type HlUserSubscription,
} from './ws-shapes.ts';

/** What the dialect needs from the server that carries its connections (`S`, a socket). */
export interface WsCarrier<S> {
  readonly limits: Limits;
  log(line: string): void;
  ip(ws: S): string;
  /** Sends a message (JSON) while the connection lives. */
  send(ws: S, msg: unknown): void;
  /** Sends a text frame as it is. */
  sendText(ws: S, text: string): void;
  alive(ws: S): boolean;
  /** Takes a subscription place for a connection holding `held`: null, or the limit it would break. */
  takeSubscription(ws: S, held: number): string | null;
  releaseSubscriptions(ws: S, n: number): void;
  /** Joins a pub/sub topic (public streams: one serialization per topic, fanned out by the server). */
  join(ws: S, topic: string): void;
  leave(ws: S, topic: string): void;
  publish(topic: string, text: string): void;
  subscribers(topic: string): number;
}

/** The public changes of the blocks gathered since the last publish (the server's, shared with the root API). */
export interface PublicChanges {
  readonly touchedCoins: ReadonlySet<string>;
  readonly trades: ReadonlyMap<string, readonly { coin: string }[]>;
  readonly candles: ReadonlyMap<string, { readonly s: string; readonly i: string }>;
  readonly time: number;
}

interface HlConn {
  readonly subs: Map<string, HlSubscription>;
  /** The connection's user-stream messages in order: each waits for the one before (snapshots are async). */
  chain: Promise<void>;
}

/** One block's events of one user, in the dialect's shapes. */
interface UserBlock {
  fills: unknown[];
  orders: unknown[];
  /** The same order changes as `historicalOrders` entries. */
  history: unknown[];
  fundings: ReturnType<typeof hlFunding>[];
  notices: string[];
  ledger: unknown[];
}

type Info = (body: Record<string, unknown>) => Promise<unknown>;

export class HyperliquidWs<S> {
  private readonly conns = new Map<S, HlConn>();
  /** Connections with a user stream, by user. */
  private readonly byUser = new Map<string, Set<S>>();
  /** Public streams by topic (the subscription key). */
  private readonly topics = new Map<string, HlPublicSubscription>();
  private readonly names: CoinNames;
  /** Publishes run one after another, so a topic's messages keep their order. */
  private publishing: Promise<void> = Promise.resolve();

  constructor(
    private readonly api: NodeApi,
    private readonly carrier: WsCarrier<S>,
  ) {
    this.names = new CoinNames(api);
  }

  open(ws: S): void {
    this.conns.set(ws, { subs: new Map(), chain: Promise.resolve() });
    // Hyperliquid greets every connection with this text frame; its clients skip it.
    this.carrier.sendText(ws, 'Websocket connection established.');
  }

  close(ws: S): void {
    const c = this.conns.get(ws);
    if (c === undefined) return;
    this.conns.delete(ws);
    for (const sub of c.subs.values()) if (isUserSubscription(sub)) this.unindex(ws, sub.user);
    this.carrier.releaseSubscriptions(ws, c.subs.size);
  }

  async onMessage(ws: S, text: string): Promise<void> {
    const msg = jsonObjectOf(text);
    // No echo: a client matches errors by the JSON in them, and this text is not JSON.
    if (msg === null) return this.error(ws, 'Error parsing JSON into valid websocket request');
    switch (msg.method) {
      case 'ping':
        return this.carrier.send(ws, { channel: 'pong' });
      case 'subscribe':
      case 'unsubscribe':
        return this.onSubscription(ws, msg.method, msg.subscription);
      case 'post':
        return this.onPost(ws, msg);
      default:
        return this.error(ws, `Error parsing JSON into valid websocket request: ${JSON.stringify(msg)}`);
    }
  }

  private error(ws: S, data: string): void {
    this.carrier.send(ws, { channel: 'error', data });
  }

  private async onPost(ws: S, msg: Record<string, unknown>): Promise<void> {
    const { id, request } = msg as { id: unknown; request: Record<string, unknown> | null | undefined };
    if (typeof id !== 'number' || typeof request !== 'object' || request === null) {
      return this.error(ws, `Error parsing JSON into valid websocket request: ${JSON.stringify(msg)}`);
    }
    const ip = this.carrier.ip(ws);
    const { limits } = this.carrier;
    const answer = (response: unknown) => this.carrier.send(ws, { channel: 'post', data: { id, response } });
    try {
      const payload = request.payload;
      if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) throw badRequest('Missing request.payload');
      const body = payload as Record<string, unknown>;
      if (request.type === 'info') {
        limits.info(ip, body);
        const data = await handleHyperliquidInfo(this.api, body);
        limits.infoAnswered(ip, body.type, data);
        return answer({ type: 'info', payload: { type: body.type, data } });
      }
      if (request.type === 'action') {
        limits.exchangeIp(ip, body.action);
        return answer({ type: 'action', payload: await handleHyperliquidExchange(this.api, body) });
      }
      throw badRequest(`Unknown request type: ${shown(request.type)}`);
    } catch (err) {
      if (err instanceof HttpError) return answer({ type: 'error', payload: err.message });
      // A request Hyperliquid's deserializer would refuse (422 over HTTP): its words, and what was wrong.
      if (err instanceof UnprocessableBody) return answer({ type: 'error', payload: `${err.message}: ${err.detail}` });
      this.carrier.log(`hyperliquid ws post failed: ${(err as Error).stack ?? String(err)}`);
      return answer({ type: 'error', payload: 'Internal server error' });
    }
  }

  private onSubscription(ws: S, method: 'subscribe' | 'unsubscribe', raw: unknown): void {
    const c = this.conns.get(ws);
    if (c === undefined) return;
    const echo = JSON.stringify(raw ?? null);
    const sub = parseHlSubscription(this.api, raw);
    // Hyperliquid's texts; a client finds the request by the JSON they end with.
    if (typeof sub === 'string') return this.error(ws, `Invalid subscription ${echo}: ${plain(sub)}`);
    const key = subscriptionKey(sub);
    if (method === 'unsubscribe') {
      if (!c.subs.delete(key)) return this.error(ws, `Already unsubscribed: ${echo}`);
      this.carrier.releaseSubscriptions(ws, 1);
      if (!isUserSubscription(sub)) this.carrier.leave(ws, key);
      else if (![...c.subs.values()].some((o) => isUserSubscription(o) && o.user === sub.user)) this.unindex(ws, sub.user);
      return this.carrier.send(ws, { channel: 'subscriptionResponse', data: { method, subscription: raw } });
    }
    if (c.subs.has(key)) return this.error(ws, `Already subscribed: ${echo}`);
    const refused = this.carrier.takeSubscription(ws, c.subs.size);
    if (refused !== null) return this.error(ws, `${refused}: ${JSON.stringify({ method, subscription: raw })}`);
    c.subs.set(key, sub);
    this.carrier.send(ws, { channel: 'subscriptionResponse', data: { method, subscription: raw } });
    if (isUserSubscription(sub)) {
      (this.byUser.get(sub.user) ?? this.byUser.set(sub.user, new Set()).get(sub.user)!).add(ws);
      // Block pushes queue behind the snapshot on the connection's chain.
      return this.enqueue(ws, c, () => this.userSnapshot(sub));
    }
    void this.publicMessages(sub, null, this.infoCache())
      .catch((err: unknown) => {
        this.failed(ws, sub, err); // the stream itself may still deliver: it joins all the same
        return [];
      })
      .then((msgs) => {
        for (const m of msgs) this.carrier.send(ws, m);
        // Pushes start after the snapshot, and only while the connection and the subscription live.
        if (!this.carrier.alive(ws) || c.subs.get(key) !== sub) return;
        this.carrier.join(ws, key);
        this.topics.set(key, sub);
      });
  }

  private failed(ws: S, sub: HlSubscription, err: unknown): void {
    if (!(err instanceof HttpError)) this.carrier.log(`hyperliquid ws ${sub.type} failed: ${(err as Error).stack ?? String(err)}`);
    this.error(ws, `${sub.type} failed: ${plain(err instanceof Error ? err.message : String(err))}`);
  }

  private enqueue(ws: S, c: HlConn, message: () => unknown): void {
    c.chain = c.chain
      .then(async () => {
        const m = await message();
        if (m !== undefined) this.carrier.send(ws, m);
      })
      .catch((err: unknown) => this.error(ws, `push failed: ${plain(err instanceof Error ? err.message : String(err))}`));
  }

  private unindex(ws: S, user: string): void {
    const set = this.byUser.get(user);
    if (set === undefined) return;
    set.delete(ws);
    if (set.size === 0) this.byUser.delete(user);
  }

  /** Info answers of one publish or block, each asked once however many subscribers want it. */
  private infoCache(): Info {
    const cache = new Map<string, Promise<unknown>>();
    return (body) => {
      const key = JSON.stringify(body);
      return cache.get(key) ?? cache.set(key, handleHyperliquidInfo(this.api, body)).get(key)!;
    };
  }

  /** The first message of a user stream, where Hyperliquid sends one. */
  private async userSnapshot(sub: HlUserSubscription): Promise<unknown> {
    const { user } = sub;
    const info: Info = (body) => handleHyperliquidInfo(this.api, body);
    switch (sub.type) {
      case 'userFills':
        return { channel: 'userFills', data: { isSnapshot: true, user, fills: await info({ type: 'userFills', user }) } };
      case 'userFundings': {
        const entries = (await info({ type: 'userFunding', user, startTime: 0 })) as { time: number; delta: { coin: string; usdc: string; szi: string; fundingRate: string; nSamples: number | null } }[];
        const fundings = entries.map(({ time, delta: d }) => ({ time, coin: d.coin, usdc: d.usdc, szi: d.szi, fundingRate: d.fundingRate, nSamples: d.nSamples }));
        return { channel: 'userFundings', data: { isSnapshot: true, user, fundings } };
      }
      case 'userNonFundingLedgerUpdates':
        return { channel: sub.type, data: { isSnapshot: true, user, nonFundingLedgerUpdates: await info({ type: sub.type, user, startTime: 0 }) } };
      case 'userHistoricalOrders':
        return { channel: sub.type, data: { isSnapshot: true, user, orderHistory: await info({ type: 'historicalOrders', user }) } };
      // This chain has no TWAP orders: every account's TWAP streams are empty, as for one that never used them.
      case 'twapStates':
        return { channel: sub.type, data: { dex: '', user, states: [] } };
      case 'userTwapSliceFills':
        return { channel: sub.type, data: { isSnapshot: true, user, twapSliceFills: [] } };
      case 'userTwapHistory':
        return { channel: sub.type, data: { isSnapshot: true, user, history: [] } };
      default:
        return STATE_TYPES.has(sub.type) ? userState(sub, info) : undefined;
    }
  }

  /** A public stream's messages: its snapshot (`p` null), or what the gathered blocks changed of it. */
  private async publicMessages(sub: HlPublicSubscription, p: PublicChanges | null, info: Info): Promise<unknown[]> {
    const changed = p === null || p.touchedCoins.size > 0;
    if (sub.type === 'allMids') return changed ? [{ channel: 'allMids', data: { mids: await info({ type: 'allMids' }) } }] : [];
    if (sub.type === 'assetCtxs' || sub.type === 'spotAssetCtxs') {
      if (!changed) return [];
      const perp = sub.type === 'assetCtxs';
      const [, ctxs] = (await info({ type: perp ? 'metaAndAssetCtxs' : 'spotMetaAndAssetCtxs' })) as [unknown, unknown[]];
      return [{ channel: sub.type, data: perp ? { dex: '', ctxs } : ctxs }];
    }
    const { market } = sub;
    const touched = p === null || p.touchedCoins.has(market.coin);
    switch (sub.type) {
      case 'l2Book': {
        if (!touched) return [];
        const body = { type: 'l2Book', coin: infoCoin(market), ...(sub.nSigFigs === null ? {} : { nSigFigs: sub.nSigFigs }), ...(sub.mantissa === null ? {} : { mantissa: sub.mantissa }) };
        return [{ channel: 'l2Book', data: { ...(await info(body) as object), coin: market.name } }];
      }
      case 'bbo': {
        if (p === null || !touched) return [];
        const [bids, asks] = this.api.l2Book(market.coin)?.levels ?? [[], []];
        return [{ channel: 'bbo', data: { coin: market.name, time: p.time, bbo: [bids?.[0] ?? null, asks?.[0] ?? null] } }];
      }
      case 'trades': {
        const t = p?.trades.get(market.coin);
        return t === undefined ? [] : [{ channel: 'trades', data: t.map((x) => ({ ...x, coin: market.name })) }];
      }
      case 'candle':
        if (p === null) return [];
        return [...p.candles.values()].filter((c) => c.s === market.coin && c.i === sub.interval).map((c) => ({ channel: 'candle', data: { ...c, s: market.name } }));
      case 'activeAssetCtx': {
        if (!touched) return [];
        const perp = market.kind === 'perp';
        const [, ctxs] = (await info({ type: perp ? 'metaAndAssetCtxs' : 'spotMetaAndAssetCtxs' })) as [unknown, unknown[]];
        const ctx = ctxs[market.index];
        return ctx === undefined ? [] : [{ channel: perp ? 'activeAssetCtx' : 'activeSpotAssetCtx', data: { coin: market.name, ctx } }];
      }
    }
  }

  /** Whether a connection has a trades stream (the server gathers trades only then). */
  hasTradesStream(): boolean {
    for (const sub of this.topics.values()) if (sub.type === 'trades') return true;
    return false;
  }

  /** Publishes the dialect's public streams for the changes the server gathered (after its own). */
  publish(p: PublicChanges): void {
    if (this.topics.size === 0) return;
    this.publishing = this.publishing.then(async () => {
      const info = this.infoCache();
      for (const [topic, sub] of this.topics) {
        if (this.carrier.subscribers(topic) === 0) {
          this.topics.delete(topic);
          continue;
        }
        try {
          for (const m of await this.publicMessages(sub, p, info)) this.carrier.publish(topic, JSON.stringify(m));
        } catch (err) {
          this.carrier.log(`hyperliquid ws publish ${topic} failed: ${(err as Error).stack ?? String(err)}`);
        }
      }
    }).catch((err: unknown) => this.carrier.log(`hyperliquid ws publish failed: ${(err as Error).stack ?? String(err)}`));
  }

  /** Pushes a committed block to the user streams it concerns. */
  onBlock(b: FeedBlock): void {
    if (this.byUser.size === 0) return;
    const users = new Map<string, UserBlock>();
    const of = (user: string) => users.get(user) ?? users.set(user, { fills: [], orders: [], history: [], fundings: [], notices: [], ledger: [] }).get(user)!;
    for (const e of b.events) {
      if (!('user' in e) || !this.byUser.has(e.user)) continue;
      const u = of(e.user);
      if (e.kind === 'fill') u.fills.push(hlFill(e.fill, this.names));
      else if (e.kind === 'order') {
        u.orders.push(hlOrderUpdate(e.order, e.status, e.statusTimestamp, this.names));
        u.history.push({ order: hlFrontendOrder(e.order, this.names), status: e.status, statusTimestamp: e.statusTimestamp });
      }
      else if (e.kind === 'funding') u.fundings.push(hlFunding(e.funding, this.names));
      else if (e.kind === 'ledger') u.ledger.push(hlLedgerUpdate(e.ledger));
      else {
        const l = e.liquidation;
        u.notices.push(`Liquidated: ${l.liquidatedPositions.map((x) => `${x.szi} ${x.coin}`).join(', ')} (account value ${l.accountValue} below maintenance ${l.maintenanceMargin})`);
      }
    }
    if (users.size === 0) return;
    // States are read now, at this block, once per user and type however many subscribers ask.
    const info = this.infoCache();
    for (const [user, u] of users) {
      for (const ws of this.byUser.get(user) ?? []) {
        const c = this.conns.get(ws);
        if (c === undefined) continue;
        for (const sub of c.subs.values()) {
          if (!isUserSubscription(sub) || sub.user !== user) continue;
          for (const m of userMessages(sub, u)) this.enqueue(ws, c, () => m);
          if (STATE_TYPES.has(sub.type)) {
            const state = userState(sub, info);
            state.catch(() => {}); // awaited (and reported) on the chain
            this.enqueue(ws, c, () => state);
          }
        }
      }
    }
  }
}

/**
 * Text for an error message without braces: clients (@nktkas/hyperliquid) match an error to its
 * request by the one JSON object in it, and parse whatever sits between the first `{` and the last `}`.
 */
const plain = (text: string) => text.replace(/[{}]/g, '');

/** The user-state streams: a snapshot on subscribe, then one after each block that touches the user. */
const STATE_TYPES = new Set<HlUserSubscription['type']>(['clearinghouseState', 'openOrders', 'webData2', 'spotState', 'activeAssetData']);

/** A user-state stream's message: the info dialect's answer for the user, in the subscription's envelope. */
async function userState(sub: HlUserSubscription, info: Info): Promise<unknown> {
  const { type, user } = sub;
  switch (sub.type) {
    case 'clearinghouseState':
      return { channel: type, data: { dex: '', user, clearinghouseState: await info({ type, user }) } };
    case 'openOrders':
      return { channel: type, data: { dex: '', user, orders: await info({ type, user }) } };
    case 'spotState':
      return { channel: type, data: { user, spotState: await info({ type: 'spotClearinghouseState', user }) } };
    case 'activeAssetData':
      return { channel: type, data: { ...(await info({ type, user, coin: sub.market.name }) as object), user, coin: sub.market.name } };
    default:
      return { channel: type, data: await info({ type, user }) };
  }
}

/** The messages one block's events of the user give an event stream of the user. */
function userMessages(sub: HlUserSubscription, u: UserBlock): unknown[] {
  const { user } = sub;
  switch (sub.type) {
    case 'userFills':
      return u.fills.length === 0 ? [] : [{ channel: 'userFills', data: { user, fills: u.fills } }];
    case 'orderUpdates':
      return u.orders.length === 0 ? [] : [{ channel: 'orderUpdates', data: u.orders }];
    case 'userHistoricalOrders':
      return u.history.length === 0 ? [] : [{ channel: sub.type, data: { user, orderHistory: u.history } }];
    case 'userFundings':
      return u.fundings.length === 0 ? [] : [{ channel: 'userFundings', data: { user, fundings: u.fundings } }];
    case 'userNonFundingLedgerUpdates':
      return u.ledger.length === 0 ? [] : [{ channel: sub.type, data: { user, nonFundingLedgerUpdates: u.ledger } }];
    case 'notification':
      return u.notices.map((notification) => ({ channel: 'notification', data: { notification } }));
    case 'userEvents':
      return [
        ...(u.fills.length === 0 ? [] : [{ channel: 'user', data: { fills: u.fills } }]),
        ...u.fundings.map((funding) => ({ channel: 'user', data: { funding } })),
      ];
    default:
      return [];
  }
}
