// Fill and order status records as app hash versions 2 and 3 write them (node/app-hash.ts),
// read back. On those chains the store keeps a user's order statuses of a block (by oid bucket)
// and a user's fills of a block as the app hash wrote them, after a marker byte (JSON text, the form of version 1
// chains and of earlier versions, never starts with one): the event loop writes each record once.
// A record reads back as the object the exchange made, its fields in the format's order (the
// order the exchange writes them in); an absent optional field of a fill stays absent, an order's
// null `cloid` or `tif` reads as null. The markers name this layout: an app hash version that
// writes records otherwise needs markers of its own.
import type { FillRecord, OrderStatus, OrderView } from '../exchange/index.ts';
import type { OrderStatusRecord } from './stored-records.ts';

/** The first byte of a stored entry of fills records, one after another. */
export const STORED_FILLS = 1;
/** The first byte of a stored entry of one order status record. */
export const STORED_ORDER_STATUS = 2;
/** The first byte of a stored entry of order status records, one after another. */
export const STORED_ORDER_STATUSES = 3;

const utf8 = new TextDecoder('utf-8', { fatal: true });

class Reader {
  private at = 1;
  private readonly view: DataView;
  private readonly text: Buffer;

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get done(): boolean {
    return this.at >= this.bytes.length;
  }

  private need(n: number): number {
    const at = this.at;
    if (at + n > this.bytes.length) throw new Error('a stored record ends early');
    this.at = at + n;
    return at;
  }

  byte(): number {
    return this.bytes[this.need(1)] as number;
  }

  uleb(): number {
    let n = 0;
    let scale = 1;
    for (;;) {
      const b = this.byte();
      n += (b & 0x7f) * scale;
      if (b < 0x80) return n;
      scale *= 0x80;
    }
  }

  str(): string {
    const head = this.uleb();
    const n = Math.floor(head / 2);
    const at = this.need(n);
    // ASCII as it is; else the UTF-8 of the string's JSON text.
    return head % 2 === 0 ? this.text.toString('latin1', at, at + n) : (JSON.parse(utf8.decode(this.bytes.subarray(at, at + n))) as string);
  }

  num(): number {
    return this.view.getFloat64(this.need(8), true);
  }

  bool(): boolean {
    return this.byte() === 1;
  }

  present(): boolean {
    return this.byte() === 1;
  }
}

function fill(r: Reader): FillRecord {
  const f: { -readonly [K in keyof FillRecord]: FillRecord[K] } = {
    coin: r.str(), px: r.str(), sz: r.str(), side: r.str() as FillRecord['side'], time: r.num(), startPosition: r.str(), dir: r.str(), closedPnl: r.str(),
    hash: r.str(), oid: r.num(), crossed: r.bool(), fee: r.str(), feeToken: r.str(), tid: r.num(),
  };
  if (r.present()) f.cloid = r.str();
  if (r.present()) f.builderFee = r.str();
  if (r.present()) f.liquidation = { liquidatedUser: r.str(), markPx: r.str(), method: r.str() as NonNullable<FillRecord['liquidation']>['method'] };
  return f;
}

function order(r: Reader): OrderView {
  const o: OrderView = {
    coin: r.str(), side: r.str() as OrderView['side'], limitPx: r.str(), sz: r.str(), oid: r.num(), timestamp: r.num(), origSz: r.str(),
    cloid: r.present() ? r.str() : null, reduceOnly: r.bool(), orderType: r.str() as OrderView['orderType'], tif: r.present() ? (r.str() as OrderView['tif']) : null,
    isTrigger: r.bool(), triggerCondition: r.str(), triggerPx: r.str(), isPositionTpsl: r.bool(), children: [],
  };
  const n = r.uleb();
  for (let i = 0; i < n; i++) (o.children as OrderView[]).push(order(r));
  return o;
}

/** The records of an entry whose first byte is `mark`, one after another, in the order written. */
function readAll<T>(bytes: Uint8Array, mark: number, what: string, read: (r: Reader) => T): T[] {
  if (bytes[0] !== mark) throw new Error(`not a stored entry of ${what}`);
  const r = new Reader(bytes);
  const out: T[] = [];
  while (!r.done) out.push(read(r));
  return out;
}

/** A stored entry of fills (first byte `STORED_FILLS`), oldest first. */
export function readStoredFills(bytes: Uint8Array): FillRecord[] {
  return readAll(bytes, STORED_FILLS, 'fills', fill);
}

function orderStatus(r: Reader): OrderStatusRecord {
  const status = r.str() as OrderStatus;
  const statusTimestamp = r.num();
  return { order: order(r), status, statusTimestamp };
}

/** A stored entry of an order status (first byte `STORED_ORDER_STATUS`). */
export function readStoredOrderStatus(bytes: Uint8Array): OrderStatusRecord {
  if (bytes[0] !== STORED_ORDER_STATUS) throw new Error('not a stored entry of an order status');
  const r = new Reader(bytes);
  const s = orderStatus(r);
  if (!r.done) throw new Error('a stored order status runs on past its record');
  return s;
}

/** A stored entry of order statuses (first byte `STORED_ORDER_STATUSES`), in the order written. */
export function readStoredOrderStatuses(bytes: Uint8Array): OrderStatusRecord[] {
  return readAll(bytes, STORED_ORDER_STATUSES, 'order statuses', orderStatus);
}
