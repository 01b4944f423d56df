// Signer recovery off the event loop: a pool of worker threads, each taking batches (requests
// that arrive in the same tick travel together, which keeps messaging cheap under load). A tick's
// lone job while every worker is idle runs on the event loop instead (a worker's wake-up costs
// more than the recovery; see runLoneInline). The
// inline recovery is the same computation on the calling thread, for small setups and as the
// fallback when workers cannot start. An action travels as its canonical text's UTF-8 bytes
// (submit), and a batch's common jobs and their answers packed in one buffer each way
// (signer-wire.ts), as EVM signatures do.
import { Worker } from 'node:worker_threads';
import { canonicalBytesTo, count, digestBytes, nameThread, timed, type DigestName } from '../primitives/index.ts';
import type { AuthConfig, Binding, SignedFields } from '../exchange/index.ts';
import { packEvmJobs, readEvmSender, recoverEvmSender, type EvmSender, type EvmSignature } from './evm-signature.ts';
import { runJob, type RecoveryJob, type RecoveryOut } from './signer-worker.ts';
import { isPackable, packJobs, unpackOuts, type PackableJob } from './signer-wire.ts';
import { threadEntry } from './thread-bundle.js';

export type { RecoveryOut } from './signer-worker.ts';

export interface SignerRecovery {
  /** The address the request's signature recovers to under `binding`, or null. */
  recover(req: SignedFields, binding: Binding): Promise<string | null>;
  /**
   * The action binding's address, with the transaction's bytes and hash computed alongside.
   * `guess` tells where the request came from (SignerGuess): the pool may have the worker verify
   * a guessed signer instead of recovering one (a guess never changes the answer).
   */
  recoverAndEncode(req: SignedFields, guess?: SignerGuess): Promise<RecoveryOut>;
  /** The public key and address that signed an EVM transaction, or null. */
  recoverEvm(sig: EvmSignature): Promise<EvmSender | null>;
  /** A block transaction's (bytes) signer candidates under every allowed binding, in order. */
  candidates(tx: Uint8Array): Promise<string[]>;
  /**
   * `digest` of `bytes`, on a worker when there is one (the event loop does other work meanwhile):
   * for inputs large enough to pay for the trip, such as a busy block's app hash. A view of shared
   * memory is read in place, not copied; the caller leaves it unchanged until the answer.
   */
  digest(bytes: Uint8Array, digest: DigestName): Promise<Uint8Array>;
  /** Jobs waiting or in flight (metrics). */
  queueLength(): number;
  close(): Promise<void>;
}

export class InlineRecovery implements SignerRecovery {
  constructor(private readonly auth: AuthConfig) {}

  async recover(req: SignedFields, binding: Binding): Promise<string | null> {
    return timed('recovery', () => runJob(this.auth, { req, binding, encode: false }).address);
  }

  async recoverAndEncode(req: SignedFields): Promise<RecoveryOut> {
    return timed('recovery', () => runJob(this.auth, { req, binding: 'action', encode: true }));
  }

  async recoverEvm(sig: EvmSignature): Promise<EvmSender | null> {
    return timed('recovery', () => recoverEvmSender(sig));
  }

  async candidates(tx: Uint8Array): Promise<string[]> {
    return timed('recovery', () => runJob(this.auth, { tx }).candidates ?? []);
  }

  async digest(bytes: Uint8Array, digest: DigestName): Promise<Uint8Array> {
    return digestBytes(bytes, digest);
  }

  queueLength(): number {
    return 0; // each job runs when asked
  }

  async close(): Promise<void> {}
}

type PendingJob = { job: RecoveryJob; resolve: (a: RecoveryOut) => void };
type PendingHash = { bytes: Uint8Array; digest: DigestName; resolve: (hash: Uint8Array) => void };
type PendingEvm = { sig: EvmSignature; resolve: (s: EvmSender | null) => void };

interface Lane {
  readonly worker: Worker;
  /** Jobs gathered this tick, and the batches in flight by sequence. */
  pending: PendingJob[];
  /** EVM signatures gathered this tick: they leave with the jobs, packed in their own message. */
  evmPending: PendingEvm[];
  /** Batches with the worker, by sequence, jobs kept: a lost worker's are recovered here. */
  readonly inFlight: Map<number, PendingJob[]>;
  readonly evmInFlight: Map<number, PendingEvm[]>;
  /** Digest inputs with the worker (kept: a lost worker's are hashed here). */
  readonly hashInFlight: Map<number, PendingHash>;
  queued: number;
}

