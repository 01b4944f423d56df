// Read-only views of the state in the spec's (Hyperliquid's) response shapes.
import { bytesToHex, divRound, formatScaled, keccak256, utf8, type Address } from '../primitives/index.ts';
import { unrealizedPnl, initialMargin } from './account.ts';
import { TOKEN_DECIMALS, USD_DECIMALS, USDC_TOKEN_INDEX } from './config.ts';
import { bookOrderView, triggerOrderView, type OrderView } from './events.ts';
import { isolatedFigures, marginFigures } from './margin.ts';
import { dayVolume, prevDayPx } from './day-stats.ts';
import { fundingRate, impactPx, premiumOf } from './funding.ts';
import { INITIAL_REQUESTS, requestCap } from './rate-limit.ts';
import type { Market } from './markets.ts';
import type { ExchangeState } from './state.ts';

/** Levels per side in `l2Book`, as on Hyperliquid. */
export const L2_DEPTH = 20;

const usd = (v: bigint) => formatScaled(v, USD_DECIMALS);

export function meta(state: ExchangeState) {
  return {
    universe: state.perps.map((m) => ({
      name: m.name,
      szDecimals: m.szDecimals,
      maxLeverage: m.config.maxLeverage,
      onlyIsolated: m.config.onlyIsolated,
    })),
  };
}

/**
 * A token's 16-byte id (Hyperliquid's `tokenId`): the first 16 bytes of keccak256 of the UTF-8
 * text `<index>:<name>`, with the spec's index (USDC: `10000:USDC`). Fixed for the token's life.
 */
export function tokenId(index: number, name: string): string {
  return bytesToHex(keccak256(utf8(`${index}:${name}`)).subarray(0, 16));
}

/** Base-unit volume of a market over the last 24 clock hours, in lots (node/ keeps it; 0 when unknown). */
export type DayBaseVolume = (coin: string) => number;
const noVolume: DayBaseVolume = () => 0;

export function spotMeta(state: ExchangeState) {
  return {
    tokens: state.spotTokens.map((t) => ({
      name: t.name,
      szDecimals: t.szDecimals,
      weiDecimals: t.weiDecimals,
      index: t.index,
      tokenId: tokenId(t.index, t.name),
      isCanonical: true,
      // Hyperliquid's shape: {address, evm_extra_wei_decimals} when linked (no decimal shift here: the ERC-20 has weiDecimals).
      evmContract: t.evmContract === undefined ? null : { address: t.evmContract, evm_extra_wei_decimals: 0 },
      fullName: null,
      deployer: t.deployer ?? null,
      // No deployer fee share exists on this chain: every spot fee stays with the exchange.
      deployerTradingFeeShare: '0.0',
    })),
    universe: state.spots.map((m) => ({
      name: m.name,
      tokens: [m.base.index, m.quote.index] as [number, number],
      index: m.pair.index,
      isCanonical: true,
    })),
  };
}

const rate = (ppb: bigint) => formatScaled(ppb, 9);

/** Hyperliquid's `metaAndAssetCtxs`: meta, then one context per perpetual in universe order. */
export function metaAndAssetCtxs(state: ExchangeState, baseVolume: DayBaseVolume = noVolume) {
  const ctxs = state.perps.map((m) => {
    const bid = m.engine.bids.bestPx();
    const ask = m.engine.asks.bestPx();
    const impactBid = impactPx(state, m, true);
    const impactAsk = impactPx(state, m, false);
    let openInterest = 0;
    for (const pos of m.holders.positions()) {
      const szi = pos.szi;
      if (szi > 0) openInterest += szi;
    }
    const prev = prevDayPx(m);
    return {
      dayNtlVlm: usd(dayVolume(m)),
      dayBaseVlm: formatScaled(baseVolume(m.name), m.szDecimals),
      funding: rate(fundingRate(state, m).rate),
      impactPxs: impactBid === null || impactAsk === null ? null : [formatScaled(impactBid, m.pxDecimals), formatScaled(impactAsk, m.pxDecimals)],
      markPx: formatScaled(state.markPx(m), m.pxDecimals),
      midPx: bid === undefined || ask === undefined ? null : formatScaled(BigInt(bid) * 5n + BigInt(ask) * 5n, m.pxDecimals + 1),
      openInterest: formatScaled(openInterest, m.szDecimals),
      oraclePx: formatScaled(m.engine.oraclePx, m.pxDecimals),
      premium: rate(premiumOf(state, m)),
      prevDayPx: formatScaled(prev > 0 ? prev : state.markPx(m), m.pxDecimals),
    };
  });
  return [meta(state), ctxs] as const;
}

