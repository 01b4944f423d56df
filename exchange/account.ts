// Accounts: USDC collateral (shared by perps and spot), spot token balances and holds, perpetual
// positions, and the margin or balance each resting order reserves.
// Money and token amounts are bigint units of 10^-8; sizes are lots; prices are price units.
import type { Address } from '../primitives/index.ts';
import { USDC_TOKEN_INDEX } from './config.ts';
import type { BookOrder } from './engine/book-order.ts';

/** What valuing a position needs (a position, or a what-if copy of one). */
export interface PositionFigures {
  readonly szi: number;
  readonly entryNtl: bigint;
  readonly margin: bigint;
}

export class Position implements PositionFigures {
  /** Funding paid (> 0) or received (< 0) since the position opened, USD units. */
  funding = 0n;
  /**
   * Isolated margin set aside for the position, USD units; 0 for a cross position. It leaves the
   * account's USDC when the position opens or grows (the initial margin of what was added) and
   * returns in proportion as it closes; funding of an isolated position is paid from it.
   */
  margin = 0n;
  /** Its slot in its market's `HolderList`, -1 when not listed there. Bookkeeping, not state. */
  holderSlot = -1;
  private sziLots: number;
  private entry: bigint;

  constructor(
    /** The account that holds it. */
    readonly owner: Account,
    /** The perp asset (the key of the account's position map, kept here so loops over positions need not read entries). */
    readonly asset: number,
    szi: number,
    entryNtl: bigint,
  ) {
    this.sziLots = szi;
    this.entry = entryNtl;
  }

  /** Signed size in lots: > 0 long, < 0 short. Never 0 while the position exists. */
  get szi(): number {
    return this.sziLots;
  }

  set szi(v: number) {
    this.sziLots = v;
    this.owner.screenPosition(this.asset, SCREEN_SZI, v);
  }

  /** Cost basis of the open size in USD units, always >= 0. */
  get entryNtl(): bigint {
    return this.entry;
  }

  set entryNtl(v: bigint) {
    this.entry = v;
    this.owner.screenPosition(this.asset, SCREEN_ENTRY, Number(v));
  }
}

/** Offsets in `Account.screen`: the three account figures, then a record per position. */
export const SCREEN_USDC = 0;
export const SCREEN_ORDER_MARGIN = 1;
export const SCREEN_HELD_USDC = 2;
export const SCREEN_POSITIONS = 3;
export const SCREEN_RECORD = 3;
export const SCREEN_ASSET = 0;
export const SCREEN_SZI = 1;
export const SCREEN_ENTRY = 2;

/** A spot order's hold: `amount` of `token` set aside while it rests. */
export interface Hold {
  readonly token: number;
  amount: bigint;
}

/** What an account's collections read as before their first write: shared, so writing one throws. */
const refuseWrite = (): never => {
  throw new Error('invariant: an account collection written through the shared empty one');
};
class EmptyMap extends Map<number, never> {
  override set = refuseWrite;
  override delete = refuseWrite;
  override clear = refuseWrite;
}
class EmptySet extends Set<number> {
  override add = refuseWrite;
  override delete = refuseWrite;
  override clear = refuseWrite;
}
const NO_ENTRIES: ReadonlyMap<number, never> = new EmptyMap();
const NO_ENTRIES_SET: ReadonlySet<number> = new EmptySet();

