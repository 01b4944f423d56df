// A signer-recovery worker: batches of requests in, recovered addresses out (same order).
import { parentPort, workerData } from 'node:worker_threads';
import { recoverSigner, type AuthConfig, type Binding, type SignedFields } from '../exchange/index.ts';
import { recoverEvmKey, type EvmSignature } from './evm-signature.ts';

/** An exchange request under one binding, or an EVM transaction's signing digest and signature. */
export type RecoveryJob =
  | { readonly req: SignedFields; readonly binding: Binding }
  | { readonly evm: EvmSignature };

const auth = (workerData as { auth: AuthConfig }).auth;
parentPort?.on('message', (batch: { seq: number; jobs: RecoveryJob[] }) => {
  const out = batch.jobs.map((j) => {
    try {
      return 'evm' in j ? recoverEvmKey(j.evm) : recoverSigner(auth, j.req, j.binding);
    } catch {
      return null;
    }
  });
  parentPort?.postMessage({ seq: batch.seq, out });
});
parentPort?.postMessage({ ready: true });