/** Each token's total supply (10^-8 units): every account's balance plus the spot fees kept in it. */
export function tokenSupplies(state: ExchangeState): bigint[] {
  const supply = state.spotTokens.map(() => 0n);
  const add = (token: number, v: bigint) => {
    const i = token - USDC_TOKEN_INDEX;
    if (i >= 0 && i < supply.length) supply[i] = (supply[i] as bigint) + v;
  };
  for (const a of state.accounts.values()) {
    add(USDC_TOKEN_INDEX, a.usdc);
    for (const [token, v] of a.tokens) add(token, v);
  }
  for (const [token, v] of state.tokenFees) add(token, v);
  for (const [token, v] of state.evmEscrow) add(token, v);
  return supply;
}

/**
 * Hyperliquid's `spotMetaAndAssetCtxs`: spotMeta, then one context per pair in universe order.
 * Supplies are of the base token, in 10^-8 units formatted as decimals (USDC: the balances on the
 * exchange). Spot markets keep no 24-hour ring in state: `dayNtlVlm` is "0", `dayBaseVlm` comes
 * from node/'s candles, and `prevDayPx` is the mark (see docs/api.md).
 */
export function spotMetaAndAssetCtxs(state: ExchangeState, baseVolume: DayBaseVolume = noVolume) {
  const supplies = tokenSupplies(state);
  const ctxs = state.spots.map((m) => {
    const bid = m.engine.bids.bestPx();
    const ask = m.engine.asks.bestPx();
    const mark = formatScaled(state.markPx(m), m.pxDecimals);
    const total = supplies[m.base.index - USDC_TOKEN_INDEX] ?? 0n;
    const supply = formatScaled(total, TOKEN_DECIMALS);
    return {
      coin: m.name,
      dayNtlVlm: '0',
      dayBaseVlm: formatScaled(baseVolume(m.name), m.szDecimals),
      markPx: mark,
      midPx: bid === undefined || ask === undefined ? null : formatScaled(BigInt(bid) * 5n + BigInt(ask) * 5n, m.pxDecimals + 1),
      prevDayPx: mark,
      // Circulating: not held in the EVM escrow (what the escrow backs circulates on the EVM).
      circulatingSupply: formatScaled(total - (state.evmEscrow.get(m.base.index) ?? 0n), TOKEN_DECIMALS),
      totalSupply: supply,
    };
  });
  return [spotMeta(state), ctxs] as const;
}

/** Spot markets as `GET /v1/spot/markets` lists them. */
export function spotMarkets(state: ExchangeState) {
  return state.spots.map((m) => ({
    pair: m.name,
    base_asset: m.base.name,
    quote_asset: m.quote.name,
    price_decimals: m.pxDecimals,
    size_decimals: m.szDecimals,
    min_order_size: formatScaled(m.minSz, m.szDecimals),
    tick_size: formatScaled(m.engine.rules.tick, m.pxDecimals),
    status: 'active',
  }));
}

/** Mid price string: the book mid (one extra decimal when it falls between ticks), else the mark. */
function midString(state: ExchangeState, m: Market): string {
  const bid = m.engine.bids.bestPx();
  const ask = m.engine.asks.bestPx();
  if (bid !== undefined && ask !== undefined) return formatScaled(BigInt(bid) * 5n + BigInt(ask) * 5n, m.pxDecimals + 1);
  return formatScaled(state.markPx(m), m.pxDecimals);
}

export function allMids(state: ExchangeState): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of state.markets) out[m.name] = midString(state, m);
  return out;
}

