// An EVM transaction's signature as the signer pool recovers it, and the packed form batches of
// them travel in between threads: one buffer each way per batch (transferred, not cloned), no
// object per job. The worker also derives the sender's address, so the event loop hashes nothing.
import { bytesToHex, keccak256, recoverPublicKeysPacked } from '../primitives/index.ts';

export interface EvmSignature {
  /** The signing digest (32 bytes). */
  readonly digest: Uint8Array;
  /** r || s, 32 bytes each. */
  readonly rs: Uint8Array;
  /** y parity, 0 or 1. */
  readonly recovery: number;
}

export interface EvmSender {
  /** 64-byte public key (no 0x04 prefix), hex. */
  readonly publicKey: string;
  /** Lowercase 0x address. */
  readonly address: string;
}

/** A job in a packed batch: digest (32) || r || s (64) || y parity (1). */
const JOB = 97;
/** A result: public key (64 bytes, all zero when nothing recovers) || address (20). */
const OUT = 84;

export function packEvmJobs(sigs: readonly EvmSignature[]): Uint8Array {
  const out = new Uint8Array(sigs.length * JOB);
  sigs.forEach((s, i) => {
    out.set(s.digest, i * JOB);
    out.set(s.rs, i * JOB + 32);
    out[i * JOB + 96] = s.recovery;
  });
  return out;
}

/** Recovers every job of a packed batch (the worker's side). */
export function recoverEvmPacked(jobs: Uint8Array): Uint8Array {
  const n = jobs.length / JOB;
  const out = new Uint8Array(n * OUT);
  // One native call for the batch where the batch addon is built (primitives' recoverPublicKeysPacked).
  recoverPublicKeysPacked(jobs.subarray(0, n * JOB), (i, pub) => {
    out.set(pub, i * OUT);
    out.set(keccak256(pub).subarray(12), i * OUT + 64);
  });
  return out;
}

/** Result `i` of a packed batch, or null when its signature recovers no key. */
export function readEvmSender(out: Uint8Array, i: number): EvmSender | null {
  const pub = out.subarray(i * OUT, i * OUT + 64);
  if (pub.every((b) => b === 0)) return null;
  return { publicKey: bytesToHex(pub), address: bytesToHex(out.subarray(i * OUT + 64, i * OUT + OUT)) };
}

/** One signature, on the calling thread. */
export function recoverEvmSender(sig: EvmSignature): EvmSender | null {
  return readEvmSender(recoverEvmPacked(packEvmJobs([sig])), 0);
}