const NONE: RecoveryOut = { address: null };

/** Bytes of the slabs actions' canonical texts are written into (a busy tick's batch is 0.1 to 0.5 MB). */
const SLAB_BYTES = 256 << 10;

/**
 * Actions' canonical texts as UTF-8, written into shared slabs: a job waiting for its worker holds
 * a view, where the string writer's text was a rope of hundreds of pieces that lived (and were
 * promoted by V8) until the worker answered, then was flattened and encoded again to be packed.
 * A slab is freed when the last job viewing it is answered.
 */
class CanonicalSlabs {
  private slab = new Uint8Array(SLAB_BYTES);
  private pos = 0;

  /** The canonical text of `action` as UTF-8 (throws where canonicalize does). */
  write(action: unknown): Uint8Array {
    let start = this.pos;
    try {
      canonicalBytesTo(action, (piece) => {
        if (this.pos + piece.length > this.slab.length) {
          // The text so far moves to a fresh slab; the old one lives while its views do.
          const used = this.pos - start;
          const next = new Uint8Array(Math.max(SLAB_BYTES, (used + piece.length) * 2));
          next.set(this.slab.subarray(start, this.pos));
          this.slab = next;
          this.pos = used;
          start = 0;
        }
        this.slab.set(piece, this.pos);
        this.pos += piece.length;
      });
    } catch (err) {
      this.pos = start;
      throw err;
    }
    return this.slab.subarray(start, this.pos);
  }
}

/**
 * A job as sent as an object: a canonical text viewed in a slab is copied (a posted view would
 * clone its whole slab).
 */
function ownedJob(job: RecoveryJob): RecoveryJob {
  return 'req' in job && job.canonical instanceof Uint8Array ? { ...job, canonical: job.canonical.slice() } : job;
}

/**
 * Where a request came from, for guessing its signer: a client's connection (its last signer is
 * the guess), or a peer that gossiped it with the signer it recovered.
 */
export type SignerGuess = { readonly origin: object } | { readonly peer: string; readonly signer: string };

/**
 * What the pool knows of a peer's signer hints: how many in a row were right (checked against
 * what the node recovered, or verified) and how many in a row it takes before the next is used.
 * A wrong one multiplies `need` by four: a peer that hints falsely is soon no longer listened to.
 */
interface PeerHints {
  streak: number;
  need: number;
}

/**
 * What the pool knows of a connection's signers: the last one recovered, how many of its
 * requests in a row that signer signed, and how many in a row it takes before the next request
 * is hinted with it. A wrong hint (or a hinted request that recovers to nobody) fails the
 * worker's batch verification and costs the batch a recovery after it, so each miss multiplies
 * `need` by four (once per change of signer) and each right hint halves it: a client that
 * changes keys often is soon no longer guessed for.
 */
interface OriginSigners {
  last: string | null;
  streak: number;
  need: number;
}

const FIRST_NEED = 2;
const MAX_NEED = 4096;

/** Work a lane holds: in flight and gathered. */
const load = (l: Lane): number => l.queued + l.pending.length + l.evmPending.length;

/** Nothing of the lane's is with its worker. */
const idle = (l: Lane): boolean => l.inFlight.size === 0 && l.evmInFlight.size === 0;

/** Jobs of one tick a lane takes before the next job picks a lane again (the least loaded). */
const SPREAD = 16;

/** Largest batch sent to one worker at once. */
const MAX_BATCH = 256;

/**
 * A signer worker's heap. A job allocates a few KB and keeps nothing, so a small young generation
 * costs only cheap scavenges; V8 grows a young generation towards its limit over minutes of load
 * (48 MB by default, 16 MB here until session 30), which showed as the node's RSS rising for the
 * first minutes of a run at 5,000 actions/s. At 4 MB a worker's heap stays at 14 to 18 MB
 * committed, for about the same time in scavenges (docs/performance.md).
 */
const SIGNER_THREAD_LIMITS = { maxYoungGenerationSizeMb: 4 } as const;

