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
