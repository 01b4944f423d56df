// Hashing and secp256k1 signer recovery. @noble/* is the reference implementation; recovery uses
// the native libsecp256k1 of the `secp256k1` package when it loads (about 20x faster), with
// tests holding the two equal.
import { createRequire } from 'node:module';
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

interface NativeSecp256k1 {
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed: boolean): Uint8Array;
}

function loadNative(): NativeSecp256k1 | null {
  if (process.env.SVC_PURE_JS_CRYPTO === '1') return null;
  try {
    return createRequire(import.meta.url)('secp256k1/bindings.js') as NativeSecp256k1;
  } catch {
    return null; // no prebuilt binary for this platform: the pure JS path serves
  }
}

const native = loadNative();

/** Whether recovery runs on the native libsecp256k1. */
export const nativeSecp256k1 = native !== null;

/** The checks both implementations share: canonical (low-s) and in range. */
function wellFormed(sig: RecoverableSignature): boolean {
  const { r, s, recovery } = sig;
  return r > 0n && r < CURVE_N && s > 0n && s <= HALF_N && (recovery === 0 || recovery === 1);
}

function word(v: bigint): string {
  return v.toString(16).padStart(64, '0');
}

/** Pure JS recovery (the reference). */
export function recoverAddressNoble(digest: Uint8Array, sig: RecoverableSignature): Address | null {
  if (!wellFormed(sig)) return null;
  try {
    const point = new secp256k1.Signature(sig.r, sig.s, sig.recovery).recoverPublicKey(digest);
    return publicKeyToAddress(point.toBytes(false));
  } catch {
    return null;
  }
}

/** Native recovery; null also when the native module is not available. */
export function recoverAddressNative(digest: Uint8Array, sig: RecoverableSignature): Address | null {
  if (native === null || !wellFormed(sig)) return null;
  try {
    const rs = Buffer.from(word(sig.r) + word(sig.s), 'hex');
    return publicKeyToAddress(native.ecdsaRecover(rs, sig.recovery, digest, false));
  } catch {
    return null;
  }
}

/**
 * Recovers the signing address of a 32-byte digest, or null when the signature is not a valid,
 * canonical (low-s) secp256k1 signature for any key.
 */
export function recoverAddress(digest: Uint8Array, sig: RecoverableSignature): Address | null {
  return native === null ? recoverAddressNoble(digest, sig) : recoverAddressNative(digest, sig);
}

/**
 * The uncompressed public key (65 bytes, 0x04-prefixed) that signed a 32-byte digest, natively
 * when the native module loads; null for a signature no key made. Unlike `recoverAddress` it
 * accepts a high s, which pre-Homestead Ethereum transactions may carry (callers check their own
 * rules).
 */
export function recoverPublicKey(digest: Uint8Array, sig: RecoverableSignature): Uint8Array | null {
  const { r, s, recovery } = sig;
  if (!(r > 0n && r < CURVE_N && s > 0n && s < CURVE_N && (recovery === 0 || recovery === 1))) return null;
  try {
    if (native !== null) return native.ecdsaRecover(Buffer.from(word(r) + word(s), 'hex'), recovery, digest, false);
    return new secp256k1.Signature(r, s, recovery).recoverPublicKey(digest).toBytes(false);
  } catch {
    return null;
  }
}

/** Address of an uncompressed (65-byte, 0x04-prefixed) public key. */
export function publicKeyToAddress(uncompressed: Uint8Array): Address {
  return bytesToHex(keccak256(uncompressed.subarray(1)).subarray(12));
}
