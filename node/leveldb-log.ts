// LevelDB's log format (leveldb doc/log_format.md), shared by its write-ahead log (NNNNNN.log)
// and its MANIFEST: 32 KiB blocks, each a run of records
//   masked CRC32C of type + data (u32 LE) | data length (u16 LE) | type (u8) | data
// A record never crosses a block boundary: a longer one is cut into FIRST, MIDDLE..., LAST
// fragments; a block's last < 7 bytes are padding. A zero header is a region never written.
//
// LevelDB reads its log leniently at open: a cut-off tail silently, a bad record by dropping the
// rest of its 32 KiB block and going on with the next. Damage in the middle thus loses the
// records around it while later writes are kept (a hole), and the log is deleted afterwards.
// `checkLog` tells a torn tail (the damage ends the log: only the last write is lost, which
// LevelDB's reading drops) from damage that whole records follow (left to the caller to refuse).
import { crc32c, unmaskCrc } from './crc32c.ts';

export const BLOCK_SIZE = 32 * 1024;
export const HEADER_SIZE = 7;
const ZERO = 0;
const FULL = 1;
const FIRST = 2;
const MIDDLE = 3;
const LAST = 4;

export type LogProblem =
  | 'truncated header' // the file ends inside a record's header
  | 'truncated record' // the file ends inside a record's data
  | 'zero-filled' // a zero header: space the file system allocated but the write never filled
  | 'bad length' // a length running past its block
  | 'checksum mismatch'
  | 'unknown record type'
  | 'fragment out of order' // a fragment that does not continue the record before it
  | 'unfinished record'; // the file ends after a FIRST or MIDDLE fragment

/** Problems a write cut short leaves (as opposed to bytes changed after they were written). */
export const UNWRITTEN_TAIL: ReadonlySet<LogProblem> = new Set(['truncated header', 'truncated record', 'zero-filled', 'unfinished record']);

export type LogCheck =
  /** `records`: whole (logical) records. */
  | { readonly kind: 'whole'; readonly size: number; readonly records: number }
  /** The log's last write(s), from `offset` to the end, are damaged and nothing whole follows. */
  | { readonly kind: 'torn'; readonly size: number; readonly records: number; readonly offset: number; readonly problem: LogProblem }
  /** Damage at `offset` (the start of the record it hits), and a whole record written after it at `laterRecord`. */
  | { readonly kind: 'corrupt'; readonly size: number; readonly records: number; readonly offset: number; readonly problem: LogProblem; readonly laterRecord: number };

type Physical = { readonly ok: true; readonly type: number; readonly next: number } | { readonly ok: false; readonly problem: LogProblem };

const blockEndOf = (pos: number) => (Math.floor(pos / BLOCK_SIZE) + 1) * BLOCK_SIZE;

/** The physical record whose header starts at `pos`, checked as LevelDB's reader checks it. */
function physicalAt(b: Uint8Array, pos: number): Physical {
  if (pos + HEADER_SIZE > b.length) return { ok: false, problem: 'truncated header' };
  const length = (b[pos + 4] as number) | ((b[pos + 5] as number) << 8);
  const type = b[pos + 6] as number;
  const next = pos + HEADER_SIZE + length;
  if (next > blockEndOf(pos)) return { ok: false, problem: 'bad length' };
  if (next > b.length) return { ok: false, problem: 'truncated record' };
  if (type === ZERO && length === 0) return { ok: false, problem: 'zero-filled' };
  const stored = ((b[pos] as number) | ((b[pos + 1] as number) << 8) | ((b[pos + 2] as number) << 16) | ((b[pos + 3] as number) << 24)) >>> 0;
  if (unmaskCrc(stored) !== crc32c(b, pos + 6, next)) return { ok: false, problem: 'checksum mismatch' };
  if (type < FULL || type > LAST) return { ok: false, problem: 'unknown record type' };
  return { ok: true, type, next };
}

