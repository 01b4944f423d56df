// Real processes: a second node on a data directory in use is refused, naming the directory and
// the holder's pid; SIGTERM under load finishes the block in flight (every acknowledged order is
// there after the restart) and exits 0; a lock left by a dead process is taken over.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { Client, limit, nextNonce, orderAction, tempDir, wallets } from '../support/node.ts';
import { spawnDevnet } from '../support/process.ts';

const [alice] = wallets as [typeof wallets[0]];
const user = alice.address.toLowerCase();
/** Fewer threads to start: the lock and the shutdown do not depend on them. */
const LEAN = ['--signer-workers', '0', '--no-history'];

t.test('data directory lock, graceful SIGTERM, stale lock takeover', async (t) => {
  const dataDir = await tempDir();
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const first = await spawnDevnet([...LEAN, '--data-dir', dataDir, '--metrics-port', '0']);
  t.teardown(() => first.stop('SIGKILL'));
  const lockFile = join(dataDir, 'svc.lock');
  t.equal(readFileSync(lockFile, 'utf8').trim(), String(first.proc.pid), 'the lock file holds the pid');

  const second = await spawnDevnet([...LEAN, '--data-dir', dataDir]).then(async (p) => (await p.stop('SIGKILL'), null), (e: Error) => e.message);
  t.match(second, `the data directory ${dataDir} is locked by process ${first.proc.pid}`, 'a second node is refused, naming the directory and the holder');
  t.match(second, /exited with 1/);

  // Orders in flight when SIGTERM arrives: each is answered with its result or its connection
  // closes unanswered; every answered one must be in the chain after the restart.
  const client = new Client(first.url);
  const sent = Array.from({ length: 60 }, (_, i) => client.exchange(alice, orderAction(limit(0, true, String(50_000 + i), '0.001')), { nonce: nextNonce() })
    .then((r) => (r.status === 200 && r.body.status === 'ok' ? r.body.response.data.statuses[0].resting.oid as number : null), () => null));
  await Promise.race(sent);
  const stopped = first.stop('SIGTERM');
  const oids = (await Promise.all(sent)).filter((o): o is number => o !== null);
  t.equal(await stopped, 0, 'SIGTERM exits 0');
  const height = Number(/stopped at height (\d+)/.exec(first.output())?.[1]);
  t.ok(height > 0, `stopped at height ${height}`);
  t.ok(oids.length > 0, `${oids.length} of 60 orders acknowledged`);
  t.notOk(existsSync(lockFile), 'a clean stop removes the lock');

  // A node killed outright (kill -9, power loss) leaves its lock behind: here the lock of the
  // first node, whose process is gone. The next start takes it over.
  writeFileSync(lockFile, `${first.proc.pid}\n`);
  const third = await spawnDevnet([...LEAN, '--data-dir', dataDir]);
  t.teardown(() => third.stop('SIGKILL'));
  t.match(third.output(), new RegExp(`height\\s+${height} \\(resumed\\)`), 'resumes at the height it stopped at');
  t.equal(readFileSync(lockFile, 'utf8').trim(), String(third.proc.pid), 'a stale lock (dead pid) is taken over');
  const open = (await new Client(third.url).info({ type: 'openOrders', user })).body as { oid: number }[];
  const have = new Set(open.map((o) => o.oid));
  t.same(oids.filter((o) => !have.has(o)), [], 'every acknowledged order survived the graceful stop');
  t.equal(await third.stop('SIGTERM'), 0);
});
