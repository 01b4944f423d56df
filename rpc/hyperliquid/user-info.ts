// The dialect's account info types, in Hyperliquid's shapes with its coin names and token indices.
import { USD_DECIMALS, type FillRecord, type OrderView } from '../../exchange/index.ts';
import { formatScaled, isHex, parseScaled, type Address } from '../../primitives/index.ts';
import type { NodeApi } from '../api.ts';
import { badRequest } from '../http-errors.ts';
import { aggregateByTime } from '../info.ts';
import { requireField, requireInt } from '../request-checks.ts';
import { coinNames, hlTokenIndex, type CoinNames } from './names.ts';
import { requireCoin, timeRange } from './market-info.ts';

type Body = Record<string, unknown>;

const ZERO_HASH = `0x${'0'.repeat(64)}`;
/** Oids `historicalOrders` looks up at most (Hyperliquid answers the 2000 most recent). */
const HISTORICAL_ORDERS = 2000;
const PORTFOLIO_PERIODS = ['day', 'week', 'month', 'allTime', 'perpDay', 'perpWeek', 'perpMonth', 'perpAllTime'] as const;

export function clearinghouseState(api: NodeApi, user: Address) {
  return api.clearinghouseState(user);
}

export function spotClearinghouseState(api: NodeApi, user: Address) {
  return { balances: api.spotClearinghouseState(user).balances.map((b) => ({ ...b, token: hlTokenIndex(b.token) })) };
}

export function frontendOrder(names: Pick<CoinNames, 'toHl'>, o: OrderView): Record<string, unknown> {
  return {
    coin: names.toHl(o.coin),
    side: o.side,
    limitPx: o.limitPx,
    sz: o.sz,
    oid: o.oid,
    timestamp: o.timestamp,
    origSz: o.origSz,
    triggerCondition: o.triggerCondition,
    isTrigger: o.isTrigger,
    triggerPx: o.triggerPx,
    children: o.children.map((c) => frontendOrder(names, c)),
    isPositionTpsl: o.isPositionTpsl,
    reduceOnly: o.reduceOnly,
    orderType: o.orderType,
    tif: o.tif,
    cloid: o.cloid,
  };
}

/** An order as Hyperliquid's `OpenOrder` (`openOrders`, and `orderUpdates` on the WebSocket): `cloid` and `reduceOnly` only when set. */
export function hlOpenOrder(names: Pick<CoinNames, 'toHl'>, o: OrderView) {
  return {
    coin: names.toHl(o.coin),
    side: o.side,
    limitPx: o.limitPx,
    sz: o.sz,
    oid: o.oid,
    timestamp: o.timestamp,
    origSz: o.origSz,
    ...(o.cloid === null ? {} : { cloid: o.cloid }),
    ...(o.reduceOnly ? { reduceOnly: true as const } : {}),
  };
}

export function openOrders(api: NodeApi, user: Address) {
  const names = coinNames(api);
  return api.openOrders(user).map((o) => hlOpenOrder(names, o));
}

export function frontendOpenOrders(api: NodeApi, user: Address) {
  const names = coinNames(api);
  return api.openOrders(user).map((o) => frontendOrder(names, o));
}

/** A fill as Hyperliquid's `UserFill` (`userFills`, and the WebSocket's fill pushes). */
export function hlFill(names: Pick<CoinNames, 'toHl'>, f: FillRecord) {
  const { liquidation, ...rest } = f;
  return {
    ...rest,
    coin: names.toHl(f.coin),
    twapId: null,
    // Hyperliquid names two methods; auto-deleveraging is a backstop here.
    ...(liquidation === undefined ? {} : { liquidation: { ...liquidation, method: liquidation.method === 'market' ? 'market' : 'backstop' } }),
  };
}

export async function userFills(api: NodeApi, user: Address) {
  const names = coinNames(api);
  return (await api.userFills(user)).map((f) => hlFill(names, f));
}

export async function userFillsByTime(api: NodeApi, body: Body, user: Address) {
  const names = coinNames(api);
  const { start, end } = timeRange(body);
  const fills = await api.userFillsByTime(user, start, end);
  return (body.aggregateByTime === true ? aggregateByTime(fills) : fills).map((f) => hlFill(names, f));
}

export async function userFunding(api: NodeApi, body: Body, user: Address) {
  const { start, end } = timeRange(body);
  return (await api.userFunding(user, start, end)).map((f) => ({
    time: f.time,
    hash: ZERO_HASH,
    delta: { type: 'funding', coin: f.coin, usdc: f.usdc, szi: f.szi, fundingRate: f.fundingRate, nSamples: null },
  }));
}

/**
 * Deposits, withdrawals and refunds from the history (`userNonFundingLedgerUpdates`), oldest
 * first, at most 500; a refund is money coming back, shown as a deposit. [] without history.
 */
export async function userNonFundingLedgerUpdates(api: NodeApi, body: Body, user: Address) {
  const { start, end } = timeRange(body);
  if (api.history === null) return [];
  const q = { start, end: end - 1, before: null, limit: 500 };
  const rows = [...(await api.history.transfers('deposit', user, q)), ...(await api.history.transfers('withdraw', user, q))];
  rows.sort((a, b) => a.time - b.time || a.id - b.id);
  return rows.slice(0, 500).map((r) => ({ time: r.time, hash: r.hash, delta: hlLedgerDelta(r, r.time) }));
}

/**
 * A bridge ledger change as Hyperliquid's delta (`userNonFundingLedgerUpdates`, over HTTP and
 * WebSocket alike): a withdrawal with its fee and `nonce` (its request time); a deposit; a refund
 * of an expired withdrawal as a deposit of all it gives back.
 */
