// Write-ahead log of consensus inputs for the current height (Malachite ADR-007): every input the
// driver sees is appended before it is processed; the log is flushed to disk before the node signs,
// sends or decides anything. A restart replays the inputs of its height through the same driver,
// which re-derives the same state and effects. `reset` starts the log of a new height.
import { closeSync, existsSync, fdatasyncSync, fsyncSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import type { DriverInput } from './driver.ts';

export type WalEntry = DriverInput;

export interface WalContents {
  readonly height: number;
  readonly entries: WalEntry[];
}

export interface Wal {
  /** The durable log: its height and inputs in order; null before the first reset. */
  load(): WalContents | null;
  /** Starts the log of `height`, durably, dropping the previous height's inputs. */
  reset(height: number): void;
  /** Buffers an input; durable only after the next flush. */
  append(entry: WalEntry): void;
  /** Makes every appended input durable. */
  flush(): void;
}

/** An in-memory log with the durability of a file: `crash` loses what was not flushed. */
export class MemoryWal implements Wal {
  private durable: WalContents | null = null;
  private pending: WalEntry[] = [];

  load(): WalContents | null {
    return this.durable === null ? null : { height: this.durable.height, entries: [...this.durable.entries] };
  }
  reset(height: number): void {
    this.durable = { height, entries: [] };
    this.pending = [];
  }
  append(entry: WalEntry): void {
    this.pending.push(entry);
  }
  flush(): void {
    if (this.durable === null) throw new Error('invariant: WAL appended before reset');
    this.durable.entries.push(...this.pending);
    this.pending = [];
  }
  get unflushed(): number {
    return this.pending.length;
  }
  crash(): void {
    this.pending = [];
  }
  wipe(): void {
    this.durable = null;
    this.pending = [];
  }
}

// File format: records of [u32 length][u32 crc32 of the body][body: JSON], all big-endian. The
// first record is {height}. Byte arrays are written as {"$b64": "..."}.

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

/** Reads records; a torn or corrupt last record is cut off, corruption before the last one is an error. */
export function decodeWal(data: Buffer): { contents: WalContents | null; validBytes: number } {
  const values: unknown[] = [];
  let at = 0;
  while (at < data.length) {
    if (at + 8 > data.length) break; // torn header
    const len = data.readUInt32BE(at);
    const end = at + 8 + len;
    if (end > data.length) break; // torn body
    const body = data.subarray(at + 8, end);
    if (crc32(body) !== data.readUInt32BE(at + 4)) {
      if (end === data.length) break; // last record half-written
      throw new WalCorruptError(`WAL record at byte ${at} fails its checksum and is not the last one`);
    }
    values.push(JSON.parse(body.toString(), reviver));
    at = end;
  }
  if (values.length === 0) return { contents: null, validBytes: 0 };
  const head = values[0] as { height?: unknown };
  if (typeof head.height !== 'number') throw new WalCorruptError('WAL does not start with its height');
  return { contents: { height: head.height, entries: values.slice(1) as WalEntry[] }, validBytes: at };
}

/** The log in one file, appended with write(2) and made durable with fdatasync(2). */
export class FileWal implements Wal {
  private fd: number | null = null;
  private pending: Buffer[] = [];

  constructor(private readonly path: string) {}

  load(): WalContents | null {
    if (!existsSync(this.path)) return null;
    const data = readFileSync(this.path);
    const { contents, validBytes } = decodeWal(data);
    if (validBytes < data.length) {
      // Drop the torn tail so later appends follow a whole record.
      const fd = openSync(this.path, 'r+');
      try {
        ftruncateSync(fd, validBytes);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
    return contents;
  }

  /**
   * Truncates the file and writes the new height, with one fsync. A crash in between leaves an
   * empty log, which is safe: the previous height is committed by then and the new one has no
   * inputs yet.
   */
  reset(height: number): void {
    if (this.fd === null) this.fd = openSync(this.path, 'a');
    ftruncateSync(this.fd, 0);
    writeSync(this.fd, record({ height }));
    fdatasyncSync(this.fd); // data and the size needed to read it back; no timestamps
    this.pending = [];
  }

  append(entry: WalEntry): void {
    this.pending.push(record(entry));
  }

  flush(): void {
    if (this.pending.length === 0) return;
    if (this.fd === null) this.fd = openSync(this.path, 'a');
    writeSync(this.fd, Buffer.concat(this.pending));
    fdatasyncSync(this.fd);
    this.pending = [];
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}
