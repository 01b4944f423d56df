// Nonces: now in ms, strictly increasing across every call of this process (so parallel calls
// never share one), and, when a file is given, never at or below a nonce handed out before a
// restart: the file holds a ceiling, written before any nonce above it is used. The ceiling is
// the last nonce itself (one small write per nonce) unless `reserve` asks to write less often;
// then a restart may start up to `reserve` ms ahead of the clock (the node takes nonces up to
// 60 s ahead, so keep it well below that, and restarts far apart).
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export interface NonceSource {
  next(): number;
}

export interface NonceManagerOptions {
  /** Where the reserved ceiling lives; absent: memory only (a restart relies on the clock). */
  readonly file?: string;
  /** Milliseconds of nonces reserved per write of the file (default 0: the file is written for every nonce). */
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
    this.reserve = opts.reserve ?? 0;
    this.last = opts.file === undefined ? 0 : readCeiling(opts.file);
    this.ceiling = this.last;
  }

  /** The next nonce: max(now, last + 1). Synchronous, so concurrent callers are serialized by the event loop. */
  next(): number {
    const n = Math.max(this.now(), this.last + 1);
    if (this.opts.file !== undefined && n > this.ceiling) {
      // Written before the nonce is handed out: a crash after this never reuses it.
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
