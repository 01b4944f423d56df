// A signer-recovery worker: batches of jobs in, results out (same order). An exchange request
// under one binding recovers its address; a job marked `encode` also returns the transaction's
// bytes and hash, built from the same canonical action text the binding hashes, so the event
// loop does not hash it (the pool sends that text, canonicalized on the event loop: cheaper than
// cloning the action). EVM signatures come packed and recover their keys and addresses
// (evm-signature.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { txHash } from '../consensus/index.ts';
import { allowedBindings, hyperliquidCandidates, recoverSigner, type AuthConfig, type Binding, type SignedFields } from '../exchange/index.ts';
import { canonicalize, currentThreadId } from '../primitives/index.ts';
import { recoverEvmPacked } from './evm-signature.ts';
import { decodeRequest, encodeRequest } from './tx-codec.ts';

export type RecoveryJob =
  /**
   * A request under one binding. `canonical`, when given, is its action's canonical JSON, and the
   * request's `action` is not read (the pool sends the text: a string is cloned as one copy, an
   * object field by field on both threads).
   */
  | { readonly req: SignedFields; readonly binding: Binding; readonly encode: boolean; readonly canonical?: string }
  /** A block's transaction as bytes: decoded here, its signer recovered under every allowed binding. */
  | { readonly tx: Uint8Array };

/** A batch from the pool: jobs, or EVM signatures packed in one buffer (evm-signature.ts). */
export type RecoveryBatch = { readonly seq: number; readonly jobs: RecoveryJob[] } | { readonly seq: number; readonly evm: Uint8Array };

export interface RecoveryOut {
  /** The recovered address, or null. */
  readonly address: string | null;
  /** The transaction's bytes and hash, for jobs marked `encode` whose request encodes. */
  readonly tx?: { readonly bytes: Uint8Array; readonly hash: string };
  /** For a `tx` job: the distinct addresses under the allowed bindings, in binding order. */
  readonly candidates?: string[];
}

/** One job; the same computation runs inline where there are no workers. */
export function runJob(auth: AuthConfig, j: RecoveryJob): RecoveryOut {
  try {
    if ('tx' in j) return { address: null, candidates: txCandidates(auth, j.tx) };
    if (j.req.dialect === 'hyperliquid') return dialectJob(auth, j.req);
    const canonical = j.canonical ?? (j.binding === 'action' || j.encode ? canonicalize(j.req.action) : undefined);
    if (!j.encode) return { address: recoverSigner(auth, j.req, j.binding, canonical) };
    // The bytes hold the request's own nonce, vault and signature and its action as `canonical`
    // (canonical JSON reads back to the same text), so the address recovered here is the one a
    // block's transaction recovers at execution: execution takes it as the first candidate.
    const bytes = encodeRequest(j.req, canonical);
    return { address: recoverSigner(auth, j.req, j.binding, canonical), tx: { bytes, hash: txHash(bytes) } };
  } catch {
    return { address: null };
  }
}

/**
 * A dialect request: every address its signature recovers to under the chains the genesis allows
 * (a client signs for Mainnet or Testnet without saying which), from its encoded bytes, with them.
 */
function dialectJob(auth: AuthConfig, req: SignedFields): RecoveryOut {
  const bytes = encodeRequest(req);
  const decoded = decodeRequest(bytes);
  const candidates = decoded === null ? [] : dialectCandidates(auth, decoded);
  return { address: candidates[0] ?? null, candidates, tx: { bytes, hash: txHash(bytes) } };
}

function dialectCandidates(auth: AuthConfig, req: SignedFields): string[] {
  return hyperliquidCandidates(auth.hyperliquid, { ...req, expiresAfter: req.expiresAfter ?? null });
}

/**
 * Addresses a block transaction's signature recovers to under every allowed binding (from the
 * `from`-th on), distinct, in order; [] when it does not decode.
 */
export function txCandidates(auth: AuthConfig, bytes: Uint8Array, from = 0): string[] {
  const req = decodeRequest(bytes);
  const found: string[] = [];
  if (req === null) return found;
  if (req.dialect === 'hyperliquid') return from === 0 ? dialectCandidates(auth, req) : found;
  for (const binding of allowedBindings(auth).slice(from)) {
    let address: string | null;
    try {
      address = recoverSigner(auth, req, binding);
    } catch {
      address = null;
    }
    if (address !== null && !found.includes(address)) found.push(address);
  }
  return found;
}

if (parentPort !== null && (workerData as { auth?: AuthConfig } | null | undefined)?.auth !== undefined) {
  const auth = (workerData as { auth: AuthConfig }).auth;
  const port = parentPort;
  port.on('message', (batch: RecoveryBatch) => {
    if ('evm' in batch) {
      const evm = recoverEvmPacked(batch.evm);
      port.postMessage({ seq: batch.seq, evm }, [evm.buffer as ArrayBuffer]);
    } else {
      port.postMessage({ seq: batch.seq, out: batch.jobs.map((j) => runJob(auth, j)) });
    }
  });
  // Ready (Keccak compiles as the primitives load): the pool sends nothing before.
  port.postMessage({ ready: true, tid: currentThreadId() });
}
