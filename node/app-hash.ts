// The app hash chain: keccak256(previous app hash || digest(the block's outputs)), where the
// outputs are the transactions' results, the exchange's events, the full state hash on snapshot
// heights and the EVM state root after the block. Divergence in outputs or EVM state shows at
// once, silent divergence of exchange state at the next snapshot height. The genesis names how
// the outputs are written (`appHashVersion`, docs/consensus.md):
//
// - Version 1: the canonical JSON of {results, events, state, evm} (RFC 8785).
// - Version 2: the canonical JSON of {evm, results, state}, then each event: fills and order
//   statuses (nearly all of a busy block's outputs) as their fields' values in a fixed order
//   without keys, any other event as its canonical JSON. A busy 20-order action writes about a
//   third of version 1's bytes, and without a lookup per key (docs/performance.md).
// - Version 3: version 2's bytes, their inner digest SHA-256 instead of Keccak-256 (about 6.8 KB a
//   20-order action: 4 µs of SHA-256 here against 19 of Keccak). The chain's fold stays Keccak.
//
// Version 2's event records, after a tag byte (1 fill, 2 order status, 0 other):
// - a string: uleb128(2 × byte length + e), then its bytes: its characters when all are ASCII
//   (e = 0), else the UTF-8 of its JSON text (e = 1; lone surrogates escaped);
// - a number: its IEEE 754 double, little-endian (-0 as 0; non-finite numbers are refused, as
//   canonical JSON refuses them); a boolean: one byte, 0 or 1;
// - an optional or nullable field: a byte, 0 absent or null, 1 present, then the value;
// - a list: uleb128 of its length, then its items.
// fill: user, then FillRecord's fields in FILL_FIELDS' order (cloid, builderFee, liquidation
// optional; liquidation as liquidatedUser, markPx, method). Order status: user, status,
// statusTimestamp, then the order as OrderView's fields in ORDER_FIELDS' order (cloid and tif
// nullable, children a list of orders).
import { bytesToHex, canonicalBytes, canonicalBytesTo, canonicalKeccak, concatBytes, hexToBytes, keccak256, digestBytes, type DigestName } from '../primitives/index.ts';
import type { ExchangeEvent, FillRecord, OrderView } from '../exchange/index.ts';
import type { AppHashVersion } from '../genesis/index.ts';


/** What a block's app hash commits to. */
export interface BlockOutputs {
  readonly results: unknown;
  readonly events: readonly ExchangeEvent[];
  /** The full state hash, on snapshot heights. */
  readonly state: string | undefined;
  /** The EVM state root after the block. */
  readonly evm: string;
}

/**
 * Hashes `bytes` off the event loop. `bytes` may be a view of shared memory, left unchanged until
 * the promise settles.
 */
export type OffLoopDigest = (bytes: Uint8Array, digest: DigestName) => Promise<Uint8Array>;

/** The digest of a block's written outputs, by app hash version (1 and 2 Keccak-256, 3 SHA-256). */
const digestOf = (version: AppHashVersion): DigestName => (version === 3 ? 'sha256' : 'keccak256');

/** The app hash after a block whose outputs are `outputs`, hashed here. */
export function nextAppHash(prev: string, outputs: BlockOutputs, version: AppHashVersion): string {
  if (version === 1) {
    // The canonical text's bytes are hashed as they are written, without building the text.
    const { results, events, state, evm } = outputs;
    return chainedAppHash(prev, canonicalKeccak({ results, events, state, evm }));
  }
  const written = writeOutputs(outputs);
  try {
    return chainedAppHash(prev, digestBytes(written.bytes, digestOf(version)));
  } finally {
    written.release();
  }
}

/**
 * `nextAppHash`, its big digest on `hasher` (a signer worker) when the written outputs are at
 * least `OFF_LOOP_HASH_BYTES` long: the same bytes hashed the same way, while the event loop takes
 * requests.
 */
export async function nextAppHashOffLoop(prev: string, outputs: BlockOutputs, version: AppHashVersion, hasher: OffLoopDigest): Promise<string> {
  if (version === 1) {
    const { results, events, state, evm } = outputs;
    const bytes = canonicalBytes({ results, events, state, evm });
    return chainedAppHash(prev, bytes.length >= OFF_LOOP_HASH_BYTES ? await hasher(bytes, 'keccak256') : keccak256(bytes));
  }
  const written = writeOutputs(outputs);
  try {
    return await writtenAppHash(prev, written, version, hasher);
  } finally {
    written.release();
  }
}

