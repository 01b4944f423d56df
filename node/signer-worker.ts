// A signer-recovery worker: batches of jobs in, results out (same order). An exchange request
// under one binding recovers its address; a job marked `encode` also returns the transaction's
// bytes and hash, built from the same canonical action text the binding hashes, so the event
// loop does not hash it (the pool sends that text's UTF-8 bytes, written on the event loop:
// cheaper than cloning the action). A batch's signatures are recovered together, in one native call where the
// batch addon is built (runJobs). EVM signatures come packed and recover their keys and addresses
// (evm-signature.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { txHash, txLeaf } from '../consensus/index.ts';
import { allowedBindings, distinctAddresses, hyperliquidDigests, signerDigest, type AuthConfig, type Binding, type SignedFields } from '../exchange/index.ts';
import { canonicalize, count, currentThreadId, digestBytes, recoverAddresses, recoverKeys, verifiable, verifyKeys, type Address, type DigestName, type RecoveryItem } from '../primitives/index.ts';
import { recoverEvmPacked } from './evm-signature.ts';
import { packOuts, unpackJobs } from './signer-wire.ts';
import { decodeRequest, encodeRequest } from './tx-codec.ts';

export type RecoveryJob =
  /**
   * A request under one binding. `canonical`, when given, is its action's canonical JSON (as text,
   * or as its UTF-8 bytes), and the request's `action` is not read (the pool sends the text: one
   * copy, where an object is cloned field by field on both threads).
   */
  | {
    readonly req: SignedFields;
    readonly binding: Binding;
    readonly encode: boolean;
    readonly canonical?: string | Uint8Array;
    /**
     * The address this request is probably by (its connection's last signer, or the one the peer
     * that gossiped it recovered): checked, not trusted.
     */
    readonly hint?: string;
  }
  /** A block's transaction as bytes: decoded here, its signer recovered under every allowed binding. */
  | { readonly tx: Uint8Array };

/** A batch from the pool: jobs, or EVM signatures packed in one buffer (evm-signature.ts). */
export type RecoveryBatch =
  | { readonly seq: number; readonly jobs: RecoveryJob[] }
  /** Jobs packed by signer-wire.ts, answered packed. */
  | { readonly seq: number; readonly packed: Uint8Array }
  | { readonly seq: number; readonly evm: Uint8Array }
  /** Bytes to hash (a big block's app hash input, possibly shared memory), off the event loop. */
  | { readonly seq: number; readonly digest: DigestName; readonly bytes: Uint8Array };

export interface RecoveryOut {
  /** The recovered address, or null. */
  readonly address: string | null;
  /**
   * The transaction's bytes and hash, for jobs marked `encode` whose request encodes, and its
   * `txLeaf` (the block's transaction root takes it without hashing the bytes again).
   */
  readonly tx?: { readonly bytes: Uint8Array; readonly hash: string; readonly leaf?: Uint8Array };
  /** For a `tx` job: the distinct addresses under the allowed bindings, in binding order. */
  readonly candidates?: string[];
}

/** A job's recoveries, and its answer once their addresses are known (in the same order). */
interface Plan {
  readonly items: readonly RecoveryItem[];
  /** The address the job's one item is probably by (the job's hint). */
  readonly hint?: string;
  finish(addresses: readonly (Address | null)[]): RecoveryOut;
}

/**
 * Public keys of signers this thread recovered, by address: a hint's key, so its guess can be
 * verified. Bounded: the least recently used entry goes first.
 */
const KEYS_KEPT = 8192;
const knownKeys = new Map<string, Uint8Array>();

/** Keeps a key (or, without one, refreshes a kept key's place): the least recently used goes first. */
function keep(address: Address, publicKey?: Uint8Array): void {
  const kept = knownKeys.get(address);
  if (kept !== undefined) {
    knownKeys.delete(address);
    knownKeys.set(address, kept);
    return;
  }
  if (publicKey === undefined) return;
  if (knownKeys.size >= KEYS_KEPT) knownKeys.delete(knownKeys.keys().next().value as string);
  knownKeys.set(address, publicKey.slice());
}

/** Hinted jobs checked together below this many are recovered instead (one verification alone costs more). */
const MIN_VERIFIED = 3;

const NOTHING: Plan = { items: [], finish: () => ({ address: null }) };

