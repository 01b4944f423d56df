// Signer recovery off the event loop: a pool of worker threads, each taking batches (requests
// that arrive in the same tick travel together, which keeps messaging cheap under load). The
// inline recovery is the same computation on the calling thread, for small setups and as the
// fallback when workers cannot start.
import { Worker } from 'node:worker_threads';
import type { AuthConfig, Binding, SignedFields } from '../exchange/index.ts';
import type { EvmSignature } from './evm-signature.ts';
import { runJob, type RecoveryJob, type RecoveryOut } from './signer-worker.ts';

export type { RecoveryOut } from './signer-worker.ts';

export interface SignerRecovery {
  /** The address the request's signature recovers to under `binding`, or null. */
  recover(req: SignedFields, binding: Binding): Promise<string | null>;
  /** The action binding's address, with the transaction's bytes and hash computed alongside. */
  recoverAndEncode(req: SignedFields): Promise<RecoveryOut>;
  /** The 64-byte public key (hex) that signed an EVM transaction, or null. */
  recoverEvm(sig: EvmSignature): Promise<string | null>;
  /** A block transaction's (bytes) signer candidates under every allowed binding, in order. */
  candidates(tx: Uint8Array): Promise<string[]>;
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

  async recoverEvm(sig: EvmSignature): Promise<string | null> {
    return runJob(this.auth, { evm: sig }).address;
  }

  async candidates(tx: Uint8Array): Promise<string[]> {
    return runJob(this.auth, { tx }).candidates ?? [];
  }

  async close(): Promise<void> {}
}

interface Lane {
  readonly worker: Worker;
  /** Jobs gathered this tick, and the batches in flight by sequence. */
  pending: { job: RecoveryJob; resolve: (a: RecoveryOut) => void }[];
  readonly inFlight: Map<number, ((a: RecoveryOut) => void)[]>;
  queued: number;
}

const NONE: RecoveryOut = { address: null };

/** Jobs of one tick a lane takes before the next job picks a lane again (the least loaded). */
const SPREAD = 16;

/** Largest batch sent to one worker at once. */
const MAX_BATCH = 256;

export class WorkerPoolRecovery implements SignerRecovery {
  private readonly lanes: Lane[];
  private seq = 0;
  private flushScheduled = false;
  /** The lane this tick's jobs go to (see enqueue). */
  private tickLane: Lane | null = null;

  private constructor(lanes: Lane[]) {
    this.lanes = lanes;
  }

  /** Starts `size` workers and waits until each is ready. */
  static async start(auth: AuthConfig, size: number): Promise<WorkerPoolRecovery> {
    const made: { pool?: WorkerPoolRecovery } = {}; // the answer handlers flush through it
    const lanes = await Promise.all(
      Array.from({ length: size }, async () => {
        const worker = new Worker(new URL('./signer-worker-entry.js', import.meta.url), { workerData: { auth } });
        await new Promise<void>((resolve, reject) => {
          worker.once('error', reject);
          worker.once('message', () => resolve());
        });
        const lane: Lane = { worker, pending: [], inFlight: new Map(), queued: 0 };
        worker.on('message', (msg: { seq: number; out: RecoveryOut[] }) => {
          const resolvers = lane.inFlight.get(msg.seq);
          if (resolvers === undefined) return;
          lane.inFlight.delete(msg.seq);
          lane.queued -= resolvers.length;
          resolvers.forEach((r, i) => r(msg.out[i] ?? NONE));
          // What gathered while the worker was busy goes now, as one batch.
          if (lane.inFlight.size === 0) made.pool?.flush(lane);
        });
        return lane;
      }),
    );
    made.pool = new WorkerPoolRecovery(lanes);
    return made.pool;
  }

  async recover(req: SignedFields, binding: Binding): Promise<string | null> {
    return (await this.submit(req, binding, false)).address;
  }

  recoverAndEncode(req: SignedFields): Promise<RecoveryOut> {
    return this.submit(req, 'action', true);
  }

  async recoverEvm(sig: EvmSignature): Promise<string | null> {
    return (await this.enqueue({ evm: { digest: sig.digest, r: sig.r, s: sig.s, recovery: sig.recovery } })).address;
  }

  async candidates(tx: Uint8Array): Promise<string[]> {
    return (await this.enqueue({ tx })).candidates ?? [];
  }

  private submit(req: SignedFields, binding: Binding, encode: boolean): Promise<RecoveryOut> {
    return this.enqueue({ req: { action: req.action, nonce: req.nonce, vaultAddress: req.vaultAddress, signature: req.signature }, binding, encode });
  }

  private enqueue(job: RecoveryJob): Promise<RecoveryOut> {
    return new Promise((resolve) => {
      // A tick's jobs go to one lane, the one with the least work queued when the tick's first job
      // came: one message (one thread wake-up) per tick, not one per lane. A full batch moves on.
      // A lane sends while its worker is idle; a busy one sends what gathered when it answers.
      let lane = this.tickLane;
      if (lane === null) {
        lane = this.lanes[0] as Lane;
        for (const l of this.lanes) if (l.queued + l.pending.length < lane.queued + lane.pending.length) lane = l;
        this.tickLane = lane;
      }
      lane.pending.push({ job, resolve });
      if (lane.pending.length % SPREAD === 0) this.tickLane = null; // a burst (a block's transactions) spreads over the lanes
      if (lane.pending.length >= MAX_BATCH) {
        this.flush(lane);
        this.tickLane = null;
      } else if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => {
          this.flushScheduled = false;
          this.tickLane = null;
          // A busy worker's jobs wait for its answer and then go together (fewer thread wake-ups under load).
          for (const l of this.lanes) if (l.inFlight.size === 0) this.flush(l);
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
      for (const resolvers of lane.inFlight.values()) for (const r of resolvers) r(NONE);
      for (const p of lane.pending) p.resolve(NONE);
    }
    await Promise.all(this.lanes.map((l) => l.worker.terminate()));
  }
}
