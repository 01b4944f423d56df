// The small files the node keeps (keys, genesis.json, the relayer's cursors) are replaced whole or
// not at all: the content goes to a temporary file beside it, which is synced and renamed over the
// old one, and then the directory is synced. A crash at any point (kill -9, power loss) leaves the
// old content or the new, never a torn file; once this resolves the new content is durable.
import { open, readFile, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Writes `data` to `path` atomically and durably; a new file gets `mode` (less the umask).
 * Writes of one path must not overlap (they share the temporary file `<path>.tmp`).
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o666): Promise<void> {
  const tmp = `${path}.tmp`;
  await rm(tmp, { force: true }); // a crash's leftover, whose mode may not be `mode`
  try {
    const file = await open(tmp, 'wx', mode);
    try {
      await file.writeFile(data);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  await syncDir(dirname(path));
}

/** writeFileAtomic unless the file already holds exactly `data`; true when it wrote. */
export async function writeFileIfChanged(path: string, data: string, mode?: number): Promise<boolean> {
  try {
    if ((await readFile(path, 'utf8')) === data) return false;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await writeFileAtomic(path, data, mode);
  return true;
}

/** fsync of a directory: makes a rename or a new file in it durable. */
async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
