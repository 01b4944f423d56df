// The digest an EIP-2930 or EIP-1559 transaction's sender signed, read from the received bytes:
// type || RLP(the fields before yParity, r, s). The fields are a contiguous run of the encoding,
// so the digest is one keccak over a new list prefix and that run, without decoding and
// re-encoding each field as ethereumjs's getMessageToVerifySignature does. Held equal to it in
// test/evm/signing-hash.test.ts.
import { TransactionType, type TypedTransaction } from '@ethereumjs/tx';
import { keccak256 } from '../primitives/index.ts';

/** [payload start, end] of the RLP item at `pos`. */
function item(bytes: Uint8Array, pos: number): [number, number] {
  const b = bytes[pos] as number;
  if (b < 0x80) return [pos, pos + 1]; // a single byte
  if (b <= 0xb7) return [pos + 1, pos + 1 + b - 0x80]; // short string
  if (b >= 0xc0 && b <= 0xf7) return [pos + 1, pos + 1 + b - 0xc0]; // short list
  const ll = b <= 0xbf ? b - 0xb7 : b - 0xf7; // long string or list: the length's own length
  let len = 0;
  for (let i = 1; i <= ll; i++) len = len * 256 + (bytes[pos + i] as number);
  return [pos + 1 + ll, pos + 1 + ll + len];
}

function prefix(length: number): Uint8Array {
  if (length < 56) return Uint8Array.of(0xc0 + length);
  const out: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) out.unshift(n % 256);
  return Uint8Array.of(0xf7 + out.length, ...out);
}

/** Fields after the signed ones: yParity, r, s. */
const SIGNATURE_FIELDS = 3;

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
  const [start, end] = item(bytes, 1);
  const starts: number[] = [];
  for (let pos = start; pos < end; pos = item(bytes, pos)[1]) starts.push(pos);
  // The signed fields end where yParity starts.
  const signedEnd = starts[starts.length - SIGNATURE_FIELDS] as number;
  const head = prefix(signedEnd - start);
  const message = new Uint8Array(1 + head.length + signedEnd - start);
  message[0] = tx.type;
  message.set(head, 1);
  message.set(bytes.subarray(start, signedEnd), 1 + head.length);
  const rs = new Uint8Array(64);
  const [r0, r1] = item(bytes, starts[starts.length - 2] as number);
  const [s0, s1] = item(bytes, starts[starts.length - 1] as number);
  rs.set(bytes.subarray(r0, r1), 32 - (r1 - r0));
  rs.set(bytes.subarray(s0, s1), 64 - (s1 - s0));
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
