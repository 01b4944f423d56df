// One node's consensus runtime around the pure driver: verifies incoming messages, logs every
// input to the WAL before processing it, flushes the WAL before anything it signs leaves (the
// guard's record of a signature is durable before the signature exists outside the guard),
// signs through the double-sign guard, buffers messages of future heights, rebroadcasts its own
// messages on a tick and serves decided heights to peers that are behind. Synchronous: the same
// code runs against a simulated network and clock in tests and against libp2p and timers in a node.
import { verifyCertificate, type CommitCertificate } from './certificate.ts';
import { Driver, type DriverInput, type Effect, type Timeout, type TimeoutConfig } from './driver.ts';
import type { Evidence } from './evidence.ts';
import { SIGN_STEP, type SignGuard } from './sign-guard.ts';
import { proposalSignBytes, verifyProposal, verifyVote, voteSignBytes } from './signing.ts';
import type { SignedProposal, SignedVote, ValidatorSet, ValueId } from './types.ts';
import type { Wal } from './wal.ts';

export type ConsensusMessage =
  | { readonly kind: 'proposal'; readonly proposal: SignedProposal; readonly payload: Uint8Array }
  | { readonly kind: 'vote'; readonly vote: SignedVote }
  /** The sender is at this height (it has decided everything below). */
  | { readonly kind: 'status'; readonly height: number }
  /** A decided value with its commit certificate: block sync. */
  | { readonly kind: 'decided'; readonly payload: Uint8Array; readonly certificate: CommitCertificate };

export interface Decision {
  readonly height: number;
  readonly round: number;
  readonly valueId: ValueId;
  readonly payload: Uint8Array;
  readonly certificate: CommitCertificate;
}

/** What the replica needs from its node; declared here, supplied by the node or the simulator. */
export interface ReplicaHost {
  validatorSet(height: number): ValidatorSet;
  /** Decodes a proposed value: its id, and valid(v) for the current height; null if it does not decode. */
  checkValue(height: number, payload: Uint8Array): { valueId: ValueId; valid: boolean } | null;
  /** Build a value for (height, round) and hand it to `Replica.proposeValue` (now or later). */
  requestValue(height: number, round: number): void;
  /** Execute and store a decided value, then call `Replica.startHeight(height + 1)`. */
  decided(decision: Decision): void;
  /**
   * A peer is behind: send it `decided` messages for heights `from` to `to` from the block store
   * (now or later; the store may be asynchronous).
   */
  serveSync(peer: string, from: number, to: number): void;
  scheduleTimeout(timeout: Timeout, durationMs: number): void;
  broadcast(msg: ConsensusMessage): void;
  send(peer: string, msg: ConsensusMessage): void;
  evidence(e: Evidence): void;
}

export interface ReplicaOptions {
  readonly chainId: number;
  /** null for a full node: it follows and decides but never signs. */
  readonly guard: SignGuard | null;
  readonly wal: Wal;
  readonly timeouts: TimeoutConfig;
  /** Decided heights sent to a peer per status message. */
  readonly syncBatch?: number;
  /** Messages held for future heights at most. */
  readonly futureLimit?: number;
  /** How many heights ahead messages are held. */
  readonly futureHeights?: number;
}

export class Replica {
  readonly driver: Driver;
  private readonly queue: { input: DriverInput; logged: boolean }[] = [];
  private processing = false;
  private started = false;
  /** Signatures of messages already taken in at this height (gossip delivers duplicates). */
  private seen = new Set<string>();
  /** Own signed messages of this height, rebroadcast on tick. */
  private own: ConsensusMessage[] = [];
  private future: { height: number; from: string; msg: ConsensusMessage }[] = [];
  /** The height each peer last announced (bounded by the number of peers that talk to us). */
  private readonly peerHeights = new Map<string, number>();
  private readonly syncBatch: number;
  private readonly futureLimit: number;
  private readonly futureHeights: number;

  constructor(
    private readonly host: ReplicaHost,
    private readonly opts: ReplicaOptions,
  ) {
    this.driver = new Driver(opts.guard?.publicKey ?? null, opts.timeouts);
    this.syncBatch = opts.syncBatch ?? 32;
    this.futureLimit = opts.futureLimit ?? 10_000;
    this.futureHeights = opts.futureHeights ?? 64;
  }

