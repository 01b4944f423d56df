// The driver of one node across rounds and heights: it keeps the votes (VoteKeeper) and the
// proposals of the current height, turns single messages into the paper's compound upon-rules
// and feeds them to the round state machine, and turns the machine's outputs into effects for
// the host. Pure and synchronous: the host verifies signatures before inputs arrive and performs
// the effects (sign, publish, schedule, execute) after.
//
// Where the paper leaves the order of enabled rules open, the driver fixes it, so that the same
// inputs always give the same effects (what WAL replay relies on): decide (L49) first, then
// round skip (L55), then the rules of the current round in the paper's order.
import { certificateFromVotes, type CommitCertificate } from './certificate.ts';
import type { Evidence } from './evidence.ts';
import { applyRound, initialRoundState, type RoundInput, type RoundState, type TimeoutStep } from './round-state.ts';
import type { Proposal, SignedProposal, SignedVote, ValidatorSet, ValueId, Vote } from './types.ts';
import { VoteKeeper, type Threshold } from './vote-keeper.ts';

export interface TimeoutConfig {
  /** timeoutPropose(r) = proposeMs + r x proposeDeltaMs, and so on: timeouts grow per round. */
  readonly proposeMs: number;
  readonly proposeDeltaMs: number;
  readonly prevoteMs: number;
  readonly prevoteDeltaMs: number;
  readonly precommitMs: number;
  readonly precommitDeltaMs: number;
}

/** CometBFT's defaults for propose; timeoutPropose(0) must exceed the empty-block cadence (1 s). */
export const DEFAULT_TIMEOUTS: TimeoutConfig = {
  proposeMs: 3000, proposeDeltaMs: 500, prevoteMs: 500, prevoteDeltaMs: 500, precommitMs: 500, precommitDeltaMs: 500,
};

export function timeoutDuration(cfg: TimeoutConfig, step: TimeoutStep, round: number): number {
  switch (step) {
    case 'propose': return cfg.proposeMs + round * cfg.proposeDeltaMs;
    case 'prevote': return cfg.prevoteMs + round * cfg.prevoteDeltaMs;
    case 'precommit': return cfg.precommitMs + round * cfg.precommitDeltaMs;
  }
}

export interface Timeout {
  readonly step: TimeoutStep;
  readonly height: number;
  readonly round: number;
}

/** Messages of rounds further ahead than this are ignored: it bounds what a faulty validator can make us store. */
export const MAX_ROUND_LOOKAHEAD = 1000;

export type DriverInput =
  | { readonly kind: 'vote'; readonly vote: SignedVote }
  /** A proposal and its value; `valid` is the application's verdict on the value (valid(v)). */
  | { readonly kind: 'proposal'; readonly proposal: SignedProposal; readonly payload: Uint8Array; readonly valid: boolean }
  /** The value getValue asked for. */
  | { readonly kind: 'proposeValue'; readonly height: number; readonly round: number; readonly valueId: ValueId; readonly payload: Uint8Array }
  | { readonly kind: 'timeout'; readonly timeout: Timeout }
  /** A commit certificate the host has verified, with the value it certifies (block sync). */
  | { readonly kind: 'certificate'; readonly certificate: CommitCertificate; readonly payload: Uint8Array };

export type Effect =
  | { readonly kind: 'startRound'; readonly height: number; readonly round: number; readonly proposer: string }
  | { readonly kind: 'getValue'; readonly height: number; readonly round: number; readonly timeoutMs: number }
  | { readonly kind: 'signProposal'; readonly proposal: Proposal; readonly payload: Uint8Array }
  | { readonly kind: 'signVote'; readonly vote: Vote }
  | { readonly kind: 'scheduleTimeout'; readonly timeout: Timeout; readonly durationMs: number }
  | { readonly kind: 'decide'; readonly height: number; readonly round: number; readonly valueId: ValueId; readonly payload: Uint8Array; readonly certificate: CommitCertificate }
  | { readonly kind: 'evidence'; readonly evidence: Evidence };

interface KnownValue {
  readonly payload: Uint8Array;
  readonly valid: boolean;
}

export class Driver {
  private rs: RoundState = initialRoundState(0);
  private validators: ValidatorSet | null = null;
  private keeper: VoteKeeper | null = null;
  /** The first proposal from each round's proposer. */
  private proposals = new Map<number, SignedProposal>();
  /** Values seen in proposals (or built here) with the application's verdict. */
  private values = new Map<ValueId, KnownValue>();
  /** Thresholds as the vote keeper reported them, for observers and tests. */
  readonly thresholds: Threshold[] = [];

