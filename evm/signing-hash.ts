// The digest an EIP-2930 or EIP-1559 transaction's sender signed, read from the received bytes:
// type || RLP(the fields before yParity, r, s). The fields are a contiguous run of the encoding,
// so the digest is one keccak over a new list prefix and that run, without decoding and
// re-encoding each field as ethereumjs's getMessageToVerifySignature does. Held equal to it in
// test/evm/signing-hash.test.ts.
import { TransactionType, type TypedTransaction } from '@ethereumjs/tx';
import { keccak256 } from '../primitives/index.ts';

/** Where the payload of the item `payloadAt` last read starts (its end is the return value). */
let payloadStart = 0;

/** The end of the RLP item at `pos`; its payload starts at `payloadStart`. */
function payloadAt(bytes: Uint8Array, pos: number): number {
  const b = bytes[pos] as number;
  if (b < 0x80) { // a single byte
    payloadStart = pos;
    return pos + 1;
  }
  if (b <= 0xb7) { // short string
    payloadStart = pos + 1;
    return pos + 1 + b - 0x80;
  }
  if (b >= 0xc0 && b <= 0xf7) { // short list
    payloadStart = pos + 1;
    return pos + 1 + b - 0xc0;
  }
  const ll = b <= 0xbf ? b - 0xb7 : b - 0xf7; // long string or list: the length's own length
  let len = 0;
  for (let i = 1; i <= ll; i++) len = len * 256 + (bytes[pos + i] as number);
  payloadStart = pos + 1 + ll;
  return pos + 1 + ll + len;
}

/** Bytes of a list header for a payload of `length` bytes. */
function listHeaderSize(length: number): number {
  let k = 0;
  if (length >= 56) for (let n = length; n > 0; n = Math.floor(n / 256)) k++;
  return 1 + k;
}

/** What the signer pool recovers from: the digest, r || s (64 bytes) and the y parity. */
export interface SignatureParts {
  readonly digest: Uint8Array;
  readonly rs: Uint8Array;
  readonly recovery: number;
}

/**
 * The signing digest, r || s and y parity of `tx` decoded from `bytes` (ethereumjs accepts
 * canonical encodings only, so the fields are exactly its fields). For EIP-2930 and EIP-1559 all
 * three are read from the bytes (r and s are their last two items, canonical so at most 32 bytes);
 * legacy transactions go through ethereumjs and their bigints.
 */
export function signatureParts(tx: TypedTransaction, bytes: Uint8Array): SignatureParts {
  if (tx.type !== TransactionType.FeeMarketEIP1559 && tx.type !== TransactionType.AccessListEIP2930) {
    return { digest: tx.getMessageToVerifySignature(), rs: rsOf(tx.r, tx.s), recovery: legacyRecovery(tx.v as bigint) };
  }
  const end = payloadAt(bytes, 1);
  const start = payloadStart;
  // The last three fields are yParity, r and s: the signed fields end where yParity starts.
  let third = start;
  let second = start;
  let last = start;
  for (let pos = start; pos < end; pos = payloadAt(bytes, pos)) {
    third = second;
    second = last;
    last = pos;
  }
  const signedEnd = third;
  const payload = signedEnd - start;
  const head = listHeaderSize(payload);
  const message = new Uint8Array(1 + head + payload);
  message[0] = tx.type;
  if (head === 1) message[1] = 0xc0 + payload;
  else {
    message[1] = 0xf7 + head - 1;
    for (let i = head, n = payload; i >= 2; i--, n = Math.floor(n / 256)) message[i] = n % 256;
  }
  message.set(bytes.subarray(start, signedEnd), 1 + head);
  const rs = new Uint8Array(64);
  const r1 = payloadAt(bytes, second);
  const r0 = payloadStart;
  const s1 = payloadAt(bytes, last);
  const s0 = payloadStart;
  for (let i = r0; i < r1; i++) rs[32 - (r1 - r0) + (i - r0)] = bytes[i] as number;
  for (let i = s0; i < s1; i++) rs[64 - (s1 - s0) + (i - s0)] = bytes[i] as number;
  return { digest: keccak256(message), rs, recovery: Number(tx.v) };
}

function rsOf(r: bigint | undefined, s: bigint | undefined): Uint8Array {
  const word = (v: bigint | undefined) => (v ?? 0n).toString(16).padStart(64, '0');
  return new Uint8Array(Buffer.from(word(r) + word(s), 'hex'));
}

/** The y parity of a legacy v: 27/28, or 35 + 2 * chainId + parity (EIP-155). */
function legacyRecovery(v: bigint): number {
  if (v === 0n || v === 1n) return Number(v);
  if (v === 27n || v === 28n) return Number(v - 27n);
  return Number((v - 35n) % 2n);
}
