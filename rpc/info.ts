// POST /info: one handler per request type; the data goes back directly, with no wrapper.
import type { NodeApi } from './api.ts';
import { badRequest } from './http-errors.ts';
import { requireAddress, requireField, requireInt, requireString } from './request-checks.ts';
import { addDecimals, isHex } from '../primitives/index.ts';

type Body = Record<string, unknown>;
type InfoHandler = (api: NodeApi, body: Body) => unknown;

const HANDLERS: Record<string, InfoHandler> = {
  meta: (api) => api.meta(),
  metaAndAssetCtxs: (api) => api.metaAndAssetCtxs(),
  candleSnapshot: async (api, body) => {
    const req = requireField(body, 'req');
    if (typeof req !== 'object' || Array.isArray(req)) throw badRequest('Invalid field req: expected {coin, interval, startTime, endTime}', { field: 'req' });
    const r = req as Body;
    const coin = requireString(r, 'coin');
    const interval = requireString(r, 'interval');
    const start = requireInt(r, 'startTime');
    const end = r.endTime === undefined || r.endTime === null ? Number.MAX_SAFE_INTEGER : requireInt(r, 'endTime');
    const candles = await api.candleSnapshot(coin, interval, start, end);
    if (candles === null) throw badRequest(`Unknown coin or interval: ${coin} ${interval}`, { field: 'req' });
    return candles;
  },
  fundingHistory: async (api, body) => {
    const coin = requireString(body, 'coin');
    const { start, end } = timeRange(body);
    const rates = await api.fundingHistory(coin, start, end);
    if (rates === null) throw badRequest(`Unknown perpetual: ${coin}`, { field: 'coin' });
    return rates;
  },
  userFunding: async (api, body) => {
    const user = requireAddress(body, 'user');
    const { start, end } = timeRange(body);
    return (await api.userFunding(user, start, end)).map((f) => ({
      delta: { type: 'funding', coin: f.coin, usdc: f.usdc, szi: f.szi, fundingRate: f.fundingRate, nSamples: null },
      hash: `0x${'0'.repeat(64)}`,
      time: f.time,
    }));
  },
  spotMeta: (api) => api.spotMeta(),
  spotMetaAndAssetCtxs: (api) => api.spotMetaAndAssetCtxs(),
  allMids: (api) => api.allMids(),
  l2Book: (api, body) => {
    const coin = requireString(body, 'coin');
    const book = api.l2Book(coin);
    if (book === null) throw badRequest(`Unknown coin: ${coin}`, { field: 'coin' });
    return book;
  },
  clearinghouseState: (api, body) => api.clearinghouseState(requireAddress(body, 'user')),
  openOrders: (api, body) => api.openOrders(requireAddress(body, 'user')),
  frontendOpenOrders: (api, body) => api.openOrders(requireAddress(body, 'user')),
  spotClearinghouseState: (api, body) => api.spotClearinghouseState(requireAddress(body, 'user')),
  userFees: (api, body) => api.userFees(requireAddress(body, 'user')),
  portfolio: (api, body) => api.portfolio(requireAddress(body, 'user')),
  extraAgents: (api, body) => api.extraAgents(requireAddress(body, 'user')),
  subAccounts: (api, body) => api.subAccounts(requireAddress(body, 'user')),
  userRateLimit: (api, body) => api.userRateLimit(requireAddress(body, 'user')),
  delegatorSummary: (api, body) => api.delegatorSummary(requireAddress(body, 'user')),
  referral: (api, body) => api.referral(requireAddress(body, 'user')),
  delegations: (api, body) => api.delegations(requireAddress(body, 'user')),
  evmActions: (api, body) => api.evmActions(requireAddress(body, 'user')),
  validatorSummaries: (api) => api.validatorSummaries(),
  userFills: async (api, body) => withTwapId(await api.userFills(requireAddress(body, 'user'))),
  userFillsByTime: async (api, body) => {
    const user = requireAddress(body, 'user');
    const { start, end } = timeRange(body);
    const fills = await api.userFillsByTime(user, start, end);
    return withTwapId(body.aggregateByTime === true ? aggregateByTime(fills) : fills);
  },
  withdrawals: (api, body) => api.withdrawals(requireAddress(body, 'user')),
  bridge: (api) => api.bridge(),
  orderStatus: async (api, body) => {
    const user = requireAddress(body, 'user');
    const raw = requireField(body, 'oid');
    let found;
    if (typeof raw === 'number') {
      found = await api.orderStatus(user, requireInt(body, 'oid'));
    } else if (isHex(raw, 16)) {
      const oid = api.openOrders(user).find((o) => o.cloid === raw.toLowerCase())?.oid;
      found = oid === undefined ? null : await api.orderStatus(user, oid);
    } else {
      throw badRequest('Invalid field oid: expected an order id or a 16-byte hex client order id', { field: 'oid' });
    }
    return found === null ? { status: 'unknownOid' } : { status: 'order', order: found };
  },
};

/** The info types this node answers. */
export const INFO_TYPES: readonly string[] = Object.keys(HANDLERS);

/** Info types of the spec this node does not serve yet; they answer 400 saying so. */
const PLANNED = new Set<string>();

type Fill = Awaited<ReturnType<NodeApi['userFills']>>[number];

/** Merges fills of one order at one timestamp (Hyperliquid's `aggregateByTime`). */
export function aggregateByTime(fills: Fill[]): Fill[] {
  const out: Fill[] = [];
  for (const f of fills) {
    const last = out[out.length - 1];
    if (last !== undefined && last.time === f.time && last.oid === f.oid && last.px === f.px) {
      out[out.length - 1] = { ...last, sz: addDecimals(last.sz, f.sz), closedPnl: addDecimals(last.closedPnl, f.closedPnl) };
    } else out.push(f);
  }
  return out;
}

/** Hyperliquid's fill carries `twapId`; no TWAP orders exist here, so it is always null. */
function withTwapId(fills: Fill[]): (Fill & { twapId: null })[] {
  return fills.map((f) => ({ ...f, twapId: null }));
}

/** `startTime` (required, inclusive) and `endTime` (optional, exclusive). */
function timeRange(body: Body): { start: number; end: number } {
  const start = requireInt(body, 'startTime');
  const end = body.endTime === undefined || body.endTime === null ? Number.MAX_SAFE_INTEGER : requireInt(body, 'endTime');
  return { start, end };
}

export async function handleInfo(api: NodeApi, body: Body): Promise<unknown> {
  const type = requireString(body, 'type');
  const handler = Object.hasOwn(HANDLERS, type) ? HANDLERS[type] : undefined;
  if (handler === undefined) {
    if (PLANNED.has(type)) throw badRequest(`Info type ${type} is not available on this node yet`, { field: 'type' });
    throw badRequest(`Unknown info type: ${type}`, { field: 'type' });
  }
  return handler(api, body);
}
