// Real disk faults under a real devnet process: its data directory on a small tmpfs that fills up,
// then is mounted read-only. The node halts with a message naming the failed write, answers nothing
// as executed that is not on disk, never corrupts what is; once space returns (or the directory is
// writable again) a restart resumes with every acknowledged action. Needs root for mount(8): where
// mounting is not allowed the test is skipped, saying so.
import { execFileSync } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { Client, limit, orderAction, tempDir, wallets } from '../support/node.ts';
import { until } from '../support/network.ts';
import { spawnDevnet, type DevnetProcess } from '../support/process.ts';

const [alice] = wallets as [typeof wallets[0]];
const A = alice.address.toLowerCase();

function mountTmpfs(dir: string, mb: number): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${mb}m`, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const remount = (dir: string, mode: 'ro' | 'rw') => execFileSync('mount', ['-o', `remount,${mode}`, dir], { stdio: 'ignore' });

/** Orders until one is not answered as executed (the block's write failed); the oids acknowledged. */
async function orderUntilRefused(client: Client, from: number): Promise<{ acked: number[]; refusal: { status: number; body: unknown } }> {
  const acked: number[] = [];
  for (let i = 0; i < 5000; i++) {
    const r = await client.exchange(alice, orderAction(limit(0, true, String(from + i), '0.001')));
    const oid = r.status === 200 ? (r.body?.response?.data?.statuses?.[0]?.resting?.oid as number | undefined) : undefined;
    if (oid === undefined) return { acked, refusal: { status: r.status, body: r.body } };
    acked.push(oid);
  }
  throw new Error('5000 orders all acknowledged: the fault never showed');
}

async function openOids(client: Client): Promise<number[]> {
  return ((await client.info({ type: 'openOrders', user: A })).body as { oid: number }[]).map((o) => o.oid).sort((a, b) => a - b);
}

const mnt = await tempDir('svc-disk-');
const mounted = mountTmpfs(mnt, 48);
if (!mounted) await rm(mnt, { recursive: true, force: true });

t.test('a full disk, then a read-only one: halt, no corruption, resume', { skip: mounted ? false : 'mount(8) is not allowed here (needs root): no tmpfs to fill' }, async (t) => {
  t.teardown(async () => {
    try {
      execFileSync('umount', ['-l', mnt], { stdio: 'ignore' });
    } catch {
      // already unmounted
    }
    await rm(mnt, { recursive: true, force: true });
  });
  const dataDir = join(mnt, 'data');
  await mkdir(dataDir);
  let node: DevnetProcess = await spawnDevnet(['--data-dir', dataDir, '--no-history']);
  t.teardown(() => node.stop('SIGKILL'));
  let client = new Client(node.url);
  const first = await client.exchange(alice, orderAction(limit(0, true, '80000', '0.001')));
  t.match(first.body, { status: 'ok' });

  // Full: a filler takes what is left; the node's next writes fail with ENOSPC.
  const filler = join(mnt, 'filler');
  try {
    execFileSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=1M', 'count=100'], { stdio: 'ignore' });
  } catch {
    // dd stops at the full disk: that is the point
  }
  const full = await orderUntilRefused(client, 80001);
  t.equal(full.refusal.status, 503, 'the action whose block could not be written is not answered as executed');
  await until('the node reports the failed write', () => /no space left on device|ENOSPC/i.test(node.output()), 30_000);
  t.match(node.output(), /fatal: cannot commit block/, 'a clear message');
  t.equal((await client.raw('/v1/health')).status, 503, 'health says it halted');
  await node.stop('SIGINT');

  // Space returns: the restart resumes with every acknowledged order, the refused one absent.
  await rm(filler);
  node = await spawnDevnet(['--data-dir', dataDir, '--no-history']);
  client = new Client(node.url);
  const oids = await openOids(client);
  t.same(oids.slice(0, 1 + full.acked.length), [first.body.response.data.statuses[0].resting.oid, ...full.acked], 'every acknowledged order is there');
  t.equal(oids.length, 1 + full.acked.length, 'and nothing that was refused');
  const after = await client.exchange(alice, orderAction(limit(0, true, '79000', '0.001')));
  t.match(after.body, { status: 'ok' }, 'the chain goes on');

  // Read-only (remounted while no file is open: Linux refuses it under a writer): the start is
  // refused at once, naming the directory; writable again, the node resumes.
  await node.stop('SIGINT');
  remount(mnt, 'ro');
  try {
    await t.rejects(spawnDevnet(['--data-dir', dataDir, '--no-history']), new RegExp(`${dataDir}[^\\n]*(read-only|EROFS)|(read-only|EROFS)[^\\n]*${dataDir}`, 'i'), 'a read-only data directory is refused at start, naming it');
  } finally {
    remount(mnt, 'rw');
  }
  node = await spawnDevnet(['--data-dir', dataDir, '--no-history']);
  client = new Client(node.url);
  t.equal((await openOids(client)).length, oids.length + 1, 'writable again: every acknowledged order is there');
  t.equal((await client.raw('/v1/health')).status, 200);
});
