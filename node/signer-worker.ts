// A signer-recovery worker: batches of jobs in, results out (same order). An exchange request
// under one binding recovers its address; a job marked `encode` also returns the transaction's
// bytes and hash, built from the same canonical action text the binding hashes, so the event
// loop does not hash it (the pool sends that text, canonicalized on the event loop: cheaper than
// cloning the action). A batch's signatures are recovered together, in one native call where the
// batch addon is built (runJobs). EVM signatures come packed and recover their keys and addresses
// (evm-signature.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { txHash } from '../consensus/index.ts';
import { allowedBindings, distinctAddresses, hyperliquidDigests, signerDigest, type AuthConfig, type Binding, type SignedFields } from '../exchange/index.ts';
import { canonicalize, currentThreadId, recoverAddresses, type Address, type RecoveryItem } from '../primitives/index.ts';
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

/** A job's recoveries, and its answer once their addresses are known (in the same order). */
interface Plan {
  readonly items: readonly RecoveryItem[];
  finish(addresses: readonly (Address | null)[]): RecoveryOut;
}

const NOTHING: Plan = { items: [], finish: () => ({ address: null }) };

function plan(auth: AuthConfig, j: RecoveryJob): Plan {
  if ('tx' in j) return txPlan(auth, j.tx, 0);
  if (j.req.dialect === 'hyperliquid') return dialectPlan(auth, j.req);
  const canonical = j.canonical ?? (j.binding === 'action' || j.encode ? canonicalize(j.req.action) : undefined);
  const item = signerDigest(auth, j.req, j.binding, canonical);
  const items = item === null ? [] : [item];
  if (!j.encode) return { items, finish: (a) => ({ address: a[0] ?? null }) };
  // The bytes hold the request's own nonce, vault and signature and its action as `canonical`
  // (canonical JSON reads back to the same text), so the address recovered here is the one a
  // block's transaction recovers at execution: execution takes it as the first candidate.
  const bytes = encodeRequest(j.req, canonical);
  const tx = { bytes, hash: txHash(bytes) };
  return { items, finish: (a) => ({ address: a[0] ?? null, tx }) };
}

/**
 * A dialect request: every address its signature recovers to under the chains the genesis allows
 * (a client signs for Mainnet or Testnet without saying which), from its encoded bytes, with them.
 */
function dialectPlan(auth: AuthConfig, req: SignedFields): Plan {
  const bytes = encodeRequest(req);
  const decoded = decodeRequest(bytes);
  const items = decoded === null ? [] : dialectDigests(auth, decoded);
  const tx = { bytes, hash: txHash(bytes) };
  return {
    items,
    finish: (a) => {
      const candidates = distinctAddresses(a);
      return { address: candidates[0] ?? null, candidates, tx };
    },
  };
}

function dialectDigests(auth: AuthConfig, req: SignedFields): RecoveryItem[] {
  return hyperliquidDigests(auth.hyperliquid, { ...req, expiresAfter: req.expiresAfter ?? null });
}

/** A block transaction's signer under every allowed binding from the `from`-th on. */
function txPlan(auth: AuthConfig, bytes: Uint8Array, from: number): Plan {
  const req = decodeRequest(bytes);
  if (req === null) return { items: [], finish: () => ({ address: null, candidates: [] }) };
  let items: RecoveryItem[] = [];
  if (req.dialect === 'hyperliquid') {
    if (from === 0) items = dialectDigests(auth, req);
  } else {
    for (const binding of allowedBindings(auth).slice(from)) {
      try {
        const item = signerDigest(auth, req, binding);
        if (item !== null) items.push(item);
      } catch {
        // this binding recovers nothing (an action that does not canonicalize)
      }
    }
  }
  return { items, finish: (a) => ({ address: null, candidates: distinctAddresses(a) }) };
}

/**
 * Jobs of a batch, answered in order. Their signatures are recovered together (one native call
 * where the batch addon is built: primitives' `recoverAddresses`); a job that throws answers no
 * address, as alone.
 */
export function runJobs(auth: AuthConfig, jobs: readonly RecoveryJob[]): RecoveryOut[] {
  const plans = jobs.map((j) => {
    try {
      return plan(auth, j);
    } catch {
      return NOTHING;
    }
  });
  const addresses = recoverAddresses(plans.flatMap((p) => p.items));
  let at = 0;
  return plans.map((p) => {
    const mine = addresses.slice(at, (at += p.items.length));
    try {
      return p.finish(mine);
    } catch {
      return { address: null };
    }
  });
}

/** One job; the same computation runs inline where there are no workers. */
export function runJob(auth: AuthConfig, j: RecoveryJob): RecoveryOut {
  return runJobs(auth, [j])[0] as RecoveryOut;
}

/**
 * Addresses a block transaction's signature recovers to under every allowed binding (from the
 * `from`-th on), distinct, in order; [] when it does not decode.
 */
export function txCandidates(auth: AuthConfig, bytes: Uint8Array, from = 0): string[] {
  const p = txPlan(auth, bytes, from);
  return p.finish(recoverAddresses(p.items)).candidates ?? [];
}

if (parentPort !== null && (workerData as { auth?: AuthConfig } | null | undefined)?.auth !== undefined) {
  const auth = (workerData as { auth: AuthConfig }).auth;
  const port = parentPort;
  port.on('message', (batch: RecoveryBatch) => {
    if ('evm' in batch) {
      const evm = recoverEvmPacked(batch.evm);
      port.postMessage({ seq: batch.seq, evm }, [evm.buffer as ArrayBuffer]);
    } else {
      port.postMessage({ seq: batch.seq, out: runJobs(auth, batch.jobs) });
    }
  });
  // Ready (Keccak compiles as the primitives load): the pool sends nothing before.
  port.postMessage({ ready: true, tid: currentThreadId() });
}
