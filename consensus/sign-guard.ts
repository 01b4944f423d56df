// Double-sign protection (CometBFT's priv_validator_state): the (height, round, step) and sign
// bytes of the last message this key signed, saved durably before the signature leaves. A
// request below that position, or at it with other bytes, is refused; the same request gets the
// same signature back (a restarted node re-deriving its last message).
import { bytesToHex } from '../primitives/index.ts';
import type { ValidatorKey } from './validator-key.ts';

export const SIGN_STEP = { proposal: 1, prevote: 2, precommit: 3 } as const;
export type SignStep = (typeof SIGN_STEP)[keyof typeof SIGN_STEP];

export interface LastSigned {
  readonly height: number;
  readonly round: number;
  readonly step: SignStep;
  readonly signBytes: string;
  readonly signature: string;
}

/** Durable storage of the last signed position; `save` returns once it is on disk. */
export interface GuardStore {
  load(): LastSigned | null;
  save(last: LastSigned): void;
}

export class MemoryGuardStore implements GuardStore {
  private last: LastSigned | null = null;
  load(): LastSigned | null {
    return this.last;
  }
  save(last: LastSigned): void {
    this.last = last;
  }
}

function compare(a: { height: number; round: number; step: number }, b: { height: number; round: number; step: number }): number {
  return a.height - b.height || a.round - b.round || a.step - b.step;
}

export class SignGuard {
  private last: LastSigned | null;

  constructor(
    private readonly key: ValidatorKey,
    private readonly store: GuardStore,
  ) {
    this.last = store.load();
  }

  get publicKey(): string {
    return this.key.publicKey;
  }

  /** The signature, or null when signing could make this key equivocate. */
  sign(height: number, round: number, step: SignStep, bytes: Uint8Array): string | null {
    const signBytes = bytesToHex(bytes);
    const last = this.last;
    if (last !== null) {
      const order = compare({ height, round, step }, last);
      if (order < 0) return null;
      if (order === 0) return last.signBytes === signBytes ? last.signature : null;
    }
    const signature = this.key.sign(bytes);
    const next: LastSigned = { height, round, step, signBytes, signature };
    this.store.save(next);
    this.last = next;
    return signature;
  }
}
