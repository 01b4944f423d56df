// EIP-712 hashing of the exchange's `Agent {string source, bytes32 connectionId}` message.
import { concatBytes, hexToBytes, utf8 } from './bytes.ts';
import { keccak256 } from './crypto.ts';

export interface Eip712Domain {
  name: string;
  version: string;
  chainId: number;
  verifyingContract: string;
}

const DOMAIN_TYPE = keccak256(
  utf8('EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)'),
);
/** Scratch preimages: AGENT_TYPE || source hash || connectionId, and 0x1901 || separator || struct hash. */
const STRUCT = new Uint8Array(96);
const FINAL = new Uint8Array(66);
FINAL[0] = 0x19;
FINAL[1] = 0x01;
const AGENT_TYPE = keccak256(utf8('Agent(string source,bytes32 connectionId)'));
STRUCT.set(AGENT_TYPE, 0);

function word(value: bigint): Uint8Array {
  return hexToBytes(`0x${value.toString(16).padStart(64, '0')}`);
}

export function domainSeparator(d: Eip712Domain): Uint8Array {
  return keccak256(
    concatBytes(
      DOMAIN_TYPE,
      keccak256(utf8(d.name)),
      keccak256(utf8(d.version)),
      word(BigInt(d.chainId)),
      word(BigInt(d.verifyingContract)),
    ),
  );
}

/** keccak256 of each `source` string seen (there are two: "a" and "b"). */
const sourceHashes = new Map<string, Uint8Array>();

/** Digest that eth_signTypedData_v4 signs for primary type Agent. */
export function agentDigest(separator: Uint8Array, source: string, connectionId: Uint8Array): Uint8Array {
  if (connectionId.length !== 32) throw new RangeError('connectionId must be 32 bytes');
  let sourceHash = sourceHashes.get(source);
  if (sourceHash === undefined) {
    sourceHash = keccak256(utf8(source));
    if (sourceHashes.size < 16) sourceHashes.set(source, sourceHash);
  }
  // Both preimages are built in per-thread scratch buffers (hashing is synchronous): no allocation.
  STRUCT.set(sourceHash, 32);
  STRUCT.set(connectionId, 64);
  FINAL.set(separator, 2);
  FINAL.set(keccak256(STRUCT), 34);
  return keccak256(FINAL);
}

/** A field of a flat EIP-712 struct (the atomic types user-signed actions use). */
export interface TypedField {
  readonly name: string;
  readonly type: 'string' | 'address' | 'bool' | 'uint64' | 'bytes32';
}

/** keccak256 of the struct's type string, e.g. `Name(string a,uint64 b)`. */
export function structTypeHash(primaryType: string, fields: readonly TypedField[]): Uint8Array {
  return keccak256(utf8(`${primaryType}(${fields.map((f) => `${f.type} ${f.name}`).join(',')})`));
}

/**
 * The digest eth_signTypedData_v4 signs for a flat struct of atomic fields; null when a value does
 * not fit its type (a non-string for `string`, a malformed address, an integer out of uint64).
 */
export function typedDataDigest(separator: Uint8Array, typeHash: Uint8Array, fields: readonly TypedField[], message: Record<string, unknown>): Uint8Array | null {
  const words: Uint8Array[] = [typeHash];
  for (const f of fields) {
    const v = message[f.name];
    switch (f.type) {
      case 'string':
        if (typeof v !== 'string') return null;
        words.push(keccak256(utf8(v)));
        break;
      case 'address':
        if (typeof v !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(v)) return null;
        words.push(word(BigInt(v)));
        break;
      case 'bool':
        if (typeof v !== 'boolean') return null;
        words.push(word(v ? 1n : 0n));
        break;
      case 'uint64': {
        const n = typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? BigInt(v) : typeof v === 'string' && /^[0-9]{1,20}$/.test(v) ? BigInt(v) : null;
        if (n === null || n >= 1n << 64n) return null;
        words.push(word(n));
        break;
      }
      case 'bytes32':
        if (typeof v !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(v)) return null;
        words.push(hexToBytes(v));
        break;
    }
  }
  return keccak256(concatBytes(new Uint8Array([0x19, 0x01]), separator, keccak256(concatBytes(...words))));
}