function plan(auth: AuthConfig, j: RecoveryJob): Plan {
  if ('tx' in j) return txPlan(auth, j.tx, 0);
  if (j.req.dialect === 'hyperliquid') return dialectPlan(auth, j.req);
  const canonical = j.canonical ?? (j.binding === 'action' || j.encode ? canonicalize(j.req.action) : undefined);
  const item = signerDigest(auth, j.req, j.binding, canonical);
  const items = item === null ? [] : [item];
  const hinted = item !== null && j.hint !== undefined ? { hint: j.hint } : {};
  if (!j.encode) return { items, ...hinted, finish: (a) => ({ address: a[0] ?? null }) };
  // The bytes hold the request's own nonce, vault and signature and its action as `canonical`
  // (canonical JSON reads back to the same text), so the address recovered here is the one a
  // block's transaction recovers at execution: execution takes it as the first candidate.
  const bytes = encodeRequest(j.req, canonical);
  const tx = { bytes, hash: txHash(bytes), leaf: txLeaf(bytes) };
  return { items, ...hinted, finish: (a) => ({ address: a[0] ?? null, tx }) };
}

/**
 * A dialect request: every address its signature recovers to under the chains the genesis allows
 * (a client signs for Mainnet or Testnet without saying which), from its encoded bytes, with them.
 */
function dialectPlan(auth: AuthConfig, req: SignedFields): Plan {
  const bytes = encodeRequest(req);
  const decoded = decodeRequest(bytes);
  const items = decoded === null ? [] : dialectDigests(auth, decoded);
  const tx = { bytes, hash: txHash(bytes), leaf: txLeaf(bytes) };
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
 * Jobs of a batch, answered in order. Jobs with a hint whose key this thread knows are verified
 * against it together (primitives' `verifyKeys`, where the batch addon is built); the rest, and
 * all of them when that check fails, are recovered together (`recoverKeys`). Either way a job's
 * address is the one recovery gives. A job that throws answers no address, as alone.
 */
export function runJobs(auth: AuthConfig, jobs: readonly RecoveryJob[]): RecoveryOut[] {
  const plans = jobs.map((j) => {
    try {
      return plan(auth, j);
    } catch {
      return NOTHING;
    }
  });
  const addresses: (Address | null)[][] = plans.map(() => []);
  const verified = new Set<number>();
  const guessed: number[] = [];
  for (let i = 0; i < plans.length; i++) {
    const p = plans[i] as Plan;
    // A malformed signature would fail the whole check: it is recovered (to nobody) instead.
    if (p.hint !== undefined && p.items.length === 1 && knownKeys.has(p.hint) && verifiable(p.items[0] as RecoveryItem)) guessed.push(i);
  }
  if (guessed.length >= MIN_VERIFIED) {
    const items = guessed.map((i) => (plans[i] as Plan).items[0] as RecoveryItem);
    if (verifyKeys(items, guessed.map((i) => knownKeys.get((plans[i] as Plan).hint as string) as Uint8Array))) {
      for (const i of guessed) {
        const hint = (plans[i] as Plan).hint as Address;
        keep(hint); // recently used: kept longest
        addresses[i] = [hint];
        verified.add(i);
      }
    } else {
      count('signer hints missed');
    }
  }
  const recovering = plans.map((_, i) => i).filter((i) => !verified.has(i));
  const recovered = recoverKeys(recovering.flatMap((i) => (plans[i] as Plan).items));
  let at = 0;
  for (const i of recovering) {
    const mine = recovered.slice(at, (at += (plans[i] as Plan).items.length));
    for (const k of mine) if (k !== null) keep(k.address, k.publicKey);
    addresses[i] = mine.map((k) => k?.address ?? null);
  }
  return plans.map((p, i) => {
    try {
      return p.finish(addresses[i] as Address[]);
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
    if ('digest' in batch) {
      const hash = digestBytes(batch.bytes, batch.digest);
      port.postMessage({ seq: batch.seq, hash }, [hash.buffer as ArrayBuffer]);
    } else if ('evm' in batch) {
      const evm = recoverEvmPacked(batch.evm);
      port.postMessage({ seq: batch.seq, evm }, [evm.buffer as ArrayBuffer]);
    } else if ('packed' in batch) {
      let packed: Uint8Array;
      try {
        packed = packOuts(runJobs(auth, unpackJobs(batch.packed)));
      } catch {
        // Never expected (runJobs answers every job); answered as no address each, not dropped.
        port.postMessage({ seq: batch.seq, out: [] });
        return;
      }
      port.postMessage({ seq: batch.seq, packed }, [packed.buffer as ArrayBuffer]);
    } else {
      port.postMessage({ seq: batch.seq, out: runJobs(auth, batch.jobs) });
    }
  });
  // Ready (Keccak compiles as the primitives load): the pool sends nothing before.
  port.postMessage({ ready: true, tid: currentThreadId() });
}
