// The hot path's load generator in its short form: a real `svc devnet` process and a sender
// process signing before the clock starts, over HTTP keep-alive connections and over WebSocket
// posts. Asserts only that every action is answered ok (speed is the bench's: `npm run bench -- load`).
import t from 'tap';
import { runLoad, type LoadOptions } from '../../bench/load.ts';

const base: LoadOptions = {
  net: 'devnet', transport: 'http', mix: 'mixed', rate: 400, seconds: 2, senders: 1, conns: 32, window: 64, nodeArgs: ['--signer-workers', '1'], profile: null, print: false,
};

for (const o of [{ transport: 'http', mix: 'mixed' }, { transport: 'ws', mix: 'batch' }] as const) {
  t.test(`${o.transport}, ${o.mix} mix: every action answered ok`, async (t) => {
    const r = await runLoad({ ...base, ...o });
    t.ok(r.sent > 0, `sent ${r.sent}`);
    t.same(r.reasons, {}, 'no failures');
    t.equal(r.ok, r.sent, 'every action answered ok');
    t.equal(r.unanswered, 0);
    t.ok(r.orders > 0, 'orders were placed');
  });
}
