// The GET resources: `/v1` (dYdX-style), `/v4` (history pages) and `/stats`, plus the HMAC-signed
// API-key reads (docs/api.md, docs/history.md).
import { createHmac } from 'node:crypto';
import { queryString, type HttpTransport } from './http.ts';
import type {
  ApiKeyEntry, BlockSummary, Candle, CandleInterval, HistoryPage, HistoryTrade, Loose, StatsRoute, V1BookLevel, V1Fill, V1Health, V1Height,
  V1PerpetualMarket, V1SpotMarket, V1SpotOrderbook,
} from './types.ts';

type Query = Record<string, string | number | boolean | undefined>;

export class V1Client {
  constructor(readonly http: HttpTransport) {}

  /** Committed blocks, newest first (ours: docs/api.md). */
  blocks(q: { limit?: number; before?: number } = {}) { return this.http.get<{ height: number; blocks: BlockSummary[] }>('/v1/blocks', q); }
  block(height: number) { return this.http.get<{ block: BlockSummary }>(`/v1/blocks/${height}`); }
  health() { return this.http.get<V1Health>('/v1/health'); }
  height() { return this.http.get<V1Height>('/v1/height'); }
  perpetualMarkets(q: { ticker?: string; limit?: number } = {}) {
    return this.http.get<{ markets: Record<string, V1PerpetualMarket> }>('/v1/perpetualMarkets', q);
  }
  perpetualOrderbook(ticker: string, depth?: number) {
    return this.http.get<{ bids: V1BookLevel[]; asks: V1BookLevel[] }>(`/v1/orderbooks/perpetualMarket/${encodeURIComponent(ticker)}`, { depth });
  }
  subaccount(address: string, n = 0) {
    return this.http.get<{ subaccount: Loose }>(`/v1/addresses/${address}/subaccountNumber/${n}`);
  }
  fills(q: { address: string; subaccountNumber?: number; market?: string; marketType?: 'PERPETUAL' | 'SPOT'; limit?: number }) {
    return this.http.get<{ fills: V1Fill[] }>('/v1/fills', q);
  }
  trades(ticker: string, q: { limit?: number } = {}) {
    return this.http.get<{ trades: Loose[] }>(`/v1/trades/perpetualMarket/${encodeURIComponent(ticker)}`, q);
  }
  spotMarkets() { return this.http.get<{ markets: V1SpotMarket[] }>('/v1/spot/markets'); }
  spotOrderbook(pair: string, depth?: number) {
    return this.http.get<V1SpotOrderbook>(`/v1/spot/orderbook/${encodeURIComponent(pair)}`, { depth });
  }
  /** `GET /v1/api-keys/:address`, signed with the key's HMAC. */
  listApiKeys(key: ApiKeyCredentials, address: string) {
    const path = `/v1/api-keys/${address}`;
    return this.http.get<{ address: string; api_keys: ApiKeyEntry[] }>(path, {}, hmacHeaders(key, 'GET', path, ''));
  }
  /** `POST /v1/api-keys/:api_key/revoke` with body `{}`, signed with an HMAC key of the same address. */
  revokeApiKey(key: ApiKeyCredentials, apiKey: string) {
    const path = `/v1/api-keys/${apiKey}/revoke`;
    return this.http.post<ApiKeyEntry>(path, {}, hmacHeaders(key, 'POST', path, '{}'));
  }
}

export interface ApiKeyCredentials {
  readonly apiKey: string;
  readonly secret: string;
  /** Seconds; default the clock. */
  readonly now?: () => number;
}

/** EX-API-* headers: base64(HMAC-SHA256(secret, timestamp + METHOD + path-with-query + body)). */
export function hmacHeaders(key: ApiKeyCredentials, method: 'GET' | 'POST', pathWithQuery: string, body: string): Record<string, string> {
  const ts = String(Math.floor(key.now?.() ?? Date.now() / 1000));
  const sign = createHmac('sha256', key.secret).update(ts + method + pathWithQuery + body).digest('base64');
  return { 'EX-API-KEY': key.apiKey, 'EX-API-SIGN': sign, 'EX-API-TIMESTAMP': ts };
}

export interface HistoryQuery extends Query {
  start?: number;
  end?: number;
  limit?: number;
  cursor?: string;
}

/** `/v4`: pages newest first; `next_cursor` feeds the next call. An API key lifts the rate tier. */
export class HistoryClient {
  constructor(
    readonly http: HttpTransport,
    private readonly key: ApiKeyCredentials | null = null,
  ) {}

  trades(market: string, q: HistoryQuery = {}) { return this.page<HistoryTrade>('trades', { market, ...q }); }
  candles(market: string, interval: CandleInterval, q: HistoryQuery = {}) { return this.page<Candle>('candles', { market, interval, ...q }); }
  funding(market: string, q: HistoryQuery & { interval?: '1h' | '8h' } = {}) { return this.page('funding', { market, ...q }); }
  liquidations(q: HistoryQuery & { market?: string } = {}) { return this.page('liquidations', q); }
  openInterest(market: string, q: HistoryQuery = {}) { return this.page('open_interest', { market, ...q }); }
  orderbookSnapshots(market: string, q: HistoryQuery = {}) { return this.page('orderbook_snapshots', { market, ...q }); }
  deposits(q: HistoryQuery & { user?: string } = {}) { return this.page('deposits', q); }
  withdrawals(q: HistoryQuery & { user?: string } = {}) { return this.page('withdrawals', q); }

  /** Every row of a set, following `next_cursor` (bounded by `maxPages`). */
  async *all<T = Loose>(set: string, q: Query, maxPages = 100): AsyncGenerator<T> {
    let cursor: string | undefined;
    for (let i = 0; i < maxPages; i++) {
      const p = await this.page<T>(set, { ...q, cursor });
      yield* p.data;
      if (!p.pagination.has_more || p.pagination.next_cursor === null) return;
      cursor = p.pagination.next_cursor;
    }
  }

  page<T = Loose>(set: string, q: Query): Promise<HistoryPage<T>> {
    const path = `/v4/${set}`;
    const headers = this.key === null ? {} : hmacHeaders(this.key, 'GET', path + queryString(q), '');
    return this.http.get<HistoryPage<T>>(path, q, headers);
  }
}

export class StatsClient {
  constructor(readonly http: HttpTransport) {}

  get<T = unknown>(route: StatsRoute, q: Query = {}): Promise<T> {
    return this.http.get<T>(`/stats/${route}`, q);
  }
  totalUsers() { return this.get<{ total_users: number }>('total_users'); }
  assetCtxs() { return this.get<({ coin: string; mark_price: number; open_interest: number; volume_24h: number } & Loose)[]>('asset_ctxs'); }
}