/** A market by coin: a perp name ("BTC"), a pair name ("SVC-USDC"), or Hyperliquid's "@<pair index>". */
export function marketByCoin(state: ExchangeState, coin: string): Market | undefined {
  const m = state.marketsByName.get(coin);
  if (m !== undefined) return m;
  const at = /^@(\d{1,4})$/.exec(coin);
  return at === null ? undefined : state.spots[Number(at[1])];
}

export function bookLevels(m: Market, isBuy: boolean, depth: number) {
  return [...m.engine.side(isBuy).iterate(depth)].map((l) => ({ px: formatScaled(l.px, m.pxDecimals), sz: formatScaled(l.sz, m.szDecimals), n: l.n }));
}

export function l2Book(state: ExchangeState, coin: string, depth = L2_DEPTH) {
  const m = marketByCoin(state, coin);
  if (m === undefined) return null;
  return { coin, time: state.time, levels: [bookLevels(m, true, depth), bookLevels(m, false, depth)] };
}

/** Every open order of the user (resting and trigger), newest first, as Hyperliquid lists them. */
export function openOrders(state: ExchangeState, user: Address): OrderView[] {
  const out: OrderView[] = [];
  for (const m of state.markets) {
    for (const o of m.engine.ownerOrders(user)) out.push(bookOrderView(m, o));
    if (m.kind === 'perp') for (const t of m.triggers.ofOwner(user)) out.push(triggerOrderView(m, t));
  }
  return out.sort((a, b) => b.oid - a.oid);
}

export function openOrder(state: ExchangeState, user: Address, oid: number): OrderView | null {
  for (const m of state.markets) {
    const o = m.engine.orders.get(oid);
    if (o !== undefined) return o.owner === user ? bookOrderView(m, o) : null;
    if (m.kind === 'perp') {
      const t = m.triggers.orders.get(oid);
      if (t !== undefined) return t.owner === user ? triggerOrderView(m, t) : null;
    }
  }
  return null;
}

export function clearinghouseState(state: ExchangeState, user: Address) {
  const acct = state.accounts.get(user);
  const empty = { accountValue: '0', totalMarginUsed: '0', totalNtlPos: '0', totalRawUsd: '0' };
  if (acct === undefined) {
    return { assetPositions: [], crossMarginSummary: empty, marginSummary: empty, crossMaintenanceMarginUsed: '0', withdrawable: '0', time: state.time };
  }
  const f = marginFigures(state, acct);
  let rawUsd = acct.usdc;
  let isolatedUsed = 0n;
  const assetPositions = [...acct.positions.entries()]
    .sort(([a], [b]) => a - b)
    .map(([asset, pos]) => {
      const m = state.perps[asset]!;
      const lev = state.leverage(acct, m);
      const isolated = state.isIsolated(acct, m);
      const abs = Math.abs(pos.szi);
      const ntl = state.notional(m, state.markPx(m), abs);
      const raw = pos.szi > 0 ? -ntl : ntl; // Hyperliquid's rawUsd: USDC plus shorts, less longs
      const entry = divRound(pos.entryNtl, BigInt(abs) * m.ntlScale, 'nearest');
      const upnl = unrealizedPnl(pos, ntl);
      const entryMargin = initialMargin(pos.entryNtl, lev);
      const allTime = acct.fundingAllTime.get(asset) ?? 0n;
      // An isolated position stands on its margin: it is what it uses, and its liquidation price
      // is where that margin plus PnL meets its own maintenance margin.
      const own = isolatedFigures(state, m, pos, state.markPx(m));
      const marginUsed = isolated ? own.value : initialMargin(ntl, lev);
      if (isolated) isolatedUsed += own.value;
      else rawUsd += raw;
      return {
        type: 'oneWay',
        position: {
          coin: m.name,
          szi: formatScaled(pos.szi, m.szDecimals),
          entryPx: formatScaled(entry, m.pxDecimals),
          leverage: isolated ? { type: 'isolated', value: lev, rawUsd: usd(pos.margin + raw) } : { type: 'cross', value: lev },
          positionValue: usd(ntl),
          unrealizedPnl: usd(upnl),
          returnOnEquity: entryMargin === 0n ? '0' : formatScaled((upnl * 100_000_000n) / entryMargin, 8),
          liquidationPx: liquidationPx(state, m, pos.szi, isolated ? own.value - own.maintenance : f.accountValue - f.maintenanceMargin),
          marginUsed: usd(marginUsed),
          maxLeverage: m.config.maxLeverage,
          // Signed like Hyperliquid's: positive when paid.
          cumFunding: { allTime: usd(allTime), sinceOpen: usd(pos.funding), sinceChange: usd(pos.funding) },
        },
      };
    });
  const cross = { accountValue: usd(f.accountValue), totalMarginUsed: usd(f.positionMargin), totalNtlPos: usd(f.totalNtlPos), totalRawUsd: usd(rawUsd) };
  let allRaw = rawUsd;
  for (const [asset, pos] of acct.positions) {
    const m = state.perps[asset]!;
    if (!state.isIsolated(acct, m)) continue;
    const ntl = state.notional(m, state.markPx(m), Math.abs(pos.szi));
    allRaw += pos.margin + (pos.szi > 0 ? -ntl : ntl);
  }
  const all = {
    accountValue: usd(f.accountValue + f.isolatedValue),
    totalMarginUsed: usd(f.positionMargin + isolatedUsed),
    totalNtlPos: usd(f.totalNtlPos + f.isolatedNtl),
    totalRawUsd: usd(allRaw),
  };
  const free = f.accountValue - f.positionMargin - acct.orderMargin - (acct.held.get(USDC_TOKEN_INDEX) ?? 0n);
  return {
    assetPositions,
    crossMarginSummary: cross,
    marginSummary: all,
    crossMaintenanceMarginUsed: usd(f.maintenanceMargin),
    withdrawable: usd(free > 0n ? free : 0n),
    time: state.time,
  };
}

