// A stored EVM block as bytes: RLP([version, block RLP, hash, senders, receipts, released, clock]).
// Written once a block (thousands of transactions in a busy one) and read for RPC answers. Its
// earlier form, JSON text with the block's RLP and every quantity in hex, was about 7% of the
// event loop's time under EVM transfers: the block's RLP printed to hex, the JSON written (V8
// builds a large result as a rope), flattened and copied twice more on its way into LevelDB.
// Values written in that form (they start with `{`) still read.
//
//   senders   one byte string, 20 bytes a transaction
//   receipt   [status, cumulativeGasUsed, gasUsed, effectiveGasPrice, logs, logsBloom, contractAddress]
//             (integers minimal big-endian; logsBloom and contractAddress empty when absent)
//   log       [address, [topic...], data]
//   released  one byte (0 or 1) a release; empty when the block made none
//   clock     [] for none, else [offset, next?] as decimal text
import { RLP } from '@ethereumjs/rlp';
import { headerSize, stringSize, writeHeader, writeString } from './rlp-write.ts';
import { bytesToHex, hexToBytes } from '../primitives/index.ts';
import type { StoredEvmBlock, StoredReceipt } from './store.ts';

const VERSION = 1;
const JSON_OPEN = 0x7b; // '{': the first byte of a value written as JSON

/** Bytes of the minimal big-endian form of `v` (0 for zero). */
function uintLength(v: bigint): number {
  if (v <= 0xffffffffffffn) {
    let n = Number(v);
    let k = 0;
    for (; n > 0; n = Math.floor(n / 256)) k++;
    return k;
  }
  return (v.toString(16).length + 1) >> 1;
}

/** Bytes of the RLP of integer `v` (at most 32 bytes, so its header is one byte). */
function intSize(v: bigint): number {
  return v < 0x80n ? 1 : 1 + uintLength(v);
}

function writeInt(out: Uint8Array, at: number, v: bigint): number {
  if (v === 0n) {
    out[at] = 0x80;
    return at + 1;
  }
  if (v < 0x80n) {
    out[at] = Number(v);
    return at + 1;
  }
  const len = uintLength(v);
  out[at] = 0x80 + len;
  if (v <= 0xffffffffffffn) {
    for (let i = len, n = Number(v); i >= 1; i--, n = Math.floor(n / 256)) out[at + i] = n % 256;
  } else {
    for (let i = len, n = v; i >= 1; i--, n >>= 8n) out[at + i] = Number(n & 0xffn);
  }
  return at + 1 + len;
}

const text = (s: string): Uint8Array => Buffer.from(s, 'latin1');
const EMPTY = new Uint8Array(0);
const NO_LOGS = Uint8Array.of(0xc0);
/** A plain Uint8Array over the same bytes (decoders and Buffer hand back Buffers). */
const plain = (b: Uint8Array): Uint8Array => new Uint8Array(b.buffer, b.byteOffset, b.length);

/** The parts of a receipt that need converting before they are written (logs, bloom, creator). */
interface ReceiptParts {
  /** The logs' list, encoded (logs are few: only calls that emit them have any). */
  readonly logs: Uint8Array;
  readonly bloom: Uint8Array;
  readonly contract: Uint8Array;
  readonly payload: number;
}

function receiptParts(r: StoredReceipt): ReceiptParts {
  const logs = r.logs.length === 0 ? NO_LOGS : RLP.encode(r.logs.map((l) => [hexToBytes(l.address), l.topics.map(hexToBytes), hexToBytes(l.data)]));
  const bloom = r.logsBloom === undefined ? EMPTY : hexToBytes(r.logsBloom);
  const contract = r.contractAddress === null ? EMPTY : hexToBytes(r.contractAddress);
  const payload = 1 + intSize(r.cumulativeGasUsed) + intSize(r.gasUsed) + intSize(r.effectiveGasPrice) + logs.length + stringSize(bloom) + stringSize(contract);
  return { logs, bloom, contract, payload };
}

