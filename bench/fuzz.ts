// The fuzzing campaign (issue #24): `npm run bench -- fuzz` sends FUZZ_INPUTS (100,000) mutated
// requests of every surface (test/support/fuzz.ts) to a real node in this process, one at a time,
// and prints what came back and any finding (a 5xx, a hang, an error outside the spec's format, a
// refused /exchange request that changed the state). FUZZ_SEED replays a campaign.
import { runFuzz } from '../test/support/fuzz.ts';
import { startNode } from '../test/support/node.ts';

export async function benchFuzz(): Promise<void> {
  const inputs = Number(process.env.FUZZ_INPUTS ?? 100_000);
  const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
  console.log(`seed ${seed} (FUZZ_SEED=${seed} replays it), ${inputs} inputs`);
  const teardowns: (() => unknown)[] = [];
  const { node } = await startNode({ teardown: (fn) => teardowns.push(fn) }, { emptyBlockIntervalMs: 3_600_000, history: true });
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  try {
    const report = await runFuzz(
      { restUrl: node.restUrl, wsUrl: node.wsUrl, rpcUrl: node.rpcUrl, exchange: node.chain.exchange, height: () => node.height },
      {
        seed, inputs, maxFindings: 50, progressEvery: 5000,
        onProgress: (done) => console.log(`  ${done} inputs, ${((performance.now() - t0) / 1000).toFixed(0)} s`),
      },
    );
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    console.log(`${report.inputs} inputs in ${seconds.toFixed(0)} s (${(report.inputs / seconds).toFixed(0)}/s; node and fuzzer share this process: ${((cpu.user + cpu.system) / 1000 / report.inputs).toFixed(2)} ms CPU per input)`);
    console.table(report.bySurface);
    console.log('answers by status:', report.byStatus);
    console.log(`/exchange refusals checked against the state: ${report.refusalsChecked}`);
    console.log(`findings: ${report.findings.length}`);
    for (const f of report.findings) console.log(`- [${f.surface}] ${f.problem}\n  input: ${f.input}`);
  } finally {
    for (const fn of teardowns.reverse()) await fn();
  }
}