export class WorkerPoolRecovery implements SignerRecovery {
  private lanes: Lane[];
  private readonly slabs = new CanonicalSlabs();
  private seq = 0;
  private closing = false;
  private flushScheduled = false;
  /** The lane this tick's jobs go to (see enqueue). */
  private tickLane: Lane | null = null;

  /** Connections' signers (hints), dropped with the connection objects. */
  private readonly origins = new WeakMap<object, OriginSigners>();
  /** Peers' hints (a handful of validators and full nodes). */
  private readonly peers = new Map<string, PeerHints>();

  private constructor(lanes: Lane[], private readonly auth: AuthConfig) {
    this.lanes = lanes;
  }

  queueLength(): number {
    let n = 0;
    for (const l of this.lanes) n += load(l);
    return n;
  }

  /**
   * Starts `size` workers and waits until each is ready. Aborting `signal` terminates the workers
   * and rejects (a node stopped while its pool was still booting).
   */
  static async start(auth: AuthConfig, size: number, signal?: AbortSignal): Promise<WorkerPoolRecovery> {
    const made: { pool?: WorkerPoolRecovery } = {}; // the answer handlers flush through it
    const workers: Worker[] = [];
    const abort = () => void Promise.all(workers.map((w) => w.terminate()));
    signal?.addEventListener('abort', abort, { once: true });
    const entry = threadEntry('signer-worker', new URL('./signer-worker.ts', import.meta.url), new URL('./signer-worker-entry.js', import.meta.url));
    const lanes = await Promise.all(
      Array.from({ length: size }, async (): Promise<Lane> => {
        const worker = new Worker(entry, { workerData: { auth }, resourceLimits: SIGNER_THREAD_LIMITS });
        workers.push(worker);
        await new Promise<void>((resolve, reject) => {
          worker.once('error', reject);
          worker.once('exit', (code) => reject(new Error(`signer worker exited (${code}) before it was ready`)));
          worker.once('message', (m: { ready: true; tid: number | null }) => {
            nameThread(m.tid, 'signer worker');
            resolve();
          });
        });
        const lane: Lane = { worker, pending: [], evmPending: [], inFlight: new Map(), evmInFlight: new Map(), hashInFlight: new Map(), queued: 0 };
        worker.on('message', (msg: { seq: number; out: RecoveryOut[] } | { seq: number; packed: Uint8Array } | { seq: number; evm: Uint8Array } | { seq: number; hash: Uint8Array }) => {
          if ('hash' in msg) {
            const p = lane.hashInFlight.get(msg.seq);
            lane.hashInFlight.delete(msg.seq);
            p?.resolve(msg.hash);
            return;
          }
          if ('evm' in msg) {
            const batch = lane.evmInFlight.get(msg.seq);
            if (batch === undefined) return;
            lane.evmInFlight.delete(msg.seq);
            lane.queued -= batch.length;
            batch.forEach((p, i) => p.resolve(readEvmSender(msg.evm, i)));
          } else {
            const batch = lane.inFlight.get(msg.seq);
            if (batch === undefined) return;
            lane.inFlight.delete(msg.seq);
            lane.queued -= batch.length;
            const out = 'packed' in msg ? unpackOuts(msg.packed) : msg.out;
            batch.forEach((p, i) => p.resolve(out[i] ?? NONE));
          }
          // What gathered while the worker was busy goes now, as one batch.
          if (idle(lane)) made.pool?.flush(lane);
        });
        // A worker lost after start-up (it threw, or was killed): its work is recovered here.
        worker.on('error', () => made.pool?.lose(lane));
        worker.on('exit', () => made.pool?.lose(lane));
        return lane;
      }),
    ).catch((err: unknown) => {
      abort(); // the workers that did start would keep the process alive
      throw err;
    }).finally(() => signal?.removeEventListener('abort', abort));
    made.pool = new WorkerPoolRecovery(lanes, auth);
    return made.pool;
  }

  async recover(req: SignedFields, binding: Binding): Promise<string | null> {
    return (await this.submit(req, binding, false)).address;
  }

