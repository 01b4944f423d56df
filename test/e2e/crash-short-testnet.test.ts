// The crash campaign's short version for a network (test/support/crash.ts): one validator of a
// 4-validator testnet killed with SIGKILL under load, its consensus WAL cut short before it
// starts again. It catches up; every acknowledged action is in every node's chain, none twice;
// its height never goes back; its state rebuilt from the snapshot equals the one from genesis.
// CRASH_SEED replays another seed.
import { rm } from 'node:fs/promises';
import t from 'tap';
import { runCrashCampaign } from '../support/crash.ts';
import { tempDir } from '../support/node.ts';

const seed = Number(process.env.CRASH_SEED ?? 20261126);

t.test('one validator of four: kill -9 under load, torn WAL', async (t) => {
  const workDir = await tempDir('svc-crash-');
  t.teardown(() => rm(workDir, { recursive: true, force: true }));
  const lines: string[] = [];
  // Runs long enough for answers before the kill: the network's latency here is near a second.
  const report = await runCrashCampaign({
    net: 'testnet', seed, rate: 300, runMs: [1500, 2500], workDir, log: (l) => lines.push(l), kills: 1, tearEvery: 1, tear: ['wal'],
  }).catch((err: unknown) => {
    t.comment(`seed ${seed} (CRASH_SEED=${seed} replays it):\n${lines.join('\n')}`);
    throw err;
  });
  if (report.problems.length > 0) t.comment(`seed ${seed} (CRASH_SEED=${seed} replays it):\n${lines.join('\n')}`);
  t.same(report.problems, [], 'no acknowledged action lost, none applied twice, no height gone back, the two rebuilt states equal');
  t.equal(report.kills.length, 1, 'the kill ran');
  t.ok(report.kills[0]!.acked > 0 && report.kills[0]!.catchUpMs > 0, 'actions were acknowledged, and the validator caught up');
  t.ok(report.kills[0]!.torn !== null, `the WAL was torn: ${report.kills[0]!.torn}`);
});
