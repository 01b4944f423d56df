// The chain store's hot entries written as bytes: a user's order statuses and fills of a block
// (stored-records.ts), keys and values, straight into a block's chunks of memory. A busy block
// writes thousands of them; as strings each cost a packed array, its JSON text, a key built of
// pieces that LevelDB's binding flattens again, and two padded hex strings (a quarter of the
// batch mix's allocation). The bytes are exactly the strings' UTF-8: the keys
// `prefix + user + "!" + hex16(n)` (then `"!" + hex16(m)` when given) and the values
// `JSON.stringify(records.map(packOrderStatus))` and `JSON.stringify(packFills(fills))`. A record
// of another shape (fields not exactly the packed ones, text that JSON escapes, a number that is
// not a safe integer where a key needs one) is not written here: the caller writes it as a
// string. On chains of app hash version 2 or 3 the values are instead the records the app hash
// wrote, copied after a marker byte (`records`).
import { isPlain } from '../primitives/index.ts';
import type { FillRecord } from '../exchange/index.ts';
import { FILL_FIELDS, ORDER_FIELDS, PACKED_V1, type OrderStatusRecord } from './stored-records.ts';
import type { WrittenOutputs } from './app-hash.ts';

const CHUNK = 256 << 10;
const PACKED_TEXT = `${PACKED_V1}`;

/**
 * One block's entries. Views handed out stay valid: a chunk is never written again once a later
 * one is started, and each block takes new chunks (a batch the engine defers may read its views
 * after the next block began).
 */
export class RecordBytes {
  private buf = new Uint8Array(CHUNK);
  private view = new DataView(this.buf.buffer);
  /** A view of the outputs records are copied from (one a block). */
  private source: { bytes: Uint8Array; view: DataView } | null = null;
  private pos = 0;
  /** Where the record being written started. */
  private start = 0;

  /**
   * `prefix + user + "!" + hex16(n)`, then `"!" + hex16(m)` when `m` is given, or null when that
   * is not plain ASCII of safe non-negative integers.
   */
  key(prefix: string, user: string, n: number, m?: number): Uint8Array | null {
    if (!Number.isSafeInteger(n) || n < 0 || (m !== undefined && (!Number.isSafeInteger(m) || m < 0))) return null;
    this.begin(prefix.length + user.length + 34);
    if (!this.ascii(prefix) || !this.ascii(user)) return this.abandon();
    this.byte(0x21);
    this.hex16(n);
    if (m !== undefined) {
      this.byte(0x21);
      this.hex16(m);
    }
    return this.end();
  }

  /** `JSON.stringify(records.map(packOrderStatus))`, or null. */
  orderStatuses(records: readonly OrderStatusRecord[]): Uint8Array | null {
    this.begin(2 + 400 * records.length);
    this.byte(0x5b);
    for (let i = 0; i < records.length; i++) {
      if (i > 0) this.byte(0x2c);
      if (!this.packedStatus(records[i] as OrderStatusRecord)) return this.abandon();
    }
    this.byte(0x5d);
    return this.end();
  }

  private packedStatus(r: OrderStatusRecord): boolean {
    this.byte(0x5b);
    this.text(PACKED_TEXT);
    this.byte(0x2c);
    if (!this.str(r.status)) return false;
    this.byte(0x2c);
    if (!this.num(r.statusTimestamp)) return false;
    if (!this.fields(r.order, ORDER_FIELDS, true)) return false;
    this.byte(0x5d);
    return true;
  }

  /**
   * `mark`, then the records of events `at` as the app hash wrote them, copied
   * (node/app-hash-records.ts reads them back).
   */
  records(mark: number, from: WrittenOutputs, at: readonly number[]): Uint8Array {
    let n = 1;
    for (let i = 0; i < at.length; i++) n += recordLength(from, at[i] as number);
    this.begin(n);
    this.buf[this.pos++] = mark;
    for (let i = 0; i < at.length; i++) this.copyRecord(from, at[i] as number);
    return this.end();
  }

