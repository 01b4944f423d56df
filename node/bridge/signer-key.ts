// A validator's bridge signer: a secp256k1 key derived from its ed25519 validator key, so a home
// holds one secret. The bridge contracts know validators by this key's address; it also pays the
// gas of the withdrawals its node submits.
import { createPrivateKey } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, concatBytes, keccak256, publicKeyToAddress, utf8, type Address } from '../../primitives/index.ts';
import type { ValidatorKey } from '../../consensus/index.ts';

export interface BridgeSignerKey {
  /** 0x-prefixed 32-byte private key. */
  readonly privateKey: string;
  /** Lowercase address. */
  readonly address: Address;
}

const CURVE_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** keccak256("svc bridge signer" || ed25519 seed), rehashed in the (never seen) case it is not a valid scalar. */
export function bridgeSignerKey(key: ValidatorKey): BridgeSignerKey {
  const der = createPrivateKey(key.exportPem()).export({ format: 'der', type: 'pkcs8' });
  let secret = keccak256(concatBytes(utf8('svc bridge signer'), new Uint8Array(der.subarray(der.length - 32))));
  while (BigInt(bytesToHex(secret)) === 0n || BigInt(bytesToHex(secret)) >= CURVE_N) secret = keccak256(secret);
  return { privateKey: bytesToHex(secret), address: publicKeyToAddress(secp256k1.getPublicKey(secret, false)) };
}
