// GET /v4/*: historical sets, newest first, in the envelope {data, pagination: {next_cursor,
// has_more}}. Pages are keyset pages: the cursor names the last row served (its time and id),
// so a page never repeats or skips rows while new ones are indexed.
import type { NodeApi } from './api.ts';
import type { Cursor, HistoryReader, RangeQuery } from './history-api.ts';
import { badRequest } from './http-errors.ts';

export const HISTORY_LIMIT_DEFAULT = 100;
export const HISTORY_LIMIT_MAX = 1000;
export const CANDLE_INTERVAL_NAMES = ['1m', '3m', '5m', '15m', '30m', '1h', '2h', '4h', '8h', '12h', '1d', '3d', '1w'] as const;
const MINUTE = 60_000;
const CANDLE_MS: Record<(typeof CANDLE_INTERVAL_NAMES)[number], number> = {
  '1m': MINUTE, '3m': 3 * MINUTE, '5m': 5 * MINUTE, '15m': 15 * MINUTE, '30m': 30 * MINUTE, '1h': 60 * MINUTE, '2h': 120 * MINUTE,
  '4h': 240 * MINUTE, '8h': 480 * MINUTE, '12h': 720 * MINUTE, '1d': 1440 * MINUTE, '3d': 4320 * MINUTE, '1w': 10_080 * MINUTE,
};

export interface HistoryPage {
  readonly data: readonly unknown[];
  readonly pagination: { readonly next_cursor: string | null; readonly has_more: boolean };
}

type Query = URLSearchParams;

const INT_RE = /^\d{1,16}$/;

function intParam(q: Query, name: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = q.get(name);
  if (raw === null || raw === '') return fallback;
  const v = Number(raw);
  if (!INT_RE.test(raw) || !Number.isSafeInteger(v) || v > max) throw badRequest(`Invalid parameter ${name}: expected an integer from 0 to ${max}`, { field: name });
  return v;
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(`${c.time}.${c.id}`).toString('base64url');
}

export function decodeCursor(text: string): Cursor {
  const m = /^(\d{1,16})\.(\d{1,16})$/.exec(Buffer.from(text, 'base64url').toString('latin1'));
  const time = Number(m?.[1]);
  const id = Number(m?.[2]);
  if (m === null || !/^[A-Za-z0-9_-]{1,64}$/.test(text) || !Number.isSafeInteger(time) || !Number.isSafeInteger(id)) {
    throw badRequest('Invalid parameter cursor: pass the next_cursor of a previous page unchanged', { field: 'cursor' });
  }
  return { time, id };
}

/** `start`, `end` (ms, inclusive), `limit` and `cursor`: the query a page asks the store (one row more, to tell `has_more`). */
function rangeOf(q: Query): RangeQuery & { wanted: number } {
  const start = intParam(q, 'start', 0);
  const end = intParam(q, 'end', Number.MAX_SAFE_INTEGER);
  if (end < start) throw badRequest('Invalid parameters: end is before start', { field: 'end' });
  const limit = intParam(q, 'limit', HISTORY_LIMIT_DEFAULT, HISTORY_LIMIT_MAX);
  if (limit === 0) throw badRequest(`Invalid parameter limit: expected an integer from 1 to ${HISTORY_LIMIT_MAX}`, { field: 'limit' });
  const raw = q.get('cursor');
  return { start, end, before: raw === null || raw === '' ? null : decodeCursor(raw), limit: limit + 1, wanted: limit };
}

function page<T>(rows: readonly T[], wanted: number, cursorOf: (row: T) => Cursor): HistoryPage {
  const data = rows.length > wanted ? rows.slice(0, wanted) : rows;
  const last = data[data.length - 1];
  const hasMore = rows.length > wanted && last !== undefined;
  return { data, pagination: { next_cursor: hasMore ? encodeCursor(cursorOf(last)) : null, has_more: hasMore } };
}

