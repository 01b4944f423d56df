// The crash campaign's short version for a devnet (test/support/crash.ts; `npm run bench -- crash`
// runs the long one): killed with SIGKILL under load three times, each kill also damaging the last
// write of one of its databases (db cut short, evm with a byte flipped, history cut short). Every
// acknowledged action stays (but those of a damaged block write), none is applied twice, heights
// never go back, and the state rebuilt from the snapshot equals the state rebuilt from genesis.
// CRASH_SEED replays another seed.
import { rm } from 'node:fs/promises';
import t from 'tap';
import { runCrashCampaign } from '../support/crash.ts';
import { tempDir } from '../support/node.ts';

const seed = Number(process.env.CRASH_SEED ?? 20261126);

t.test('devnet: kill -9 under load, damaged last writes', async (t) => {
  const workDir = await tempDir('svc-crash-');
  t.teardown(() => rm(workDir, { recursive: true, force: true }));
  const lines: string[] = [];
  const report = await runCrashCampaign({
    net: 'devnet', seed, rate: 300, runMs: [300, 1500], workDir, log: (l) => lines.push(l), kills: 3, tearEvery: 1, tear: ['db', 'evm', 'history'],
  }).catch((err: unknown) => {
    t.comment(`seed ${seed} (CRASH_SEED=${seed} replays it):\n${lines.join('\n')}`);
    throw err;
  });
  if (report.problems.length > 0) t.comment(`seed ${seed} (CRASH_SEED=${seed} replays it):\n${lines.join('\n')}`);
  t.same(report.problems, [], 'no acknowledged action lost, none applied twice, no height gone back, the two rebuilt states equal');
  t.equal(report.kills.length, 3, 'every kill ran');
  t.ok(report.kills.every((k) => k.acked > 0), 'actions were acknowledged before each kill');
  t.ok(report.kills.every((k) => k.torn !== null), `each kill damaged a file: ${report.kills.map((k) => k.torn).join('; ')}`);
});
