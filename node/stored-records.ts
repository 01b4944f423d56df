// Compact stored forms of the per-order records the chain store writes for every block: an order's
// last status and a user's fills. A record is stored as the values of its fields in a fixed field
// order (a JSON array), not as a JSON object that repeats every field name: a third of the bytes,
// which LevelDB then logs, compresses and rewrites in compactions several times over. A user's
// fills of one block share one entry.
//
// Decoding gives back an object with the same fields in the same order as the one packed (the
// answers spread these records, so their field order reaches clients). A record whose fields do
// not start with the fixed order is stored as it is; fields after the fixed ones ride along as an
// object. Entries written as plain objects by earlier versions read as before.
import type { FillRecord, OrderStatus, OrderView } from '../exchange/index.ts';

export interface OrderStatusRecord {
  readonly order: OrderView;
  readonly status: OrderStatus;
  readonly statusTimestamp: number;
}

/** First element of a packed entry: the layout below. A new layout takes a new tag. */
export const PACKED_V1 = 1;

// Field orders as the exchange builds these records (exchange/events.ts, exchange/settlement.ts).
// Stored entries are read with these lists: changing either (even appending to it) needs a new
// tag, with these kept for the entries already written.
export const ORDER_FIELDS = [
  'coin', 'side', 'limitPx', 'sz', 'oid', 'timestamp', 'origSz', 'cloid', 'reduceOnly', 'orderType', 'tif', 'isTrigger',
  'triggerCondition', 'triggerPx', 'isPositionTpsl', 'children',
] as const;
export const FILL_FIELDS = [
  'coin', 'px', 'sz', 'side', 'time', 'startPosition', 'dir', 'closedPnl', 'hash', 'oid', 'crossed', 'fee', 'feeToken', 'tid',
] as const;

type Obj = Record<string, unknown>;

/**
 * Appends the object's values in `fields` order, then its further fields as one object. False
 * (nothing appended) when its fields do not start with `fields`, or one of those is undefined
 * (which JSON drops from an object but writes as null in an array).
 */
function packFields(o: Obj, fields: readonly string[], into: unknown[]): boolean {
  const keys = Object.keys(o);
  if (keys.length < fields.length) return false;
  for (let i = 0; i < fields.length; i++) if (keys[i] !== fields[i] || o[keys[i] as string] === undefined) return false;
  for (let i = 0; i < fields.length; i++) into.push(o[fields[i] as string]);
  if (keys.length > fields.length) {
    const extra: Obj = {};
    for (let i = fields.length; i < keys.length; i++) own(extra, keys[i] as string, o[keys[i] as string]);
    into.push(extra);
  }
  return true;
}

function unpackFields(a: readonly unknown[], from: number, fields: readonly string[]): Obj {
  const o: Obj = {};
  for (let i = 0; i < fields.length; i++) o[fields[i] as string] = a[from + i];
  const extra = a[from + fields.length] as Obj | undefined;
  if (extra !== undefined) for (const k of Object.keys(extra)) own(o, k, extra[k]);
  return o;
}

/** Sets an own field, `__proto__` included (plain assignment would set the prototype instead). */
function own(o: Obj, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

/** `[1, status, statusTimestamp, ...order's fields]`, or the record itself when its order has another shape. */
export function packOrderStatus(r: OrderStatusRecord): unknown {
  const out: unknown[] = [PACKED_V1, r.status, r.statusTimestamp];
  return packFields(r.order as unknown as Obj, ORDER_FIELDS, out) ? out : r;
}

export function unpackOrderStatus(stored: unknown): OrderStatusRecord {
  if (!Array.isArray(stored)) return stored as OrderStatusRecord;
  return { order: unpackFields(stored, 3, ORDER_FIELDS) as unknown as OrderView, status: stored[1] as OrderStatus, statusTimestamp: stored[2] as number };
}

/** One user's fills of a block, oldest first: `[1, fill...]`, each fill its packed fields or itself. */
export function packFills(fills: readonly FillRecord[]): unknown {
  const out: unknown[] = [PACKED_V1];
  for (const f of fills) {
    const packed: unknown[] = [];
    out.push(packFields(f as unknown as Obj, FILL_FIELDS, packed) ? packed : f);
  }
  return out;
}

/** The fills of a stored entry, oldest first (an entry of an earlier version holds one fill). */
export function unpackFills(stored: unknown): FillRecord[] {
  if (!Array.isArray(stored)) return [stored as FillRecord];
  const out: FillRecord[] = [];
  for (let i = 1; i < stored.length; i++) {
    const f = stored[i] as unknown;
    out.push((Array.isArray(f) ? unpackFields(f, 0, FILL_FIELDS) : f) as FillRecord);
  }
  return out;
}
