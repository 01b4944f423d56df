// Transactions decoded from their bytes into ethereumjs objects without ethereumjs's RLP decoder,
// which copies every list and string it reads (the payload of a transaction several times over).
// This reader takes canonical RLP only and yields views into the bytes; on anything else it
// returns null and ethereumjs decodes (and words the error), so what is accepted, and the object
// built from it, is what createTxFromRLP gives. Held equal to it in test/evm/tx-decode.test.ts.
// A signed EIP-1559 transfer or call with no access list (what wallets send) is assembled without
// ethereumjs's constructor, which validates through generic helpers at about ten microseconds and
// several kilobytes of garbage a transaction; only values that constructor accepts silently take
// this path, anything it would check further goes through it.
import type { Common } from '@ethereumjs/common';
import {
  FeeMarket1559Tx, TransactionType, paramsTx, create1559FeeMarketTxFromBytesArray, createAccessList2930TxFromBytesArray, createLegacyTxFromBytesArray, createTxFromRLP,
  type TypedTransaction,
} from '@ethereumjs/tx';
import { Address, MAX_INTEGER, SECP256K1_ORDER_DIV_2 } from '@ethereumjs/util';

type Item = Uint8Array | Item[];

/** A big-endian length of `n` bytes at `pos` (no leading zero), or -1. */
function readLength(b: Uint8Array, pos: number, n: number): number {
  if (b[pos] === 0) return -1;
  let len = 0;
  for (let i = 0; i < n; i++) len = len * 256 + (b[pos + i] as number);
  return len;
}

/** Where the item `item` last read ends (its result's second half, kept apart to allocate no pair). */
let itemEnd = 0;