/**
 * The app hash after a block whose outputs (versions 2 and 3) are `written`; its big digest on
 * `hasher`, as `nextAppHashOffLoop`. `written` stays the caller's to release.
 */
export async function writtenAppHash(prev: string, written: WrittenOutputs, version: 2 | 3, hasher: OffLoopDigest | undefined): Promise<string> {
  const digest = digestOf(version);
  const { bytes } = written;
  // The worker reads the shared buffer in place; it is not written again until released.
  return chainedAppHash(prev, hasher !== undefined && bytes.length >= OFF_LOOP_HASH_BYTES ? await hasher(bytes, digest) : digestBytes(bytes, digest));
}

/** Below this, hashing on the event loop costs less than the trip to a worker and back. */
const OFF_LOOP_HASH_BYTES = 128 << 10;

/** keccak256(prev || inner): the one place the chain's app hash folds in a block's. */
function chainedAppHash(prev: string, inner: Uint8Array): string {
  return bytesToHex(keccak256(concatBytes(hexToBytes(prev), inner)));
}

/** FillRecord's fields as version 2 writes them: every key, so that a field added to it fails to compile until written. */
const FILL_FIELDS = ['coin', 'px', 'sz', 'side', 'time', 'startPosition', 'dir', 'closedPnl', 'hash', 'oid', 'crossed', 'fee', 'feeToken', 'tid', 'cloid', 'builderFee', 'liquidation'] as const;
/** OrderView's fields as version 2 writes them. */
const ORDER_FIELDS = ['coin', 'side', 'limitPx', 'sz', 'oid', 'timestamp', 'origSz', 'cloid', 'reduceOnly', 'orderType', 'tif', 'isTrigger', 'triggerCondition', 'triggerPx', 'isPositionTpsl', 'children'] as const;
type Exactly<Listed, Keys> = [Exclude<Keys, Listed>, Exclude<Listed, Keys>] extends [never, never] ? true : false;
const fillFieldsComplete: Exactly<(typeof FILL_FIELDS)[number], keyof FillRecord> = true;
const orderFieldsComplete: Exactly<(typeof ORDER_FIELDS)[number], keyof OrderView> = true;
void fillFieldsComplete;
void orderFieldsComplete;

/** Tests: the fields version 2 writes for fills and orders, in order. */
export const APP_HASH_V2_FIELDS = { fill: FILL_FIELDS, order: ORDER_FIELDS } as const;

/**
 * A block's outputs as versions 2 and 3 write them, in a buffer of shared memory (a worker hashes
 * it without a copy) held until `release`: the chain store copies its fill and order status
 * records from it (node/app-hash-records.ts reads them back).
 */
export interface WrittenOutputs {
  /** The digest's input. */
  readonly bytes: Uint8Array;
  /**
   * Where event i's record starts and ends in `bytes` after its tag byte and user, for fills and
   * order statuses (0 and 0 for other events).
   */
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  /** Gives the buffer back for a later block: nothing above is read after. */
  release(): void;
}

interface Slot {
  buf: Uint8Array;
  starts: Int32Array;
  ends: Int32Array;
}

const shared = (n: number): Uint8Array => new Uint8Array(new SharedArrayBuffer(n));
/** Buffers released, reused by the next writes (one a block in flight; more only with several chains in a thread). */
const free: Slot[] = [];
// The buffer being written.
let buf = shared(0);
let view = new DataView(buf.buffer);
let pos = 0;
const encoder = new TextEncoder();

/** Tests: version 2's bytes, a copy. */
export function writeV2(outputs: BlockOutputs): Uint8Array {
  const written = writeOutputs(outputs);
  const bytes = written.bytes.slice();
  written.release();
  return bytes;
}

