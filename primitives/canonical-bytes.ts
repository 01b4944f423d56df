// The canonical JSON of a value (canonical-json.ts) as UTF-8 bytes, written into one reused
// buffer and handed out in pieces, for hashing large values (a block's results and events, a
// state snapshot): no string is built, so hashing allocates next to nothing, where the string
// writer builds a rope of megabytes, flattens it and encodes it again. The bytes are exactly
// `utf8(canonicalize(value))`.
import { concatBytes } from './bytes.ts';
import { isPlain, OwnScratch, readOwn } from './canonical-shape.ts';
import { keccak256Stream } from './crypto.ts';

/** Bytes handed to the sink at a time (a piece is a view of the buffer, valid during the call). */
const PIECE = 32 << 10;
let buf = new Uint8Array(PIECE + 4096);
let pos = 0;
let sink: ((piece: Uint8Array) => void) | null = null;
/** Objects' keys and values by nesting depth (`readOwn`). */
const scratch = new OwnScratch();
let depth = 0;
const encoder = new TextEncoder();

/**
 * Hands the canonical JSON of `value`, as UTF-8, to `to` in pieces in order. A piece is a view of
 * a buffer reused for the next one, so `to` must consume it before returning (a hash's update),
 * and must not call this function (the writer is not re-entrant).
 */
export function canonicalBytesTo(value: unknown, to: (piece: Uint8Array) => void): void {
  pos = 0;
  depth = 0;
  sink = to;
  try {
    write(value);
    if (pos > 0) to(buf.subarray(0, pos));
  } finally {
    pos = 0;
    depth = 0;
    sink = null;
  }
}

/** The canonical JSON of `value` as UTF-8, whole (`utf8(canonicalize(value))`). */
export function canonicalBytes(value: unknown): Uint8Array {
  const pieces: Uint8Array[] = [];
  canonicalBytesTo(value, (piece) => pieces.push(piece.slice()));
  return pieces.length === 1 ? (pieces[0] as Uint8Array) : concatBytes(...pieces);
}

/** keccak256 of the canonical JSON of `value` (as `keccak256(utf8(canonicalize(value)))`). */
export function canonicalKeccak(value: unknown): Uint8Array {
  const stream = keccak256Stream();
  canonicalBytesTo(value, (piece) => stream.update(piece));
  return stream.digest();
}

/** Room for `n` more bytes: the pending piece goes out first when they would not fit. */
function room(n: number): void {
  if (pos + n <= buf.length) return;
  flush();
  if (n > buf.length) buf = new Uint8Array(n);
}

function flush(): void {
  if (pos > 0) (sink as (piece: Uint8Array) => void)(buf.subarray(0, pos));
  pos = 0;
}

/** ASCII text (number and literal forms). */
function ascii(s: string): void {
  const n = s.length;
  room(n);
  const to = buf;
  const at = pos;
  for (let i = 0; i < n; i++) to[at + i] = s.charCodeAt(i);
  pos = at + n;
}

function bytes(b: Uint8Array): void {
  const n = b.length;
  room(n);
  const to = buf;
  const at = pos;
  // A loop: TypedArray#set costs more than the copy for the short keys this mostly writes.
  if (n > 64) to.set(b, at);
  else for (let i = 0; i < n; i++) to[at + i] = b[i] as number;
  pos = at + n;
}

function string(s: string): void {
  const n = s.length;
  room(n + 2);
  const to = buf;
  let p = pos;
  to[p++] = 0x22;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (!isPlain(c)) {
      // Escapes or non-ASCII: JSON.stringify's text, as the string writer's, in UTF-8 (over what was written).
      bytes(encoder.encode(JSON.stringify(s)));
      return;
    }
    to[p++] = c;
  }
  to[p++] = 0x22;
  pos = p;
}

function write(value: unknown): void {
  if (value === null) return ascii('null');
  switch (typeof value) {
    case 'boolean':
      return ascii(value ? 'true' : 'false');
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError('non-finite number in canonical JSON');
      return ascii(`${value}`); // JSON.stringify's text for every finite number (-0 as 0)
    case 'string':
      return string(value);
    case 'object': {
      if (Array.isArray(value)) {
        room(1);
        buf[pos++] = 0x5b;
        for (let i = 0; i < value.length; i++) {
          if (i > 0) {
            room(1);
            buf[pos++] = 0x2c;
          }
          write(value[i]);
          if (pos >= PIECE) flush();
        }
        room(1);
        buf[pos++] = 0x5d;
        return;
      }
      const keys = scratch.keysAt(depth);
      const values = scratch.valuesAt(depth);
      const n = readOwn(value, keys, values);
      const { order, openBytes, nextBytes } = scratch.shapeAt(depth, keys, n);
      room(1);
      buf[pos++] = 0x7b;
      let first = true;
      depth++;
      for (let j = 0; j < n; j++) {
        const v = values[order[j] as number];
        if (v === undefined) continue;
        bytes((first ? openBytes[j] : nextBytes[j]) as Uint8Array);
        first = false;
        write(v);
      }
      depth--;
      for (let i = 0; i < n; i++) values[i] = undefined; // holds no value past its write
      room(1);
      buf[pos++] = 0x7d;
      return;
    }
    default:
      throw new TypeError(`cannot canonicalize ${typeof value}`);
  }
}
