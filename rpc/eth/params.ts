// Parameter checks for eth_* methods: each failure is -32602 with what was wrong.
import { invalidParams } from './errors.ts';

const QUANTITY_RE = /^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/;
const DATA_RE = /^0x([0-9a-fA-F]{2})*$/;
const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;
const HASH_RE = /^0x[0-9a-fA-F]{64}$/;

export function quantity(v: unknown, what: string): bigint {
  if (typeof v !== 'string' || !QUANTITY_RE.test(v)) throw invalidParams(`invalid argument ${what}: hex number with leading zero digits or not hex: ${JSON.stringify(v)}`);
  return BigInt(v);
}

const notHex = (v: unknown, what: string) => invalidParams(`invalid argument ${what}: hex string expected, got ${JSON.stringify(v)}`);

export function data(v: unknown, what: string): string {
  if (typeof v !== 'string' || !DATA_RE.test(v)) throw notHex(v, what);
  return v.toLowerCase();
}

/**
 * `data` decoded to bytes of their own. Buffer's hex decoder stops at the first pair that is not
 * hex, so a decoding of full length has checked every digit (what DATA_RE checks, without a
 * regular expression over a transaction's whole text).
 */
export function dataBytes(v: unknown, what: string): Uint8Array {
  if (typeof v === 'string' && v.length % 2 === 0 && v.charCodeAt(0) === 48 && v.charCodeAt(1) === 120) {
    const decoded = Buffer.from(v.slice(2), 'hex');
    if (decoded.length * 2 === v.length - 2) return new Uint8Array(decoded);
  }
  throw notHex(v, what);
}

export function address(v: unknown, what: string): string {
  if (typeof v !== 'string' || !ADDRESS_RE.test(v)) throw invalidParams(`invalid argument ${what}: hex string of 20 bytes expected, got ${JSON.stringify(v)}`);
  return v.toLowerCase();
}

export function hash(v: unknown, what: string): string {
  if (typeof v !== 'string' || !HASH_RE.test(v)) throw invalidParams(`invalid argument ${what}: hex string of 32 bytes expected, got ${JSON.stringify(v)}`);
  return v.toLowerCase();
}

export function bool(v: unknown, what: string): boolean {
  if (typeof v !== 'boolean') throw invalidParams(`invalid argument ${what}: boolean expected`);
  return v;
}

/** A storage slot: any hex up to 32 bytes (geth accepts short keys and pads them). */
export function storageKey(v: unknown): bigint {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]{1,64}$/.test(v)) throw invalidParams(`invalid hex in storage key: ${JSON.stringify(v)}`);
  return BigInt(v);
}

export type BlockRef = { tag: 'latest' | 'earliest' | 'pending' } | { number: bigint } | { hash: string };

/** A block tag, number or EIP-1898 object; absent means latest. */
export function blockRef(v: unknown, what = 'block'): BlockRef {
  if (v === undefined || v === null) return { tag: 'latest' };
  if (typeof v === 'string') {
    if (v === 'latest' || v === 'safe' || v === 'finalized') return { tag: 'latest' };
    if (v === 'earliest' || v === 'pending') return { tag: v };
    // geth's BlockNumberOrHash: a 32-byte hex string names a block by hash.
    if (HASH_RE.test(v)) return { hash: v.toLowerCase() };
    return { number: quantity(v, what) };
  }
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (o.blockHash !== undefined) return { hash: hash(o.blockHash, `${what}.blockHash`) };
    if (o.blockNumber !== undefined) return blockRef(o.blockNumber, `${what}.blockNumber`);
  }
  throw invalidParams(`invalid argument ${what}: block number, tag or {blockHash} expected`);
}

export function arity(params: unknown[], min: number, max: number): void {
  if (params.length < min) throw invalidParams(`missing value for required argument ${params.length}`);
  if (params.length > max) throw invalidParams(`too many arguments, want at most ${max}`);
}