/** Where the next header can start: past a block's padding (< 7 bytes, skipped unread, as LevelDB does). */
function headerPos(pos: number): number {
  const end = blockEndOf(pos);
  return end - pos < HEADER_SIZE ? end : pos;
}

/** Whether the FULL or FIRST record at `pos` (checked) is whole: a FIRST needs MIDDLEs and a LAST that check. */
function wholeFrom(b: Uint8Array, first: Physical & { ok: true }): boolean {
  if (first.type === FULL) return true;
  for (let at = headerPos(first.next); ;) {
    const r = physicalAt(b, at);
    if (!r.ok || (r.type !== MIDDLE && r.type !== LAST)) return false;
    if (r.type === LAST) return true;
    at = headerPos(r.next);
  }
}

/** The first whole record found at or after `from` (damage before it is not trusted to give record boundaries). */
function laterRecord(b: Uint8Array, from: number): number | null {
  let scanFrom = from;
  while (scanFrom < b.length) {
    const blockEnd = blockEndOf(scanFrom);
    if (scanFrom % BLOCK_SIZE === 0) {
      // A block always starts with a header: follow its records while they check.
      let at = scanFrom;
      let broken = false;
      while (!broken && at < blockEnd && at < b.length) {
        const r = physicalAt(b, at);
        if (r.ok && (r.type === FULL || r.type === FIRST) && wholeFrom(b, r)) return at;
        if (r.ok) at = headerPos(r.next);
        else broken = true;
      }
      if (!broken) {
        scanFrom = blockEnd; // every record of the block checked
        continue;
      }
      scanFrom = at + 1;
    }
    // Inside damage, any offset may hold the next header: try each whose type byte could start a record.
    const end = Math.min(blockEnd, b.length) - HEADER_SIZE;
    for (let at = scanFrom; at <= end; at++) {
      const type = b[at + 6];
      if (type !== FULL && type !== FIRST) continue;
      const r = physicalAt(b, at);
      if (r.ok && wholeFrom(b, r)) return at;
    }
    scanFrom = blockEnd;
  }
  return null;
}

/**
 * Reads a log file's bytes as LevelDB does, handing each whole record's data to `onRecord`
 * (until the first damage), and says whether the log is whole, torn at its end, or corrupt.
 */
export function checkLog(b: Uint8Array, onRecord?: (data: Uint8Array) => void): LogCheck {
  let records = 0;
  let first: number | null = null; // offset of the FIRST fragment of the record being read
  let parts: Uint8Array[] = [];
  const damaged = (offset: number, problem: LogProblem): LogCheck => {
    const later = laterRecord(b, offset + 1);
    return later === null
      ? { kind: 'torn', size: b.length, records, offset, problem }
      : { kind: 'corrupt', size: b.length, records, offset, problem, laterRecord: later };
  };
  const done = (data: Uint8Array[]) => {
    records++;
    onRecord?.(data.length === 1 ? (data[0] as Uint8Array) : Buffer.concat(data));
  };
  for (let pos = headerPos(0); pos < b.length; pos = headerPos(pos)) {
    const r = physicalAt(b, pos);
    if (!r.ok) return damaged(first ?? pos, r.problem);
    const data = b.subarray(pos + HEADER_SIZE, r.next);
    // An empty FIRST before a FULL or FIRST is an old LevelDB writer's habit, read as nothing.
    const open = first !== null && (parts.length > 1 || (parts[0]?.length ?? 0) > 0);
    switch (r.type) {
      case FULL:
        if (open) return damaged(first as number, 'fragment out of order');
        first = null;
        done([data]);
        break;
      case FIRST:
        if (open) return damaged(first as number, 'fragment out of order');
        first = pos;
        parts = [data];
        break;
      case MIDDLE:
      case LAST:
        if (first === null) return damaged(pos, 'fragment out of order');
        parts.push(data);
        if (r.type === LAST) {
          first = null;
          done(parts);
        }
        break;
    }
    pos = r.next;
  }
  return first !== null ? damaged(first, 'unfinished record') : { kind: 'whole', size: b.length, records };
}