export class Account {
  /**
   * The figures an order's margin check reads, as doubles in one packed array, so that the check
   * touches the account and this array and no other object: `[usdc, orderMargin, held USDC]`, then
   * `[asset, szi, entryNtl]` for each position in the order of `positions`. Each is `Number()` of
   * the exact field, kept in step by the fields' setters and by `addPosition`/`removePosition`.
   * A cache for screens with slack (`freeMarginCovers`), never state.
   */
  readonly screen: number[] = [0.5, 0.5, 0.5]; // doubles from the start: V8 keeps them unboxed
  private usdcUnits: bigint;
  /** The order margin total while it is a safe integer, else -1 and the total is `orderMarginBig`. */
  private orderMarginNum = 0;
  private orderMarginBig = 0n;
  /*
   * The collections most accounts never fill (spot tokens and holds, chosen leverage, isolated
   * assets, funding totals) are made on first write, and read as `NO_ENTRIES` until then: made
   * empty, they were about half of an account's 2.3 KB, and spread the accounts an order touches
   * over twice the memory.
   */
  private tokenMap: Map<number, bigint> | null = null;
  private heldMap: Map<number, bigint> | null = null;
  private holdMap: Map<number, Hold> | null = null;
  private leverageMap: Map<number, number> | null = null;
  private isolatedSet: Set<number> | null = null;
  private fundingMap: Map<number, bigint> | null = null;
  /** Open positions by asset; changed through `addPosition`/`removePosition`. */
  readonly positions: ReadonlyMap<number, Position> = new Map<number, Position>();
  /**
   * Whether `leverage` / `isolated` hold anything, kept in step by their setters: the margin
   * checks read these flags on the account instead of the collections.
   */
  anyLeverage = false;
  anyIsolated = false;
  /** Requests (orders, cancels, actions) counted against the address-based budget. */
  requests = 0;
  /** Notional traded, maker and taker (USD units): each whole USDC adds one request to the budget. */
  cumVlm = 0n;
  /**
   * Realized trading PnL (USD units): perp closed PnL less perp fees and funding paid, plus any
   * liquidation loss the insurance covered; and the USDC fees paid on spot fills. With the
   * unrealized PnL they make the portfolio's PnL history.
   */
  perpRealized = 0n;
  spotFees = 0n;

  /**
   * In the liquidation sweep's order (`ExchangeState.sweepOrder` or `newHolders`): set when the
   * account first holds a position, cleared when a sweep finds it holding none. A cache, not state.
   */
  sweepListed = false;
  /**
   * The account's own nonce list (`ExchangeState.nonces` of its address, the same array), once a
   * transaction it signed has looked it up: the entry is never replaced, so the hot path reads it
   * from the account it already holds. A cache, not state.
   */
  nonces: number[] | null = null;

  constructor(
    readonly address: Address,
    usdc: bigint,
  ) {
    this.usdcUnits = usdc;
    this.screen[SCREEN_USDC] = Number(usdc);
    this.screen[SCREEN_ORDER_MARGIN] = 0;
    this.screen[SCREEN_HELD_USDC] = 0;
  }

  /** USDC (token 10000): perp collateral and spot quote balance. */
  get usdc(): bigint {
    return this.usdcUnits;
  }

  set usdc(v: bigint) {
    this.usdcUnits = v;
    this.screen[SCREEN_USDC] = Number(v);
  }

  /** Initial margin reserved by the account's resting perp orders: the sum of their `margin`. */
  get orderMargin(): bigint {
    return this.orderMarginNum >= 0 ? BigInt(this.orderMarginNum) : this.orderMarginBig;
  }

  private setOrderMargin(v: bigint): void {
    const safe = v >= 0n && v <= MAX_SAFE;
    this.orderMarginNum = safe ? Number(v) : -1;
    this.orderMarginBig = safe ? 0n : v;
    this.screen[SCREEN_ORDER_MARGIN] = Number(v);
  }

  /** Spot tokens other than USDC; changed through `credit`. */
  get tokens(): ReadonlyMap<number, bigint> {
    return this.tokenMap ?? NO_ENTRIES;
  }

  /** Spot holds by token (sum of the holds of resting spot orders); changed through `hold`/`releaseHold` (the screen keeps USDC's). */
  get held(): ReadonlyMap<number, bigint> {
    return this.heldMap ?? NO_ENTRIES;
  }

  /** Each resting spot order's hold, by oid. */
  get holds(): ReadonlyMap<number, Hold> {
    return this.holdMap ?? NO_ENTRIES;
  }

