// A seeded slice of the fuzzing campaign (test/support/fuzz.ts; the whole campaign is
// `npm run bench -- fuzz`): every request surface of a real node, mutated; never a 5xx, a hang
// or an error outside the spec's format, and refused /exchange requests change no state.
import t from 'tap';
import { runFuzz } from '../support/fuzz.ts';
import { startNode } from '../support/node.ts';
import { replaySeed } from '../support/seed.ts';

t.test('mutated requests of every surface are refused cleanly', async (t) => {
  const seed = replaySeed(t, 20261126);
  // No empty blocks: between a request and its answer, only the request's own block moves the state.
  const { node } = await startNode(t, { emptyBlockIntervalMs: 3_600_000, history: true });
  const report = await runFuzz({ restUrl: node.restUrl, wsUrl: node.wsUrl, rpcUrl: node.rpcUrl, exchange: node.chain.exchange, height: () => node.height }, { seed, inputs: Number(process.env.FUZZ_INPUTS ?? 400) });
  t.comment(`inputs ${report.inputs}, answers ${JSON.stringify(report.byStatus)}, refusals checked ${report.refusalsChecked}, ms by surface ${JSON.stringify(report.msBySurface, (k, v) => (typeof v === 'number' ? Math.round(v) : v))}`);
  t.same(report.findings, [], `findings (seed ${seed})`);
  t.ok(report.refusalsChecked > 0, 'some /exchange refusals were checked against the state');
});
