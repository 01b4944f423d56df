// `--pin-event-loop` in a real child process: its event loop on the first CPU it may use, every
// other thread (signer workers, the history thread, V8's and libuv's) on the rest, threads
// started after it included; the node trades as before. And the flag as the CLI reads it.
import { readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import t from 'tap';
import { opsNodeConfig, takeOpsFlags, UsageError } from '../../cli/index.ts';
import { createLogger } from '../../node/index.ts';
import { until } from '../support/network.ts';
import { Client, limit, orderAction, tempDir, wallets } from '../support/node.ts';
import { spawnDevnet } from '../support/process.ts';

/** `Cpus_allowed_list` of a thread: "0-1,4" read as [0, 1, 4]. */
function allowedCpus(statusFile: string): number[] {
  const list = /^Cpus_allowed_list:\s*(\S+)$/m.exec(readFileSync(statusFile, 'utf8'))?.[1] ?? '';
  return list.split(',').flatMap((part) => {
    const [a, b] = part.split('-').map(Number) as [number, number | undefined];
    return Array.from({ length: (b ?? a) - a + 1 }, (_, i) => a + i);
  });
}

/** Each thread of `pid`: its id and the CPUs it may run on (a thread gone meanwhile is left out). */
function threads(pid: number): { tid: number; cpus: number[] }[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
    try {
      return [{ tid: Number(tid), cpus: allowedCpus(`/proc/${pid}/task/${tid}/status`) }];
    } catch {
      return [];
    }
  });
}

t.test('the flag and its config.json setting', async (t) => {
  t.same(takeOpsFlags(['--fresh', '--pin-event-loop', '--log-json']), { rest: ['--fresh'], ops: { pinEventLoop: true, logJson: true } });
  const logger = createLogger({ level: 'error', json: false, write: () => {} });
  t.equal((await opsNodeConfig({}, logger)).pinEventLoop, false, 'off unless asked');
  t.equal((await opsNodeConfig({}, logger, { pinEventLoop: true })).pinEventLoop, true, 'config.json turns it on');
  t.equal((await opsNodeConfig({ pinEventLoop: true }, logger, { pinEventLoop: false })).pinEventLoop, true, 'the flag wins');
  await t.rejects(opsNodeConfig({}, logger, { pinEventLoop: 'yes' as never }), UsageError);
});

t.test('a devnet with --pin-event-loop: the event loop alone on its CPU', { skip: process.platform !== 'linux' && 'thread affinity is set on Linux only' }, async (t) => {
  const dataDir = await tempDir();
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const cpus = allowedCpus('/proc/self/status'); // what the child inherits
  const node = await spawnDevnet(['--data-dir', dataDir, '--pin-event-loop']);
  t.teardown(() => node.stop('SIGKILL'));
  const pid = node.proc.pid as number;
  if (cpus.length < 2) {
    t.match(node.output(), /--pin-event-loop: not pinned: this process may use 1 CPU/, 'one CPU: said, not pinned');
    return;
  }
  const [eventLoop, ...others] = cpus as [number, ...number[]];
  t.match(node.output(), new RegExp(`event loop pinned to CPU ${eventLoop}; \\d+ other threads to CPU ${others.join(',')}`));
  // Trading starts more threads' work; the sweep moves any new thread within a second.
  const [alice] = wallets as [(typeof wallets)[0]];
  const client = new Client(node.url);
  const placed = await client.exchange(alice, orderAction(limit(0, true, '50000', '0.01')));
  t.equal(placed.status, 200);
  t.equal(placed.body.status, 'ok');
  let seen: { tid: number; cpus: number[] }[] = [];
  await until('every thread but the event loop off its CPU', () => {
    seen = threads(pid);
    return seen.every((th) => (th.tid === pid ? th.cpus.join() === String(eventLoop) : th.cpus.join() === others.join()));
  }, 10_000).catch((err: Error) => t.fail(`${err.message}: ${JSON.stringify(seen)}`));
  t.ok(seen.length >= 8, `${seen.length} threads (signer workers, history, V8 and libuv helpers)`);
  t.equal(await node.stop('SIGTERM'), 0, 'stops as before');
});
