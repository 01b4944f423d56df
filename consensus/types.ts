// Messages and validator sets of the Tendermint core. Heights and rounds are plain numbers: a
// height grows by one per block and a round by one per failed attempt, so both stay far below
// 2^53. A round of -1 means "none" (the paper's nil round).
import { bytesToHex, canonicalize, keccak256, utf8 } from '../primitives/index.ts';

/** Identifier of a proposed value: the block's header hash (0x-hex). */
export type ValueId = string;

export type VoteType = 'prevote' | 'precommit';

export interface Vote {
  readonly type: VoteType;
  readonly height: number;
  readonly round: number;
  /** null is a vote for nil. */
  readonly valueId: ValueId | null;
  /** Hex ed25519 public key of the signer. */
  readonly validator: string;
}

export interface Proposal {
  readonly height: number;
  readonly round: number;
  /** The paper's validRound: the round of the polka this re-proposal rests on, or -1. */
  readonly polRound: number;
  readonly valueId: ValueId;
  readonly proposer: string;
}

export interface Signed<T> {
  readonly message: T;
  /** Hex ed25519 signature over the message's sign bytes. */
  readonly signature: string;
}

export type SignedVote = Signed<Vote>;
export type SignedProposal = Signed<Proposal>;

export interface Validator {
  /** Hex ed25519 public key. */
  readonly publicKey: string;
  /** Positive integer; the total stays below 2^51 so 3 x total is exact. */
  readonly power: number;
}

const MAX_TOTAL_POWER = 2 ** 51;

/** The validators of a height, in genesis order, with the quorum arithmetic. */
export class ValidatorSet {
  readonly totalPower: number;
  private readonly byKey = new Map<string, number>();

  constructor(readonly validators: readonly Validator[]) {
    if (validators.length === 0) throw new Error('a validator set is not empty');
    let total = 0;
    for (const v of validators) {
      if (!Number.isSafeInteger(v.power) || v.power <= 0) throw new Error(`validator ${v.publicKey}: power is a positive integer`);
      if (this.byKey.has(v.publicKey)) throw new Error(`validator ${v.publicKey} listed twice`);
      this.byKey.set(v.publicKey, v.power);
      total += v.power;
    }
    if (total >= MAX_TOTAL_POWER) throw new Error('total voting power too large');
    this.totalPower = total;
  }

  /** Voting power of a key; 0 for keys outside the set. */
  power(publicKey: string): number {
    return this.byKey.get(publicKey) ?? 0;
  }

  has(publicKey: string): boolean {
    return this.byKey.has(publicKey);
  }

  /** Strictly more than 2/3 of the voting power (the paper's 2f + 1). */
  isQuorum(weight: number): boolean {
    return 3 * weight > 2 * this.totalPower;
  }

  /** Strictly more than 1/3 of the voting power (the paper's f + 1): at least one honest voter. */
  isOneThird(weight: number): boolean {
    return 3 * weight > this.totalPower;
  }

  /**
   * Weighted round robin: slot (height + round) mod totalPower over the validators laid out in
   * order, each over `power` consecutive slots. Deterministic and proportional to power over
   * totalPower consecutive attempts; it does not smooth like CometBFT's proposer priorities.
   */
  proposer(height: number, round: number): string {
    let slot = (height + round) % this.totalPower;
    for (const v of this.validators) {
      if (slot < v.power) return v.publicKey;
      slot -= v.power;
    }
    throw new Error('unreachable: slot below total power');
  }

  /** Hash of the set, for headers and for telling sets apart. */
  hash(): string {
    return bytesToHex(keccak256(utf8(canonicalize(this.validators.map((v) => ({ publicKey: v.publicKey, power: v.power }))))));
  }
}
