// GET /stats/*: protocol statistics in the shapes of Hyperliquid's stats API. Totals are
// `{<name>: number}`; charts are `{chart_data: [{time, ...}]}`, one row per UTC day (per day and
// market where a market is named), oldest first, `time` as "YYYY-MM-DDT00:00:00". Optional query:
// `start_date`, `end_date` (YYYY-MM-DD, inclusive) and `coins` (repeated or comma-separated:
// "BTC" or "BTC-USD").
import type { NodeApi } from './api.ts';
import type { CoinDailyRow, DailyStatsRow, HistoryReader } from './history-api.ts';
import { badRequest } from './http-errors.ts';
import { addDecimals } from '../primitives/index.ts';

const DAY_MS = 86_400_000;

type Query = URLSearchParams;

/** Decimal strings from the indexer, shown as numbers (the stats API's unit is the number). */
const num = (s: string) => Number(s);

const dayText = (day: number) => `${new Date(day).toISOString().slice(0, 10)}T00:00:00`;

function dateParam(q: Query, name: string, fallback: number): number {
  const raw = q.get(name);
  if (raw === null || raw === '') return fallback;
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw);
  const t = m === null ? NaN : Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  if (Number.isNaN(t) || new Date(t).toISOString().slice(0, 10) !== raw) {
    throw badRequest(`Invalid parameter ${name}: expected a date YYYY-MM-DD`, { field: name });
  }
  return t;
}

function window(q: Query): { start: number; end: number } {
  const start = dateParam(q, 'start_date', 0);
  const end = dateParam(q, 'end_date', Number.MAX_SAFE_INTEGER - DAY_MS);
  if (end < start) throw badRequest('Invalid parameters: end_date is before start_date', { field: 'end_date' });
  return { start, end };
}

/** The coins asked for, or null for all. */
function coins(api: NodeApi, q: Query): Set<string> | null {
  const raw = q.getAll('coins').flatMap((c) => c.split(',')).map((c) => c.trim()).filter((c) => c !== '');
  if (raw.length === 0) return null;
  const out = new Set<string>();
  for (const c of raw) {
    const coin = api.coinOf(c);
    if (coin === null) throw badRequest(`Unknown market in coins: ${c}`, { field: 'coins' });
    out.add(coin);
  }
  return out;
}

/** The stats name of a market: perpetuals as BASE-USD, spot pairs by their name. */
export function statsCoin(api: NodeApi, coin: string): string {
  return api.isPerp(coin) ? `${coin}-USD` : coin;
}

/** Daily rows, restricted to `coins` when given (summed from the per-market rows). */
async function days(api: NodeApi, h: HistoryReader, q: Query): Promise<{ day: number; volume: string; users: number; newUsers: number; trades: number }[]> {
  const { start, end } = window(q);
  const only = coins(api, q);
  if (only === null) return (await h.dailyStats(start, end)).map((d: DailyStatsRow) => d);
  const byDay = new Map<number, { day: number; volume: string; users: number; newUsers: number; trades: number }>();
  for (const r of await h.coinDailyStats(start, end)) {
    if (!only.has(r.coin)) continue;
    const d = byDay.get(r.day) ?? { day: r.day, volume: '0', users: 0, newUsers: 0, trades: 0 };
    byDay.set(r.day, { ...d, volume: addDecimals(d.volume, r.volume), trades: d.trades + r.trades });
  }
  // Users are counted across markets only: per-market filters leave them as the whole exchange's.
  const all = new Map((await h.dailyStats(start, end)).map((d) => [d.day, d]));
  return [...byDay.values()].sort((a, b) => a.day - b.day).map((d) => ({ ...d, users: all.get(d.day)?.users ?? 0, newUsers: all.get(d.day)?.newUsers ?? 0 }));
}

async function coinDays(api: NodeApi, h: HistoryReader, q: Query): Promise<CoinDailyRow[]> {
  const { start, end } = window(q);
  const only = coins(api, q);
  return (await h.coinDailyStats(start, end)).filter((r) => only === null || only.has(r.coin));
}

