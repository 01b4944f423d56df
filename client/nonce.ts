// Nonces: now in ms, strictly increasing across every call of this process (so parallel calls
// never share one), and, when a file is given, never at or below a nonce handed out before a
// restart: the file holds a ceiling reserved ahead, written before any nonce above it is used.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export interface NonceSource {
  next(): number;
}

export interface NonceManagerOptions {
  /** Where the reserved ceiling lives; absent: memory only (a restart relies on the clock). */
  readonly file?: string;
  /** Nonces reserved per write of the file (default 10,000 ms: the node accepts nonces up to 60 s ahead). */
  readonly reserve?: number;
  readonly now?: () => number;
}

export class NonceManager implements NonceSource {
  private last: number;
  private ceiling: number;
  private readonly reserve: number;
  private readonly now: () => number;

  constructor(private readonly opts: NonceManagerOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.reserve = opts.reserve ?? 10_000;
    this.last = opts.file === undefined ? 0 : readCeiling(opts.file);
    this.ceiling = this.last;
  }

  /** The next nonce: max(now, last + 1). Synchronous, so concurrent callers are serialized by the event loop. */
  next(): number {
    const n = Math.max(this.now(), this.last + 1);
    if (this.opts.file !== undefined && n > this.ceiling) {
      this.ceiling = n + this.reserve;
      writeCeiling(this.opts.file, this.ceiling);
    }
    this.last = n;
    return n;
  }
}

function readCeiling(file: string): number {
  try {
    const v = Number(readFileSync(file, 'utf8').trim());
    return Number.isSafeInteger(v) && v > 0 ? v : 0;
  } catch {
    return 0; // no file yet
  }
}

/** Written to a temp file and renamed: a crash leaves the old ceiling or the new one, never half of one. */
function writeCeiling(file: string, ceiling: number): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, `${ceiling}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}
