// The dialect's market info types: meta, spot meta, contexts, mids, books, candles, funding, trades.
import type { NodeApi } from '../api.ts';
import { badRequest } from '../http-errors.ts';
import { requireField, requireInt, requireString } from '../request-checks.ts';
import { aggregateSide, type Level } from './l2-aggregate.ts';
import { coinNames, hlTokenIndex } from './names.ts';

type Body = Record<string, unknown>;

/** Levels a side in `l2Book`; the unaggregated depth read to aggregate from. */
const L2_LEVELS = 20;
const L2_AGGREGATE_READ = 5000;
const HOUR = 3_600_000;

/** A margin table id per perp: its max leverage (Hyperliquid's ids below 50 are one tier at that leverage). */
export function meta(api: NodeApi) {
  const { universe } = api.meta();
  const ids = [...new Set(universe.map((u) => u.maxLeverage))].sort((a, b) => a - b);
  return {
    universe: universe.map((u) => ({
      szDecimals: u.szDecimals,
      name: u.name,
      maxLeverage: u.maxLeverage,
      marginTableId: u.maxLeverage,
      ...(u.onlyIsolated ? { onlyIsolated: true as const, marginMode: 'strictIsolated' as const } : {}),
    })),
    marginTables: ids.map((id) => [id, marginTableOf(id)] as [number, ReturnType<typeof marginTableOf>]),
    collateralToken: 0,
  };
}

export function marginTableOf(id: number) {
  return { description: '', marginTiers: [{ lowerBound: '0.0', maxLeverage: id }] };
}

export function spotMeta(api: NodeApi) {
  const m = api.spotMeta();
  const names = coinNames(api);
  return {
    universe: m.universe.map((p) => ({
      tokens: [hlTokenIndex(p.tokens[0]), hlTokenIndex(p.tokens[1])] as [number, number],
      name: names.toHl(p.name),
      index: p.index,
      isCanonical: p.isCanonical,
    })),
    tokens: m.tokens.map((t) => ({
      name: t.name,
      szDecimals: t.szDecimals,
      weiDecimals: t.weiDecimals,
      index: hlTokenIndex(t.index),
      tokenId: t.tokenId,
      isCanonical: t.isCanonical,
      evmContract: t.evmContract,
      fullName: t.fullName,
      deployerTradingFeeShare: t.deployerTradingFeeShare,
    })),
  };
}

export function assetCtxs(api: NodeApi) {
  return api.metaAndAssetCtxs()[1].map((c) => ({ ...c }));
}

export function spotAssetCtxs(api: NodeApi) {
  const names = coinNames(api);
  return api.spotMetaAndAssetCtxs()[1].map((c) => ({ ...c, coin: names.toHl(c.coin) }));
}

export function allMids(api: NodeApi): Record<string, string> {
  const names = coinNames(api);
  const out: Record<string, string> = {};
  for (const [coin, mid] of Object.entries(api.allMids())) out[names.toHl(coin)] = mid;
  return out;
}

/** Our coin for a request's `coin`, or a 422 naming it. */
export function requireCoin(api: NodeApi, body: Body): { svc: string; hl: string } {
  const hl = requireString(body, 'coin');
  const svc = coinNames(api).toSvc(hl);
  if (svc === null) throw badRequest(`Unknown coin: ${hl}`, { field: 'coin' });
  return { svc, hl };
}

/** null for an unknown coin, as Hyperliquid answers. */
export function l2Book(api: NodeApi, body: Body) {
  const hl = requireString(body, 'coin');
  const svc = coinNames(api).toSvc(hl);
  if (svc === null) return null;
  const sig = body.nSigFigs ?? null;
  const mantissa = body.mantissa ?? null;
  if (sig !== null && sig !== 2 && sig !== 3 && sig !== 4 && sig !== 5) throw badRequest('Invalid nSigFigs: expected 2, 3, 4 or 5', { field: 'nSigFigs' });
  if (mantissa !== null && (sig !== 5 || (mantissa !== 1 && mantissa !== 2 && mantissa !== 5))) {
    throw badRequest('Invalid mantissa: 1, 2 or 5, with nSigFigs 5', { field: 'mantissa' });
  }
  const book = api.l2Book(svc, sig === null ? L2_LEVELS : L2_AGGREGATE_READ);
  if (book === null) return null;
  const [bids, asks] = book.levels as [Level[], Level[]];
  const side = (levels: Level[], isBid: boolean) => (sig === null ? levels : aggregateSide(levels, isBid, sig, (mantissa as number | null) ?? 1, L2_LEVELS));
  return { coin: hl, time: book.time, levels: [side(bids, true), side(asks, false)] as [Level[], Level[]] };
}

