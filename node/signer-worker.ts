// A signer-recovery worker: batches of jobs in, results out (same order). An exchange request
// under one binding recovers its address; a job marked `encode` also returns the transaction's
// bytes and hash, built from the same canonical action text the binding hashes, so the event
// loop neither canonicalizes nor hashes it. EVM signatures come packed and recover their keys
// and addresses (evm-signature.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { txHash } from '../consensus/index.ts';
import { recoverSigner, type AuthConfig, type Binding, type SignedFields } from '../exchange/index.ts';
import { canonicalize } from '../primitives/index.ts';
import { recoverEvmPacked } from './evm-signature.ts';
import { encodeRequest } from './tx-codec.ts';

export interface RecoveryJob {
  readonly req: SignedFields;
  readonly binding: Binding;
  readonly encode: boolean;
}

/** A batch from the pool: exchange jobs, or EVM signatures packed in one buffer (evm-signature.ts). */
export type RecoveryBatch = { readonly seq: number; readonly jobs: RecoveryJob[] } | { readonly seq: number; readonly evm: Uint8Array };

export interface RecoveryOut {
  /** The recovered address, or null. */
  readonly address: string | null;
  /** The transaction's bytes and hash, for jobs marked `encode` whose request encodes. */
  readonly tx?: { readonly bytes: Uint8Array; readonly hash: string };
}

/** One job; the same computation runs inline where there are no workers. */
export function runJob(auth: AuthConfig, j: RecoveryJob): RecoveryOut {
  try {
    const canonical = j.binding === 'action' || j.encode ? canonicalize(j.req.action) : undefined;
    const address = recoverSigner(auth, j.req, j.binding, canonical);
    if (!j.encode) return { address };
    const bytes = encodeRequest(j.req, canonical);
    return { address, tx: { bytes, hash: txHash(bytes) } };
  } catch {
    return { address: null };
  }
}

if (parentPort !== null && workerData !== null && (workerData as { auth?: AuthConfig }).auth !== undefined) {
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
  port.postMessage({ ready: true });
}