export const STATS_ROUTES: Readonly<Record<string, (api: NodeApi, h: HistoryReader, q: Query) => Promise<unknown>>> = {
  async total_users(api, h) {
    return { total_users: (await h.totals()).users };
  },
  async total_usd_volume(api, h, q) {
    const only = coins(api, q);
    const since = api.head().time - DAY_MS;
    let total = '0';
    for (const [coin, v] of await h.volumeSince(since)) if (only === null || only.has(coin)) total = addDecimals(total, v.volume);
    return { total_usd_volume: num(total) };
  },
  async total_deposits(api, h) {
    return { total_deposits: num((await h.totals()).deposits) };
  },
  async total_withdrawals(api, h) {
    return { total_withdrawals: num((await h.totals()).withdrawals) };
  },
  async cumulative_usd_volume(api, h, q) {
    let cumulative = '0';
    const rows = (await days(api, h, q)).map((d) => {
      cumulative = addDecimals(cumulative, d.volume);
      return { time: dayText(d.day), cumulative: num(cumulative) };
    });
    return { chart_data: rows };
  },
  async daily_usd_volume(api, h, q) {
    return { chart_data: (await days(api, h, q)).map((d) => ({ time: dayText(d.day), daily_usd_volume: num(d.volume) })) };
  },
  async open_interest(api, h, q) {
    const rows = (await coinDays(api, h, q)).filter((r) => api.isPerp(r.coin)).map((r) => ({
      time: dayText(r.day), coin: statsCoin(api, r.coin), open_interest: num(r.openInterest) * num(r.markPx), open_interest_base: num(r.openInterest), mark_price: num(r.markPx),
    }));
    return { chart_data: rows };
  },
  async funding_rate(api, h, q) {
    const only = coins(api, q);
    const rows = (await coinDays(api, h, q)).filter((r) => api.isPerp(r.coin)).map((r) => ({
      time: dayText(r.day), coin: statsCoin(api, r.coin), sum_funding: num(r.fundingSum),
    }));
    const [meta, ctxs] = api.metaAndAssetCtxs();
    const current = meta.universe
      .map((m, i) => ({ coin: m.name, funding_rate: num(ctxs[i]?.funding ?? '0') }))
      .filter((c) => only === null || only.has(c.coin))
      .map((c) => ({ ...c, coin: `${c.coin}-USD` }));
    return { chart_data: rows, current };
  },
  async daily_unique_users(api, h, q) {
    return { chart_data: (await days(api, h, q)).map((d) => ({ time: dayText(d.day), daily_unique_users: d.users })) };
  },
  async cumulative_users(api, h, q) {
    const { start, end } = window(q);
    let cumulative = 0;
    const rows: { time: string; daily_new_users: number; cumulative_new_users: number }[] = [];
    // Counted from genesis so the running total is right inside any window.
    for (const d of await h.dailyStats(0, end)) {
      cumulative += d.newUsers;
      if (d.day >= start) rows.push({ time: dayText(d.day), daily_new_users: d.newUsers, cumulative_new_users: cumulative });
    }
    return { chart_data: rows };
  },
  async asset_ctxs(api, h, q) {
    const only = coins(api, q);
    const [meta, ctxs] = api.metaAndAssetCtxs();
    const volumes = await h.volumeSince(api.head().time - DAY_MS);
    return meta.universe.flatMap((m, i) => {
      const c = ctxs[i];
      if (c === undefined || (only !== null && !only.has(m.name))) return [];
      const v = volumes.get(m.name);
      return [{
        coin: `${m.name}-USD`,
        mark_price: num(c.markPx),
        oracle_price: num(c.oraclePx),
        mid_price: c.midPx === null ? null : num(c.midPx),
        open_interest: num(c.openInterest),
        open_interest_usd: num(c.openInterest) * num(c.markPx),
        volume_24h: num(v?.volume ?? '0'),
        trades_24h: v?.trades ?? 0,
        funding_rate: num(c.funding),
        premium: num(c.premium),
        prev_day_price: num(c.prevDayPx),
        max_leverage: m.maxLeverage,
      }];
    });
  },
};

export const STATS_ROUTE_NAMES: readonly string[] = Object.keys(STATS_ROUTES);