  get height(): number {
    return this.driver.height;
  }

  /**
   * Starts at `height` (the application's head + 1). If the WAL belongs to this height, its
   * inputs are replayed first: the node resumes the round and step it was at.
   */
  start(height: number): void {
    const log = this.opts.wal.load();
    this.started = true;
    if (log === null || log.height !== height) {
      this.beginHeight(height);
      return;
    }
    this.resetHeightState();
    this.handle(this.driver.startHeight(height, this.host.validatorSet(height)));
    for (const input of log.entries) {
      if (input.kind === 'vote') this.seen.add(input.vote.signature);
      if (input.kind === 'proposal') this.seen.add(input.proposal.signature);
      this.enqueue(input, true);
    }
    this.host.broadcast({ kind: 'status', height });
  }

  /**
   * The host has executed and stored height - 1 (an empty block without sync: a power loss may
   * still take it, and the WAL keeps that height's inputs until this one signs).
   */
  startHeight(height: number): void {
    if (height !== this.driver.height + 1) throw new Error(`invariant: start height ${height} after ${this.driver.height}`);
    this.beginHeight(height);
  }

  private beginHeight(height: number): void {
    this.opts.wal.reset(height);
    this.resetHeightState();
    this.handle(this.driver.startHeight(height, this.host.validatorSet(height)));
    this.host.broadcast({ kind: 'status', height });
    const ready = this.future.filter((f) => f.height === height);
    this.future = this.future.filter((f) => f.height > height);
    for (const f of ready) this.receive(f.from, f.msg);
  }

  private resetHeightState(): void {
    this.seen = new Set();
    this.own = [];
  }

  receive(from: string, msg: ConsensusMessage): void {
    if (!this.started) return;
    switch (msg.kind) {
      case 'status': return this.onStatus(from, msg.height);
      case 'decided': return this.onDecided(from, msg);
      case 'vote': return this.onVote(from, msg);
      case 'proposal': return this.onProposal(from, msg);
    }
  }

  timeoutElapsed(timeout: Timeout): void {
    if (timeout.height === this.driver.height) this.enqueue({ kind: 'timeout', timeout }, false);
  }

  /**
   * The value asked for by `requestValue`. False when it fails our own checks (a clock far behind
   * the parent's time, say): it is not proposed, and the round moves on by timeout.
   */
  proposeValue(height: number, round: number, payload: Uint8Array): boolean {
    if (height !== this.driver.height) return true;
    const checked = this.host.checkValue(height, payload);
    if (checked === null || !checked.valid) return false;
    this.enqueue({ kind: 'proposeValue', height, round, valueId: checked.valueId, payload }, false);
    return true;
  }

  /**
   * Rebroadcast own votes of this height (all rounds: a re-proposal needs its old polka) and own
   * proposal of the current round only (blocks are large), and announce the height: liveness
   * under message loss without reliable delivery.
   */
  tick(): void {
    if (!this.started) return;
    for (const m of this.own) {
      if (m.kind === 'proposal' && m.proposal.message.round !== this.driver.round) continue;
      this.host.broadcast(m);
    }
    this.host.broadcast({ kind: 'status', height: this.driver.height });
  }

  /** The highest height a peer has announced (0 before any): how far block sync has to go. */
  bestPeerHeight(): number {
    let best = 0;
    for (const h of this.peerHeights.values()) best = Math.max(best, h);
    return best;
  }

  private onStatus(from: string, peerHeight: number): void {
    if (!Number.isSafeInteger(peerHeight) || peerHeight < 1) return;
    this.peerHeights.set(from, peerHeight);
    if (peerHeight >= this.driver.height) return;
    this.host.serveSync(from, peerHeight, Math.min(this.driver.height - 1, peerHeight + this.syncBatch - 1));
  }

  private onDecided(from: string, msg: ConsensusMessage & { kind: 'decided' }): void {
    const h = msg.certificate.height;
    if (h > this.driver.height) return this.hold(h, from, msg);
    if (h !== this.driver.height || this.driver.state.decision !== null) return;
    if (verifyCertificate(this.opts.chainId, msg.certificate, this.host.validatorSet(h)) !== null) return;
    const checked = this.host.checkValue(h, msg.payload);
    if (checked === null || checked.valueId !== msg.certificate.valueId) return;
    this.enqueue({ kind: 'certificate', certificate: msg.certificate, payload: msg.payload }, false);
  }

