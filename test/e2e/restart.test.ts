// The devnet as a real process: restarting the same data directory resumes at the same height
// with the same orders, balances and fills, after a clean stop and after SIGKILL.
import { rm } from 'node:fs/promises';
import t from 'tap';
import { Client, limit, orderAction, tempDir, wallets } from '../support/node.ts';
import { spawnDevnet } from '../support/process.ts';

const [alice, bob] = wallets as [typeof wallets[0], typeof wallets[0]];
const users = [alice.address.toLowerCase(), bob.address.toLowerCase()];

async function observe(client: Client) {
  const perUser = await Promise.all(
    users.map(async (user) => ({
      open: (await client.info({ type: 'openOrders', user })).body,
      state: (({ time: _time, ...rest }) => rest)((await client.info({ type: 'clearinghouseState', user })).body),
      fills: (await client.info({ type: 'userFills', user })).body,
    })),
  );
  const book = (await client.info({ type: 'l2Book', coin: 'BTC' })).body.levels;
  const candles = (await client.info({ type: 'candleSnapshot', req: { coin: 'BTC', interval: '1d', startTime: 0 } })).body;
  return { perUser, book, candles };
}

t.test('restart resumes the same chain and state', async (t) => {
  const dataDir = await tempDir();
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));

  let node = await spawnDevnet(['--data-dir', dataDir]);
  t.teardown(() => node.stop('SIGKILL'));
  let client = new Client(node.url);
  await client.exchange(alice, orderAction(limit(0, false, '101000', '0.3'), limit(0, false, '102000', '0.2')));
  await client.exchange(bob, orderAction(limit(0, true, '101000', '0.1', 'Ioc'), limit(0, true, '99000', '0.4')));
  const before = await observe(client);
  t.equal(before.perUser[1]?.fills.length, 1);
  const heightBefore = Number((await client.raw('/v1/height')).body.height);

  t.equal(await node.stop('SIGINT'), 0, 'Ctrl-C exits cleanly');
  t.match(node.output(), /stopped at height \d+/);

  node = await spawnDevnet(['--data-dir', dataDir]);
  client = new Client(node.url);
  t.match(node.output(), /\(resumed\)/);
  t.ok(Number((await client.raw('/v1/height')).body.height) >= heightBefore, 'height does not go back');
  t.same(await observe(client), before, 'same orders, balances and fills after a clean restart');

  // An acknowledged action survives SIGKILL right after its answer.
  const ack = await client.exchange(bob, orderAction(limit(0, true, '102000', '0.2', 'Ioc')));
  t.match(ack.body.response.data.statuses[0], { filled: { totalSz: '0.2' } });
  const acknowledged = await observe(client);
  await node.stop('SIGKILL');

  node = await spawnDevnet(['--data-dir', dataDir]);
  client = new Client(node.url);
  t.same(await observe(client), acknowledged, 'nothing acknowledged is lost after SIGKILL');
  t.equal((await client.exchange(alice, { type: 'cancel', cancels: [{ a: 0, o: 2 }] })).body.response.data.statuses[0], 'success', 'and the restored book still trades');

  const fresh = await spawnDevnet(['--data-dir', dataDir, '--fresh']).catch((e: Error) => e);
  if (!(fresh instanceof Error)) await fresh.stop('SIGKILL');
  t.ok(fresh instanceof Error, 'a second node cannot wipe or open a data dir in use');
  t.match(String(fresh), /another node using it/);
  await node.stop('SIGINT');
  node = await spawnDevnet(['--data-dir', dataDir, '--fresh']);
  client = new Client(node.url);
  t.match(node.output(), /\(new chain\)/);
  t.same((await client.info({ type: 'openOrders', user: users[0] })).body, [], '--fresh wipes the chain');
  await node.stop('SIGINT');
});

t.test('SIGKILL before any clean stop replays every block from genesis', async (t) => {
  const dataDir = await tempDir();
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  let node = await spawnDevnet(['--data-dir', dataDir]);
  t.teardown(() => node.stop('SIGKILL'));
  let client = new Client(node.url);
  await client.exchange(alice, orderAction(limit(2, true, '149', '3')));
  await client.exchange(bob, orderAction(limit(2, false, '149', '1', 'Ioc')));
  const before = await observe(client);
  await node.stop('SIGKILL');
  node = await spawnDevnet(['--data-dir', dataDir]);
  client = new Client(node.url);
  t.same(await observe(client), before);
  t.match((await client.info({ type: 'openOrders', user: users[0] })).body, [{ coin: 'SOL', sz: '2', origSz: '3' }]);
  await node.stop('SIGINT');
});
