// The round state machine of one height: Algorithm 1 of "The latest gossip on BFT consensus"
// (Buchman, Kwon, Milosevic, arXiv 1807.04938). `apply` is pure: a state and an input in, the
// next state and outputs out, or null when the rule does not apply in this state. Inputs are the
// paper's upon-rules with their message conditions already established by the driver; every
// accepted input changes the state (step, round, a first-time flag or the decision), so the
// driver's re-evaluation loop ends.
import type { ValueId } from './types.ts';

export type Step = 'unstarted' | 'propose' | 'prevote' | 'precommit' | 'commit';

export type TimeoutStep = 'propose' | 'prevote' | 'precommit';

export interface ValueRound {
  readonly valueId: ValueId;
  readonly round: number;
}

export interface RoundState {
  readonly height: number;
  readonly round: number;
  readonly step: Step;
  /** lockedValue and lockedRound (L5); null is (nil, -1). */
  readonly locked: ValueRound | null;
  /** validValue and validRound (L6); null is (nil, -1). */
  readonly valid: ValueRound | null;
  readonly decision: ValueRound | null;
  /** This round's proposal has been sent (L19 runs once per round). */
  readonly proposed: boolean;
  /** "For the first time" guards of the current round: L34, L36, L47. */
  readonly prevoteTimeoutScheduled: boolean;
  readonly polkaValueSeen: boolean;
  readonly precommitTimeoutScheduled: boolean;
}

export type RoundInput =
  /** StartRound(round) (L11); `proposer` is proposer(h, round) = p. */
  | { readonly kind: 'newRound'; readonly round: number; readonly proposer: boolean }
  /** getValue() returned (L18). */
  | { readonly kind: 'proposeValue'; readonly round: number; readonly valueId: ValueId }
  /** PROPOSAL(h, round, v, -1) from the proposer (L22). */
  | { readonly kind: 'proposal'; readonly valueId: ValueId; readonly valid: boolean }
  /** PROPOSAL(h, round, v, vr) and +2/3 PREVOTE(h, vr, id(v)), 0 <= vr < round (L28). */
  | { readonly kind: 'proposalAndPolkaPrevious'; readonly valueId: ValueId; readonly polRound: number; readonly valid: boolean }
  /** +2/3 PREVOTE(h, round, *) (L34). */
  | { readonly kind: 'polkaAny' }
  /** PROPOSAL(h, round, v, *) with valid(v) and +2/3 PREVOTE(h, round, id(v)) (L36). */
  | { readonly kind: 'proposalAndPolkaCurrent'; readonly valueId: ValueId }
  /** +2/3 PREVOTE(h, round, nil) (L44). */
  | { readonly kind: 'polkaNil' }
  /** +2/3 PRECOMMIT(h, round, *) (L47). */
  | { readonly kind: 'precommitAny' }
  /** PROPOSAL(h, r, v, *) with valid(v) and +2/3 PRECOMMIT(h, r, id(v)), any r (L49), or a verified commit certificate. */
  | { readonly kind: 'proposalAndPrecommitValue'; readonly round: number; readonly valueId: ValueId }
  /** f+1 messages of a round above the current one (L55). */
  | { readonly kind: 'skipRound'; readonly round: number }
  | { readonly kind: 'timeout'; readonly step: TimeoutStep; readonly round: number };

export type RoundOutput =
  /** Start this round (L55, L65); the driver feeds it back as `newRound`. */
  | { readonly kind: 'newRound'; readonly round: number }
  /** Ask the host for a value to propose (L18). */
  | { readonly kind: 'getValue'; readonly round: number }
  /** Broadcast PROPOSAL(h, round, v, validRound) (L19). */
  | { readonly kind: 'propose'; readonly round: number; readonly valueId: ValueId; readonly polRound: number }
  | { readonly kind: 'prevote'; readonly round: number; readonly valueId: ValueId | null }
  | { readonly kind: 'precommit'; readonly round: number; readonly valueId: ValueId | null }
  | { readonly kind: 'scheduleTimeout'; readonly step: TimeoutStep; readonly round: number }
  | { readonly kind: 'decide'; readonly round: number; readonly valueId: ValueId };

export interface Transition {
  readonly state: RoundState;
  readonly outputs: RoundOutput[];
}

/** L1-L9: a height starts with nothing locked, nothing valid, nothing decided. */
export function initialRoundState(height: number): RoundState {
  return {
    height, round: -1, step: 'unstarted', locked: null, valid: null, decision: null, proposed: false,
    prevoteTimeoutScheduled: false, polkaValueSeen: false, precommitTimeoutScheduled: false,
  };
}

const STEP_ORDER: Record<Step, number> = { unstarted: 0, propose: 1, prevote: 2, precommit: 3, commit: 4 };