  private onVote(from: string, msg: ConsensusMessage & { kind: 'vote' }): void {
    const v = msg.vote.message;
    if (v.height > this.driver.height) return this.hold(v.height, from, msg);
    if (v.height !== this.driver.height || this.seen.has(msg.vote.signature)) return;
    if (!this.host.validatorSet(v.height).has(v.validator) || !verifyVote(this.opts.chainId, msg.vote)) return;
    this.seen.add(msg.vote.signature);
    this.enqueue({ kind: 'vote', vote: msg.vote }, false);
  }

  private onProposal(from: string, msg: ConsensusMessage & { kind: 'proposal' }): void {
    const p = msg.proposal.message;
    if (p.height > this.driver.height) return this.hold(p.height, from, msg);
    if (p.height !== this.driver.height || this.seen.has(msg.proposal.signature)) return;
    if (this.host.validatorSet(p.height).proposer(p.height, p.round) !== p.proposer) return;
    if (!verifyProposal(this.opts.chainId, msg.proposal)) return;
    const checked = this.host.checkValue(p.height, msg.payload);
    if (checked === null || checked.valueId !== p.valueId) return; // the payload is not what was signed
    this.seen.add(msg.proposal.signature);
    this.enqueue({ kind: 'proposal', proposal: msg.proposal, payload: msg.payload, valid: checked.valid }, false);
  }

  private hold(height: number, from: string, msg: ConsensusMessage): void {
    if (height > this.driver.height + this.futureHeights || this.future.length >= this.futureLimit) return;
    this.future.push({ height, from, msg });
  }

  /** `logged`: the input comes from the WAL (replay) and is not appended again. */
  private enqueue(input: DriverInput, logged: boolean): void {
    this.queue.push({ input, logged });
    if (this.processing) return;
    this.processing = true;
    try {
      for (let next = this.queue.shift(); next !== undefined; next = this.queue.shift()) {
        if (!next.logged) this.opts.wal.append(next.input);
        this.handle(this.driver.step(next.input));
      }
    } finally {
      this.processing = false;
    }
  }

  private handle(effects: Effect[]): void {
    for (const e of effects) {
      switch (e.kind) {
        case 'startRound': break;
        case 'getValue': this.host.requestValue(e.height, e.round); break;
        case 'scheduleTimeout': this.host.scheduleTimeout(e.timeout, e.durationMs); break;
        case 'evidence': this.host.evidence(e.evidence); break;
        case 'signProposal': {
          const guard = this.opts.guard;
          if (guard === null) break;
          const signature = guard.sign(e.proposal.height, e.proposal.round, SIGN_STEP.proposal, proposalSignBytes(this.opts.chainId, e.proposal));
          if (signature === null) break; // signed something else here before a restart; the log holds it
          this.opts.wal.flush(); // before it leaves (a guard in the WAL flushed it with its record already)
          const msg: ConsensusMessage = { kind: 'proposal', proposal: { message: e.proposal, signature }, payload: e.payload };
          this.own.push(msg);
          this.seen.add(signature);
          this.host.broadcast(msg);
          this.enqueue({ kind: 'proposal', proposal: msg.proposal, payload: e.payload, valid: true }, false);
          break;
        }
        case 'signVote': {
          const guard = this.opts.guard;
          if (guard === null) break;
          const signature = guard.sign(e.vote.height, e.vote.round, SIGN_STEP[e.vote.type], voteSignBytes(this.opts.chainId, e.vote));
          if (signature === null) break;
          this.opts.wal.flush();
          const vote: SignedVote = { message: e.vote, signature };
          const msg: ConsensusMessage = { kind: 'vote', vote };
          this.own.push(msg);
          this.seen.add(signature);
          this.host.broadcast(msg);
          this.enqueue({ kind: 'vote', vote }, false);
          break;
        }
        case 'decide':
          // No flush: a crash before the host's block is durable replays this height's logged
          // inputs (kept until the next height signs), and the votes that decided it come again
          // from the peers (their rebroadcast, or block sync).
          this.host.decided({ height: e.height, round: e.round, valueId: e.valueId, payload: e.payload, certificate: e.certificate });
          break;
      }
    }
  }
}