/** The block's outputs as versions 2 and 3 write them, held until released. */
export function writeOutputs(outputs: BlockOutputs): WrittenOutputs {
  const events = outputs.events;
  const slot = free.pop() ?? { buf: shared(1 << 20), starts: new Int32Array(1024), ends: new Int32Array(1024) };
  if (slot.starts.length < events.length) {
    slot.starts = new Int32Array(events.length * 2);
    slot.ends = new Int32Array(events.length * 2);
  }
  const { starts, ends } = slot;
  buf = slot.buf;
  view = new DataView(buf.buffer);
  pos = 0;
  canonicalBytesTo({ evm: outputs.evm, results: outputs.results, state: outputs.state }, raw);
  for (let i = 0; i < events.length; i++) {
    const e = events[i] as ExchangeEvent;
    if (e.kind === 'fill') {
      room(1);
      buf[pos++] = 1;
      str(e.user);
      starts[i] = pos;
      fill(e.fill);
      ends[i] = pos;
    } else if (e.kind === 'order') {
      room(1);
      buf[pos++] = 2;
      str(e.user);
      starts[i] = pos;
      str(e.status);
      num(e.statusTimestamp);
      order(e.order);
      ends[i] = pos;
    } else {
      room(1);
      buf[pos++] = 0;
      canonicalBytesTo(e, raw);
      starts[i] = 0;
      ends[i] = 0;
    }
  }
  // The buffer may have grown while written: the slot keeps the larger one.
  slot.buf = buf;
  let released = false;
  return {
    bytes: buf.subarray(0, pos),
    starts,
    ends,
    release: () => {
      if (released) return;
      released = true;
      free.push(slot);
    },
  };
}

function fill(f: FillRecord): void {
  str(f.coin);
  str(f.px);
  str(f.sz);
  str(f.side);
  num(f.time);
  str(f.startPosition);
  str(f.dir);
  str(f.closedPnl);
  str(f.hash);
  num(f.oid);
  bool(f.crossed);
  str(f.fee);
  str(f.feeToken);
  num(f.tid);
  if (present(f.cloid)) str(f.cloid as string);
  if (present(f.builderFee)) str(f.builderFee as string);
  const l = f.liquidation;
  if (present(l)) {
    str(l!.liquidatedUser);
    str(l!.markPx);
    str(l!.method);
  }
}

function order(o: OrderView): void {
  str(o.coin);
  str(o.side);
  str(o.limitPx);
  str(o.sz);
  num(o.oid);
  num(o.timestamp);
  str(o.origSz);
  if (present(o.cloid)) str(o.cloid as string);
  bool(o.reduceOnly);
  str(o.orderType);
  if (present(o.tif)) str(o.tif as string);
  bool(o.isTrigger);
  str(o.triggerCondition);
  str(o.triggerPx);
  bool(o.isPositionTpsl);
  const children = o.children;
  uleb(children.length);
  for (let i = 0; i < children.length; i++) order(children[i] as OrderView);
}

function room(n: number): void {
  if (pos + n <= buf.length) return;
  const next = shared(Math.max(buf.length * 2, pos + n));
  next.set(buf.subarray(0, pos));
  buf = next;
  view = new DataView(buf.buffer);
}

/** A piece of canonical JSON (a view valid during the call). */
function raw(piece: Uint8Array): void {
  room(piece.length);
  buf.set(piece, pos);
  pos += piece.length;
}

function uleb(n: number): void {
  room(8);
  while (n >= 0x80) {
    buf[pos++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 0x80);
  }
  buf[pos++] = n;
}

/** Optional or nullable: writes the presence byte, answers whether the value follows. */
function present(v: unknown): boolean {
  room(1);
  const has = v !== undefined && v !== null;
  buf[pos++] = has ? 1 : 0;
  return has;
}

function bool(b: boolean): void {
  if (typeof b !== 'boolean') throw new TypeError('a non-boolean where the app hash writes a boolean');
  room(1);
  buf[pos++] = b ? 1 : 0;
}

function num(n: number): void {
  if (!Number.isFinite(n)) throw new TypeError('non-finite number in the app hash');
  room(8);
  view.setFloat64(pos, n === 0 ? 0 : n, true);
  pos += 8;
}

function str(s: string): void {
  if (typeof s !== 'string') throw new TypeError('a non-string where the app hash writes a string');
  const n = s.length;
  if (n >= 1024) return longStr(s);
  // ASCII and short (nearly every string here): one or two header bytes, then the characters.
  room(n + 2);
  let at = pos;
  if (n < 64) buf[at++] = n * 2;
  else {
    buf[at++] = ((n * 2) & 0x7f) | 0x80;
    buf[at++] = (n * 2) >>> 7;
  }
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) return escapedStr(s);
    buf[at + i] = c;
  }
  pos = at + n;
}

function longStr(s: string): void {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return escapedStr(s);
  uleb(s.length * 2);
  room(s.length);
  pos += encoder.encodeInto(s, buf.subarray(pos)).written;
}

function escapedStr(s: string): void {
  const bytes = encoder.encode(JSON.stringify(s));
  uleb(bytes.length * 2 + 1);
  room(bytes.length);
  buf.set(bytes, pos);
  pos += bytes.length;
}