  recoverAndEncode(req: SignedFields, guess?: SignerGuess): Promise<RecoveryOut> {
    if (guess === undefined || req.dialect !== undefined) return this.submit(req, 'action', true);
    if ('peer' in guess) return this.fromPeer(req, guess.peer, guess.signer);
    const origin = guess.origin;
    let signers = this.origins.get(origin);
    if (signers === undefined) this.origins.set(origin, (signers = { last: null, streak: 0, need: FIRST_NEED }));
    const s = signers;
    const hint = s.last !== null && s.streak >= s.need ? s.last : undefined;
    if (hint !== undefined) count('signer hints');
    return this.submit(req, 'action', true, hint).then((out) => {
      if (hint !== undefined) {
        if (out.address === hint) s.need = Math.max(FIRST_NEED, s.need >> 1); // a right guess earns trust back
        // A wrong guess, or a hinted request that recovers to nobody (it failed its batch's check
        // too), costs the connection trust: once per change of signer, not once per request in
        // flight with the old hint.
        else if (s.last === hint) s.need = Math.min(s.need * 4, MAX_NEED);
      }
      if (out.address === null) {
        if (hint !== undefined && s.last === hint) s.last = null; // the next request is not guessed for
        return out;
      }
      if (out.address === s.last) s.streak++;
      else {
        s.last = out.address;
        s.streak = 1;
      }
      return out;
    });
  }

  /** A gossiped request with the signer its peer hinted: used once the peer's hints proved right. */
  private fromPeer(req: SignedFields, peer: string, signer: string): Promise<RecoveryOut> {
    let p = this.peers.get(peer);
    if (p === undefined) this.peers.set(peer, (p = { streak: 0, need: FIRST_NEED }));
    const h = p;
    const used = h.streak >= h.need;
    if (used) count('signer hints');
    return this.submit(req, 'action', true, used ? signer : undefined).then((out) => {
      if (out.address === signer) h.streak++;
      else {
        h.streak = 0;
        h.need = Math.min(h.need * 4, MAX_NEED);
      }
      return out;
    });
  }

  recoverEvm(sig: EvmSignature): Promise<EvmSender | null> {
    return new Promise((resolve) => {
      const lane = this.laneForTick();
      if (lane === null) return resolve(timed('recovery', () => recoverEvmSender(sig)));
      lane.evmPending.push({ sig, resolve });
      this.gathered(lane, lane.evmPending.length);
    });
  }

  async candidates(tx: Uint8Array): Promise<string[]> {
    // postMessage clones a view's whole ArrayBuffer: a transaction inside a decoded block (or a
    // network frame) would copy all of it, once per transaction. A copy of just its bytes travels
    // (new Uint8Array copies; a Buffer's slice would be a view again).
    const own = tx.byteLength === tx.buffer.byteLength ? tx : new Uint8Array(tx);
    return (await this.enqueue({ tx: own })).candidates ?? [];
  }

  private submit(req: SignedFields, binding: Binding, encode: boolean, hint?: string): Promise<RecoveryOut> {
    if (req.dialect !== undefined) {
      const own: SignedFields = { action: req.action, nonce: req.nonce, vaultAddress: req.vaultAddress, signature: req.signature, dialect: req.dialect, expiresAfter: req.expiresAfter ?? null };
      return this.enqueue({ req: own, binding, encode });
    }
    const own: SignedFields = { action: undefined, nonce: req.nonce, vaultAddress: req.vaultAddress, signature: req.signature };
    // The literal binding reads no action: none travels.
    if (binding !== 'action' && !encode) return this.enqueue({ req: own, binding, encode });
    // Otherwise the action travels as its canonical text, which the worker would compute first.
    let canonical: Uint8Array;
    try {
      canonical = this.slabs.write(req.action);
    } catch {
      return Promise.resolve(NONE); // what runJob answers for an action it cannot canonicalize
    }
    return this.enqueue(hint === undefined ? { req: own, binding, encode, canonical } : { req: own, binding, encode, canonical, hint });
  }

  private enqueue(job: RecoveryJob): Promise<RecoveryOut> {
    return new Promise((resolve) => {
      const lane = this.laneForTick();
      if (lane === null) return resolve(timed('recovery', () => runJob(this.auth, job)));
      lane.pending.push({ job, resolve });
      this.gathered(lane, lane.pending.length);
    });
  }

