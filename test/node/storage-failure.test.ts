// A block that cannot be written halts the node: waiting requests get 503, nothing is answered as
// executed, no snapshot of the (ahead-of-disk) memory is taken, and a restart resumes from disk.
import { rm } from 'node:fs/promises';
import t from 'tap';
import { limit, orderAction, startNode, tempDir, wallets } from '../support/node.ts';
import { waitFor } from '../support/network.ts';

const [alice] = wallets as [typeof wallets[0]];
const A = alice.address.toLowerCase();

t.test('a failed block write halts; restart resumes from disk', async (t) => {
  const dataDir = await tempDir();
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const first = await startNode({ teardown: () => {} }, { dataDir });
  const ok = await first.client.exchange(alice, orderAction(limit(0, true, '90000', '0.1')));
  t.match(ok.body.response.data.statuses, [{ resting: { oid: 1 } }]);

  const store = first.node.store;
  store.prepareBlock = () => ({
    write: async () => {
      throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    },
    discard: () => {},
  });
  const lost = await first.client.exchange(alice, orderAction(limit(0, true, '91000', '0.1')));
  t.equal(lost.status, 503, 'the request whose block failed is not answered as executed');
  t.match(lost.body, { error: 'service_unavailable' });
  t.equal((await first.client.raw('/v1/health')).status, 503);
  const refused = await first.client.exchange(alice, orderAction(limit(0, true, '92000', '0.1')));
  t.equal(refused.status, 503, 'a halted node takes no more actions');
  await first.node.stop();

  const second = await startNode(t, { dataDir });
  t.equal((await second.client.raw('/v1/health')).status, 200);
  const open = (await second.client.info({ type: 'openOrders', user: A })).body;
  t.match(open, [{ oid: 1, limitPx: '90000' }], 'the acknowledged order is there; the failed one is not');
  t.equal(open.length, 1);
  const again = await second.client.exchange(alice, orderAction(limit(0, true, '91000', '0.1')));
  t.match(again.body.response.data.statuses, [{ resting: { oid: 2 } }], 'and the chain goes on from disk');
});

t.test('a snapshot taken while a block is on its way to disk names that block', async (t) => {
  const dataDir = await tempDir();
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const { node, client } = await startNode(t, { dataDir });
  await client.exchange(alice, orderAction(limit(0, true, '90000', '0.1')));
  const store = node.store;
  const prepare = store.prepareBlock.bind(store);
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let held = 0;
  store.prepareBlock = (w) => {
    const prepared = prepare(w);
    return {
      write: async () => {
        held = w.block.header.height;
        await gate;
        return prepared.write();
      },
      discard: () => prepared.discard(),
    };
  };
  const answer = client.exchange(alice, orderAction(limit(0, true, '91000', '0.1')));
  await waitFor('the block write', () => held > 0);
  t.equal(node.chain.exchange.state.height, held, 'the block has executed; its write is held');
  const saved = node.chain.saveSnapshot();
  release();
  await saved;
  t.equal((await answer).status, 200);
  const snapshot = await store.snapshot();
  t.equal(snapshot?.head.height, held, 'the snapshot names the block it holds the state of');
  t.equal((snapshot?.state as { height: number }).height, held);
});