export function hlLedgerDelta(d: { readonly type: string; readonly usdc: string; readonly fee?: string }, time: number) {
  return d.type === 'withdraw' ? { type: 'withdraw' as const, usdc: d.usdc, nonce: time, fee: d.fee ?? '0' } : { type: 'deposit' as const, usdc: d.usdc };
}

/** Net USDC bridged in (deposits and refunds less withdrawals and their fees), Hyperliquid's `cumLedger`; "0.0" without history. */
export async function cumLedger(api: NodeApi, user: Address): Promise<string> {
  if (api.history === null) return '0.0';
  const q = { start: 0, end: Number.MAX_SAFE_INTEGER, before: null, limit: 10_000 };
  let net = 0n;
  for (const r of await api.history.transfers('deposit', user, q)) net += parseScaled(r.usdc, USD_DECIMALS) ?? 0n;
  for (const r of await api.history.transfers('withdraw', user, q)) {
    const v = (parseScaled(r.usdc, USD_DECIMALS) ?? 0n) + (parseScaled(r.fee, USD_DECIMALS) ?? 0n);
    net += r.type === 'withdrawRefund' ? v : -v;
  }
  return formatScaled(net, USD_DECIMALS);
}

export async function userFees(api: NodeApi, user: Address) {
  const base = (await api.userFees(user)) as {
    dailyUserVlm: { date: string; userCross: string; userAdd: string }[];
    feeSchedule: Record<string, string>;
  } & Record<string, unknown>;
  const days = new Map<string, string>();
  if (api.history !== null && base.dailyUserVlm.length > 0) {
    const dates = base.dailyUserVlm.map((d) => Date.parse(`${d.date}T00:00:00Z`));
    for (const d of await api.history.dailyStats(Math.min(...dates), Math.max(...dates))) days.set(new Date(d.day).toISOString().slice(0, 10), d.volume);
  }
  return {
    ...base,
    dailyUserVlm: base.dailyUserVlm.map((d) => ({ ...d, exchange: days.get(d.date) ?? '0.0' })),
    feeSchedule: { ...base.feeSchedule, tiers: { vip: [], mm: [] }, referralDiscount: '0.0', stakingDiscountTiers: [] },
    trial: null,
    feeTrialEscrow: '0.0',
    nextTrialAvailableTimestamp: null,
    stakingLink: null,
    activeStakingDiscount: { bpsOfMaxSupply: '0.0', discount: '0.0' },
  };
}

export async function orderStatus(api: NodeApi, body: Body, user: Address) {
  const raw = requireField(body, 'oid');
  let oid: number | undefined;
  if (typeof raw === 'number') oid = requireInt(body, 'oid');
  else if (isHex(raw, 16)) oid = api.openOrders(user).find((o) => o.cloid === raw.toLowerCase())?.oid;
  else throw badRequest('Invalid field oid', { field: 'oid' });
  const found = oid === undefined ? null : await api.orderStatus(user, oid);
  if (found === null) return { status: 'unknownOid' };
  return { status: 'order', order: { order: frontendOrder(coinNames(api), found.order), status: found.status, statusTimestamp: found.statusTimestamp } };
}

/** The statuses of the user's open orders and of the orders behind its recent fills, newest first. */
export async function historicalOrders(api: NodeApi, user: Address) {
  const oids = new Set<number>(api.openOrders(user).map((o) => o.oid));
  for (const f of await api.userFills(user)) oids.add(f.oid);
  const names = coinNames(api);
  const out = [];
  for (const oid of [...oids].sort((a, b) => b - a).slice(0, HISTORICAL_ORDERS)) {
    const s = await api.orderStatus(user, oid);
    if (s !== null) out.push({ order: frontendOrder(names, s.order), status: s.status, statusTimestamp: s.statusTimestamp });
  }
  return out;
}

/** Every period, empty for an account that never existed. */
export async function portfolio(api: NodeApi, user: Address) {
  const got = new Map((await api.portfolio(user)) as [string, unknown][]);
  return PORTFOLIO_PERIODS.map((p) => [p, got.get(p) ?? { accountValueHistory: [], pnlHistory: [], vlm: '0.0' }]);
}

/** Hyperliquid answers null to an account without sub-accounts. */
export function subAccounts(api: NodeApi, user: Address) {
  const subs = api.subAccounts(user);
  if (subs.length === 0) return null;
  return subs.map((s) => ({ ...s, spotState: spotClearinghouseState(api, s.subAccountUser) }));
}

export function subAccounts2(api: NodeApi, user: Address) {
  const subs = subAccounts(api, user);
  return subs === null ? null : subs.map(({ clearinghouseState: ch, ...s }) => ({ ...s, dexToClearinghouseState: [['', ch]] }));
}

export function referral(api: NodeApi, user: Address) {
  const r = api.referral(user);
  const rs = r.referrerState;
  const referrerState =
    rs.stage === 'ready'
      ? { stage: rs.stage, data: { code: rs.data.code, nReferrals: rs.data.referralStates.length, referralStates: rs.data.referralStates.map((s) => ({ ...s, tokenToState: [] })) } }
      : rs;
  return { ...r, referrerState, tokenToState: [] };
}

export function activeAssetData(api: NodeApi, body: Body, user: Address) {
  const { svc, hl } = requireCoin(api, body);
  const data = api.activeAssetData(user, svc);
  if (data === null) throw badRequest(`Not a perpetual: ${hl}`, { field: 'coin' });
  return { user, coin: hl, ...data };
}
