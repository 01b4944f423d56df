// The crash campaign (issue #24): `npm run bench -- crash` kills a devnet CRASH_KILLS (50) times
// and one validator of a 4-validator testnet CRASH_NET_KILLS (10) times with SIGKILL, under the
// load generator's order flow at CRASH_RATE actions/s (500), each after a random 0.3 to 3 s, and
// tears the last write of one of the node's files every CRASH_TEAR_EVERY (5) kills; after each,
// it checks the dead node's directory and its restart (test/support/crash.ts). CRASH_SEED replays.
import { rm } from 'node:fs/promises';
import { runCrashCampaign, type CrashReport } from '../test/support/crash.ts';
import { tempDir } from '../test/support/node.ts';

function summary(name: string, r: CrashReport): void {
  const k = r.kills;
  const mean = (f: (x: (typeof k)[number]) => number) => (k.length === 0 ? 0 : k.reduce((s, x) => s + f(x), 0) / k.length);
  const max = (f: (x: (typeof k)[number]) => number) => Math.max(0, ...k.map(f));
  console.log(`${name}: ${k.length} kills in ${r.seconds.toFixed(0)} s; ${r.acknowledged} actions acknowledged, ${r.actionsInChain} in the chain; torn writes: ${k.filter((x) => x.torn !== null).length}`);
  console.log(`  restart ms mean ${mean((x) => x.restartMs).toFixed(0)} max ${max((x) => x.restartMs).toFixed(0)}; verify ms mean ${mean((x) => x.verifyMs).toFixed(0)} max ${max((x) => x.verifyMs).toFixed(0)}${k.some((x) => x.catchUpMs > 0) ? `; catch-up ms mean ${mean((x) => x.catchUpMs).toFixed(0)} max ${max((x) => x.catchUpMs).toFixed(0)}` : ''}`);
  console.log(`  problems: ${r.problems.length}`);
  for (const p of r.problems) console.log(`  - ${p}`);
}

export async function benchCrash(): Promise<void> {
  const seed = Number(process.env.CRASH_SEED ?? Date.now() % 2 ** 31);
  const rate = Number(process.env.CRASH_RATE ?? 500);
  const tearEvery = Number(process.env.CRASH_TEAR_EVERY ?? 5);
  console.log(`seed ${seed} (CRASH_SEED=${seed} replays it), ${rate} actions/s`);
  for (const [net, kills] of [['devnet', Number(process.env.CRASH_KILLS ?? 50)], ['testnet', Number(process.env.CRASH_NET_KILLS ?? 10)]] as const) {
    if (kills === 0) continue;
    const workDir = await tempDir('svc-crash-');
    try {
      const report = await runCrashCampaign({
        net, kills, seed, rate, runMs: [300, 3000], tearEvery, workDir, log: (l) => console.log(`  ${l}`),
        tear: net === 'devnet' ? ['db', 'evm', 'history'] : ['wal', 'db', 'evm', 'history'],
      });
      summary(net, report);
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  }
}
