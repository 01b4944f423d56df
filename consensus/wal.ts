// Write-ahead log of consensus inputs for the current height (Malachite ADR-007): every input the
// driver sees is appended before it is processed; the log is flushed to disk before anything the
// node signs leaves it (a decision needs no flush: a crash before its block is durable replays
// the height's logged inputs). A restart replays the inputs of its height through the same driver,
// which re-derives the same state and effects. `reset` starts the log of a new height; it becomes
// durable with the next flush, which comes before anything of the new height leaves the node.
// Until then the durable log may still be the previous height's: a restart whose application head
// already holds that height ignores it (its height is not the head + 1); one whose head lost that
// height (an empty block is written without sync) replays it, lock included. Only a flush of the
// new height, after its first signature, may drop the previous height's inputs (the file being
// replaced past its bound): by then the guard refuses anything of the previous height.
//
// The log also carries the double-sign guard's records (`WalGuardStore`): the record of a
// signature rides on the flush that makes the inputs before it durable, one fdatasync for both.
// Those records outlive their height: the last one is read from the whole file and survives the
// file being cut back.
import { closeSync, existsSync, fdatasyncSync, fsyncSync, fstatSync, ftruncateSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { crc32 } from 'node:zlib';
import type { DriverInput } from './driver.ts';
import type { LastSigned } from './sign-guard.ts';

export type WalEntry = DriverInput;

export interface WalContents {
  readonly height: number;
  readonly entries: WalEntry[];
}

export interface Wal {
  /** The durable log: its height and inputs in order; null before the first reset. */
  load(): WalContents | null;
  /** Starts the log of `height`, dropping the previous height's inputs; durable with the next flush. */
  reset(height: number): void;
  /** Buffers an input; durable only after the next flush. */
  append(entry: WalEntry): void;
  /** Makes every appended input durable. */
  flush(): void;
  /** Buffers the guard's record of a signature; durable with the next flush, kept across heights. */
  appendSigned(last: LastSigned): void;
  /** The last durable signature record, of any height; null when the log holds none. */
  lastSigned(): LastSigned | null;
}

/** An in-memory log with the durability of a file: `crash` loses what was not flushed, a reset included. */
export class MemoryWal implements Wal {
  private durable: WalContents | null = null;
  /** A reset not flushed yet: the height it starts. */
  private pendingHeight: number | null = null;
  private pending: WalEntry[] = [];
  private durableSigned: LastSigned | null = null;
  private pendingSigned: LastSigned | null = null;

  load(): WalContents | null {
    return this.durable === null ? null : { height: this.durable.height, entries: [...this.durable.entries] };
  }
  reset(height: number): void {
    this.pendingHeight = height;
    this.pending = [];
    this.pendingSigned = null;
  }
  append(entry: WalEntry): void {
    this.pending.push(entry);
  }
  flush(): void {
    if (this.pendingHeight !== null) this.durable = { height: this.pendingHeight, entries: [] };
    this.pendingHeight = null;
    if (this.durable === null) throw new Error('invariant: WAL appended before reset');
    this.durable.entries.push(...this.pending);
    this.pending = [];
    if (this.pendingSigned !== null) this.durableSigned = this.pendingSigned;
    this.pendingSigned = null;
  }
  appendSigned(last: LastSigned): void {
    this.pendingSigned = last;
  }
  lastSigned(): LastSigned | null {
    return this.durableSigned;
  }
  get unflushed(): number {
    return this.pending.length;
  }
  crash(): void {
    this.pendingHeight = null;
    this.pending = [];
    this.pendingSigned = null;
  }
  /** Loses everything; `keepGuard`: but the last guard record (an operator kept the sign state). */
  wipe(opts: { readonly keepGuard?: boolean } = {}): void {
    this.durable = null;
    this.pendingHeight = null;
    this.pending = [];
    if (opts.keepGuard !== true) this.durableSigned = null;
    this.pendingSigned = null;
  }
}

// File format: records of [u32 length][u32 crc32 of the body][body: JSON], all big-endian. A
// height record {height} starts each height's inputs; the log is the last height record and the
// inputs after it (inputs have a `kind`). A guard record {signed} may come anywhere; the last one
// counts, whatever its height. Heights are appended, not rewritten (a truncate per height cost
// more than its sync), and once the file passes `compactBytes` the first flush of the next height
// replaces it with that flush's records, preceded by the last guard record when they carry none
// (written, synced, renamed over the old file). Byte arrays are written as {"$b64": "..."}.

function replacer(_key: string, value: unknown): unknown {
  return value instanceof Uint8Array ? { $b64: Buffer.from(value).toString('base64') } : value;
}

function reviver(_key: string, value: unknown): unknown {
  if (value !== null && typeof value === 'object' && typeof (value as { $b64?: unknown }).$b64 === 'string') {
    return Uint8Array.from(Buffer.from((value as { $b64: string }).$b64, 'base64'));
  }
  return value;
}

function record(value: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(value, replacer));
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length, 0);
  head.writeUInt32BE(crc32(body), 4);
  return Buffer.concat([head, body]);
}

