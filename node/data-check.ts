// At start, before any database opens, each LevelDB store of the data directory is checked: its
// CURRENT file, its MANIFEST and the write-ahead logs LevelDB will replay (node/leveldb-log.ts).
// LevelDB alone reads damage leniently (a bad record drops the rest of its 32 KiB block and the
// writes after it are kept) and deletes the log once open, so a hole among acknowledged blocks
// would go unnoticed. A torn tail (the last write cut short) is left for LevelDB to drop, with a
// warning; damage that whole records follow is refused, naming the file and the byte.
import { readFile, readdir, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { checkLog, UNWRITTEN_TAIL, type LogCheck } from './leveldb-log.ts';
import { ManifestLogs } from './leveldb-manifest.ts';
import { DataDirDamagedError } from './start-error.ts';

interface Store {
  readonly dir: string;
  /** What its records are, for the refusal. */
  readonly holds: string;
  /** What losing its last write means. */
  readonly lost: string;
  /** What the operator does when the node refuses it. */
  readonly remedy: string;
}

const RESYNC = 'restore the data directory from a backup; or, on a node of a network, remove db/, evm/ and history/ '
  + '(keep validator_key.pem, node_key.hex, consensus.wal and sign_state.json) and start it again to fetch the chain '
  + 'from its peers; a devnet or a network\'s only validator without a backup can only start a new chain (--fresh)';

const STORES: readonly Store[] = [
  {
    dir: 'db',
    holds: 'acknowledged blocks',
    lost: 'the last write (normally the newest block) is lost and the node resumes at the block before it; a block whose '
      + 'write was cut short had answered none of its actions, and a validator of a network fetches it again from its peers',
    remedy: RESYNC,
  },
  { dir: 'evm', holds: 'EVM blocks', lost: 'the last EVM block written is lost and is executed again from the chain\'s blocks', remedy: RESYNC },
  {
    dir: 'history',
    holds: 'history',
    lost: 'the last history written is lost and is indexed again from the chain\'s blocks',
    remedy: 'remove the history/ directory: the next start rebuilds it from the chain\'s blocks (docs/history.md)',
  },
];

/**
 * Checks the LevelDB stores of `dataDir` (those that exist) before they open: warns of a torn tail
 * LevelDB will drop, throws DataDirDamagedError on damage it would hide or cannot read.
 */
export async function checkDataDirLogs(dataDir: string, warn: (line: string) => void): Promise<void> {
  for (const store of STORES) await checkStore(join(dataDir, store.dir), store, warn);
}

async function checkStore(dir: string, store: Store, warn: (line: string) => void): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  const manifest = await currentManifest(dir, names, store);
  if (manifest === null) return;
  const logs = await checkManifest(join(dir, manifest), store, warn);
  const replayed = names
    .map((name) => ({ name, n: /^(\d+)\.log$/.exec(name)?.[1] }))
    .filter((l): l is { name: string; n: string } => l.n !== undefined && logs.replays(Number(l.n)))
    .sort((x, y) => Number(x.n) - Number(y.n));
  let torn: { file: string; check: LogCheck & { kind: 'torn' } } | null = null;
  for (const { name } of replayed) {
    const file = join(dir, name);
    const check = checkLog(await readFile(file));
    if (torn !== null && check.records > 0) {
      // LevelDB replays the logs one after the other: the later one's records would land after a hole.
      throw damaged(torn.file, torn.check.offset, `${torn.check.problem}; ${file} holds ${check.records} later records`, store);
    }
    if (check.kind === 'corrupt') throw damaged(file, check.offset, `${check.problem}; a whole record follows at byte ${check.laterRecord}`, store);
    if (check.kind === 'torn' && torn === null) torn = { file, check };
  }
  if (torn !== null) {
    const { file, check } = torn;
    const how = UNWRITTEN_TAIL.has(check.problem) ? 'cut short' : 'damaged';
    warn(`${file}: the last write is ${how} (${check.problem} at byte ${check.offset}; ${check.size - check.offset} bytes dropped, ${check.records} whole records kept): ${store.lost}`);
  }
}

function damaged(file: string, offset: number, what: string, store: Store): DataDirDamagedError {
  return new DataDirDamagedError(file, `${file} is damaged at byte ${offset} (${what}): LevelDB would skip the damaged part and keep `
    + `the writes after it, losing ${store.holds} in the middle. The node does not start on it: ${store.remedy}`);
}

/** The MANIFEST that CURRENT names; null for a directory LevelDB has not yet made a database of. */
async function currentManifest(dir: string, names: readonly string[], store: Store): Promise<string | null> {
  const path = join(dir, 'CURRENT');
  if (!names.includes('CURRENT')) {
    // LevelDB creates CURRENT before any table or log file: without it, it would start an empty database over them.
    const data = names.find((n) => /^\d+\.(log|ldb|sst)$/.test(n));
    if (data === undefined) return null;
    throw new DataDirDamagedError(path, `${path} is missing while ${dir} holds LevelDB files (${data}): LevelDB would start an empty database over them. The node does not start on it: ${store.remedy}`);
  }
  const text = await readFile(path, 'utf8');
  const manifest = /^(MANIFEST-\d+)\n$/.exec(text)?.[1];
  if (manifest === undefined || !names.includes(manifest)) {
    throw new DataDirDamagedError(path, `${path} does not name a MANIFEST file of ${dir} (it holds ${JSON.stringify(text.slice(0, 40))}). The node does not start on it: ${store.remedy}`);
  }
  return manifest;
}

/**
 * Reads the MANIFEST's edits for the log numbers. LevelDB opens a MANIFEST whose last record was
 * cut short (it drops it silently, if the edits before hold the file numbers it needs) but refuses
 * one with a bad record anywhere. An edit is synced before the files it replaces are deleted, so a
 * tail cut short is an edit that never took effect: it is cut off here (whatever LevelDB's reader
 * would make of it) and the database opens at the edit before. Anything else is refused: the edit
 * may have taken effect, and the files it replaced may be gone.
 */
async function checkManifest(path: string, store: Store, warn: (line: string) => void): Promise<ManifestLogs> {
  const refuse = (what: string) =>
    new DataDirDamagedError(path, `${path} ${what}: LevelDB cannot tell which table files hold the database. The node does not start on it: ${store.remedy}`);
  const logs = new ManifestLogs();
  let undecodable = null as string | null;
  const check = checkLog(await readFile(path), (edit) => {
    try {
      if (undecodable === null) logs.apply(edit);
    } catch (err) {
      undecodable = (err as Error).message;
    }
  });
  if (undecodable !== null) throw refuse(`holds a record that does not decode (${undecodable})`);
  if (check.kind === 'whole') {
    if (!logs.complete) throw refuse('lacks the file numbers LevelDB needs');
    return logs;
  }
  if (check.kind === 'torn' && UNWRITTEN_TAIL.has(check.problem) && logs.complete) {
    await truncate(path, check.offset).catch((err: Error) => {
      throw refuse(`ends in an edit cut short (${check.problem} at byte ${check.offset}) that cannot be cut off (${err.message})`);
    });
    warn(`${path}: LevelDB's last edit of its file list was cut short (${check.problem} at byte ${check.offset}); it is cut off and the database opens at the edit before it, whose files are all there`);
    return logs;
  }
  const at = check.kind === 'corrupt' ? `${check.problem}; a whole record follows at byte ${check.laterRecord}` : check.problem;
  throw refuse(`is damaged at byte ${check.offset} (${at})`);
}
