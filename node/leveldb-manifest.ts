// Which write-ahead logs LevelDB replays at open, from its MANIFEST: each record of that log is a
// VersionEdit (leveldb db/version_edit.cc), a run of varint-tagged fields; the last log number any
// edit names is the oldest log still holding writes not in a table file. LevelDB replays the
// NNNNNN.log files numbered at or above it (and the "previous log" of old versions) in number
// order, and ignores older ones (obsolete, deleted once it is open).

const COMPARATOR = 1;
const LOG_NUMBER = 2;
const NEXT_FILE_NUMBER = 3;
const LAST_SEQUENCE = 4;
const COMPACT_POINTER = 5;
const DELETED_FILE = 6;
const NEW_FILE = 7;
const PREV_LOG_NUMBER = 9;

class Cursor {
  private at = 0;

  constructor(private readonly b: Uint8Array) {}

  get done(): boolean {
    return this.at >= this.b.length;
  }

  /** A varint of up to 64 bits; exact below 2^53 (file numbers are far below). */
  varint(): number {
    let value = 0;
    for (let shift = 0; shift < 64; shift += 7) {
      if (this.at >= this.b.length) throw new Error('truncated varint');
      const byte = this.b[this.at++] as number;
      value += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return value;
    }
    throw new Error('varint too long');
  }

  /** Skips a length-prefixed string. */
  skipSlice(): void {
    const length = this.varint();
    if (this.at + length > this.b.length) throw new Error('truncated string');
    this.at += length;
  }
}

export class ManifestLogs {
  logNumber = 0;
  prevLogNumber = 0;
  /** The fields LevelDB requires some edit to have set (VersionSet::Recover). */
  private readonly seen = new Set<number>();

  /** Reads one VersionEdit; throws on one LevelDB's decoder would refuse. */
  apply(edit: Uint8Array): void {
    const c = new Cursor(edit);
    while (!c.done) {
      const tag = c.varint();
      this.seen.add(tag);
      switch (tag) {
        case COMPARATOR:
          c.skipSlice();
          break;
        case LOG_NUMBER:
          this.logNumber = c.varint();
          break;
        case PREV_LOG_NUMBER:
          this.prevLogNumber = c.varint();
          break;
        case NEXT_FILE_NUMBER:
        case LAST_SEQUENCE:
          c.varint();
          break;
        case COMPACT_POINTER: // level, key
          c.varint();
          c.skipSlice();
          break;
        case DELETED_FILE: // level, file number
          c.varint();
          c.varint();
          break;
        case NEW_FILE: // level, file number, size, smallest key, largest key
          c.varint();
          c.varint();
          c.varint();
          c.skipSlice();
          c.skipSlice();
          break;
        default:
          throw new Error(`unknown tag ${tag}`);
      }
    }
  }

  /** Whether the edits name the next file number, the log number and the last sequence, as LevelDB requires to open. */
  get complete(): boolean {
    return this.seen.has(NEXT_FILE_NUMBER) && this.seen.has(LOG_NUMBER) && this.seen.has(LAST_SEQUENCE);
  }

  /** Whether LevelDB replays log number `n`. */
  replays(n: number): boolean {
    return n >= this.logNumber || n === this.prevLogNumber;
  }
}
