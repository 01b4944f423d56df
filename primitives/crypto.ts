// Hashing and secp256k1 signer recovery (reference implementation: @noble/*).
import { keccak_256 } from '@noble/hashes/sha3.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, type Address } from './bytes.ts';

export function keccak256(data: Uint8Array): Uint8Array {
  return keccak_256(data);
}

const CURVE_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const HALF_N = CURVE_N >> 1n;

export interface RecoverableSignature {
  r: bigint;
  s: bigint;
  /** 0 or 1. */
  recovery: number;
}

/**
 * Recovers the signing address of a 32-byte digest, or null when the signature is not a valid,
 * canonical (low-s) secp256k1 signature for any key.
 */
export function recoverAddress(digest: Uint8Array, sig: RecoverableSignature): Address | null {
  const { r, s, recovery } = sig;
  if (r <= 0n || r >= CURVE_N || s <= 0n || s > HALF_N) return null;
  if (recovery !== 0 && recovery !== 1) return null;
  try {
    const point = new secp256k1.Signature(r, s, recovery).recoverPublicKey(digest);
    return publicKeyToAddress(point.toBytes(false));
  } catch {
    return null;
  }
}

/** Address of an uncompressed (65-byte, 0x04-prefixed) public key. */
export function publicKeyToAddress(uncompressed: Uint8Array): Address {
  return bytesToHex(keccak256(uncompressed.subarray(1)).subarray(12));
}