  /** `address` is this node's validator key, or null for a full node that never signs. */
  constructor(
    private readonly address: string | null,
    private readonly timeouts: TimeoutConfig,
  ) {}

  get state(): RoundState {
    return this.rs;
  }

  get height(): number {
    return this.rs.height;
  }

  get round(): number {
    return this.rs.round;
  }

  get validatorSet(): ValidatorSet | null {
    return this.validators;
  }

  /** L1-L10 and StartRound(0) of a new height. */
  startHeight(height: number, validators: ValidatorSet): Effect[] {
    this.rs = initialRoundState(height);
    this.validators = validators;
    this.keeper = new VoteKeeper(validators);
    this.proposals = new Map();
    this.values = new Map();
    this.thresholds.length = 0;
    const effects: Effect[] = [];
    this.run({ kind: 'newRound', round: 0, proposer: this.isProposer(0) }, effects);
    this.drain(effects);
    return effects;
  }

  step(input: DriverInput): Effect[] {
    const effects: Effect[] = [];
    if (this.validators === null || this.rs.step === 'commit') return effects;
    switch (input.kind) {
      case 'vote': this.onVote(input.vote, effects); break;
      case 'proposal': this.onProposal(input.proposal, input.payload, input.valid, effects); break;
      case 'proposeValue': this.onProposeValue(input, effects); break;
      case 'timeout':
        if (input.timeout.height === this.rs.height) this.run({ kind: 'timeout', step: input.timeout.step, round: input.timeout.round }, effects);
        break;
      case 'certificate': this.onCertificate(input.certificate, input.payload, effects); break;
    }
    this.drain(effects);
    return effects;
  }

  /** Own messages and others' of this height, for rebroadcast and polka proofs. */
  proposalOf(round: number): SignedProposal | undefined {
    return this.proposals.get(round);
  }

  private inWindow(height: number, round: number): boolean {
    return height === this.rs.height && Number.isSafeInteger(round) && round >= 0 && round <= Math.max(this.rs.round, 0) + MAX_ROUND_LOOKAHEAD;
  }

  private onVote(vote: SignedVote, effects: Effect[]): void {
    const v = vote.message;
    if (!this.inWindow(v.height, v.round) || (v.type !== 'prevote' && v.type !== 'precommit')) return;
    const result = (this.keeper as VoteKeeper).addVote(vote);
    this.thresholds.push(...result.thresholds);
    if (result.evidence !== null) effects.push({ kind: 'evidence', evidence: result.evidence });
  }

  private onProposal(p: SignedProposal, payload: Uint8Array, valid: boolean, effects: Effect[]): void {
    const m = p.message;
    if (!this.inWindow(m.height, m.round)) return;
    if (!Number.isSafeInteger(m.polRound) || m.polRound < -1 || m.polRound >= m.round) return;
    if (m.proposer !== (this.validators as ValidatorSet).proposer(m.height, m.round)) return;
    const prior = this.proposals.get(m.round);
    if (prior !== undefined) {
      if (prior.message.valueId !== m.valueId || prior.message.polRound !== m.polRound) {
        effects.push({ kind: 'evidence', evidence: { kind: 'duplicateProposal', first: prior, second: p } });
      }
      return;
    }
    this.proposals.set(m.round, p);
    if (!this.values.has(m.valueId)) this.values.set(m.valueId, { payload, valid });
  }

  private onProposeValue(input: DriverInput & { kind: 'proposeValue' }, effects: Effect[]): void {
    if (input.height !== this.rs.height || input.round !== this.rs.round || !this.isProposer(input.round)) return;
    if (!this.values.has(input.valueId)) this.values.set(input.valueId, { payload: input.payload, valid: true });
    this.run({ kind: 'proposeValue', round: input.round, valueId: input.valueId }, effects);
  }

  private onCertificate(cert: CommitCertificate, payload: Uint8Array, effects: Effect[]): void {
    if (cert.height !== this.rs.height || this.rs.decision !== null) return;
    this.values.set(cert.valueId, { payload, valid: true });
    this.decide(cert.round, cert.valueId, cert, effects);
  }

  private isProposer(round: number): boolean {
    return this.address !== null && (this.validators as ValidatorSet).proposer(this.rs.height, round) === this.address;
  }

  /** Evaluates the upon-rules until none applies. Each accepted input changes the round state, so this ends. */
  private drain(effects: Effect[]): void {
    for (let guard = 0; ; guard++) {
      if (guard > 10_000) throw new Error('invariant: the driver loop did not settle');
      const input = this.nextEnabled();
      if (input === null) return;
      if (input.kind === 'proposalAndPrecommitValue') {
        this.decide(input.round, input.valueId, null, effects);
      } else if (!this.run(input, effects)) {
        throw new Error(`invariant: enabled rule ${input.kind} was not accepted`);
      }
    }
  }

