// Transactions decoded from their bytes into ethereumjs objects without ethereumjs's RLP decoder,
// which copies every list and string it reads (the payload of a transaction several times over).
// This reader takes canonical RLP only and yields views into the bytes; on anything else it
// returns null and ethereumjs decodes (and words the error), so what is accepted, and the object
// built from it, is what createTxFromRLP gives. Held equal to it in test/evm/tx-decode.test.ts.
import type { Common } from '@ethereumjs/common';
import {
  TransactionType, create1559FeeMarketTxFromBytesArray, createAccessList2930TxFromBytesArray, createLegacyTxFromBytesArray, createTxFromRLP,
  type TypedTransaction,
} from '@ethereumjs/tx';

type Item = Uint8Array | Item[];

/** A big-endian length of `n` bytes at `pos` (no leading zero), or -1. */
function readLength(b: Uint8Array, pos: number, n: number): number {
  if (b[pos] === 0) return -1;
  let len = 0;
  for (let i = 0; i < n; i++) len = len * 256 + (b[pos + i] as number);
  return len;
}

/** The item at `pos` (within `end`) and where the next starts, or null when not canonical RLP. */
function item(b: Uint8Array, pos: number, end: number): [Item, number] | null {
  if (pos >= end) return null;
  const f = b[pos] as number;
  if (f < 0x80) return [b.subarray(pos, pos + 1), pos + 1];
  if (f <= 0xb7) {
    const len = f - 0x80;
    const next = pos + 1 + len;
    // A single byte under 0x80 is its own encoding, never prefixed.
    if (next > end || (len === 1 && (b[pos + 1] as number) < 0x80)) return null;
    return [b.subarray(pos + 1, next), next];
  }
  const isList = f >= 0xc0;
  let start: number;
  let len: number;
  if (f <= 0xbf || (isList && f > 0xf7)) {
    const n = isList ? f - 0xf7 : f - 0xb7;
    if (pos + 1 + n > end) return null;
    len = readLength(b, pos + 1, n);
    // The long form only for payloads of 56 bytes or more.
    if (len < 56) return null;
    start = pos + 1 + n;
  } else {
    len = f - 0xc0;
    start = pos + 1;
  }
  const next = start + len;
  if (next > end) return null;
  if (!isList) return [b.subarray(start, next), next];
  const items: Item[] = [];
  for (let at = start; at < next;) {
    const got = item(b, at, next);
    if (got === null) return null;
    items.push(got[0]);
    at = got[1];
  }
  return [items, next];
}

/** The list filling `b` from `from` to its end, or null. */
function wholeList(b: Uint8Array, from: number): Uint8Array[] | null {
  const got = item(b, from, b.length);
  if (got === null || got[1] !== b.length || !Array.isArray(got[0])) return null;
  return got[0] as Uint8Array[];
}

export function decodeTransaction(raw: Uint8Array, common: Common): TypedTransaction {
  // The fields are views into the bytes: a plain Uint8Array of their own (not a Buffer's pool slab).
  const bytes = raw.constructor === Uint8Array && raw.byteLength === raw.buffer.byteLength ? raw : new Uint8Array(raw);
  const type = bytes[0] as number;
  const opts = { common };
  if (type === TransactionType.FeeMarketEIP1559 || type === TransactionType.AccessListEIP2930) {
    const values = wholeList(bytes, 1);
    if (values !== null) {
      return type === TransactionType.FeeMarketEIP1559 ? create1559FeeMarketTxFromBytesArray(values as never, opts) : createAccessList2930TxFromBytesArray(values as never, opts);
    }
  } else if (type >= 0xc0) {
    const values = wholeList(bytes, 0);
    if (values !== null) return createLegacyTxFromBytesArray(values as never, opts);
  }
  return createTxFromRLP(bytes, opts);
}
