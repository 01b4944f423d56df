// Read-only views of the state in the spec's (Hyperliquid's) response shapes.
import { divRound, formatScaled, type Address } from '../primitives/index.ts';
import { unrealizedPnl, initialMargin } from './account.ts';
import { SPOT_ASSET_OFFSET, USD_DECIMALS, pairName } from './config.ts';
import { orderView, type OrderView } from './events.ts';
import { marginFigures } from './margin.ts';
import type { ExchangeState, PerpMarket } from './state.ts';

/** Levels per side in `l2Book`, as on Hyperliquid. */
export const L2_DEPTH = 20;

const usd = (v: bigint) => formatScaled(v, USD_DECIMALS);

export function meta(state: ExchangeState) {
  return {
    universe: state.markets.map((m) => ({
      name: m.config.name,
      szDecimals: m.config.szDecimals,
      maxLeverage: m.config.maxLeverage,
      onlyIsolated: m.config.onlyIsolated,
    })),
  };
}

export function spotMeta(state: ExchangeState) {
  const cfg = state.config;
  return {
    tokens: cfg.spotTokens.map((t) => ({
      name: t.name,
      szDecimals: t.szDecimals,
      weiDecimals: t.weiDecimals,
      index: t.index,
      isCanonical: true,
      evmContract: null,
      fullName: null,
    })),
    universe: cfg.spotPairs.map((p) => ({
      name: pairName(cfg, p),
      tokens: [p.base, p.quote] as [number, number],
      index: p.index,
      isCanonical: true,
    })),
  };
}

/** Mid price string: the book mid (one extra decimal when it falls between ticks), else the mark. */
function midString(state: ExchangeState, m: PerpMarket): string {
  const bid = m.book.bestBid();
  const ask = m.book.bestAsk();
  if (bid !== undefined && ask !== undefined) return formatScaled(BigInt(bid) * 5n + BigInt(ask) * 5n, m.pxDecimals + 1);
  return formatScaled(state.markPx(m), m.pxDecimals);
}

export function allMids(state: ExchangeState): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of state.markets) out[m.config.name] = midString(state, m);
  return out;
}

export function l2Book(state: ExchangeState, coin: string, depth = L2_DEPTH) {
  const m = state.marketsByName.get(coin);
  if (m === undefined) return null;
  const side = (isBuy: boolean) =>
    [...m.book.side(isBuy).iterate(depth)].map((l) => ({
      px: formatScaled(l.px, m.pxDecimals),
      sz: formatScaled(l.sz, m.config.szDecimals),
      n: l.n,
    }));
  return { coin, time: state.time, levels: [side(true), side(false)] };
}

export function openOrders(state: ExchangeState, user: Address): OrderView[] {
  const acct = state.accounts.get(user);
  if (acct === undefined) return [];
  // Newest first, as Hyperliquid lists them.
  return [...acct.orders.values()]
    .sort((a, b) => b.oid - a.oid)
    .map((o) => orderView(state.markets[o.asset] as PerpMarket, o));
}

export function openOrder(state: ExchangeState, user: Address, oid: number): OrderView | null {
  const o = state.orders.get(oid);
  if (o === undefined || o.user !== user) return null;
  return orderView(state.markets[o.asset] as PerpMarket, o);
}

export function clearinghouseState(state: ExchangeState, user: Address) {
  const acct = state.accounts.get(user);
  const empty = { accountValue: '0', totalMarginUsed: '0', totalNtlPos: '0', totalRawUsd: '0' };
  if (acct === undefined) {
    return { assetPositions: [], crossMarginSummary: empty, marginSummary: empty, crossMaintenanceMarginUsed: '0', withdrawable: '0', time: state.time };
  }
  const f = marginFigures(state, acct);
  const assetPositions = [...acct.positions.entries()]
    .sort(([a], [b]) => a - b)
    .map(([asset, pos]) => {
      const m = state.markets[asset] as PerpMarket;
      const lev = state.leverage(acct, m);
      const abs = Math.abs(pos.szi);
      const ntl = state.notional(m, state.markPx(m), abs);
      const margin = initialMargin(ntl, lev);
      const entry = divRound(pos.entryNtl, BigInt(abs) * m.ntlScale, 'nearest');
      return {
        type: 'oneWay',
        position: {
          coin: m.config.name,
          szi: formatScaled(pos.szi, m.config.szDecimals),
          entryPx: formatScaled(entry, m.pxDecimals),
          leverage: { type: 'cross', value: lev },
          positionValue: usd(ntl),
          unrealizedPnl: usd(unrealizedPnl(pos, ntl)),
          marginUsed: usd(margin),
          maxLeverage: m.config.maxLeverage,
        },
      };
    });
  // totalRawUsd: USDC plus the signed notional of shorts minus longs (Hyperliquid's definition).
  let rawUsd = acct.usdc;
  for (const [asset, pos] of acct.positions) {
    const m = state.markets[asset] as PerpMarket;
    const ntl = state.notional(m, state.markPx(m), Math.abs(pos.szi));
    rawUsd += pos.szi > 0 ? -ntl : ntl;
  }
  const summary = {
    accountValue: usd(f.accountValue),
    totalMarginUsed: usd(f.positionMargin),
    totalNtlPos: usd(f.totalNtlPos),
    totalRawUsd: usd(rawUsd),
  };
  const free = f.accountValue - f.positionMargin - acct.orderMargin;
  return {
    assetPositions,
    crossMarginSummary: summary,
    marginSummary: summary,
    crossMaintenanceMarginUsed: usd(f.maintenanceMargin),
    withdrawable: usd(free > 0n ? free : 0n),
    time: state.time,
  };
}

/** The coin name of a perp or spot asset index, for records. */
export function coinOf(state: ExchangeState, asset: number): string | null {
  if (asset < SPOT_ASSET_OFFSET) return state.markets[asset]?.config.name ?? null;
  const pair = state.config.spotPairs.find((p) => p.index === asset - SPOT_ASSET_OFFSET);
  return pair === undefined ? null : pairName(state.config, pair);
}