export class WalCorruptError extends Error {
  override readonly name = 'WalCorruptError';
}

/** Whether every byte from `at` on is zero (a file extended by a crash before its data landed). */
function zeroFrom(data: Buffer, at: number): boolean {
  for (let i = at; i < data.length; i++) if (data[i] !== 0) return false;
  return true;
}

/**
 * Reads records. A torn tail is cut off: a half-written last record, or zeros from here to the end
 * (what some file systems leave of an append a crash interrupted before its fdatasync). A record
 * failing its checksum is skipped by its length when a later height record follows it (it belongs
 * to a height that is over); inside the last height it is an error, as is anything undecodable.
 * A skipped record after the last guard record is reported (`signedUnsureAt`): it may have been
 * a newer guard record, which a validator's guard must not do without.
 */
export function decodeWal(data: Buffer): { contents: WalContents | null; lastSigned: LastSigned | null; signedUnsureAt: number | null; validBytes: number } {
  let height: number | null = null;
  let lastSigned: LastSigned | null = null;
  let signedAt = -1;
  /** The last record skipped for a bad checksum (it may have been a guard record). */
  let skippedAt: number | null = null;
  let entries: WalEntry[] = [];
  /** A skipped record of the current height: an error unless a height record comes after it. */
  let corruptAt: number | null = null;
  let at = 0;
  while (at < data.length) {
    if (at + 8 > data.length || zeroFrom(data, at)) break; // torn header, or a zero-filled tail
    const len = data.readUInt32BE(at);
    const end = at + 8 + len;
    if (end > data.length) break; // torn body
    const body = data.subarray(at + 8, end);
    if (len === 0 || crc32(body) !== data.readUInt32BE(at + 4)) {
      if (end === data.length || zeroFrom(data, end)) break; // the last record, half-written
      corruptAt ??= at;
      skippedAt = at;
      at = end;
      continue;
    }
    let value: { kind?: unknown; height?: unknown; signed?: unknown };
    try {
      value = JSON.parse(body.toString(), reviver) as typeof value;
    } catch {
      throw new WalCorruptError(`WAL record at byte ${at} passes its checksum but is not JSON`);
    }
    if (value.kind === undefined && value.signed !== undefined) {
      if (!isLastSigned(value.signed)) throw new WalCorruptError(`WAL record at byte ${at} is not a signature record`);
      lastSigned = value.signed;
      signedAt = at;
    } else if (value.kind === undefined) {
      if (typeof value.height !== 'number') throw new WalCorruptError(`WAL record at byte ${at} is neither an input nor a height`);
      height = value.height;
      entries = [];
      corruptAt = null;
    } else {
      if (height === null && corruptAt === null) throw new WalCorruptError('WAL does not start with its height');
      entries.push(value as WalEntry);
    }
    at = end;
  }
  if (corruptAt !== null) throw new WalCorruptError(`WAL record at byte ${corruptAt} fails its checksum and is not the last one`);
  // A skipped record after the last guard record may have been a newer one: the guard cannot
  // know what the key signed last (the inputs of later heights do not depend on it).
  const signedUnsureAt = skippedAt !== null && skippedAt > signedAt ? skippedAt : null;
  return { contents: height === null ? null : { height, entries }, lastSigned, signedUnsureAt, validBytes: at };
}

/** The shape of a guard record (also what `FileGuardStore` checks of its lines). */
export function isLastSigned(x: unknown): x is LastSigned {
  const v = x as Partial<LastSigned> | null;
  return v !== null && typeof v === 'object' && Number.isSafeInteger(v.height) && Number.isSafeInteger(v.round)
    && [1, 2, 3].includes(v.step as number) && typeof v.signBytes === 'string' && typeof v.signature === 'string';
}

