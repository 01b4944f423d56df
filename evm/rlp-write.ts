// RLP written straight into one buffer per item: sizes first, then bytes. The generic encoder
// takes nested arrays and copies every byte string again at each level; trie nodes and accounts
// are built here many times per block.

function lengthOfLength(n: number): number {
  let k = 0;
  for (; n > 0; n = Math.floor(n / 256)) k++;
  return k;
}

/** Bytes of the header of a string or list with `payload` bytes. */
export function headerSize(payload: number): number {
  return payload < 56 ? 1 : 1 + lengthOfLength(payload);
}

/** Bytes of the encoding of byte string `b`. */
export function stringSize(b: Uint8Array): number {
  return b.length === 1 && (b[0] as number) < 0x80 ? 1 : headerSize(b.length) + b.length;
}

/** Writes a header (offset 0x80 for a string, 0xc0 for a list); returns the next position. */
export function writeHeader(out: Uint8Array, at: number, payload: number, offset: number): number {
  if (payload < 56) {
    out[at] = offset + payload;
    return at + 1;
  }
  const k = lengthOfLength(payload);
  out[at] = offset + 55 + k;
  for (let i = k, n = payload; i >= 1; i--, n = Math.floor(n / 256)) out[at + i] = n % 256;
  return at + 1 + k;
}

/** Writes the encoding of byte string `b`; returns the next position. */
export function writeString(out: Uint8Array, at: number, b: Uint8Array): number {
  if (b.length === 1 && (b[0] as number) < 0x80) {
    out[at] = b[0] as number;
    return at + 1;
  }
  at = writeHeader(out, at, b.length, 0x80);
  out.set(b, at);
  return at + b.length;
}

/** Where an encoding's bytes come from: its own array by default, or a Slab. */
export type Alloc = (size: number) => Uint8Array;

const own: Alloc = (size) => new Uint8Array(size);

/**
 * Bytes carved from 64 KiB arrays, for encodings that are hashed or copied into another and then
 * dropped (trie nodes on their way to keccak256). A Uint8Array of over 64 bytes gets a backing
 * store of its own, allocated, tracked and swept apart from the heap; a view into a slab does
 * not. A slab is never handed out twice, so views never overlap; one kept view keeps its whole
 * slab alive, so nothing long-lived may come from here.
 */
export class Slab {
  private buf = new Uint8Array(0);
  private at = 0;

  /** An allocator over this slab (sizes over 8 KiB get their own array). */
  readonly take: Alloc = (size) => {
    if (size > SLAB >> 3) return new Uint8Array(size);
    if (this.at + size > this.buf.length) {
      this.buf = new Uint8Array(SLAB);
      this.at = 0;
    }
    const out = this.buf.subarray(this.at, this.at + size);
    this.at += size;
    return out;
  };
}

const SLAB = 64 * 1024;

/** The encoding of byte string `b`. */
export function encodeString(b: Uint8Array, alloc: Alloc = own): Uint8Array {
  const out = alloc(stringSize(b));
  writeString(out, 0, b);
  return out;
}

/** A list of items given already encoded. */
export function encodeList(items: readonly Uint8Array[], alloc: Alloc = own): Uint8Array {
  let payload = 0;
  for (const it of items) payload += it.length;
  const out = alloc(headerSize(payload) + payload);
  let at = writeHeader(out, 0, payload, 0xc0);
  for (const it of items) {
    out.set(it, at);
    at += it.length;
  }
  return out;
}

/** A list of byte strings (encoded here). */
export function encodeStrings(items: readonly Uint8Array[], alloc: Alloc = own): Uint8Array {
  let payload = 0;
  for (const it of items) payload += stringSize(it);
  const out = alloc(headerSize(payload) + payload);
  let at = writeHeader(out, 0, payload, 0xc0);
  for (const it of items) at = writeString(out, at, it);
  return out;
}