/**
 * Price at which the account would reach its maintenance margin if only this position moved
 * (Hyperliquid's formula): px - side * available / size / (1 - side * mmr), where available is
 * account value less maintenance margin and mmr the maintenance rate. Null when never (<= 0).
 */
function liquidationPx(state: ExchangeState, m: ExchangeState['perps'][number], szi: number, available: bigint): string | null {
  const side = szi > 0 ? 1n : -1n;
  const lots = BigInt(Math.abs(szi));
  const den = 10_000n * BigInt(m.config.maxLeverage);
  const bps = BigInt(state.config.clearinghouse.maintenanceBps);
  const mark = BigInt(state.markPx(m));
  const shift = (available * den) / (lots * m.ntlScale * (den - side * bps));
  const px = mark - side * shift;
  return px > 0n ? formatScaled(px, m.pxDecimals) : null;
}

/** Spot balances (Hyperliquid's `spotClearinghouseState`): USDC first, then tokens by index. */
export function spotClearinghouseState(state: ExchangeState, user: Address) {
  const acct = state.accounts.get(user);
  if (acct === undefined) return { balances: [] };
  const tokens = [USDC_TOKEN_INDEX, ...[...acct.tokens.keys()].sort((a, b) => a - b)];
  return {
    balances: tokens.map((token) => {
      const cfg = state.spotToken(token);
      return {
        coin: cfg?.name ?? `#${token}`,
        token,
        hold: formatScaled(acct.held.get(token) ?? 0n, TOKEN_DECIMALS),
        total: formatScaled(acct.balance(token), TOKEN_DECIMALS),
        entryNtl: '0',
      };
    }),
  };
}

/** The fee schedule and the user's rates (Hyperliquid's `userFees`, without tiers and discounts). */
export function feeSchedule(state: ExchangeState) {
  const f = state.config.fees;
  const rate = (ppm: number) => formatScaled(ppm, 6);
  return {
    feeSchedule: { cross: rate(f.perpTakerPpm), add: rate(f.perpMakerPpm), spotCross: rate(f.spotTakerPpm), spotAdd: rate(f.spotMakerPpm) },
    userCrossRate: rate(f.perpTakerPpm),
    userAddRate: rate(f.perpMakerPpm),
    userSpotCrossRate: rate(f.spotTakerPpm),
    userSpotAddRate: rate(f.spotMakerPpm),
    activeReferralDiscount: '0',
  };
}

export function coinOf(state: ExchangeState, asset: number): string | null {
  return state.market(asset)?.name ?? null;
}