/**
 * The file's content becomes `bytes` atomically: a temporary file written and synced, renamed over
 * it, the directory synced. A crash leaves the old content or the new.
 */
export function replaceFile(path: string, bytes: Uint8Array, mode?: number): void {
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, 'w', mode);
  try {
    writeAll(fd, bytes);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  const dir = openSync(dirname(path), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

/** write(2) until every byte is written: a short write continues with the rest. */
export function writeAll(fd: number, bytes: Uint8Array): void {
  for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at);
}

/** Past this size the next height's first flush replaces the file (see above). */
const COMPACT_BYTES = 16 << 20;

/** The log in one file, appended with write(2) and made durable with fdatasync(2) (data and the size needed to read it back; no timestamps), one per flush. */
export class FileWal implements Wal {
  private fd: number | null = null;
  private size = 0;
  private pending: Buffer[] = [];
  /** The last durable guard record; undefined until the file was read. */
  private signed: LastSigned | null | undefined = undefined;
  private pendingSigned: LastSigned | null = null;
  /** The file passed its bound when the pending height started: the next flush replaces it. */
  private compactDue = false;
  /** A record skipped for a bad checksum after the last guard record (see decodeWal). */
  private signedUnsureAt: number | null = null;

  constructor(private readonly path: string, private readonly compactBytes = COMPACT_BYTES) {}

  private open(): number {
    if (this.fd === null) {
      this.fd = openSync(this.path, 'a');
      this.size = fstatSync(this.fd).size;
    }
    return this.fd;
  }

  load(): WalContents | null {
    if (!existsSync(this.path)) {
      this.signed = null;
      return null;
    }
    const data = readFileSync(this.path);
    const { contents, lastSigned, signedUnsureAt, validBytes } = decodeWal(data);
    this.signed = lastSigned;
    this.signedUnsureAt = signedUnsureAt;
    if (validBytes < data.length) {
      // Drop the torn tail so later appends follow a whole record.
      const fd = openSync(this.path, 'r+');
      try {
        ftruncateSync(fd, validBytes);
        fdatasyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
    return contents;
  }

  /**
   * Queues the new height's record (written and fsync'd by the next flush). A file past its bound
   * is replaced by that flush, not here: the previous height's inputs (its lock) stay on disk
   * until something of this height is signed, after which the guard refuses the previous height.
   */
  reset(height: number): void {
    this.open();
    this.pending = [record({ height })];
    this.pendingSigned = null;
    this.compactDue = this.size > this.compactBytes;
  }

  append(entry: WalEntry): void {
    this.pending.push(record(entry));
  }

  appendSigned(last: LastSigned): void {
    this.pending.push(record({ signed: last }));
    this.pendingSigned = last;
  }

  lastSigned(): LastSigned | null {
    if (this.signed === undefined) this.load();
    if (this.signedUnsureAt !== null) {
      throw new WalCorruptError(
        `WAL record at byte ${this.signedUnsureAt} of ${this.path} fails its checksum after the last signature record: it may have ` +
        'been a newer one, so what this key signed last is unknown (restore the file, or keep the validator stopped until the chain is past its height)',
      );
    }
    return this.signed ?? null;
  }

  flush(): void {
    if (this.pending.length === 0) return;
    if (this.compactDue) return this.replace();
    const fd = this.open();
    const bytes = Buffer.concat(this.pending);
    writeAll(fd, bytes);
    fdatasyncSync(fd);
    this.size += bytes.length;
    this.flushed();
  }

  private flushed(): void {
    this.pending = [];
    if (this.pendingSigned !== null) this.signed = this.pendingSigned;
    this.pendingSigned = null;
  }

  /**
   * The file becomes the pending records (a height's), preceded by the last durable guard record
   * when they carry none: written to a temporary file, synced, renamed over the log, the directory
   * synced, so a crash leaves the old log or the new one.
   */
  private replace(): void {
    const carried = this.pendingSigned === null ? this.lastSigned() : null;
    this.close();
    replaceFile(this.path, Buffer.concat([...(carried === null ? [] : [record({ signed: carried })]), ...this.pending]));
    this.compactDue = false;
    this.flushed();
    this.open();
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}
