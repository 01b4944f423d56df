// Margin figures of one account at mark prices. Cross positions share the account's USDC;
// an isolated position stands on its own margin: its value is that margin plus its unrealized
// PnL, and neither helps nor hurts the cross account until the position closes.
import {
  SCREEN_ASSET, SCREEN_ENTRY, SCREEN_HELD_USDC, SCREEN_ORDER_MARGIN, SCREEN_POSITIONS, SCREEN_RECORD, SCREEN_SZI, SCREEN_USDC,
  initialMargin, unrealizedPnl, type Account, type PositionFigures,
} from './account.ts';
import { USDC_TOKEN_INDEX } from './config.ts';
import type { PerpMarket } from './markets.ts';
import { notionalNum, type ExchangeState } from './state.ts';

export interface MarginFigures {
  /** Cross: USDC plus unrealized PnL of every cross position. */
  readonly accountValue: bigint;
  /** Cross: initial margin of the open cross positions at mark. */
  readonly positionMargin: bigint;
  /** Cross: sum of |position notional| at mark. */
  readonly totalNtlPos: bigint;
  /** Cross: maintenance margin of the cross positions. */
  readonly maintenanceMargin: bigint;
  /** Isolated positions: sum of margin plus unrealized PnL, and of |notional| at mark. */
  readonly isolatedValue: bigint;
  readonly isolatedNtl: bigint;
}

/** `marks`: mark prices by perp asset, when the caller computed them once for many accounts. */
export function marginFigures(state: ExchangeState, acct: Account, marks?: readonly number[]): MarginFigures {
  let accountValue = acct.usdc;
  let positionMargin = 0n;
  let totalNtlPos = 0n;
  let maintenanceMargin = 0n;
  let isolatedValue = 0n;
  let isolatedNtl = 0n;
  for (const pos of acct.positions.values()) {
    const asset = pos.asset;
    const market = state.perps[asset];
    if (market === undefined) continue;
    const ntl = state.notional(market, marks?.[asset] ?? state.markPx(market), Math.abs(pos.szi));
    if (state.isIsolated(acct, market)) {
      isolatedValue += pos.margin + unrealizedPnl(pos, ntl);
      isolatedNtl += ntl;
      continue;
    }
    accountValue += unrealizedPnl(pos, ntl);
    positionMargin += initialMargin(ntl, state.leverage(acct, market));
    totalNtlPos += ntl;
    maintenanceMargin += maintenanceOf(state, market.config.maxLeverage, ntl);
  }
  return { accountValue, positionMargin, totalNtlPos, maintenanceMargin, isolatedValue, isolatedNtl };
}

/** Cross account value alone (USDC plus the cross positions' unrealized PnL at mark): `marginFigures(...).accountValue` without the margins. */
export function crossAccountValue(state: ExchangeState, acct: Account, marks?: readonly number[]): bigint {
  const fast = crossAccountValueNum(state, acct, marks);
  if (fast !== null) return BigInt(fast);
  let value = acct.usdc;
  for (const pos of acct.positions.values()) {
    const asset = pos.asset;
    const market = state.perps[asset];
    if (market === undefined || state.isIsolated(acct, market)) continue;
    value += unrealizedPnl(pos, state.notional(market, marks?.[asset] ?? state.markPx(market), Math.abs(pos.szi)));
  }
  return value;
}

/** Bound on each term of the safe-integer sum below (2^50), and on a partial sum before adding one (2^52). */
const TERM_BOUND = 2 ** 50;
const SUM_BOUND = 2 ** 52;

/** `crossAccountValue` on safe integers, or null when a figure is too large to be sure of it (see `crossMaintenanceNum`). */
export function crossAccountValueNum(state: ExchangeState, acct: Account, marks?: readonly number[]): number | null {
  return crossMaintenanceNum(state, acct, marks)?.value ?? null;
}

/**
 * The cross figures of `marginFigures` a liquidation check needs (accountValue, maintenanceMargin,
 * totalNtlPos) on safe integers, at `marks` or the mark prices; null when a figure is too large to
 * be sure of it (then only the bigint forms are exact). Every term (USDC, a notional, an entry) is
 * below 2^50 in magnitude, so each unrealized PnL is; a partial sum is checked to be at most 2^52
 * before the next term is added, so every sum is below 2^53 and exact. Each maintenance margin is
 * `maintenanceOf` split at the divisor so that no product leaves the safe integers. Most accounts
 * take this path (the bigint path allocates at every step).
 */
