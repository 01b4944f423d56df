// Double-sign protection (CometBFT's priv_validator_state): the (height, round, step) and sign
// bytes of the last message this key signed, saved durably before the signature leaves. A
// request below that position, or at it with other bytes, is refused; the same request gets the
// same signature back (a restarted node re-deriving its last message).
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
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

/**
 * The last signed position in a JSON file, replaced atomically: written to a temporary file,
 * fsync'd, renamed over the old one, and the directory fsync'd. A missing file is a key that has
 * signed nothing; an unreadable one refuses to start (signing blind could double-sign).
 */
export class FileGuardStore implements GuardStore {
  constructor(private readonly path: string) {}

  load(): LastSigned | null {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    const x = JSON.parse(text) as LastSigned;
    if (!Number.isSafeInteger(x.height) || !Number.isSafeInteger(x.round) || ![1, 2, 3].includes(x.step)
      || typeof x.signBytes !== 'string' || typeof x.signature !== 'string') {
      throw new Error(`${this.path} is not a signing state file`);
    }
    return x;
  }

  save(last: LastSigned): void {
    const tmp = `${this.path}.tmp`;
    const fd = openSync(tmp, 'w', 0o600);
    try {
      writeSync(fd, `${JSON.stringify(last)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.path);
    const dir = openSync(dirname(this.path), 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
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
