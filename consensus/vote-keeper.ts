// Counts the votes of one height by round, weighted by voting power, and reports each threshold
// the first time it is crossed. The first vote of a validator for a (round, type) counts; a
// different second one is equivocation evidence and does not count.
import type { SignedVote, ValidatorSet, ValueId, VoteType } from './types.ts';

export type Threshold =
  /** +2/3 prevotes for anything (L34). */
  | { readonly kind: 'polkaAny'; readonly round: number }
  /** +2/3 prevotes for nil (L44). */
  | { readonly kind: 'polkaNil'; readonly round: number }
  /** +2/3 prevotes for one value (L28, L36). */
  | { readonly kind: 'polkaValue'; readonly round: number; readonly valueId: ValueId }
  /** +2/3 precommits for anything (L47). */
  | { readonly kind: 'precommitAny'; readonly round: number }
  /** +2/3 precommits for one value (L49). */
  | { readonly kind: 'precommitValue'; readonly round: number; readonly valueId: ValueId }
  /** +1/3 of the power sent some vote in this round (L55 when the round is ahead). */
  | { readonly kind: 'skipRound'; readonly round: number };

export interface DoubleVote {
  readonly kind: 'duplicateVote';
  readonly first: SignedVote;
  readonly second: SignedVote;
}

export interface AddVoteResult {
  /** Thresholds crossed by this vote, each reported once per height. */
  readonly thresholds: Threshold[];
  readonly evidence: DoubleVote | null;
  /** False when the vote was a duplicate, an equivocation or from outside the set. */
  readonly counted: boolean;
}

const NIL = '';

class TypeTally {
  readonly votes = new Map<string, SignedVote>();
  readonly weights = new Map<string, number>();
  total = 0;
}

class RoundVotes {
  readonly prevote = new TypeTally();
  readonly precommit = new TypeTally();
  /** Validators with any vote in this round, and their summed power (skip-round weight). */
  readonly voters = new Set<string>();
  votersWeight = 0;
}

export class VoteKeeper {
  private readonly rounds = new Map<number, RoundVotes>();
  private readonly emitted = new Set<string>();

  constructor(private readonly validators: ValidatorSet) {}

  addVote(signed: SignedVote): AddVoteResult {
    const vote = signed.message;
    const power = this.validators.power(vote.validator);
    if (power === 0 || !Number.isSafeInteger(vote.round) || vote.round < 0) return { thresholds: [], evidence: null, counted: false };
    const rv = this.roundVotes(vote.round);
    const tally = rv[vote.type];
    const prior = tally.votes.get(vote.validator);
    if (prior !== undefined) {
      const evidence = prior.message.valueId === vote.valueId ? null : { kind: 'duplicateVote' as const, first: prior, second: signed };
      return { thresholds: [], evidence, counted: false };
    }
    tally.votes.set(vote.validator, signed);
    const key = vote.valueId ?? NIL;
    tally.weights.set(key, (tally.weights.get(key) ?? 0) + power);
    tally.total += power;
    if (!rv.voters.has(vote.validator)) {
      rv.voters.add(vote.validator);
      rv.votersWeight += power;
    }
    return { thresholds: this.crossed(vote.type, vote.round, vote.valueId, rv), evidence: null, counted: true };
  }

  private crossed(type: VoteType, round: number, valueId: ValueId | null, rv: RoundVotes): Threshold[] {
    const out: Threshold[] = [];
    const tally = rv[type];
    const emit = (t: Threshold, key: string): void => {
      if (this.emitted.has(key)) return;
      this.emitted.add(key);
      out.push(t);
    };
    if (this.validators.isQuorum(tally.weights.get(valueId ?? NIL) ?? 0)) {
      if (type === 'prevote') {
        if (valueId === null) emit({ kind: 'polkaNil', round }, `${round}/polkaNil`);
        else emit({ kind: 'polkaValue', round, valueId }, `${round}/polkaValue/${valueId}`);
      } else if (valueId !== null) {
        emit({ kind: 'precommitValue', round, valueId }, `${round}/precommitValue/${valueId}`);
      }
    }
    if (this.validators.isQuorum(tally.total)) {
      if (type === 'prevote') emit({ kind: 'polkaAny', round }, `${round}/polkaAny`);
      else emit({ kind: 'precommitAny', round }, `${round}/precommitAny`);
    }
    if (this.validators.isOneThird(rv.votersWeight)) emit({ kind: 'skipRound', round }, `${round}/skipRound`);
    return out;
  }

  private roundVotes(round: number): RoundVotes {
    let rv = this.rounds.get(round);
    if (rv === undefined) {
      rv = new RoundVotes();
      this.rounds.set(round, rv);
    }
    return rv;
  }

  // Queries: the driver evaluates the paper's upon-rules against these after every input.

  isPolkaAny(round: number): boolean {
    const t = this.rounds.get(round)?.prevote;
    return t !== undefined && this.validators.isQuorum(t.total);
  }

  isPolkaNil(round: number): boolean {
    return this.isQuorumFor('prevote', round, null);
  }

  isPolkaFor(round: number, valueId: ValueId): boolean {
    return this.isQuorumFor('prevote', round, valueId);
  }

  isPrecommitAny(round: number): boolean {
    const t = this.rounds.get(round)?.precommit;
    return t !== undefined && this.validators.isQuorum(t.total);
  }

  isPrecommitFor(round: number, valueId: ValueId): boolean {
    return this.isQuorumFor('precommit', round, valueId);
  }

  private isQuorumFor(type: VoteType, round: number, valueId: ValueId | null): boolean {
    const w = this.rounds.get(round)?.[type].weights.get(valueId ?? NIL) ?? 0;
    return this.validators.isQuorum(w);
  }

  /** Rounds with +2/3 precommits for a value, and that value, in ascending round order. */
  precommitQuorums(): { round: number; valueId: ValueId }[] {
    const out: { round: number; valueId: ValueId }[] = [];
    for (const round of [...this.rounds.keys()].sort((a, b) => a - b)) {
      for (const [key, w] of (this.rounds.get(round) as RoundVotes).precommit.weights) {
        if (key !== NIL && this.validators.isQuorum(w)) out.push({ round, valueId: key });
      }
    }
    return out;
  }

  /** The highest round above `round` where +1/3 of the power has voted (L55), or -1. */
  skipTarget(round: number): number {
    let best = -1;
    for (const [r, rv] of this.rounds) {
      if (r > round && r > best && this.validators.isOneThird(rv.votersWeight)) best = r;
    }
    return best;
  }

  /** The counted precommits for a value in a round: a commit certificate's signatures. */
  precommitsFor(round: number, valueId: ValueId): SignedVote[] {
    const tally = this.rounds.get(round)?.precommit;
    if (tally === undefined) return [];
    return [...tally.votes.values()].filter((v) => v.message.valueId === valueId);
  }

  /** The counted prevotes for a value in a round (a polka certificate). */
  prevotesFor(round: number, valueId: ValueId | null): SignedVote[] {
    const tally = this.rounds.get(round)?.prevote;
    if (tally === undefined) return [];
    return [...tally.votes.values()].filter((v) => v.message.valueId === valueId);
  }

  hasVote(type: VoteType, round: number, validator: string): boolean {
    return this.rounds.get(round)?.[type].votes.has(validator) ?? false;
  }
}