export function applyRound(s: RoundState, input: RoundInput): Transition | null {
  if (s.step === 'commit') return null; // decided: the height is over (L49 ends it)
  switch (input.kind) {
    case 'newRound': {
      // L11-L21 StartRound: a round only moves forward.
      if (input.round <= s.round) return null;
      const state: RoundState = {
        ...s, round: input.round, step: 'propose', proposed: false,
        prevoteTimeoutScheduled: false, polkaValueSeen: false, precommitTimeoutScheduled: false,
      };
      if (!input.proposer) {
        // L21: wait for the proposer, at most timeoutPropose(round).
        return { state, outputs: [{ kind: 'scheduleTimeout', step: 'propose', round: input.round }] };
      }
      // L15-L16: re-propose the valid value with its round; L18: otherwise a new value. The timeout
      // also covers a proposer whose own proposal never arrives (its host could not build or sign it).
      const timeout: RoundOutput = { kind: 'scheduleTimeout', step: 'propose', round: input.round };
      if (s.valid !== null) {
        return { state: { ...state, proposed: true }, outputs: [{ kind: 'propose', round: input.round, valueId: s.valid.valueId, polRound: s.valid.round }, timeout] };
      }
      return { state, outputs: [{ kind: 'getValue', round: input.round }, timeout] };
    }
    case 'proposeValue': {
      // L18-L19: the value getValue() returned, proposed with validRound = -1.
      if (input.round !== s.round || s.step !== 'propose' || s.proposed) return null;
      return { state: { ...s, proposed: true }, outputs: [{ kind: 'propose', round: s.round, valueId: input.valueId, polRound: -1 }] };
    }
    case 'proposal': {
      // L22-L27.
      if (s.step !== 'propose') return null;
      const accept = input.valid && (s.locked === null || s.locked.valueId === input.valueId);
      return prevote(s, accept ? input.valueId : null);
    }
    case 'proposalAndPolkaPrevious': {
      // L28-L33: a re-proposal backed by a polka of an earlier round vr may unlock us.
      if (s.step !== 'propose' || input.polRound < 0 || input.polRound >= s.round) return null;
      const accept = input.valid && (s.locked === null || s.locked.round <= input.polRound || s.locked.valueId === input.valueId);
      return prevote(s, accept ? input.valueId : null);
    }
    case 'polkaAny': {
      // L34-L35.
      if (s.step !== 'prevote' || s.prevoteTimeoutScheduled) return null;
      return { state: { ...s, prevoteTimeoutScheduled: true }, outputs: [{ kind: 'scheduleTimeout', step: 'prevote', round: s.round }] };
    }
    case 'proposalAndPolkaCurrent': {
      // L36-L43: lock and precommit if still in prevote; in any case the value becomes valid.
      if (STEP_ORDER[s.step] < STEP_ORDER.prevote || s.polkaValueSeen) return null;
      const valid = { valueId: input.valueId, round: s.round };
      if (s.step === 'prevote') {
        return {
          state: { ...s, polkaValueSeen: true, locked: valid, valid, step: 'precommit' },
          outputs: [{ kind: 'precommit', round: s.round, valueId: input.valueId }],
        };
      }
      return { state: { ...s, polkaValueSeen: true, valid }, outputs: [] };
    }
    case 'polkaNil': {
      // L44-L46.
      if (s.step !== 'prevote') return null;
      return { state: { ...s, step: 'precommit' }, outputs: [{ kind: 'precommit', round: s.round, valueId: null }] };
    }
    case 'precommitAny': {
      // L47-L48.
      if (s.step === 'unstarted' || s.precommitTimeoutScheduled) return null;
      return { state: { ...s, precommitTimeoutScheduled: true }, outputs: [{ kind: 'scheduleTimeout', step: 'precommit', round: s.round }] };
    }
    case 'proposalAndPrecommitValue': {
      // L49-L54: decide. The driver starts the next height once the host has executed the block.
      const decision = { valueId: input.valueId, round: input.round };
      return { state: { ...s, step: 'commit', decision }, outputs: [{ kind: 'decide', round: input.round, valueId: input.valueId }] };
    }
    case 'skipRound': {
      // L55-L56.
      if (input.round <= s.round) return null;
      return { state: s, outputs: [{ kind: 'newRound', round: input.round }] };
    }
    case 'timeout':
      return onTimeout(s, input.step, input.round);
  }
}

function onTimeout(s: RoundState, step: TimeoutStep, round: number): Transition | null {
  if (round !== s.round) return null;
  switch (step) {
    case 'propose':
      // L57-L60.
      if (s.step !== 'propose') return null;
      return prevote(s, null);
    case 'prevote':
      // L61-L64.
      if (s.step !== 'prevote') return null;
      return { state: { ...s, step: 'precommit' }, outputs: [{ kind: 'precommit', round: s.round, valueId: null }] };
    case 'precommit':
      // L65-L67.
      return { state: s, outputs: [{ kind: 'newRound', round: s.round + 1 }] };
  }
}

function prevote(s: RoundState, valueId: ValueId | null): Transition {
  return { state: { ...s, step: 'prevote' }, outputs: [{ kind: 'prevote', round: s.round, valueId }] };
}