/** Hyperliquid's `extraAgents`: the account's agents with their names. */
export function extraAgents(state: ExchangeState, user: Address) {
  return (state.agentsOf.get(user) ?? []).map((a) => ({ address: a.address, name: a.name, validUntil: a.validUntil ?? null }));
}

/** Hyperliquid's `subAccounts`: each sub-account with its perp and spot state. */
export function subAccounts(state: ExchangeState, user: Address) {
  return (state.subAccounts.get(user) ?? []).map((s) => ({
    name: s.name,
    subAccountUser: s.address,
    master: user,
    clearinghouseState: clearinghouseState(state, s.address),
    spotState: spotClearinghouseState(state, s.address),
  }));
}

/** Hyperliquid's `userRateLimit`: the address-based request budget and its use. */
export function userRateLimit(state: ExchangeState, user: Address) {
  const acct = state.accounts.get(user);
  const cap = acct === undefined ? INITIAL_REQUESTS : requestCap(acct);
  return {
    cumVlm: usd(acct?.cumVlm ?? 0n),
    nRequestsUsed: acct?.requests ?? 0,
    nRequestsCap: cap,
    nRequestsSurplus: 0,
  };
}

/** What the portfolio history samples of one account (USD units). */
export interface PortfolioFigures {
  /** USDC, perp equity (cross and isolated) and spot tokens valued at their USDC pair's last trade (mid when none). */
  readonly accountValue: bigint;
  /** Trading PnL: realized and unrealized perp PnL, less fees and funding (spot price moves are not PnL here). */
  readonly pnl: bigint;
  /** The same, perpetuals only: USDC and perp equity; perp PnL. */
  readonly perpAccountValue: bigint;
  readonly perpPnl: bigint;
  /** Notional traded over the account's life. */
  readonly cumVlm: bigint;
}

export function portfolioFigures(state: ExchangeState, user: Address): PortfolioFigures | null {
  const acct = state.accounts.get(user);
  if (acct === undefined) return null;
  const f = marginFigures(state, acct);
  let upnl = 0n;
  for (const [asset, pos] of acct.positions) {
    const m = state.perps[asset];
    if (m !== undefined) upnl += unrealizedPnl(pos, state.notional(m, state.markPx(m), Math.abs(pos.szi)));
  }
  const perpAccountValue = f.accountValue + f.isolatedValue;
  let spot = 0n;
  for (const m of state.spots) {
    if (m.quote.index !== USDC_TOKEN_INDEX) continue;
    const units = acct.balance(m.base.index);
    if (units === 0n) continue;
    const bid = m.engine.bids.bestPx();
    const ask = m.engine.asks.bestPx();
    const px = m.lastPx !== 0 ? m.lastPx : bid !== undefined && ask !== undefined ? Math.floor((bid + ask) / 2) : 0;
    spot += state.notional(m, px, Number(units / m.baseUnit));
  }
  const perpPnl = acct.perpRealized + upnl;
  return { accountValue: perpAccountValue + spot, pnl: perpPnl - acct.spotFees, perpAccountValue, perpPnl, cumVlm: acct.cumVlm };
}

const stakeAmount = (v: bigint) => formatScaled(v, TOKEN_DECIMALS);

/** The spec's `delegatorSummary` (Hyperliquid's): staked token amounts as decimal strings. */
export function delegatorSummary(state: ExchangeState, user: Address) {
  const s = state.staking;
  let delegated = 0n;
  for (const d of s.delegations.get(user)?.values() ?? []) delegated += d.amount;
  const pending = s.pendingOf(user);
  return {
    delegated: stakeAmount(delegated),
    undelegated: stakeAmount(s.balance(user)),
    totalPendingWithdrawal: stakeAmount(pending.reduce((sum, p) => sum + p.amount, 0n)),
    nPendingWithdrawals: pending.length,
  };
}

/** The user's stake: delegated plus undelegated staking balance (token units), pending withdrawals excluded. */
export function stakeOf(state: ExchangeState, user: Address): bigint {
  let stake = state.staking.balance(user);
  for (const d of state.staking.delegations.get(user)?.values() ?? []) stake += d.amount;
  return stake;
}