  /** Leverage chosen per asset; absent means the market default. Changed through `setLeverage`. */
  get leverage(): ReadonlyMap<number, number> {
    return this.leverageMap ?? NO_ENTRIES;
  }

  /** Assets the account trades with isolated margin (besides the onlyIsolated markets). Changed through `setIsolated`. */
  get isolated(): ReadonlySet<number> {
    return this.isolatedSet ?? NO_ENTRIES_SET;
  }

  /** Funding paid (> 0) or received (< 0) per asset over the account's life, USD units; changed through `addFunding`. */
  get fundingAllTime(): ReadonlyMap<number, bigint> {
    return this.fundingMap ?? NO_ENTRIES;
  }

  addFunding(asset: number, paid: bigint): void {
    const map = (this.fundingMap ??= new Map());
    map.set(asset, (map.get(asset) ?? 0n) + paid);
  }

  /** Opens a position (the asset has none). */
  addPosition(pos: Position): void {
    (this.positions as Map<number, Position>).set(pos.asset, pos);
    this.screen.push(pos.asset, pos.szi, Number(pos.entryNtl));
  }

  /** Closes the asset's position (its size is 0). */
  removePosition(asset: number): void {
    (this.positions as Map<number, Position>).delete(asset);
    const i = this.screenRecord(asset);
    if (i >= 0) this.screen.splice(i, SCREEN_RECORD);
  }

  /** The asset's position size in lots, 0 when none (read from `screen`: no map lookup). */
  positionSzi(asset: number): number {
    const i = this.screenRecord(asset);
    return i < 0 ? 0 : (this.screen[i + SCREEN_SZI] as number);
  }

  /** Writes one figure of the asset's position into `screen` (a position not held: nothing). */
  screenPosition(asset: number, offset: number, value: number): void {
    const i = this.screenRecord(asset);
    if (i >= 0) this.screen[i + offset] = value;
  }

  /** Where the asset's record starts in `screen`, -1 when the account holds no position in it. */
  private screenRecord(asset: number): number {
    const s = this.screen;
    for (let i = SCREEN_POSITIONS; i < s.length; i += SCREEN_RECORD) if (s[i] === asset) return i;
    return -1;
  }

  /** Sets the leverage chosen for an asset, or the market default (undefined). */
  setLeverage(asset: number, leverage: number | undefined): void {
    const map = (this.leverageMap ??= new Map());
    if (leverage === undefined) map.delete(asset);
    else map.set(asset, leverage);
    this.anyLeverage = map.size !== 0;
  }

  /** Marks an asset as traded with isolated margin, or not. */
  setIsolated(asset: number, isolated: boolean): void {
    const set = (this.isolatedSet ??= new Set());
    if (isolated) set.add(asset);
    else set.delete(asset);
    this.anyIsolated = set.size !== 0;
  }

  balance(token: number): bigint {
    return token === USDC_TOKEN_INDEX ? this.usdc : (this.tokens.get(token) ?? 0n);
  }

  credit(token: number, amount: bigint): void {
    if (token === USDC_TOKEN_INDEX) this.usdc += amount;
    else {
      const tokens = (this.tokenMap ??= new Map());
      const v = (tokens.get(token) ?? 0n) + amount;
      if (v === 0n) tokens.delete(token);
      else tokens.set(token, v);
    }
  }

  /** Balance not held by resting spot orders. */
  free(token: number): bigint {
    return this.balance(token) - (this.held.get(token) ?? 0n);
  }

  /** Sets the margin one of the account's resting perp orders reserves (replacing what it reserved before). */
  setMargin(o: BookOrder, margin: bigint): void {
    if (margin >= 0n && margin <= MAX_SAFE) {
      this.setMarginUnits(o, Number(margin));
      return;
    }
    const total = this.orderMargin + margin - o.margin;
    o.marginUnits = -1;
    o.marginBig = margin;
    this.setOrderMargin(total);
  }