  /** The highest-priority upon-rule whose conditions hold and that the state machine would accept. */
  private nextEnabled(): RoundInput | null {
    const s = this.rs;
    const keeper = this.keeper as VoteKeeper;
    if (s.step === 'commit' || s.step === 'unstarted') return null;
    const candidates: RoundInput[] = [];
    // L49: a value with +2/3 precommits in any round, which we hold and the application accepts.
    for (const q of keeper.precommitQuorums()) {
      if (this.values.get(q.valueId)?.valid === true) return { kind: 'proposalAndPrecommitValue', round: q.round, valueId: q.valueId };
    }
    // L55.
    const skip = keeper.skipTarget(s.round);
    if (skip >= 0) candidates.push({ kind: 'skipRound', round: skip });
    const p = this.proposals.get(s.round)?.message;
    const pv = p === undefined ? undefined : this.values.get(p.valueId);
    if (p !== undefined && pv !== undefined) {
      if (p.polRound === -1) candidates.push({ kind: 'proposal', valueId: p.valueId, valid: pv.valid }); // L22
      else if (keeper.isPolkaFor(p.polRound, p.valueId)) {
        candidates.push({ kind: 'proposalAndPolkaPrevious', valueId: p.valueId, polRound: p.polRound, valid: pv.valid }); // L28
      }
    }
    if (keeper.isPolkaAny(s.round)) candidates.push({ kind: 'polkaAny' }); // L34
    if (p !== undefined && pv?.valid === true && keeper.isPolkaFor(s.round, p.valueId)) {
      candidates.push({ kind: 'proposalAndPolkaCurrent', valueId: p.valueId }); // L36
    }
    if (keeper.isPolkaNil(s.round)) candidates.push({ kind: 'polkaNil' }); // L44
    if (keeper.isPrecommitAny(s.round)) candidates.push({ kind: 'precommitAny' }); // L47
    for (const c of candidates) if (applyRound(s, c) !== null) return c;
    return null;
  }

  private decide(round: number, valueId: ValueId, cert: CommitCertificate | null, effects: Effect[]): void {
    const t = applyRound(this.rs, { kind: 'proposalAndPrecommitValue', round, valueId });
    if (t === null) return;
    this.rs = t.state;
    const certificate = cert ?? certificateFromVotes(this.rs.height, round, valueId, (this.keeper as VoteKeeper).precommitsFor(round, valueId));
    const value = this.values.get(valueId) as KnownValue;
    effects.push({ kind: 'decide', height: this.rs.height, round, valueId, payload: value.payload, certificate });
  }

  /** Applies one input to the round state machine and turns its outputs into effects. */
  private run(input: RoundInput, effects: Effect[]): boolean {
    const t = applyRound(this.rs, input);
    if (t === null) return false;
    this.rs = t.state;
    const h = this.rs.height;
    if (input.kind === 'newRound') {
      effects.push({ kind: 'startRound', height: h, round: input.round, proposer: (this.validators as ValidatorSet).proposer(h, input.round) });
    }
    for (const out of t.outputs) {
      switch (out.kind) {
        case 'newRound':
          this.run({ kind: 'newRound', round: out.round, proposer: this.isProposer(out.round) }, effects);
          break;
        case 'getValue':
          effects.push({ kind: 'getValue', height: h, round: out.round, timeoutMs: timeoutDuration(this.timeouts, 'propose', out.round) });
          break;
        case 'propose': {
          const value = this.values.get(out.valueId);
          if (value === undefined) throw new Error(`invariant: proposing value ${out.valueId} not held`);
          const proposal: Proposal = { height: h, round: out.round, polRound: out.polRound, valueId: out.valueId, proposer: this.address as string };
          effects.push({ kind: 'signProposal', proposal, payload: value.payload });
          break;
        }
        case 'prevote':
        case 'precommit':
          if (this.address !== null && (this.validators as ValidatorSet).has(this.address)) {
            effects.push({ kind: 'signVote', vote: { type: out.kind, height: h, round: out.round, valueId: out.valueId, validator: this.address } });
          }
          break;
        case 'scheduleTimeout':
          effects.push({ kind: 'scheduleTimeout', timeout: { step: out.step, height: h, round: out.round }, durationMs: timeoutDuration(this.timeouts, out.step, out.round) });
          break;
        case 'decide':
          throw new Error('invariant: decisions go through Driver.decide');
      }
    }
    return true;
  }
}
