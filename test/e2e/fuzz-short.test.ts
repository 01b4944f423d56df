// A seeded slice of the fuzzing campaign (test/support/fuzz.ts; the whole campaign is
// `npm run bench -- fuzz`): every request surface of a real node, mutated; never a 5xx, a hang
// or an error outside the spec's format, and refused /exchange requests change no state.
import t from 'tap';
import { runFuzz } from '../support/fuzz.ts';
import { startNode } from '../support/node.ts';
import { replaySeed } from '../support/seed.ts';
import { connect } from '../support/ws.ts';

t.test('mutated requests of every surface are refused cleanly', async (t) => {
  const seed = replaySeed(t, 20261126);
  // No empty blocks: between a request and its answer, only the request's own block moves the state.
  const { node } = await startNode(t, { emptyBlockIntervalMs: 3_600_000, history: true });
  const report = await runFuzz({ restUrl: node.restUrl, wsUrl: node.wsUrl, rpcUrl: node.rpcUrl, exchange: node.chain.exchange, height: () => node.height }, { seed, inputs: Number(process.env.FUZZ_INPUTS ?? 800) });
  t.comment(`inputs ${report.inputs}, answers ${JSON.stringify(report.byStatus)}, refusals checked ${report.refusalsChecked}, ms by surface ${JSON.stringify(report.msBySurface, (k, v) => (typeof v === 'number' ? Math.round(v) : v))}`);
  t.same(report.findings, [], `findings (seed ${seed})`);
  t.ok(report.refusalsChecked > 0, 'some /exchange refusals were checked against the state');
});

t.test('what the campaign found stays fixed', async (t) => {
  const { node } = await startNode(t);
  // An object whose toString is not a function made String() throw in an error message: an
  // unhandled rejection that ended the node (campaign seed 424242, after 5,000 inputs).
  const hostile = { toString: 1, valueOf: 1 };
  for (const url of [node.wsUrl as string, (node.wsUrl as string).replace(/\/ws$/, '/hyperliquid/ws')]) {
    const ws = await connect(url);
    ws.send({ method: hostile });
    ws.send({ method: 'subscribe', subscription: { type: 'l2Book', coin: hostile } });
    ws.send({ method: 'subscribe', subscription: { type: hostile } });
    ws.send({ method: 'post', id: 1, request: { type: hostile, payload: {} } });
    ws.send({ method: 'ping' });
    await ws.next((m) => m?.channel === 'pong');
    ws.ws.close();
  }
  t.equal((await fetch(`${node.restUrl}/v1/health`)).status, 200, 'the node is still up');
});
