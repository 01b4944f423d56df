// Hashing and secp256k1 signer recovery. @noble/* is the reference implementation; the hot
// paths use faster code where it loads: libsecp256k1 of the `secp256k1` package (about 20x
// faster) and this project's WebAssembly Keccak (keccak-wasm.ts: 0.7 to 1.2 µs for 32 to 200
// bytes, against 1.1 to 1.6 µs for hash-wasm's, 2.6 to 3.9 µs for the N-API sponge of `keccak`,
// whose per-call crossings cost more than the hash, and 8 to 21 µs for noble), with tests holding
// each equal to the reference.
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, type Address } from './bytes.ts';
import { count } from './stage-meter.ts';
import { KeccakSponge } from './keccak-wasm.ts';

const require = createRequire(import.meta.url);
const pureJs = process.env.SVC_PURE_JS_CRYPTO === '1';

/** The N-API sponge of the `keccak` package, used directly: its stream wrapper costs more than the hash. */
interface NativeKeccakState {
  initialize(rate: number, capacity: number): void;
  absorb(data: Uint8Array): void;
  absorbLastFewBits(bits: number): void;
  squeeze(length: number): Uint8Array;
}

function loadNativeKeccak(): NativeKeccakState | null {
  if (pureJs) return null;
  try {
    const load = require('node-gyp-build') as (dir: string) => { KeccakState?: new () => NativeKeccakState } | (new () => NativeKeccakState);
    const addon = load(dirname(require.resolve('keccak/package.json')));
    const State = typeof addon === 'function' ? addon : addon.KeccakState;
    if (State === undefined) return null;
    const state = new State();
    // Known answer: keccak256("") must hold before the native sponge is trusted.
    state.initialize(1088, 512);
    state.absorbLastFewBits(0x01);
    const empty = bytesToHex(state.squeeze(32));
    return empty === '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470' ? state : null;
  } catch {
    return null; // no prebuilt binary for this platform: the pure JS path serves
  }
}

function loadWasmKeccak(): KeccakSponge | null {
  if (pureJs) return null;
  try {
    const h = new KeccakSponge();
    h.init();
    h.update(new Uint8Array(0));
    // Known answer: keccak256("") must hold before the WebAssembly sponge is trusted.
    return bytesToHex(h.digest()) === '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470' ? h : null;
  } catch {
    return null; // no WebAssembly: the native sponge or the reference serves
  }
}

/** The WebAssembly sponge (keccak-wasm.ts), compiled as this module loads. */
const wasmKeccak: KeccakSponge | null = loadWasmKeccak();
/** A second sponge for `keccak256Stream`, so a stream never shares state with `keccak256`. */
const wasmStream: KeccakSponge | null = wasmKeccak === null ? null : loadWasmKeccak();
/** The N-API sponge, when WebAssembly does not run. */
const nativeKeccak: NativeKeccakState | null = wasmKeccak === null ? loadNativeKeccak() : null;

/** Whether keccak256 runs on compiled code (WebAssembly, else the native sponge) rather than pure JS. */
export function nativeKeccak256(): boolean {
  return wasmKeccak !== null || nativeKeccak !== null;
}

/** Pure JS keccak256 (the reference). */
export function keccak256Noble(data: Uint8Array): Uint8Array {
  return keccak_256(data);
}

export function keccak256(data: Uint8Array): Uint8Array {
  if (wasmKeccak !== null) {
    // One hasher per thread, reset per call: JS is single-threaded, so calls never interleave.
    return wasmKeccak.init().update(data).digest();
  }
  if (nativeKeccak === null) return keccak_256(data);
  // One sponge per thread, reset per call: JS is single-threaded, so calls never interleave.
  nativeKeccak.initialize(1088, 512);
  nativeKeccak.absorb(data);
  nativeKeccak.absorbLastFewBits(0x01);
  return new Uint8Array(nativeKeccak.squeeze(32));
}

