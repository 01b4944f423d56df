// One node per data directory: an exclusive lock file holding the owner's pid. A lock left by a
// process that no longer runs (kill -9, power loss) is taken over; a live owner's is refused with
// the directory and the pid named. The level database's own LOCK stays as a second line.
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export const DATA_LOCK_FILE = 'svc.lock';

export class DataDirLockedError extends Error {
  override readonly name = 'DataDirLockedError';

  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(`the data directory ${dataDir} is locked by process ${pid} (${join(dataDir, DATA_LOCK_FILE)}): is another node using it? Stop it first`);
  }
}

/** True while a process with this pid exists (EPERM: it exists under another user). */
function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid in a lock file; null if it is unreadable or half-written (a crash between open and write). */
function holder(path: string): number | null {
  try {
    const text = readFileSync(path, 'utf8').trim();
    return /^\d+$/.test(text) ? Number(text) : null;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

export class DataLock {
  private released = false;

  private constructor(
    readonly path: string,
    readonly pid: number,
  ) {}

  /**
   * Takes the lock of `dataDir` (which must exist) for this process. Throws DataDirLockedError
   * while a live process holds it.
   */
  static acquire(dataDir: string): DataLock {
    const path = join(dataDir, DATA_LOCK_FILE);
    for (let attempt = 0; attempt < 3; attempt++) {
      let fd: number;
      try {
        fd = openSync(path, 'wx', 0o644); // O_CREAT | O_EXCL: only one creator wins
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const pid = holder(path);
        if (pid !== null && alive(pid)) throw new DataDirLockedError(dataDir, pid);
        // Stale (its process is gone) or empty: take it over. Two starters racing here could both
        // remove and recreate it; the database's LOCK then refuses the second.
        try {
          unlinkSync(path);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        }
        continue;
      }
      try {
        writeSync(fd, `${process.pid}\n`);
      } finally {
        closeSync(fd);
      }
      return new DataLock(path, process.pid);
    }
    throw new DataDirLockedError(dataDir, holder(path) ?? -1);
  }

  /** Removes the lock file if it is still ours. */
  release(): void {
    if (this.released) return;
    this.released = true;
    try {
      if (holder(this.path) === this.pid) unlinkSync(this.path);
    } catch {
      // already gone
    }
  }
}