/** Hyperliquid's `delegations`: the user's delegations by validator key. */
export function delegations(state: ExchangeState, user: Address) {
  return [...(state.staking.delegations.get(user)?.entries() ?? [])]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([validator, d]) => ({ validator, amount: stakeAmount(d.amount), lockedUntilTimestamp: d.lockedUntil }));
}

/**
 * Hyperliquid's `validatorSummaries`, the fields that mean the same here: every registered
 * validator by stake (then key), `signer` its operator account, `stake` a decimal string of the
 * token, `power` its voting power in the active set (0 outside it).
 */
export function validatorSummaries(state: ExchangeState) {
  const active = new Map(state.validators().map((v) => [v.pubKey, v.power]));
  return [...state.staking.validators.values()]
    .sort((a, b) => (a.stake > b.stake ? -1 : a.stake < b.stake ? 1 : a.pubKey < b.pubKey ? -1 : 1))
    .map((v) => ({
      validator: v.pubKey,
      signer: v.operator,
      name: v.name,
      stake: stakeAmount(v.stake),
      power: active.get(v.pubKey) ?? 0,
      isActive: active.has(v.pubKey),
      isJailed: false,
      bridgeSigner: v.bridgeSigner ?? null,
    }));
}

/**
 * Hyperliquid's `activeAssetData` on a perpetual: the user's leverage there, the margin available
 * each way (`availableToTrade`, `[buy, sell]`: free cross margin, plus what closing the position
 * frees on the side that reduces it), and the size it buys at that leverage at the mark
 * (`maxTradeSzs`, the closable size included).
 */
export function activeAssetData(state: ExchangeState, user: Address, m: ExchangeState['perps'][number]) {
  const acct = state.accounts.get(user);
  const mark = state.markPx(m);
  const lev = acct === undefined ? state.config.defaultLeverage : state.leverage(acct, m);
  const isolated = acct !== undefined && state.isIsolated(acct, m);
  let free = 0n;
  let szi = 0;
  if (acct !== undefined) {
    const f = marginFigures(state, acct);
    free = f.accountValue - f.positionMargin - acct.orderMargin - (acct.held.get(USDC_TOKEN_INDEX) ?? 0n);
    if (free < 0n) free = 0n;
    szi = acct.positions.get(m.asset)?.szi ?? 0;
  }
  const ntlPerLot = state.notional(m, mark, 1);
  const side = (isBuy: boolean) => {
    const closable = (isBuy && szi < 0) || (!isBuy && szi > 0) ? Math.abs(szi) : 0;
    const lots = (ntlPerLot === 0n ? 0 : Number((free * BigInt(lev)) / ntlPerLot)) + closable;
    // Closing frees the position's margin at this leverage.
    return { margin: free + state.notional(m, mark, closable) / BigInt(lev), lots };
  };
  const buy = side(true);
  const sell = side(false);
  return {
    leverage: isolated ? { type: 'isolated' as const, value: lev, rawUsd: usd(acct?.positions.get(m.asset)?.margin ?? 0n) } : { type: 'cross' as const, value: lev },
    maxTradeSzs: [formatScaled(buy.lots, m.szDecimals), formatScaled(sell.lots, m.szDecimals)] as [string, string],
    availableToTrade: [usd(buy.margin), usd(sell.margin)] as [string, string],
    markPx: formatScaled(mark, m.pxDecimals),
  };
}

/** Hyperliquid's `userRole`: an approved agent, a sub-account, an account in state, or missing. */
export function userRole(state: ExchangeState, user: Address) {
  const owner = state.agents.get(user);
  if (owner !== undefined) return { role: 'agent' as const, data: { user: owner } };
  const master = state.masterOf.get(user);
  if (master !== undefined) return { role: 'subAccount' as const, data: { master } };
  return { role: state.accounts.has(user) ? ('user' as const) : ('missing' as const) };
}

/** Hyperliquid's `approvedBuilders`: the builders the user approved a fee for, by address. */
export function approvedBuilders(state: ExchangeState, user: Address): Address[] {
  return [...(state.builderApprovals.get(user)?.keys() ?? [])].sort();
}
