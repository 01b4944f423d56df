// Signer recovery off the event loop: a pool of worker threads, each taking batches (requests
// that arrive in the same tick travel together, which keeps messaging cheap under load). The
// inline recovery is the same computation on the calling thread, for small setups and as the
// fallback when workers cannot start.
import { Worker } from 'node:worker_threads';
import type { AuthConfig, Binding, SignedFields } from '../exchange/index.ts';
import { packEvmJobs, readEvmSender, recoverEvmSender, type EvmSender, type EvmSignature } from './evm-signature.ts';
import { runJob, type RecoveryJob, type RecoveryOut } from './signer-worker.ts';

export type { RecoveryOut } from './signer-worker.ts';

export interface SignerRecovery {
  /** The address the request's signature recovers to under `binding`, or null. */
  recover(req: SignedFields, binding: Binding): Promise<string | null>;
  /** The action binding's address, with the transaction's bytes and hash computed alongside. */
  recoverAndEncode(req: SignedFields): Promise<RecoveryOut>;
  /** The public key and address that signed an EVM transaction, or null. */
  recoverEvm(sig: EvmSignature): Promise<EvmSender | null>;
  close(): Promise<void>;
}

export class InlineRecovery implements SignerRecovery {
  constructor(private readonly auth: AuthConfig) {}

  async recover(req: SignedFields, binding: Binding): Promise<string | null> {
    return runJob(this.auth, { req, binding, encode: false }).address;
  }

  async recoverAndEncode(req: SignedFields): Promise<RecoveryOut> {
    return runJob(this.auth, { req, binding: 'action', encode: true });
  }

  async recoverEvm(sig: EvmSignature): Promise<EvmSender | null> {
    return recoverEvmSender(sig);
  }

  async close(): Promise<void> {}
}

interface Lane {
  readonly worker: Worker;
  /** Jobs gathered this tick, and the batches in flight by sequence. */
  pending: { job: RecoveryJob; resolve: (a: RecoveryOut) => void }[];
  /** EVM signatures gathered this tick; they travel packed, apart from the exchange jobs. */
  evmPending: { sig: EvmSignature; resolve: (s: EvmSender | null) => void }[];
  readonly inFlight: Map<number, ((a: RecoveryOut) => void)[]>;
  readonly evmInFlight: Map<number, ((s: EvmSender | null) => void)[]>;
  queued: number;
}

const NONE: RecoveryOut = { address: null };

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
        const lane: Lane = { worker, pending: [], evmPending: [], inFlight: new Map(), evmInFlight: new Map(), queued: 0 };
        worker.on('message', (msg: { seq: number; out: RecoveryOut[] } | { seq: number; evm: Uint8Array }) => {
          if ('evm' in msg) {
            const evmResolvers = lane.evmInFlight.get(msg.seq);
            if (evmResolvers === undefined) return;
            lane.evmInFlight.delete(msg.seq);
            lane.queued -= evmResolvers.length;
            evmResolvers.forEach((r, i) => r(readEvmSender(msg.evm, i)));
            return;
          }
          const resolvers = lane.inFlight.get(msg.seq);
          if (resolvers === undefined) return;
          lane.inFlight.delete(msg.seq);
          lane.queued -= resolvers.length;
          resolvers.forEach((r, i) => r(msg.out[i] ?? NONE));
        });
        return lane;
      }),
    );
    return new WorkerPoolRecovery(lanes);
  }

  async recover(req: SignedFields, binding: Binding): Promise<string | null> {
    return (await this.submit(req, binding, false)).address;
  }

  recoverAndEncode(req: SignedFields): Promise<RecoveryOut> {
    return this.submit(req, 'action', true);
  }

  recoverEvm(sig: EvmSignature): Promise<EvmSender | null> {
    return new Promise((resolve) => {
      const lane = this.leastBusy();
      lane.evmPending.push({ sig, resolve });
      if (lane.evmPending.length >= MAX_BATCH) this.flush(lane);
      else this.scheduleFlush();
    });
  }

  /** The lane with the least work queued. */
  private leastBusy(): Lane {
    let lane = this.lanes[0] as Lane;
    const load = (l: Lane) => l.queued + l.pending.length + l.evmPending.length;
    for (const l of this.lanes) if (load(l) < load(lane)) lane = l;
    return lane;
  }

  /** Everything gathered this tick leaves at the next check phase. */
  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      for (const l of this.lanes) this.flush(l);
    });
  }

  private submit(req: SignedFields, binding: Binding, encode: boolean): Promise<RecoveryOut> {
    return this.enqueue({ req: { action: req.action, nonce: req.nonce, vaultAddress: req.vaultAddress, signature: req.signature }, binding, encode });
  }

  private enqueue(job: RecoveryJob): Promise<RecoveryOut> {
    return new Promise((resolve) => {
      const lane = this.leastBusy();
      lane.pending.push({ job, resolve });
      if (lane.pending.length >= MAX_BATCH) this.flush(lane);
      else this.scheduleFlush();
    });
  }

  private flush(lane: Lane): void {
    if (lane.evmPending.length > 0) {
      const evm = lane.evmPending;
      lane.evmPending = [];
      const seq = this.seq++;
      lane.evmInFlight.set(seq, evm.map((p) => p.resolve));
      lane.queued += evm.length;
      const packed = packEvmJobs(evm.map((p) => p.sig));
      lane.worker.postMessage({ seq, evm: packed }, [packed.buffer as ArrayBuffer]);
    }
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
      for (const resolvers of lane.inFlight.values()) for (const r of resolvers) r(NONE);
      for (const resolvers of lane.evmInFlight.values()) for (const r of resolvers) r(null);
      for (const p of lane.pending) p.resolve(NONE);
      for (const p of lane.evmPending) p.resolve(null);
    }
    await Promise.all(this.lanes.map((l) => l.worker.terminate()));
  }
}
