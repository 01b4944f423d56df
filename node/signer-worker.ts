// A signer-recovery worker: batches of requests in, recovered addresses out (same order).
import { parentPort, workerData } from 'node:worker_threads';
import { recoverSigner, type AuthConfig, type Binding, type SignedFields } from '../exchange/index.ts';

export interface RecoveryJob {
  readonly req: SignedFields;
  readonly binding: Binding;
}

const auth = (workerData as { auth: AuthConfig }).auth;
parentPort?.on('message', (batch: { seq: number; jobs: RecoveryJob[] }) => {
  const out = batch.jobs.map((j) => {
    try {
      return recoverSigner(auth, j.req, j.binding);
    } catch {
      return null;
    }
  });
  parentPort?.postMessage({ seq: batch.seq, out });
});
parentPort?.postMessage({ ready: true });
