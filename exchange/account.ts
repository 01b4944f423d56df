// Accounts, perpetual positions and the margin arithmetic of cross margin.
// Money is bigint USD units (10^-USD_DECIMALS); sizes are lots; prices are price units.
import { divRound, type Address } from '../primitives/index.ts';
import type { RestingOrder } from './book.ts';

export interface Position {
  /** Signed size in lots: > 0 long, < 0 short. Never 0 while the position exists. */
  szi: number;
  /** Cost basis of the open size in USD units, always >= 0. */
  entryNtl: bigint;
}

export class Account {
  /** Realized USDC collateral (cross). */
  usdc: bigint;
  readonly positions = new Map<number, Position>();
  /** Cross leverage chosen per asset; absent means the market default. */
  readonly leverage = new Map<number, number>();
  readonly orders = new Map<number, RestingOrder>();
  readonly cloids = new Map<string, number>();
  readonly openPerAsset = new Map<number, number>();
  /** Sum of the margin reserved by resting orders. */
  orderMargin = 0n;
  /** Margin reserved per resting order, by oid. */
  readonly reserved = new Map<number, bigint>();

  constructor(
    readonly address: Address,
    usdc: bigint,
  ) {
    this.usdc = usdc;
  }

  trackOrder(order: RestingOrder, margin: bigint): void {
    this.orders.set(order.oid, order);
    if (order.cloid !== null) this.cloids.set(order.cloid, order.oid);
    this.openPerAsset.set(order.asset, (this.openPerAsset.get(order.asset) ?? 0) + 1);
    this.reserved.set(order.oid, margin);
    this.orderMargin += margin;
  }

  untrackOrder(order: RestingOrder): void {
    this.orders.delete(order.oid);
    if (order.cloid !== null) this.cloids.delete(order.cloid);
    const n = (this.openPerAsset.get(order.asset) ?? 1) - 1;
    if (n === 0) this.openPerAsset.delete(order.asset);
    else this.openPerAsset.set(order.asset, n);
    this.orderMargin -= this.reserved.get(order.oid) ?? 0n;
    this.reserved.delete(order.oid);
  }

  /** Releases the margin of `filled` lots of a resting order that had `before` lots left. */
  releaseFilled(order: RestingOrder, filled: number, before: number): void {
    const held = this.reserved.get(order.oid) ?? 0n;
    const release = filled === before ? held : (held * BigInt(filled)) / BigInt(before);
    this.reserved.set(order.oid, held - release);
    this.orderMargin -= release;
  }
}

export type FillDirection = 'Open Long' | 'Open Short' | 'Close Long' | 'Close Short' | 'Long > Short' | 'Short > Long';

export interface PositionChange {
  readonly startPosition: number;
  readonly closedPnl: bigint;
  readonly dir: FillDirection;
}

/**
 * Applies a fill of `lots` at notional `ntl` (USD units) to the account's position in `asset`:
 * entry is weighted on increase and kept on decrease; the realized PnL of the closed part is
 * credited to the account's USDC.
 */
export function applyFill(acct: Account, asset: number, isBuy: boolean, lots: number, ntl: bigint): PositionChange {
  const pos = acct.positions.get(asset);
  const start = pos?.szi ?? 0;
  const delta = isBuy ? lots : -lots;
  if (pos === undefined || start === 0 || start > 0 === isBuy) {
    if (pos === undefined) acct.positions.set(asset, { szi: delta, entryNtl: ntl });
    else {
      pos.szi += delta;
      pos.entryNtl += ntl;
    }
    return { startPosition: start, closedPnl: 0n, dir: isBuy ? 'Open Long' : 'Open Short' };
  }
  const open = Math.abs(start);
  const closing = Math.min(lots, open);
  const closingNtl = closing === lots ? ntl : (ntl * BigInt(closing)) / BigInt(lots);
  const basis = closing === open ? pos.entryNtl : (pos.entryNtl * BigInt(closing)) / BigInt(open);
  const closedPnl = start > 0 ? closingNtl - basis : basis - closingNtl;
  acct.usdc += closedPnl;
  pos.entryNtl -= basis;
  pos.szi += isBuy ? closing : -closing;
  const flipped = lots - closing;
  if (flipped > 0) {
    pos.szi = isBuy ? flipped : -flipped;
    pos.entryNtl = ntl - closingNtl;
  }
  if (pos.szi === 0) acct.positions.delete(asset);
  const dir: FillDirection =
    flipped > 0 ? (start > 0 ? 'Long > Short' : 'Short > Long') : start > 0 ? 'Close Long' : 'Close Short';
  return { startPosition: start, closedPnl, dir };
}

/** Unrealized PnL of a position valued at `markNtl` (|szi| * mark in USD units). */
export function unrealizedPnl(pos: Position, markNtl: bigint): bigint {
  return pos.szi > 0 ? markNtl - pos.entryNtl : pos.entryNtl - markNtl;
}

/** Initial margin of a notional at a leverage, rounded up (the exchange never under-reserves). */
export function initialMargin(ntl: bigint, leverage: number): bigint {
  return divRound(ntl, BigInt(leverage), 'ceil');
}

/** Lots of an order that open or extend exposure, given the current signed position. */
export function openingLots(szi: number, isBuy: boolean, lots: number): number {
  if (szi === 0 || szi > 0 === isBuy) return lots;
  return Math.max(0, lots - Math.abs(szi));
}