  /**
   * `setMargin` of a reserve that is a safe integer >= 0 (callers guarantee it: a negative or
   * unsafe `units` would corrupt the total; use `setMargin` otherwise): on numbers while the order's old
   * reserve and the total are safe integers. Two such numbers differ and add exactly up to
   * 2^53, and a sum past MAX_SAFE_INTEGER rounds to at least 2^53, which the check refuses.
   */
  setMarginUnits(o: BookOrder, units: number): void {
    const before = o.marginUnits;
    if (units === before) return;
    if (before >= 0 && this.orderMarginNum >= 0) {
      const total = this.orderMarginNum + (units - before);
      if (total >= 0 && total <= Number.MAX_SAFE_INTEGER) {
        this.orderMarginNum = total;
        this.screen[SCREEN_ORDER_MARGIN] = total;
        o.marginUnits = units;
        return;
      }
    }
    const total = this.orderMargin + BigInt(units) - o.margin;
    o.marginUnits = units;
    o.marginBig = 0n;
    this.setOrderMargin(total);
  }

  hold(oid: number, token: number, amount: bigint): void {
    (this.holdMap ??= new Map()).set(oid, { token, amount });
    this.setHeld(token, (this.held.get(token) ?? 0n) + amount);
  }

  /** Releases `amount` of an order's hold (all of it when `amount` is null or exceeds it). */
  releaseHold(oid: number, amount: bigint | null): void {
    const h = this.holdMap?.get(oid);
    if (h === undefined) return;
    const release = amount === null || amount > h.amount ? h.amount : amount;
    h.amount -= release;
    const total = (this.held.get(h.token) ?? 0n) - release;
    this.setHeld(h.token, total);
    if (amount === null || h.amount === 0n) this.holdMap?.delete(oid);
  }

  private setHeld(token: number, total: bigint): void {
    const held = (this.heldMap ??= new Map());
    if (total === 0n) held.delete(token);
    else held.set(token, total);
    if (token === USDC_TOKEN_INDEX) this.screen[SCREEN_HELD_USDC] = Number(total);
  }

  /** Releases whatever one of the account's orders reserved (it has just left the book). */
  releaseOrder(o: BookOrder): void {
    if (o.marginUnits !== 0) this.setMarginUnits(o, 0);
    if (this.holdMap !== null && this.holdMap.size !== 0) this.releaseHold(o.oid, null);
  }
}

export type FillDirection = 'Open Long' | 'Open Short' | 'Close Long' | 'Close Short' | 'Long > Short' | 'Short > Long';

export interface PositionChange {
  readonly startPosition: number;
  readonly closedPnl: bigint;
  readonly dir: FillDirection;
}

/** Moves the initial margin of `ntl` from the account's USDC into an isolated position. */
function fundIsolated(acct: Account, pos: Position, ntl: bigint, leverage: number | null): void {
  if (leverage === null) return;
  const im = initialMargin(ntl, leverage);
  acct.usdc -= im;
  pos.margin += im;
}

/** `applyFill`'s answer, one object reused by every call (fills are settled one at a time). */
const change: { startPosition: number; closedPnl: bigint; dir: FillDirection } = { startPosition: 0, closedPnl: 0n, dir: 'Open Long' };

function changed(startPosition: number, closedPnl: bigint, dir: FillDirection): PositionChange {
  change.startPosition = startPosition;
  change.closedPnl = closedPnl;
  change.dir = dir;
  return change;
}

/**
 * Applies a fill of `lots` at notional `ntl` (USD units) to the account's position in `asset`:
 * entry is weighted on increase and kept on decrease; the realized PnL of the closed part is
 * credited to the account's USDC. `isolatedLeverage` is the leverage of an isolated position
 * (null for cross): opening lots move their initial margin into the position, closing lots
 * return their share of it. The returned change is valid until the next call (read it at once).
 */