  // A tick's jobs go to one lane, the one with the least work queued when the tick's first job
  // came: one message (one thread wake-up) per tick, not one per lane. A full batch moves on.
  // A lane sends while its worker is idle; a busy one sends what gathered when it answers.
  private laneForTick(): Lane | null {
    if (this.tickLane !== null) return this.tickLane;
    let lane = this.lanes[0];
    if (lane === undefined) return null; // every worker was lost
    for (const l of this.lanes) if (load(l) < load(lane)) lane = l;
    this.tickLane = lane;
    return lane;
  }

  /** After a lane's queue (of one kind) grew to `size`. */
  private gathered(lane: Lane, size: number): void {
    if (size % SPREAD === 0) this.tickLane = null; // a burst (a block's transactions) spreads over the lanes
    if (size >= MAX_BATCH) {
      this.flush(lane);
      this.tickLane = null;
    } else if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => {
        this.flushScheduled = false;
        this.tickLane = null;
        if (this.runLoneInline()) return;
        // A busy worker's jobs wait for its answer and then go together (fewer thread wake-ups under load).
        for (const l of this.lanes) if (idle(l)) this.flush(l);
      });
    }
  }

  /**
   * A tick that gathered a single job while every worker is idle recovers it here. On this
   * project's machines a worker round trip costs about 0.3 ms of CPU in thread wake-ups (the
   * worker's and the event loop's), three times the recovery itself (docs/performance.md); when
   * a tick has more than one job, or a worker is busy (load), recovery stays on the workers.
   */
  private runLoneInline(): boolean {
    let lone: Lane | null = null;
    for (const l of this.lanes) {
      if (!idle(l)) return false;
      const n = l.pending.length + l.evmPending.length;
      if (n === 0) continue;
      if (n > 1 || lone !== null) return false;
      lone = l;
    }
    if (lone === null) return false;
    count('signer jobs inline');
    const job = lone.pending.pop();
    if (job !== undefined) job.resolve(timed('recovery', () => runJob(this.auth, job.job)));
    const evm = lone.evmPending.pop();
    if (evm !== undefined) evm.resolve(timed('recovery', () => recoverEvmSender(evm.sig)));
    return true;
  }

  private flush(lane: Lane): void {
    if (lane.evmPending.length > 0) {
      const evm = lane.evmPending;
      lane.evmPending = [];
      const seq = this.seq++;
      lane.evmInFlight.set(seq, evm);
      lane.queued += evm.length;
      const packed = packEvmJobs(evm.map((p) => p.sig));
      lane.worker.postMessage({ seq, evm: packed }, [packed.buffer as ArrayBuffer]);
    }
    if (lane.pending.length === 0) return;
    const batch = lane.pending;
    lane.pending = [];
    count('signer batches');
    count('signer jobs', batch.length);
    // The common jobs go packed in one buffer (signer-wire.ts), the rest as objects.
    let packed: PendingJob[] = [];
    const objects: PendingJob[] = [];
    for (const p of batch) (isPackable(p.job) ? packed : objects).push(p);
    lane.queued += batch.length;
    if (packed.length > 0) {
      let bytes: Uint8Array | null = null;
      try {
        bytes = packJobs(packed.map((p) => p.job as PackableJob));
      } catch {
        // Never expected (isPackable checked every field): these jobs go as objects instead.
        objects.push(...packed);
        packed = [];
      }
      if (bytes !== null) {
        const seq = this.seq++;
        lane.inFlight.set(seq, packed);
        lane.worker.postMessage({ seq, packed: bytes }, [bytes.buffer as ArrayBuffer]);
      }
    }
    if (objects.length > 0) {
      const seq = this.seq++;
      lane.inFlight.set(seq, objects);
      lane.worker.postMessage({ seq, jobs: objects.map((p) => ownedJob(p.job)) });
    }
  }

  /**
   * A lane whose worker was lost: it leaves the pool, and its jobs, in flight or gathered, are
   * recovered on this thread (an answer of no address would refuse valid requests). With every
   * worker lost, recovery stays here. Once per lane.
   */
  private lose(lane: Lane): void {
    if (this.closing || !this.lanes.includes(lane)) return;
    this.lanes = this.lanes.filter((l) => l !== lane);
    if (this.tickLane === lane) this.tickLane = null;
    count('signer workers lost');
    const jobs = [...[...lane.inFlight.values()].flat(), ...lane.pending];
    const evm = [...[...lane.evmInFlight.values()].flat(), ...lane.evmPending];
    const hashes = [...lane.hashInFlight.values()];
    lane.hashInFlight.clear();
    for (const { bytes, digest, resolve } of hashes) resolve(digestBytes(bytes, digest));
    lane.inFlight.clear();
    lane.evmInFlight.clear();
    lane.pending = [];
    lane.evmPending = [];
    lane.queued = 0;
    for (const { job, resolve } of jobs) resolve(timed('recovery', () => runJob(this.auth, job)));
    for (const { sig, resolve } of evm) resolve(timed('recovery', () => recoverEvmSender(sig)));
  }

  digest(bytes: Uint8Array, digest: DigestName): Promise<Uint8Array> {
    let lane: Lane | undefined;
    for (const l of this.lanes) if (lane === undefined || l.queued + l.hashInFlight.size < lane.queued + lane.hashInFlight.size) lane = l;
    if (lane === undefined || this.closing) return Promise.resolve(digestBytes(bytes, digest));
    const seq = this.seq++;
    const to = lane;
    // Shared memory travels as itself; other bytes are cloned, not transferred: a lost worker's
    // input is hashed here.
    return new Promise((resolve) => {
      to.hashInFlight.set(seq, { bytes, digest, resolve });
      to.worker.postMessage({ seq, digest, bytes });
    });
  }

  /** Workers serving (fewer than started once one is lost). */
  get workers(): number {
    return this.lanes.length;
  }

  /** Tests: ends a worker as a crash would (its work is recovered here). */
  async crashWorker(i: number): Promise<void> {
    await this.lanes[i]?.worker.terminate();
  }

  async close(): Promise<void> {
    this.closing = true;
    for (const lane of this.lanes) {
      for (const b of lane.inFlight.values()) for (const p of b) p.resolve(NONE);
      for (const b of lane.evmInFlight.values()) for (const p of b) p.resolve(null);
      for (const p of lane.pending) p.resolve(NONE);
      for (const p of lane.evmPending) p.resolve(null);
      for (const p of lane.hashInFlight.values()) p.resolve(digestBytes(p.bytes, p.digest));
    }
    await Promise.all(this.lanes.map((l) => l.worker.terminate()));
  }
}

