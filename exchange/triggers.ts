// Trigger (TP/SL) orders of one perpetual market, held outside the book until the mark price
// crosses their trigger price. Iteration is in oid order (insertion order; oids only grow).
import type { Address } from '../primitives/index.ts';
import type { Grouping, OrderBuilder } from './actions.ts';

export interface TriggerOrder {
  readonly oid: number;
  readonly owner: Address;
  isBuy: boolean;
  /** Price units. */
  triggerPx: number;
  /** Limit price when triggered (price units); for market triggers, the worst price allowed. */
  limitPx: number;
  isMarket: boolean;
  tpsl: 'tp' | 'sl';
  /** Lots; 0 for position-sized (`positionTpsl`). */
  sz: number;
  reduceOnly: boolean;
  cloid: string | null;
  timestamp: number;
  readonly grouping: Grouping;
  /** `normalTpsl` children: the parent order, until it fills. */
  parent: number | null;
  /** The other leg of a TP/SL pair: cancelled when this one triggers. */
  sibling: number | null;
  /** False while a `normalTpsl` child waits for its parent to fill. */
  active: boolean;
  /** Hash of the transaction that placed it; the fills it produces carry it. */
  readonly hash: string;
  /** The builder its fills pay once it fires (absent when none: snapshots of orders without one are unchanged). */
  readonly builder?: OrderBuilder;
}

/** Whether the mark has reached the trigger: stop-loss buys and take-profit sells fire at or above. */
export function isTriggered(t: TriggerOrder, markPx: number): boolean {
  const fireAbove = t.isBuy === (t.tpsl === 'sl');
  return fireAbove ? markPx >= t.triggerPx : markPx <= t.triggerPx;
}

export class TriggerBook {
  readonly orders = new Map<number, TriggerOrder>();
  private readonly perOwner = new Map<Address, number>();

  count(owner: Address): number {
    return this.perOwner.size === 0 ? 0 : (this.perOwner.get(owner) ?? 0);
  }

  add(t: TriggerOrder): void {
    this.orders.set(t.oid, t);
    this.perOwner.set(t.owner, this.count(t.owner) + 1);
  }

  remove(oid: number): TriggerOrder | undefined {
    const t = this.orders.get(oid);
    if (t === undefined) return undefined;
    this.orders.delete(oid);
    const n = this.count(t.owner) - 1;
    if (n === 0) this.perOwner.delete(t.owner);
    else this.perOwner.set(t.owner, n);
    return t;
  }

  byCloid(owner: Address, cloid: string): TriggerOrder | undefined {
    for (const t of this.orders.values()) if (t.owner === owner && t.cloid === cloid) return t;
    return undefined;
  }

  *ofOwner(owner: Address): Generator<TriggerOrder> {
    if (this.count(owner) === 0) return;
    for (const t of this.orders.values()) if (t.owner === owner) yield t;
  }
}