export function applyFill(acct: Account, asset: number, isBuy: boolean, lots: number, ntl: bigint, isolatedLeverage: number | null = null): PositionChange {
  const pos = acct.positions.get(asset);
  const start = pos?.szi ?? 0;
  const delta = isBuy ? lots : -lots;
  if (pos === undefined || start === 0 || start > 0 === isBuy) {
    let p = pos;
    if (p === undefined) acct.addPosition((p = new Position(acct, asset, delta, ntl)));
    else {
      p.szi += delta;
      p.entryNtl += ntl;
    }
    fundIsolated(acct, p, ntl, isolatedLeverage);
    return changed(start, 0n, isBuy ? 'Open Long' : 'Open Short');
  }
  const open = Math.abs(start);
  const closing = Math.min(lots, open);
  const closingNtl = closing === lots ? ntl : (ntl * BigInt(closing)) / BigInt(lots);
  const basis = closing === open ? pos.entryNtl : (pos.entryNtl * BigInt(closing)) / BigInt(open);
  const closedPnl = start > 0 ? closingNtl - basis : basis - closingNtl;
  // A cross position has no margin of its own: nothing to release (and no bigint to allocate).
  if (pos.margin === 0n) acct.usdc += closedPnl;
  else {
    const released = closing === open ? pos.margin : (pos.margin * BigInt(closing)) / BigInt(open);
    acct.usdc += closedPnl + released;
    pos.margin -= released;
  }
  pos.entryNtl = closing === open ? 0n : pos.entryNtl - basis; // all of it closed: basis is the whole entry
  pos.szi += isBuy ? closing : -closing;
  const flipped = lots - closing;
  if (flipped > 0) {
    pos.szi = isBuy ? flipped : -flipped;
    pos.entryNtl = ntl - closingNtl;
    pos.funding = 0n;
    fundIsolated(acct, pos, pos.entryNtl, isolatedLeverage);
  }
  if (pos.szi === 0) acct.removePosition(asset);
  const dir: FillDirection =
    flipped > 0 ? (start > 0 ? 'Long > Short' : 'Short > Long') : start > 0 ? 'Close Long' : 'Close Short';
  return changed(start, closedPnl, dir);
}

/** Unrealized PnL of a position valued at `markNtl` (|szi| * mark in USD units). */
export function unrealizedPnl(pos: PositionFigures, markNtl: bigint): bigint {
  return pos.szi > 0 ? markNtl - pos.entryNtl : pos.entryNtl - markNtl;
}

/** Initial margin of a notional at a leverage, rounded up (the exchange never under-reserves). */
export function initialMargin(ntl: bigint, leverage: number): bigint {
  if (ntl >= 0n && ntl <= MAX_SAFE) return BigInt(initialMarginNum(Number(ntl), leverage));
  const l = BigInt(leverage);
  return (ntl + l - 1n) / l;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** `initialMargin` of a safe non-negative integer notional, on numbers: exact (remainder, then an exact division). */
export function initialMarginNum(ntl: number, leverage: number): number {
  if (ntl > 2 ** 52) {
    const r = ntl % leverage;
    return (ntl - r) / leverage + (r > 0 ? 1 : 0);
  }
  // A double's % is a library call; the rounded quotient is off by at most one, and q * leverage
  // stays below 2^53 here, so the remainder is exact and the correction too.
  let q = Math.floor(ntl / leverage);
  let r = ntl - q * leverage;
  if (r < 0) {
    q -= 1;
    r += leverage;
  } else if (r >= leverage) {
    q += 1;
    r -= leverage;
  }
  return q + (r > 0 ? 1 : 0);
}

/** Lots an order on this side may close: the position's size when it is the other way, else 0. */
export function closableLots(acct: Account, asset: number, isBuy: boolean): number {
  const szi = acct.positionSzi(asset);
  return szi !== 0 && szi > 0 !== isBuy ? Math.abs(szi) : 0;
}