  /**
   * Four bytes at a time through DataViews: 52 ns a record of 90 to 150 bytes against 78 for
   * `set` of a `subarray`, which also leaves an object a record to collect (integers, so every
   * bit pattern is copied as it is; a float64 copy may change a NaN's bits).
   */
  private copyRecord(from: WrittenOutputs, i: number): void {
    let s = from.starts[i] as number;
    const e = from.ends[i] as number;
    const bytes = from.bytes;
    if (this.source?.bytes !== bytes) this.source = { bytes, view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
    const src = this.source.view;
    const dst = this.view;
    let p = this.pos;
    for (; s + 4 <= e; s += 4, p += 4) dst.setInt32(p, src.getInt32(s));
    const buf = this.buf;
    for (; s < e; s++) buf[p++] = bytes[s] as number;
    this.pos = p;
  }

  /** `JSON.stringify(packFills(fills))`, or null. */
  fills(fills: readonly FillRecord[]): Uint8Array | null {
    this.begin(64 + 400 * fills.length);
    this.byte(0x5b);
    this.text(PACKED_TEXT);
    for (const f of fills) {
      this.byte(0x2c);
      this.byte(0x5b);
      if (!this.fields(f, FILL_FIELDS, false)) return this.abandon();
      this.byte(0x5d);
    }
    this.byte(0x5d);
    return this.end();
  }

  /**
   * `,value` for each of `fields` (the first without its comma unless `comma`): when the object's own
   * keys are exactly `fields` in that order, each value a string, number, boolean or null, or
   * (`children`) an empty list.
   */
  private fields(o: object, fields: readonly string[], comma: boolean): boolean {
    let i = 0;
    for (const k in o) {
      if (k !== fields[i]) return false;
      const v = (o as Record<string, unknown>)[k];
      if (i > 0 || comma) this.byte(0x2c);
      i++;
      if (typeof v === 'string') {
        if (!this.str(v)) return false;
      } else if (typeof v === 'number') {
        if (!this.num(v)) return false;
      } else if (typeof v === 'boolean') this.text(v ? 'true' : 'false');
      else if (v === null) this.text('null');
      else if (Array.isArray(v) && v.length === 0) this.text('[]');
      else return false;
    }
    return i === fields.length && Object.getPrototypeOf(o) === Object.prototype;
  }

  private begin(room: number): void {
    if (this.pos + room > this.buf.length) {
      this.buf = new Uint8Array(Math.max(CHUNK, room));
      this.view = new DataView(this.buf.buffer);
      this.pos = 0;
    }
    this.start = this.pos;
  }

  private end(): Uint8Array {
    return this.buf.subarray(this.start, this.pos);
  }

  private abandon(): null {
    this.pos = this.start;
    return null;
  }

  /** Room for `n` more bytes of the record being written: it moves to a new chunk when needed. */
  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const written = this.buf.subarray(this.start, this.pos);
    this.buf = new Uint8Array(Math.max(CHUNK, 2 * (written.length + n)));
    this.view = new DataView(this.buf.buffer);
    this.buf.set(written);
    this.pos = written.length;
    this.start = 0;
  }

  private byte(b: number): void {
    this.room(1);
    this.buf[this.pos++] = b;
  }

  /** ASCII text as it is (literals and number texts). */
  private text(s: string): void {
    this.room(s.length);
    for (let i = 0; i < s.length; i++) this.buf[this.pos++] = s.charCodeAt(i);
  }

  /** Plain ASCII as it is; false for anything else. */
  private ascii(s: string): boolean {
    this.room(s.length);
    const at = this.pos;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) return false;
      this.buf[at + i] = c;
    }
    this.pos = at + s.length;
    return true;
  }

  /** A JSON string that needs no escape (printable ASCII but `"` and `\`); false for any other. */
  private str(s: string): boolean {
    this.room(s.length + 2);
    const at = this.pos;
    this.buf[at] = 0x22;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (!isPlain(c)) return false;
      this.buf[at + 1 + i] = c;
    }
    this.buf[at + 1 + s.length] = 0x22;
    this.pos = at + s.length + 2;
    return true;
  }

  /** JSON's text of a finite number (`${n}`: V8 caches recent numbers' texts, and a block's repeat); false for others. */
  private num(n: number): boolean {
    if (!Number.isFinite(n)) return false;
    this.text(`${n}`); // JSON.stringify's text for every finite number (-0 as 0)
    return true;
  }

  /** `n.toString(16).padStart(16, '0')` of a non-negative safe integer. */
  private hex16(n: number): void {
    this.room(16);
    const hi = Math.floor(n / 0x1_0000_0000);
    const lo = n >>> 0;
    const at = this.pos;
    for (let i = 7; i >= 0; i--) {
      this.buf[at + 7 - i] = HEX[(hi >>> (i * 4)) & 15] as number;
      this.buf[at + 15 - i] = HEX[(lo >>> (i * 4)) & 15] as number;
    }
    this.pos = at + 16;
  }
}

const recordLength = (from: WrittenOutputs, i: number): number => (from.ends[i] as number) - (from.starts[i] as number);

const HEX = Uint8Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
