// Byte and hex helpers. Hex output is lowercase and 0x-prefixed.

const HEX_RE = /^0x[0-9a-fA-F]*$/;
const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;

export function isHex(text: unknown, bytes?: number): text is string {
  if (typeof text !== 'string' || !HEX_RE.test(text) || text.length % 2 !== 0) return false;
  return bytes === undefined || text.length === 2 + bytes * 2;
}

export function hexToBytes(text: string): Uint8Array {
  if (!HEX_RE.test(text) || text.length % 2 !== 0) throw new TypeError(`not a hex string: ${text.slice(0, 20)}`);
  return copyOf(Buffer.from(text.slice(2), 'hex'));
}

/** A plain Uint8Array with its own buffer (a Buffer may be a view into a shared pool slab). */
function copyOf(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length);
  out.set(bytes);
  return out;
}

/** Two hex digits a byte, as one 16-bit unit in the machine's byte order (first digit first in memory). */
const HEX_PAIRS = (() => {
  const digits = Buffer.from('0123456789abcdef', 'latin1');
  const littleEndian = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;
  return Uint16Array.from({ length: 256 }, (_, i) => {
    const hi = digits[i >> 4] as number;
    const lo = digits[i & 15] as number;
    return littleEndian ? hi | (lo << 8) : (hi << 8) | lo;
  });
})();
const SHORT_HEX = 64;
/** `0x` and room for the digits of SHORT_HEX bytes, written by the short path of bytesToHex. */
const hexScratch = Buffer.alloc(2 + 2 * SHORT_HEX);
hexScratch.write('0x', 'latin1');
const hexScratchPairs = new Uint16Array(hexScratch.buffer, hexScratch.byteOffset, hexScratch.length >> 1);

export function bytesToHex(bytes: Uint8Array): string {
  const n = bytes.length;
  if (n <= SHORT_HEX) {
    // One flat string: `0x${hex}` is a rope of two (three objects, flattened again when it is
    // hashed as a map key), and hashes and addresses are mostly map keys.
    for (let i = 0; i < n; i++) hexScratchPairs[1 + i] = HEX_PAIRS[bytes[i] as number] as number;
    return hexScratch.toString('latin1', 0, 2 + 2 * n);
  }
  return `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`;
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const p of parts) length += p.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const encoder = new TextEncoder();

/** UTF-8 text of the bytes, read in place (Buffer.from(bytes) would copy them first). */
export function utf8Text(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** 20-byte address, 0x-prefixed, lowercase. */
export type Address = string;

export function isAddress(text: unknown): text is string {
  return typeof text === 'string' && ADDRESS_RE.test(text);
}

/** Lowercases a valid address; null when malformed. Checksum casing is not enforced. */
export function normalizeAddress(text: unknown): Address | null {
  return isAddress(text) ? text.toLowerCase() : null;
}

export function uint64BE(value: number | bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt(value));
  return out;
}
