// A throwaway PostgreSQL 15 for tests and benches: initdb in a temp dir owned by `postgres`
// (initdb refuses to run as root), pg_ctl on a free loopback port, the socket in the same dir.
// Throws with the reason when the server cannot start: a test that needs it fails, never skips.
import { execFile } from 'node:child_process';
import { chmod, chown, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './network.ts';

const run = promisify(execFile);

export interface TestPostgres {
  /** `postgres://svc@127.0.0.1:<port>/postgres` */
  readonly url: string;
  readonly port: number;
  readonly dir: string;
  /** The postmaster's pid (its children are the backends). */
  readonly pid: number;
  stop(): Promise<void>;
}

/** `id -u postgres` and its group, or null when there is no such user. */
async function postgresUser(): Promise<{ uid: number; gid: number } | null> {
  try {
    const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
    const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
    return { uid, gid };
  } catch {
    return null;
  }
}

/** Runs a PostgreSQL binary, as `postgres` when this process is root. */
async function pgRun(asPostgres: boolean, cmd: string, args: string[], timeout: number): Promise<void> {
  try {
    if (asPostgres) await run('runuser', ['-u', 'postgres', '--', cmd, ...args], { timeout });
    else await run(cmd, args, { timeout });
  } catch (e) {
    const err = e as { message: string; stderr?: string; stdout?: string };
    throw new Error(`${cmd} failed: ${err.message}\n${err.stderr ?? ''}${err.stdout ?? ''}`, { cause: e });
  }
}

/**
 * `durable: false` (the default, for tests) turns off fsync and synchronous commit; benches pass
 * `durable: true` to measure what a node would see. `settings` are more `-c name=value`.
 */
export async function startPostgres(opts: { durable?: boolean; settings?: Record<string, string> } = {}): Promise<TestPostgres> {
  const root = userInfo().uid === 0;
  const user = root ? await postgresUser() : null;
  if (root && user === null) throw new Error('PostgreSQL: running as root and there is no `postgres` user to run initdb as');
  const dir = await mkdtemp(join(tmpdir(), 'svc-pg-'));
  const data = join(dir, 'data');
  try {
    if (user !== null) {
      await chown(dir, user.uid, user.gid);
      await chmod(dir, 0o700);
    }
    await pgRun(root, 'initdb', ['-D', data, '-A', 'trust', '-U', 'svc', '-E', 'UTF8', '--locale=C', '--no-sync'], 60_000);
    const port = await freePort();
    const fast = opts.durable === true ? {} : { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' };
    const settings = { listen_addresses: '127.0.0.1', ...fast, ...opts.settings };
    const o = [`-p ${port}`, `-k ${dir}`, ...Object.entries(settings).map(([k, v]) => `-c ${k}=${v}`)].join(' ');
    await pgRun(root, 'pg_ctl', ['-D', data, '-o', o, '-l', join(dir, 'log'), '-w', '-t', '30', 'start'], 40_000).catch(async (e: Error) => {
      const log = await readFile(join(dir, 'log'), 'utf8').catch(() => '');
      throw new Error(`${e.message}\nserver log:\n${log}`);
    });
    const pid = Number((await readFile(join(data, 'postmaster.pid'), 'utf8')).split('\n')[0]);
    let stopped = false;
    return {
      url: `postgres://svc@127.0.0.1:${port}/postgres`,
      port,
      dir,
      pid,
      async stop() {
        if (stopped) return;
        stopped = true;
        await pgRun(root, 'pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'], 30_000).catch(() => {});
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(`PostgreSQL could not start (it needs initdb and pg_ctl on the PATH, and runuser as root): ${(e as Error).message}`, { cause: e });
  }
}