const byTimeId = (r: { time: number; id: number }): Cursor => ({ time: r.time, id: r.id });

/** The coin a `market` parameter names ("BTC-USD", "BTC", a spot pair name); 400 when none. */
function market(api: NodeApi, q: Query, required: true): string;
function market(api: NodeApi, q: Query, required: false): string | null;
function market(api: NodeApi, q: Query, required: boolean): string | null {
  const raw = q.get('market');
  if (raw === null || raw === '') {
    if (required) throw badRequest('Missing parameter: market', { field: 'market' });
    return null;
  }
  const coin = api.coinOf(raw);
  if (coin === null) throw badRequest(`Unknown market: ${raw}`, { field: 'market' });
  return coin;
}

function oneOf<T extends string>(q: Query, name: string, allowed: readonly T[], fallback: T | null): T {
  const raw = q.get(name);
  if (raw === null || raw === '') {
    if (fallback === null) throw badRequest(`Missing parameter: ${name}`, { field: name });
    return fallback;
  }
  if (!(allowed as readonly string[]).includes(raw)) throw badRequest(`Invalid parameter ${name}: expected one of ${allowed.join(', ')}`, { field: name });
  return raw as T;
}

function userParam(q: Query): string | null {
  const raw = q.get('user');
  if (raw === null || raw === '') return null;
  if (!/^0x[0-9a-fA-F]{40}$/.test(raw)) throw badRequest('Invalid parameter user: expected a 0x-prefixed 20-byte hex address', { field: 'user' });
  return raw.toLowerCase();
}

/** The /v4 sets by path segment. */
export const HISTORY_ROUTES: Readonly<Record<string, (api: NodeApi, h: HistoryReader, q: Query) => Promise<HistoryPage>>> = {
  async trades(api, h, q) {
    const coin = market(api, q, true);
    const r = rangeOf(q);
    return page(await h.trades(coin, r), r.wanted, byTimeId);
  },
  async candles(api, h, q) {
    const coin = market(api, q, true);
    const interval = oneOf(q, 'interval', CANDLE_INTERVAL_NAMES, null);
    const r = rangeOf(q);
    const ms = CANDLE_MS[interval];
    const rows = (await h.candles(coin, interval, r)).map((line) => {
      const [t, o, hi, l, c, v, n] = line.split(',') as [string, string, string, string, string, string, string];
      return { t: Number(t), T: Number(t) + ms - 1, s: coin, i: interval, o, h: hi, l, c, v, n: Number(n) };
    });
    return page(rows, r.wanted, (c) => ({ time: c.t, id: 0 }));
  },
  async funding(api, h, q) {
    const coin = market(api, q, true);
    const interval = oneOf(q, 'interval', ['1h', '8h'] as const, '1h');
    const r = rangeOf(q);
    return page(await h.funding(coin, interval, r), r.wanted, byTimeId);
  },
  async liquidations(api, h, q) {
    const coin = market(api, q, false);
    const r = rangeOf(q);
    return page(await h.liquidations(coin, r), r.wanted, byTimeId);
  },
  async open_interest(api, h, q) {
    const coin = market(api, q, true);
    const r = rangeOf(q);
    return page(await h.openInterest(coin, r), r.wanted, byTimeId);
  },
  async orderbook_snapshots(api, h, q) {
    const coin = market(api, q, true);
    const r = rangeOf(q);
    return page(await h.bookSnapshots(coin, r), r.wanted, byTimeId);
  },
  async deposits(api, h, q) {
    const r = rangeOf(q);
    return page(await h.transfers('deposit', userParam(q), r), r.wanted, byTimeId);
  },
  async withdrawals(api, h, q) {
    const r = rangeOf(q);
    return page(await h.transfers('withdraw', userParam(q), r), r.wanted, byTimeId);
  },
};

export const HISTORY_ROUTE_NAMES: readonly string[] = Object.keys(HISTORY_ROUTES);