export function crossMaintenanceNum(state: ExchangeState, acct: Account, marks?: readonly number[]): { value: number; maintenance: number; ntl: number } | null {
  // The account's figures as doubles (`Account.screen`): each is Number() of the exact field, so
  // a bound that holds for the double holds for the field, and a double within it is exact.
  const s = acct.screen;
  const usdc = s[SCREEN_USDC] as number;
  if (usdc > TERM_BOUND || usdc < -TERM_BOUND) return null;
  const bps = state.config.clearinghouse.maintenanceBps;
  let value = usdc;
  let maintenance = 0;
  let total = 0;
  for (let i = SCREEN_POSITIONS; i < s.length; i += SCREEN_RECORD) {
    const asset = s[i + SCREEN_ASSET] as number;
    const market = state.perps[asset];
    if (market === undefined || state.isIsolated(acct, market)) continue;
    const szi = s[i + SCREEN_SZI] as number;
    const ntl = notionalNum(market, marks?.[asset] ?? state.markPx(market), Math.abs(szi));
    const entry = s[i + SCREEN_ENTRY] as number; // never negative
    if (ntl < 0 || ntl > TERM_BOUND || entry > TERM_BOUND) return null;
    const mm = maintenanceNum(bps, market.config.maxLeverage, ntl);
    if (mm < 0) return null;
    if (value > SUM_BOUND || value < -SUM_BOUND || maintenance > SUM_BOUND || total > SUM_BOUND) return null;
    value += szi > 0 ? ntl - entry : entry - ntl;
    maintenance += mm;
    total += ntl;
  }
  return { value, maintenance, ntl: total };
}

/**
 * `maintenanceOf` of a safe notional (at most 2^50) on numbers: ceil(ntl * bps / den) as
 * q * bps + ceil(r * bps / den) with ntl = q * den + r, every step an exact integer (r * bps
 * is below den * bps, and q * bps at most ntl when bps <= den); -1 when bps > den or the
 * constants are not small integers (then only the bigint form is exact).
 */
export function maintenanceNum(bps: number, maxLeverage: number, ntl: number): number {
  const den = 10_000 * maxLeverage;
  if (!(bps >= 0 && bps <= den && Number.isSafeInteger(bps) && Number.isSafeInteger(den) && den * bps <= Number.MAX_SAFE_INTEGER)) return -1;
  const r = ntl % den;
  const q = (ntl - r) / den;
  const t = r * bps;
  const tr = t % den;
  return q * bps + (t - tr) / den + (tr > 0 ? 1 : 0);
}

/** An isolated position's own figures at a mark: margin plus unrealized PnL, and its maintenance margin. */
export function isolatedFigures(state: ExchangeState, m: PerpMarket, pos: PositionFigures, mark: number): { value: bigint; maintenance: bigint; ntl: bigint } {
  const ntl = state.notional(m, mark, Math.abs(pos.szi));
  return { value: pos.margin + unrealizedPnl(pos, ntl), maintenance: maintenanceOf(state, m.config.maxLeverage, ntl), ntl };
}

/** Maintenance margin of a notional: the configured fraction of the initial margin at maximum leverage. */
export function maintenanceOf(state: ExchangeState, maxLeverage: number, ntl: bigint): bigint {
  const bps = BigInt(state.config.clearinghouse.maintenanceBps);
  const den = 10_000n * BigInt(maxLeverage);
  return (ntl * bps + den - 1n) / den;
}

/**
 * Collateral free for new perp orders (cross or isolated: an isolated order's margin comes from
 * the cross balance) and spot buys: cross account value less cross position margin, the margin
 * of resting perp orders and the USDC held by resting spot buys. May be negative.
 */
export function availableMargin(state: ExchangeState, acct: Account): bigint {
  let free = acct.usdc - acct.orderMargin - (acct.held.get(USDC_TOKEN_INDEX) ?? 0n);
  for (const pos of acct.positions.values()) {
    const asset = pos.asset;
    const market = state.perps[asset];
    if (market === undefined || state.isIsolated(acct, market)) continue;
    const ntl = state.notional(market, state.markPx(market), Math.abs(pos.szi));
    free += unrealizedPnl(pos, ntl) - initialMargin(ntl, state.leverage(acct, market));
  }
  return free;
}

/**
 * Whether `availableMargin` covers `need`, decided in doubles when the answer is clear: true or
 * false, or null when the two are within the screen's slack (then only the exact bigint
 * comparison may decide). `need` may be off by one unit of rounding. The doubles' error is below
 * 1e-15 of the magnitudes summed, far inside the slack (1e-12 of them plus a few units), and
 * doubles compute alike on every machine, so the screen never changes an outcome.
 */
export function freeMarginCovers(state: ExchangeState, acct: Account, need: number): boolean | null {
  // The account's figures as doubles (`Account.screen`): this reads no other object of the account.
  const s = acct.screen;
  const usdc = s[SCREEN_USDC] as number;
  const reserved = (s[SCREEN_ORDER_MARGIN] as number) + (s[SCREEN_HELD_USDC] as number);
  let free = usdc - reserved;
  let magnitude = Math.abs(usdc) + Math.abs(reserved) + need;
  let terms = 3;
  for (let i = SCREEN_POSITIONS; i < s.length; i += SCREEN_RECORD) {
    const market = state.perps[s[i + SCREEN_ASSET] as number];
    if (market === undefined) return null;
    if (state.isIsolated(acct, market)) continue;
    const szi = s[i + SCREEN_SZI] as number;
    const ntl = Math.abs(szi) * state.markPx(market) * market.ntlScaleNum;
    const entry = s[i + SCREEN_ENTRY] as number;
    const im = ntl / state.leverage(acct, market);
    free += (szi > 0 ? ntl - entry : entry - ntl) - im;
    magnitude += ntl + entry + im;
    terms += 3;
  }
  const slack = magnitude * 1e-12 + terms + 1;
  const d = free - need;
  return d > slack ? true : d < -slack ? false : null;
}