export async function candleSnapshot(api: NodeApi, body: Body) {
  const req = requireField(body, 'req');
  if (typeof req !== 'object' || req === null || Array.isArray(req)) throw badRequest('Invalid field req', { field: 'req' });
  const r = req as Body;
  const { svc, hl } = requireCoin(api, r);
  const interval = requireString(r, 'interval');
  const start = requireInt(r, 'startTime');
  const end = r.endTime === undefined || r.endTime === null ? Number.MAX_SAFE_INTEGER : requireInt(r, 'endTime');
  const candles = (await api.candleSnapshot(svc, interval, start, end)) as { s: string }[] | null;
  if (candles === null) throw badRequest(`Unknown interval: ${interval}`, { field: 'req' });
  return candles.map((c) => ({ ...c, s: hl }));
}

export async function fundingHistory(api: NodeApi, body: Body) {
  const { svc } = requireCoin(api, body);
  const { start, end } = timeRange(body);
  return (await api.fundingHistory(svc, start, end)) ?? [];
}

/** The last trades of a coin, newest first (Hyperliquid's `recentTrades`); [] on a node without history. */
export async function recentTrades(api: NodeApi, body: Body) {
  const { svc, hl } = requireCoin(api, body);
  if (api.history === null) return [];
  const rows = await api.history.trades(svc, { start: 0, end: Number.MAX_SAFE_INTEGER, before: null, limit: 10 });
  return rows.map((t) => ({ coin: hl, side: t.side, px: t.px, sz: t.sz, time: t.time, hash: t.hash, tid: t.tid, users: [t.buyer, t.seller] as [string, string] }));
}

/** Each perp's next hourly funding (this chain pays every hour), Hyperliquid's `predictedFundings`. */
export function predictedFundings(api: NodeApi) {
  const [m, ctxs] = api.metaAndAssetCtxs();
  const next = (Math.floor(api.head().time / HOUR) + 1) * HOUR;
  return m.universe.map((u, i) => [u.name, [['HlPerp', { fundingRate: ctxs[i]?.funding ?? '0', nextFundingTime: next, fundingIntervalHours: 1 }]]]);
}

/** A token's details by its 16-byte id; null for an unknown id. */
export function tokenDetails(api: NodeApi, body: Body) {
  const id = requireString(body, 'tokenId').toLowerCase();
  const sm = api.spotMeta();
  const token = sm.tokens.find((t) => t.tokenId === id);
  if (token === undefined) throw badRequest(`Unknown tokenId: ${id}`, { field: 'tokenId' });
  const supply = api.tokenSupplies()[hlTokenIndex(token.index)] ?? '0';
  const [, ctxs] = api.spotMetaAndAssetCtxs();
  const pair = sm.universe.find((p) => p.tokens[0] === token.index);
  const ctx = pair === undefined ? undefined : ctxs[pair.index];
  // The quote token (USDC) is its own unit of account.
  const px = ctx?.markPx ?? (hlTokenIndex(token.index) === 0 ? '1' : '0');
  return {
    name: token.name,
    maxSupply: supply,
    totalSupply: supply,
    circulatingSupply: ctx?.circulatingSupply ?? supply,
    szDecimals: token.szDecimals,
    weiDecimals: token.weiDecimals,
    midPx: ctx?.midPx ?? px,
    markPx: px,
    prevDayPx: ctx?.prevDayPx ?? px,
    genesis: null,
    deployer: token.deployer,
    deployGas: null,
    deployTime: null,
    seededUsdc: '0.0',
    nonCirculatingUserBalances: [],
    futureEmissions: '0.0',
  };
}

/** `startTime` (inclusive; absent: from the start, as clients such as ccxt send it) and `endTime` (optional, exclusive). */
export function timeRange(body: Body): { start: number; end: number } {
  const start = body.startTime === undefined || body.startTime === null ? 0 : requireInt(body, 'startTime');
  const end = body.endTime === undefined || body.endTime === null ? Number.MAX_SAFE_INTEGER : requireInt(body, 'endTime');
  return { start, end };
}