/**
 * The pool once its workers are ready, inline recovery until then: the node serves without
 * waiting for the workers to boot (each loads the sources again, about a second of CPU), and a
 * pool that cannot start leaves the node on inline recovery for good (`onFail` says so).
 */
export class BackgroundPoolRecovery implements SignerRecovery {
  private current: SignerRecovery;
  private readonly starting: Promise<void>;
  private readonly abort = new AbortController();

  constructor(auth: AuthConfig, size: number, onFail: (err: Error) => void) {
    this.current = new InlineRecovery(auth);
    this.starting = WorkerPoolRecovery.start(auth, size, this.abort.signal).then(
      (pool) => {
        if (this.abort.signal.aborted) return pool.close();
        this.current = pool;
      },
      (err: Error) => {
        if (!this.abort.signal.aborted) onFail(err);
      },
    );
  }

  /** Settles once the pool serves, or once recovery stays inline. */
  ready(): Promise<void> {
    return this.starting;
  }

  /** Whether the workers serve (false while they boot, or when they could not start). */
  get pooled(): boolean {
    return this.current instanceof WorkerPoolRecovery;
  }

  recover(req: SignedFields, binding: Binding): Promise<string | null> {
    return this.current.recover(req, binding);
  }

  recoverAndEncode(req: SignedFields, guess?: SignerGuess): Promise<RecoveryOut> {
    return this.current.recoverAndEncode(req, guess);
  }

  recoverEvm(sig: EvmSignature): Promise<EvmSender | null> {
    return this.current.recoverEvm(sig);
  }

  candidates(tx: Uint8Array): Promise<string[]> {
    return this.current.candidates(tx);
  }

  digest(bytes: Uint8Array, digest: DigestName): Promise<Uint8Array> {
    return this.current.digest(bytes, digest);
  }

  queueLength(): number {
    return this.current.queueLength();
  }

  async close(): Promise<void> {
    this.abort.abort();
    await this.starting;
    await this.current.close();
  }
}