/** The bytes a block is stored as. */
export function encodeStoredBlock(b: StoredEvmBlock): Uint8Array {
  const hash = hexToBytes(b.hash);
  const sendersLength = b.senders.length * 20;
  const parts = b.receipts.map(receiptParts);
  let receiptsPayload = 0;
  for (const p of parts) receiptsPayload += headerSize(p.payload) + p.payload;
  const released = b.released === undefined ? EMPTY : Uint8Array.from(b.released, (x) => (x ? 1 : 0));
  const clock = b.clock === undefined ? [] : [text(b.clock.offset), ...(b.clock.next === undefined ? [] : [text(b.clock.next)])];
  const clockEncoded = RLP.encode(clock);
  const payload = 1 + stringSize(b.rlp) + stringSize(hash) + headerSize(sendersLength) + sendersLength
    + headerSize(receiptsPayload) + receiptsPayload + stringSize(released) + clockEncoded.length;
  const out = new Uint8Array(headerSize(payload) + payload);
  const view = Buffer.from(out.buffer, out.byteOffset, out.length);
  let at = writeHeader(out, 0, payload, 0xc0);
  out[at++] = VERSION;
  at = writeString(out, at, b.rlp);
  at = writeString(out, at, hash);
  at = writeHeader(out, at, sendersLength, 0x80);
  for (const s of b.senders) {
    if (s.length !== 42 || view.write(s.slice(2), at, 20, 'hex') !== 20) throw new Error(`invariant: sender ${s} is not an address`);
    at += 20;
  }
  at = writeHeader(out, at, receiptsPayload, 0xc0);
  b.receipts.forEach((r, i) => {
    const p = parts[i] as ReceiptParts;
    at = writeHeader(out, at, p.payload, 0xc0);
    out[at++] = r.status === 1 ? 1 : 0x80;
    at = writeInt(out, at, r.cumulativeGasUsed);
    at = writeInt(out, at, r.gasUsed);
    at = writeInt(out, at, r.effectiveGasPrice);
    out.set(p.logs, at);
    at += p.logs.length;
    at = writeString(out, at, p.bloom);
    at = writeString(out, at, p.contract);
  });
  at = writeString(out, at, released);
  out.set(clockEncoded, at);
  at += clockEncoded.length;
  if (at !== out.length) throw new Error(`invariant: stored block encoded to ${at} of ${out.length} bytes`);
  return out;
}

type Decoded = Uint8Array | Decoded[];

const intOf = (b: Uint8Array): bigint => (b.length === 0 ? 0n : BigInt(bytesToHex(b)));
const bytesItem = (d: Decoded | undefined): Uint8Array => {
  if (!(d instanceof Uint8Array)) throw new Error('stored EVM block: a list where bytes belong');
  return d;
};
const listItem = (d: Decoded | undefined): Decoded[] => {
  if (!Array.isArray(d)) throw new Error('stored EVM block: bytes where a list belongs');
  return d;
};

function receiptOf(d: Decoded): StoredReceipt {
  const [status, cumulative, gasUsed, price, logs, bloom, contract] = listItem(d);
  const logsBloom = bytesItem(bloom);
  const creator = bytesItem(contract);
  return {
    status: bytesItem(status).length === 0 ? 0 : 1,
    cumulativeGasUsed: intOf(bytesItem(cumulative)),
    gasUsed: intOf(bytesItem(gasUsed)),
    effectiveGasPrice: intOf(bytesItem(price)),
    logs: listItem(logs).map((l) => {
      const [address, topics, data] = listItem(l);
      return { address: bytesToHex(bytesItem(address)), topics: listItem(topics).map((t) => bytesToHex(bytesItem(t))), data: bytesToHex(bytesItem(data)) };
    }),
    ...(logsBloom.length === 0 ? {} : { logsBloom: bytesToHex(logsBloom) }),
    contractAddress: creator.length === 0 ? null : bytesToHex(creator),
  };
}

/** A receipt as the JSON form stored it (quantities in hex). */
interface JsonReceipt extends Omit<StoredReceipt, 'cumulativeGasUsed' | 'gasUsed' | 'effectiveGasPrice'> {
  readonly cumulativeGasUsed: string;
  readonly gasUsed: string;
  readonly effectiveGasPrice: string;
}

function fromJson(j: Omit<StoredEvmBlock, 'rlp' | 'receipts'> & { rlp: string; receipts: JsonReceipt[] }): StoredEvmBlock {
  return {
    ...j,
    rlp: hexToBytes(j.rlp),
    receipts: j.receipts.map((r) => ({ ...r, cumulativeGasUsed: BigInt(r.cumulativeGasUsed), gasUsed: BigInt(r.gasUsed), effectiveGasPrice: BigInt(r.effectiveGasPrice) })),
  };
}

/** A block from the bytes it is stored as (either form). */
export function decodeStoredBlock(v: Uint8Array): StoredEvmBlock {
  if (v[0] === JSON_OPEN) return fromJson(JSON.parse(Buffer.from(v.buffer, v.byteOffset, v.length).toString('utf8')));
  const [version, rlp, hash, senders, receipts, released, clock] = listItem(RLP.decode(v) as Decoded);
  const ver = bytesItem(version);
  if (ver.length !== 1 || ver[0] !== VERSION) throw new Error(`stored EVM block: unknown version ${bytesToHex(ver)}`);
  const sendersBytes = bytesItem(senders);
  const sendersOut: string[] = [];
  for (let i = 0; i < sendersBytes.length; i += 20) sendersOut.push(bytesToHex(sendersBytes.subarray(i, i + 20)));
  const releasedBytes = bytesItem(released);
  const clockItems = listItem(clock).map((x) => Buffer.from(bytesItem(x)).toString('latin1'));
  return {
    rlp: plain(bytesItem(rlp)),
    hash: bytesToHex(bytesItem(hash)),
    senders: sendersOut,
    receipts: listItem(receipts).map(receiptOf),
    ...(releasedBytes.length === 0 ? {} : { released: Array.from(releasedBytes, (x) => x === 1) }),
    ...(clockItems.length === 0 ? {} : { clock: { offset: clockItems[0] as string, ...(clockItems[1] === undefined ? {} : { next: clockItems[1] }) } }),
  };
}