/** keccak256 of the concatenation of `parts`, without building it. */
export function keccak256Parts(parts: readonly Uint8Array[]): Uint8Array {
  if (wasmKeccak === null) return keccak256(Buffer.concat(parts));
  wasmKeccak.init();
  for (const p of parts) wasmKeccak.update(p);
  return wasmKeccak.digest();
}

export interface KeccakStream {
  /** Absorbs bytes (not retained: the caller may reuse them once this returns), or a string as UTF-8. */
  update(data: Uint8Array | string): void;
  digest(): Uint8Array;
}

/**
 * keccak256 of data given in pieces (their concatenation's hash). One stream at a time per
 * thread: each call starts a new one and the previous must be finished.
 */
export function keccak256Stream(): KeccakStream {
  const h = wasmStream;
  if (h !== null) {
    h.init();
    return { update: (data) => void h.update(typeof data === 'string' ? textEncoder.encode(data) : data), digest: () => h.digest() };
  }
  const parts: Uint8Array[] = [];
  return {
    // Copied: a caller may reuse its buffer once update returns (canonicalBytesTo does).
    update: (data) => void parts.push(typeof data === 'string' ? textEncoder.encode(data) : data.slice()),
    digest: () => keccak256(Buffer.concat(parts)),
  };
}

const textEncoder = new TextEncoder();

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
  ecdsaSign(msg32: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number };
}

function loadNative(): NativeSecp256k1 | null {
  if (pureJs) return null;
  try {
    return require('secp256k1/bindings.js') as NativeSecp256k1;
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
  count('signer recoveries'); // this thread's; the bounds of what one action costs are tested by it
  return native === null ? recoverAddressNoble(digest, sig) : recoverAddressNative(digest, sig);
}

/**
 * `recoverPublicKey` with r || s given as 64 bytes, as the native module takes them (no
 * conversion through bigints and hex on that path, beyond the range checks).
 */
export function recoverPublicKeyRs(digest: Uint8Array, rs: Uint8Array, recovery: number): Uint8Array | null {
  const r = BigInt(`0x${Buffer.from(rs.buffer, rs.byteOffset, 32).toString('hex')}`);
  const s = BigInt(`0x${Buffer.from(rs.buffer, rs.byteOffset + 32, 32).toString('hex')}`);
  if (native === null || rs.length !== 64) return recoverPublicKey(digest, { r, s, recovery });
  if (!(r > 0n && r < CURVE_N && s > 0n && s < CURVE_N && (recovery === 0 || recovery === 1))) return null;
  try {
    return native.ecdsaRecover(rs, recovery, digest, false);
  } catch {
    return null;
  }
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

/**
 * Signs a 32-byte digest with a secp256k1 private key: RFC 6979 deterministic, low s (the form
 * `recoverAddress` accepts), `v` 27 or 28 as eth_signTypedData_v4 returns it. Natively when the
 * native module loads (libsecp256k1 signs with the same RFC 6979 nonce: the same signature).
 */
export function signDigest(digest: Uint8Array, privateKey: Uint8Array): { r: string; s: string; v: number } {
  if (digest.length !== 32) throw new RangeError('digest must be 32 bytes');
  if (native !== null) {
    const { signature, recid } = native.ecdsaSign(digest, privateKey);
    return { r: bytesToHex(signature.subarray(0, 32)), s: bytesToHex(signature.subarray(32, 64)), v: 27 + recid };
  }
  return signDigestNoble(digest, privateKey);
}

/** Pure JS signing (the reference). */
export function signDigestNoble(digest: Uint8Array, privateKey: Uint8Array): { r: string; s: string; v: number } {
  const sig = secp256k1.sign(digest, privateKey, { prehash: false, lowS: true, format: 'recovered' });
  // format 'recovered': recovery byte, then r (32 bytes) and s (32 bytes).
  return { r: bytesToHex(sig.subarray(1, 33)), s: bytesToHex(sig.subarray(33, 65)), v: 27 + (sig[0] as number) };
}

/** The address of a secp256k1 private key. */
export function privateKeyToAddress(privateKey: Uint8Array): Address {
  return publicKeyToAddress(secp256k1.getPublicKey(privateKey, false));
}
