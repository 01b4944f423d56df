// Signer recovery off the event loop: a pool of worker threads, each taking batches (requests
// that arrive in the same tick travel together, which keeps messaging cheap under load). The
// inline recovery is the same computation on the calling thread, for small setups and as the
// fallback when workers cannot start.
import { Worker } from 'node:worker_threads';
import { recoverSigner, type AuthConfig, type Binding, type SignedFields } from '../exchange/index.ts';
import type { RecoveryJob } from './signer-worker.ts';
import { recoverEvmKey, type EvmSignature } from './evm-signature.ts';

export interface SignerRecovery {
  /** The address the request's signature recovers to under `binding`, or null. */
  recover(req: SignedFields, binding: Binding): Promise<string | null>;
  /** The public key (64 bytes, hex) that made an EVM transaction's signature, or null. */
  recoverEvm(sig: EvmSignature): Promise<string | null>;
  close(): Promise<void>;
}

export class InlineRecovery implements SignerRecovery {
  constructor(private readonly auth: AuthConfig) {}

  async recover(req: SignedFields, binding: Binding): Promise<string | null> {
    return recoverSigner(this.auth, req, binding);
  }

  async recoverEvm(sig: EvmSignature): Promise<string | null> {
    return recoverEvmKey(sig);
  }

  async close(): Promise<void> {}
}

interface Lane {
  readonly worker: Worker;
  /** Jobs gathered this tick, and the batches in flight by sequence. */
  pending: { job: RecoveryJob; resolve: (a: string | null) => void }[];
  readonly inFlight: Map<number, ((a: string | null) => void)[]>;
  queued: number;
}

/** Largest batch sent to one worker at once. */
const MAX_BATCH = 256;

export class WorkerPoolRecovery implements SignerRecovery {
  private readonly lanes: Lane[];
  private seq = 0;
  private flushScheduled = false;

  private constructor(lanes: Lane[]) {
    this.lanes = lanes;
  }

  /** Starts `size` workers and waits until each is ready. */
  static async start(auth: AuthConfig, size: number): Promise<WorkerPoolRecovery> {
    const lanes = await Promise.all(
      Array.from({ length: size }, async () => {
        const worker = new Worker(new URL('./signer-worker-entry.js', import.meta.url), { workerData: { auth } });
        await new Promise<void>((resolve, reject) => {
          worker.once('error', reject);
          worker.once('message', () => resolve());
        });
        const lane: Lane = { worker, pending: [], inFlight: new Map(), queued: 0 };
        worker.on('message', (msg: { seq: number; out: (string | null)[] }) => {
          const resolvers = lane.inFlight.get(msg.seq);
          if (resolvers === undefined) return;
          lane.inFlight.delete(msg.seq);
          lane.queued -= resolvers.length;
          resolvers.forEach((r, i) => r(msg.out[i] ?? null));
        });
        return lane;
      }),
    );
    return new WorkerPoolRecovery(lanes);
  }

  recover(req: SignedFields, binding: Binding): Promise<string | null> {
    return this.enqueue({ req: { action: req.action, nonce: req.nonce, vaultAddress: req.vaultAddress, signature: req.signature }, binding });
  }

  recoverEvm(sig: EvmSignature): Promise<string | null> {
    return this.enqueue({ evm: { digest: sig.digest, r: sig.r, s: sig.s, recovery: sig.recovery } });
  }

  private enqueue(job: RecoveryJob): Promise<string | null> {
    return new Promise((resolve) => {
      // The lane with the least work queued takes it.
      let lane = this.lanes[0] as Lane;
      for (const l of this.lanes) if (l.queued + l.pending.length < lane.queued + lane.pending.length) lane = l;
      lane.pending.push({ job, resolve });
      if (lane.pending.length >= MAX_BATCH) this.flush(lane);
      else if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => {
          this.flushScheduled = false;
          for (const l of this.lanes) this.flush(l);
        });
      }
    });
  }

  private flush(lane: Lane): void {
    if (lane.pending.length === 0) return;
    const batch = lane.pending;
    lane.pending = [];
    const seq = this.seq++;
    lane.inFlight.set(seq, batch.map((p) => p.resolve));
    lane.queued += batch.length;
    lane.worker.postMessage({ seq, jobs: batch.map((p) => p.job) });
  }

  async close(): Promise<void> {
    for (const lane of this.lanes) {
      for (const resolvers of lane.inFlight.values()) for (const r of resolvers) r(null);
      for (const p of lane.pending) p.resolve(null);
    }
    await Promise.all(this.lanes.map((l) => l.worker.terminate()));
  }
}