/** The item at `pos` (within `end`), its end in `itemEnd`, or null when not canonical RLP. */
function item(b: Uint8Array, pos: number, end: number): Item | null {
  if (pos >= end) return null;
  const f = b[pos] as number;
  if (f < 0x80) {
    itemEnd = pos + 1;
    return b.subarray(pos, pos + 1);
  }
  if (f <= 0xb7) {
    const len = f - 0x80;
    const next = pos + 1 + len;
    // A single byte under 0x80 is its own encoding, never prefixed.
    if (next > end || (len === 1 && (b[pos + 1] as number) < 0x80)) return null;
    itemEnd = next;
    return b.subarray(pos + 1, next);
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
  if (!isList) {
    itemEnd = next;
    return b.subarray(start, next);
  }
  const items: Item[] = [];
  for (let at = start; at < next;) {
    const got = item(b, at, next);
    if (got === null) return null;
    items.push(got);
    at = itemEnd;
  }
  itemEnd = next;
  return items;
}

/** The list filling `b` from `from` to its end, or null. */
function wholeList(b: Uint8Array, from: number): Item[] | null {
  const got = item(b, from, b.length);
  if (got === null || itemEnd !== b.length || !Array.isArray(got)) return null;
  return got;
}

/** Big-endian unsigned integer; the caller has bounded the length. */
function toBig(b: Uint8Array): bigint {
  if (b.length === 0) return 0n;
  if (b.length <= 6) {
    let n = 0;
    for (let i = 0; i < b.length; i++) n = n * 256 + (b[i] as number);
    return BigInt(n);
  }
  return BigInt(`0x${Buffer.from(b.buffer, b.byteOffset, b.length).toString('hex')}`);
}

/** A canonical integer field: at most `max` bytes, no leading zero. */
const intField = (b: Item | undefined, max: number): b is Uint8Array => b instanceof Uint8Array && b.length <= max && (b.length === 0 || b[0] !== 0);

/**
 * What FeeMarket1559Tx's constructor derives from a Common, once per Common: its copy with the
 * transaction parameters merged in, whether EIP-1559 is active, and the EIP-7825 gas limit cap
 * (none under EIP-8037). The constructor gives each transaction a copy of its own; these share
 * the one copy, which nothing changes: the only writer of a transaction's Common is runTx, when
 * the block's hardfork differs from the transaction's, and a chain here has one hardfork
 * (evm/common.ts). A copy each would be an object and an event emitter per transaction in
 * flight, outliving young collections.
 */
interface Prepared { readonly common: Common; readonly eip1559: boolean; readonly gasCap: bigint; readonly opts: { readonly common: Common } }
const preparedByCommon = new WeakMap<Common, Prepared>();
function prepared(common: Common): Prepared {
  let p = preparedByCommon.get(common);
  if (p === undefined) {
    const copy = common.copy();
    copy.updateParams(paramsTx);
    const gasCap = copy.isActivatedEIP(7825) && !copy.isActivatedEIP(8037) ? BigInt(copy.param('maxTransactionGasLimit')) : MAX_INTEGER;
    p = { common: copy, eip1559: copy.isActivatedEIP(1559), gasCap, opts: { common } };
    preparedByCommon.set(common, p);
  }
  return p;
}

/**
 * A signed EIP-1559 transaction with an empty access list and a recipient, as FeeMarket1559Tx's
 * constructor builds it (the same own properties in the same order, frozen), or null when any
 * value is one that constructor would check further or refuse: then it decides.
 */
/** What the constructor sets per transaction and nothing changes afterwards, shared. */
const CAPABILITIES_1559: readonly number[] = Object.freeze([1559, 2718, 2930]);
const NO_DATA = new Uint8Array(0);

function fast1559(values: Item[], common: Common): TypedTransaction | null {
  if (values.length !== 12) return null;
  const [chainId, nonce, tip, maxFee, gasLimit, to, value, data, accessList, v, r, s] = values;
  if (!(chainId instanceof Uint8Array) || !intField(nonce, 7) || !intField(tip, 32) || !intField(maxFee, 32) || !intField(gasLimit, 8) || !intField(value, 32)) return null;
  if (!(to instanceof Uint8Array) || to.length !== 20 || !(data instanceof Uint8Array) || !Array.isArray(accessList) || accessList.length !== 0) return null;
  if (!intField(v, 1) || (v.length === 1 && v[0] !== 1) || !intField(r, 32) || r.length === 0 || !intField(s, 32) || s.length === 0) return null;
  const p = prepared(common);
  if (!p.eip1559 || chainId.length > 32 || toBig(chainId) !== common.chainId()) return null;
  const gas = toBig(gasLimit);
  const feeCap = toBig(maxFee);
  const tipCap = toBig(tip);
  const sBig = toBig(s);
  if (gas > p.gasCap || gas * feeCap > MAX_INTEGER || feeCap < tipCap || sBig > SECP256K1_ORDER_DIV_2) return null;
  // Own properties in the order the constructor first assigns them (with their final values).
  const tx = Object.create(FeeMarket1559Tx.prototype) as Record<string, unknown>;
  tx.type = TransactionType.FeeMarketEIP1559;
  tx.cache = {};
  tx.activeCapabilities = CAPABILITIES_1559;
  tx.common = p.common;
  tx.txOptions = p.opts;
  // Own copies of the fields, as the constructor's toBytes makes (the decoded items are views);
  // no data (a transfer) is one shared empty array, not an array per transaction in flight.
  tx.to = new Address(to.slice());
  tx.nonce = toBig(nonce);
  tx.gasLimit = gas;
  tx.value = toBig(value);
  tx.data = data.length === 0 ? NO_DATA : data.slice();
  tx.v = v.length === 0 ? 0n : 1n;
  tx.r = toBig(r);
  tx.s = sBig;
  tx.chainId = common.chainId();
  tx.accessList = accessList;
  tx.maxFeePerGas = feeCap;
  tx.maxPriorityFeePerGas = tipCap;
  return Object.freeze(tx) as unknown as TypedTransaction;
}

export function decodeTransaction(raw: Uint8Array, common: Common): TypedTransaction {
  // The fields are views into the bytes: a plain Uint8Array of their own (not a Buffer's pool slab).
  const bytes = raw.constructor === Uint8Array && raw.byteLength === raw.buffer.byteLength ? raw : new Uint8Array(raw);
  const type = bytes[0] as number;
  const opts = { common };
  if (type === TransactionType.FeeMarketEIP1559 || type === TransactionType.AccessListEIP2930) {
    const values = wholeList(bytes, 1);
    if (values !== null) {
      if (type === TransactionType.FeeMarketEIP1559) return fast1559(values, common) ?? create1559FeeMarketTxFromBytesArray(values as never, opts);
      return createAccessList2930TxFromBytesArray(values as never, opts);
    }
  } else if (type >= 0xc0) {
    const values = wholeList(bytes, 0);
    if (values !== null) return createLegacyTxFromBytesArray(values as never, opts);
  }
  return createTxFromRLP(bytes, opts);
}
