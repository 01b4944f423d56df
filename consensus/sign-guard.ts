// Double-sign protection (CometBFT's priv_validator_state): the (height, round, step) and sign
// bytes of the last message this key signed, saved durably before the signature leaves. A
// request below that position, or at it with other bytes, is refused; the same request gets the
// same signature back (a restarted node re-deriving its last message).
import { closeSync, fdatasyncSync, openSync, readFileSync } from 'node:fs';
import { bytesToHex } from '../primitives/index.ts';
import type { ValidatorKey } from './validator-key.ts';
import { isLastSigned, replaceFile, writeAll, type Wal } from './wal.ts';

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
  /** Releases the file, if any (the node stops). */
  close?(): void;
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
 * The last signed position in an append-only file of JSON lines: each save appends one line and
 * fsyncs (one fsync per signature, the file kept open; not synced with `sync: false`, as the copy
 * beside `WalGuardStore`); load takes the last line. A torn last
 * line (a crash inside a save, before its signature left) falls back to the line before it. Every
 * COMPACT_AFTER saves the file is replaced atomically by its last line (temporary file, fsync,
 * rename, directory fsync). A missing file is a key that has signed nothing; a file with content
 * but no valid record refuses to start (signing blind could double-sign).
 */
export class FileGuardStore implements GuardStore {
  private fd: number | null = null;
  private saves = 0;

  /** `sync: false`: saves are not fsync'd (a copy beside a store that is; see `WalGuardStore`). */
  constructor(private readonly path: string, private readonly opts: { readonly sync: boolean } = { sync: true }) {}

  load(): LastSigned | null {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    const lines = text.split('\n').filter((l) => l.length > 0);
    for (let i = lines.length - 1; i >= 0; i--) {
      let x: LastSigned;
      try {
        x = JSON.parse(lines[i] as string) as LastSigned;
      } catch {
        if (i === lines.length - 1 && i > 0) continue; // a torn last line: the save before it stands
        break;
      }
      if (!isLastSigned(x)) break;
      return x;
    }
    if (text.trim().length === 0) return null;
    throw new Error(`${this.path} is not a signing state file`);
  }

  save(last: LastSigned): void {
    if (++this.saves % COMPACT_AFTER === 0) return this.replace(last);
    if (this.fd === null) this.fd = openSync(this.path, 'a', 0o600);
    writeAll(this.fd, Buffer.from(`${JSON.stringify(last)}\n`));
    if (this.opts.sync) fdatasyncSync(this.fd);
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  /** The file becomes just `last`, atomically. */
  private replace(last: LastSigned): void {
    this.close();
    replaceFile(this.path, Buffer.from(`${JSON.stringify(last)}\n`), 0o600);
  }
}

/**
 * The guard's records in the consensus WAL: a save appends the record and flushes the log, so the
 * inputs the replica logged before signing and the signature's record become durable with one
 * fdatasync (a separate file cost a second one per signature, on the event loop). `copy` (the
 * home's `sign_state.json`) is read at load too, so a home whose guard lived in that file before
 * keeps it, and gets each record unsynced, as a readable copy for operators.
 */
export class WalGuardStore implements GuardStore {
  constructor(
    private readonly wal: Wal,
    private readonly copy: GuardStore | null = null,
  ) {}

  load(): LastSigned | null {
    const inWal = this.wal.lastSigned();
    let inFile: LastSigned | null = null;
    try {
      inFile = this.copy?.load() ?? null;
    } catch (err) {
      // A copy a power loss left torn (it is not synced) is only fatal when the WAL has no record.
      if (inWal === null) throw err;
    }
    if (inWal === null || inFile === null) return inWal ?? inFile;
    return compare(inWal, inFile) >= 0 ? inWal : inFile;
  }

  save(last: LastSigned): void {
    this.wal.appendSigned(last);
    this.wal.flush();
    try {
      this.copy?.save(last);
    } catch {
      // The record is durable in the WAL; a copy that cannot be written does not stop signing.
    }
  }

  close(): void {
    this.copy?.close?.();
  }
}

/** Saves between compactions of the guard file (a few hundred heights' signatures). */
const COMPACT_AFTER = 1000;

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

  close(): void {
    this.store.close?.();
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
