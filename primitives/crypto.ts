// Hashing and secp256k1 signer recovery. @noble/* is the reference implementation; the hot
// paths use faster code where it loads: libsecp256k1 of the `secp256k1` package (about 20x
// faster) and this project's WebAssembly Keccak (keccak-wasm.ts: 0.7 to 1.2 µs for 32 to 200
// bytes, against 1.1 to 1.6 µs for hash-wasm's, 2.6 to 3.9 µs for the N-API sponge of `keccak`,
// whose per-call crossings cost more than the hash, and 8 to 21 µs for noble), with tests holding
// each equal to the reference. Batches of signatures recover in one call of this project's addon
// (native/secp256k1-batch, built from the same libsecp256k1 source at install) where it built.
import { createHash, randomBytes } from 'node:crypto';
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

/** keccak256 as 0x hex, without the hash's own array on the WebAssembly path. */
export function keccak256Hex(data: Uint8Array): string {
  if (wasmKeccak !== null) return bytesToHex(wasmKeccak.init().update(data).digestView());
  return bytesToHex(keccak256(data));
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

/** A digest chosen by name (the app hash's versions pick one; signer workers run either). */
export type DigestName = 'keccak256' | 'sha256';

/** `name`'s digest of `data`. */
export function digestBytes(data: Uint8Array, name: DigestName): Uint8Array {
  return name === 'sha256' ? sha256(data) : keccak256(data);
}

/**
 * SHA-256 through OpenSSL, which uses the CPU's SHA extensions where it has them: about 1.7 GB/s
 * here against about 350 MB/s for Keccak, for big inputs hashed by choice (an app hash version 3
 * block's outputs, node/app-hash.ts). `data` may be a view of shared memory.
 */
export function sha256(data: Uint8Array): Uint8Array {
  // Its own 32-byte buffer (a caller may transfer it), not a view of a Buffer's.
  return new Uint8Array(createHash('sha256').update(data).digest());
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

/** The batch entry points of native/secp256k1-batch (recover.c). */
interface NativeBatchRecovery {
  /** Jobs of 97 bytes (digest, r, s, recovery id) in; per job 65 bytes out (1 when recovered, x, y). */
  recover(jobs: Uint8Array, out: Uint8Array): number;
  /** Whether every job recovers to its key (64 bytes each), checked at once with 16 random bytes a job. */
  verify(jobs: Uint8Array, keys: Uint8Array, rnd: Uint8Array): boolean;
}

/** A batch job: digest (32) || r (32) || s (32) || recovery id (1). */
const BATCH_JOB = 97;
/** A batch result: recovered (1) || x (32) || y (32). */
const BATCH_OUT = 65;

function loadBatchRecovery(): NativeBatchRecovery | null {
  if (pureJs || native === null) return null;
  try {
    const addon = require('svc-secp256k1-batch') as NativeBatchRecovery;
    // Known answer: two signatures must recover to the keys the `secp256k1` package recovers (and
    // a corrupted third to none) before the addon is trusted.
    const jobs = new Uint8Array(3 * BATCH_JOB);
    const keys: Uint8Array[] = [];
    for (let i = 0; i < 3; i++) {
      const key = keccak256(Uint8Array.of(i + 1));
      const digest = keccak256(Uint8Array.of(i + 100));
      const { signature, recid } = native.ecdsaSign(digest, key);
      jobs.set(digest, i * BATCH_JOB);
      jobs.set(signature, i * BATCH_JOB + 32);
      jobs[i * BATCH_JOB + 96] = recid;
      keys.push(native.ecdsaRecover(signature, recid, digest, false).subarray(1));
    }
    // ... and `verify` must take the two with their keys and refuse them with the keys swapped.
    if (typeof addon.recover !== 'function' || typeof addon.verify !== 'function') return null; // a build of an older version
    const rnd = new Uint8Array(32).fill(0x5a);
    const pair = jobs.slice(0, 2 * BATCH_JOB);
    const right = Uint8Array.from([...(keys[0] as Uint8Array), ...(keys[1] as Uint8Array)]);
    const swapped = Uint8Array.from([...(keys[1] as Uint8Array), ...(keys[0] as Uint8Array)]);
    if (addon.verify(pair, right, rnd) !== true || addon.verify(pair, swapped, rnd) !== false) return null;
    (jobs[2 * BATCH_JOB + 32] as number) ^= 0xff; // r of the third no longer matches
    const out = new Uint8Array(3 * BATCH_OUT);
    addon.recover(jobs, out);
    const same = (i: number) => out[i * BATCH_OUT] === 1 && bytesToHex(out.subarray(i * BATCH_OUT + 1, (i + 1) * BATCH_OUT)) === bytesToHex(keys[i] as Uint8Array);
    return same(0) && same(1) && !same(2) ? addon : null;
  } catch {
    return null; // not built (no compiler where it was installed): one recovery at a time serves
  }
}

const batchNative = loadBatchRecovery();

/** Whether `recoverAddresses` and `recoverPublicKeysPacked` recover a batch in one native call. */
export const batchSecp256k1 = batchNative !== null;

/** One signature to recover: what `recoverAddress` takes. */
export interface RecoveryItem {
  readonly digest: Uint8Array;
  readonly sig: RecoverableSignature;
}

function putWord(out: Uint8Array, at: number, v: bigint): void {
  for (let i = 31; i >= 0; i--, v >>= 8n) out[at + i] = Number(v & 0xffn);
}

/** Items as the addon's jobs; a malformed one (high s, out of range) gets recovery id 255, which recover.c refuses. */
function packItems(items: readonly RecoveryItem[]): Uint8Array {
  const jobs = new Uint8Array(items.length * BATCH_JOB);
  items.forEach((item, i) => {
    const at = i * BATCH_JOB;
    if (!verifiable(item)) return void (jobs[at + 96] = 255);
    jobs.set(item.digest, at);
    putWord(jobs, at + 32, item.sig.r);
    putWord(jobs, at + 64, item.sig.s);
    jobs[at + 96] = item.sig.recovery;
  });
  return jobs;
}

/** A recovered signer: its address and public key (64 bytes, no prefix). */
export interface RecoveredKey {
  readonly address: Address;
  readonly publicKey: Uint8Array;
}

/**
 * What `recoverAddress` recovers for each item, in order, with the public keys. Natively in one
 * call where the batch addon is built: libsecp256k1's recovery with 1/r and the results' 1/z
 * inverted once for the whole batch (Montgomery's trick), about a fifth less CPU a signature.
 */
export function recoverKeys(items: readonly RecoveryItem[]): (RecoveredKey | null)[] {
  for (let i = 0; i < items.length; i++) count('signer recoveries');
  const one = ({ digest, sig }: RecoveryItem): RecoveredKey | null => {
    if (!wellFormed(sig)) return null;
    const pub = recoverPublicKey(digest, sig);
    return pub === null ? null : { address: publicKeyToAddress(pub), publicKey: pub.subarray(1) };
  };
  if (batchNative === null) return items.map(one);
  const out = new Uint8Array(items.length * BATCH_OUT);
  try {
    batchNative.recover(packItems(items), out);
  } catch {
    return items.map(one); // the addon ran out of memory: one at a time
  }
  return items.map((_, i) => {
    if (out[i * BATCH_OUT] !== 1) return null;
    const publicKey = out.subarray(i * BATCH_OUT + 1, (i + 1) * BATCH_OUT);
    return { address: bytesToHex(keccak256(publicKey).subarray(12)), publicKey };
  });
}

/** The addresses `recoverAddress` returns for each item, in order (`recoverKeys`). */
export function recoverAddresses(items: readonly RecoveryItem[]): (Address | null)[] {
  return recoverKeys(items).map((k) => k?.address ?? null);
}

/**
 * Whether each item's signature recovers to its guessed key (64 bytes), all checked at once: one
 * multi-scalar multiplication for the batch (recover.c's verify_batch), 30 µs a signature for 20
 * by a few keys against 65 to 70 for a batched recovery. False when any is not by its key, when
 * one is malformed, or without the addon: the caller recovers them then. The combination's
 * coefficients are random (not a rule of the state machine: a false "true" has probability about
 * 2^-128 whatever they are).
 */
export function verifyKeys(items: readonly RecoveryItem[], keys: readonly Uint8Array[]): boolean {
  if (batchNative === null || items.length === 0 || items.length !== keys.length) return false;
  if (!items.every(verifiable)) return false;
  if (!keys.every((k) => k.length === 64)) return false;
  const packed = new Uint8Array(keys.length * 64);
  keys.forEach((k, i) => packed.set(k, i * 64));
  count('signer verifications', items.length);
  try {
    return batchNative.verify(packItems(items), packed, randomBytes(items.length * 16));
  } catch {
    return false;
  }
}

/** Whether `verifyKeys` can take the item: a well-formed (low-s, in range) signature of a 32-byte digest. */
export function verifiable(item: RecoveryItem): boolean {
  return wellFormed(item.sig) && item.digest.length === 32;
}

/**
 * Public keys (64 bytes, no prefix) of packed jobs, digest (32) || r || s (64) || y parity (1)
 * each, with `recoverPublicKeyRs`'s rules (a high s accepted); `visit` gets each key recovered.
 * Natively in one call where the batch addon is built.
 */
export function recoverPublicKeysPacked(jobs: Uint8Array, visit: (index: number, publicKey: Uint8Array) => void): void {
  const n = Math.floor(jobs.length / BATCH_JOB);
  if (batchNative === null || n < 2) {
    for (let i = 0; i < n; i++) {
      const at = i * BATCH_JOB;
      const pub = recoverPublicKeyRs(jobs.subarray(at, at + 32), jobs.subarray(at + 32, at + 96), jobs[at + 96] as number);
      if (pub !== null) visit(i, pub.subarray(1));
    }
    return;
  }
  const own = jobs.slice(0, n * BATCH_JOB); // its recovery ids are rewritten below
  // recover.c takes recovery ids 0 to 3 (r + n as x for 2 and 3); transactions carry a parity only.
  for (let i = 0; i < n; i++) if ((own[i * BATCH_JOB + 96] as number) > 1) own[i * BATCH_JOB + 96] = 255;
  const out = new Uint8Array(n * BATCH_OUT);
  batchNative.recover(own, out);
  for (let i = 0; i < n; i++) if (out[i * BATCH_OUT] === 1) visit(i, out.subarray(i * BATCH_OUT + 1, (i + 1) * BATCH_OUT));
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
