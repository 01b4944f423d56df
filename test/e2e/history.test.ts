// History (/v4) and statistics (/stats) from the indexer, against a real devnet node: shapes,
// keyset pages, parameter errors, and a rebuild from the stored blocks after the history is lost.
import t from 'tap';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { limit, orderAction, startNode, tempDir, wallets, type Client } from '../support/node.ts';
import { until } from '../support/network.ts';

const [alice, bob] = wallets as [typeof wallets[0], typeof wallets[0]];

async function trade(client: Client, px: string, sz: string): Promise<void> {
  t.equal((await client.exchange(alice, orderAction(limit(1, false, px, sz)))).body.status, 'ok');
  const res = await client.exchange(bob, orderAction(limit(1, true, px, sz, 'Ioc')));
  t.match(res.body.response.data.statuses[0], { filled: { totalSz: sz } });
}

/** Every page of a set, following next_cursor. */
async function allPages(client: Client, path: string): Promise<unknown[]> {
  const out: unknown[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 100; i++) {
    const res = await client.raw(`${path}${cursor === null ? '' : `&cursor=${cursor}`}`);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    out.push(...res.body.data);
    cursor = res.body.pagination.next_cursor;
    if (!res.body.pagination.has_more) return out;
  }
  throw new Error('too many pages');
}

t.test('trades, candles and statistics from committed blocks; rebuilt when the history is lost', async (t) => {
  const { node, client, dataDir } = await startNode(t, { history: true, dataDir: await tempDir() });
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  await trade(client, '3500', '1');
  await trade(client, '3510', '2');
  await trade(client, '3490', '0.5');
  await until('three trades indexed', async () => (await client.raw('/v4/trades?market=ETH-USD')).body.data?.length === 3, 10_000);

  const trades = (await client.raw('/v4/trades?market=ETH-USD')).body;
  t.same(trades.pagination, { next_cursor: null, has_more: false });
  t.match(trades.data[0], { coin: 'ETH', px: '3490', sz: '0.5', side: 'B', buyer: bob.address.toLowerCase(), seller: alice.address.toLowerCase(), liquidation: false, id: Number, tid: Number, time: Number, height: Number, hash: String });
  t.same(trades.data.map((x: { px: string }) => x.px), ['3490', '3510', '3500'], 'newest first');
  t.same((await client.raw('/v4/trades?market=ETH')).body, trades, 'the coin name works as a market too');
  const recent = (await client.raw('/v1/trades/perpetualMarket/ETH-USD?limit=2')).body;
  t.same(recent.trades.map((x: { price: string }) => x.price), ['3490', '3510']);
  t.match(recent.trades[0], { id: String, side: 'BUY', size: '0.5', price: '3490', type: 'LIMIT', createdAt: /Z$/, createdAtHeight: /^\d+$/ });
  t.equal((await client.raw('/v1/trades/perpetualMarket/NOPE-USD')).status, 404);
  t.equal((await client.raw('/v1/trades/perpetualMarket/ETH-USD?limit=0')).status, 400);

  // Keyset pages: one row each, in order, and the cursor carries on where the last page stopped.
  const p1 = (await client.raw('/v4/trades?market=ETH-USD&limit=1')).body;
  t.equal(p1.data.length, 1);
  t.equal(p1.pagination.has_more, true);
  t.type(p1.pagination.next_cursor, 'string');
  t.same(await allPages(client, '/v4/trades?market=ETH-USD&limit=1'), trades.data);
  const time = trades.data[1].time;
  t.same((await client.raw(`/v4/trades?market=ETH-USD&start=${time}&end=${time}`)).body.data.map((x: { time: number }) => x.time).every((x: number) => x === time), true);

  for (const [path, field] of [
    ['/v4/trades', 'market'], ['/v4/trades?market=NOPE-USD', 'market'], ['/v4/trades?market=ETH&limit=0', 'limit'],
    ['/v4/trades?market=ETH&limit=1001', 'limit'], ['/v4/trades?market=ETH&cursor=bogus!', 'cursor'], ['/v4/trades?market=ETH&start=x', 'start'],
    ['/v4/trades?market=ETH&start=10&end=5', 'end'], ['/v4/candles?market=ETH', 'interval'], ['/v4/candles?market=ETH&interval=2m', 'interval'],
    ['/v4/funding?market=ETH&interval=4h', 'interval'], ['/v4/deposits?user=0x12', 'user'], ['/stats/daily_usd_volume?start_date=2026-13-01', 'start_date'],
    ['/stats/asset_ctxs?coins=NOPE', 'coins'],
  ] as const) {
    const res = await client.raw(path);
    t.equal(res.status, 400, path);
    t.match(res.body, { error: 'bad_request', message: String, details: { field } }, path);
  }
  t.equal((await client.raw('/v4/nothing')).status, 404);

  const candles = (await client.raw('/v4/candles?market=ETH-USD&interval=1m')).body;
  t.match(candles.data[0], { s: 'ETH', i: '1m', n: Number, o: String, h: String, l: String, c: String, v: String });
  const total = candles.data.reduce((s: number, c: { n: number }) => s + c.n, 0);
  t.equal(total, 3, 'three trades in the minute candles');
  const day = (await client.raw('/v4/candles?market=ETH-USD&interval=1d')).body.data;
  t.match(day, [{ i: '1d', o: '3500', h: '3510', l: '3490', c: '3490', v: '3.5', n: 3 }]);

  // Statistics.
  const get = async (name: string) => (await client.raw(`/stats/${name}`)).body;
  t.same(await get('total_users'), { total_users: 2 });
  const volume = 3500 + 3510 * 2 + 3490 * 0.5;
  t.same(await get('total_usd_volume'), { total_usd_volume: volume });
  t.same(await get('total_deposits'), { total_deposits: 0 });
  t.same(await get('total_withdrawals'), { total_withdrawals: 0 });
  const today = `${new Date(trades.data[0].time).toISOString().slice(0, 10)}T00:00:00`;
  t.same(await get('daily_usd_volume'), { chart_data: [{ time: today, daily_usd_volume: volume }] });
  t.same(await get('cumulative_usd_volume'), { chart_data: [{ time: today, cumulative: volume }] });
  t.same(await get('daily_unique_users'), { chart_data: [{ time: today, daily_unique_users: 2 }] });
  t.same(await get('cumulative_users'), { chart_data: [{ time: today, daily_new_users: 2, cumulative_new_users: 2 }] });
  t.same(await get('daily_usd_volume?coins=BTC'), { chart_data: [{ time: today, daily_usd_volume: 0 }] }, 'a market without trades has its day at zero');
  t.match((await get('open_interest')).chart_data.find((r: { coin: string }) => r.coin === 'ETH-USD'), { time: today, open_interest: Number, mark_price: Number });
  t.match(await get('funding_rate'), { chart_data: Array, current: [{ coin: 'BTC-USD', funding_rate: Number }] });
  const ctxs = await get('asset_ctxs');
  t.match(ctxs.find((c: { coin: string }) => c.coin === 'ETH-USD'), { coin: 'ETH-USD', mark_price: Number, open_interest: 3.5, volume_24h: volume, funding_rate: Number });
  t.match((await get('asset_ctxs?coins=BTC-USD')), [{ coin: 'BTC-USD' }]);

  // Lose the history: the next start rebuilds it from the stored blocks, to the same answers.
  const before = { trades: (await client.raw('/v4/trades?market=ETH-USD')).body, candles: (await client.raw('/v4/candles?market=ETH&interval=1m')).body, users: await get('cumulative_users') };
  await node.stop();
  await rm(join(dataDir, 'history'), { recursive: true, force: true });
  const again = await startNode(t, { history: true, dataDir });
  t.same((await again.client.raw('/v4/trades?market=ETH-USD')).body, before.trades);
  t.same((await again.client.raw('/v4/candles?market=ETH&interval=1m')).body, before.candles);
  t.same((await again.client.raw('/stats/cumulative_users')).body, before.users);
  // And it goes on from there.
  await trade(again.client, '3520', '1');
  await until('the fourth trade indexed', async () => (await again.client.raw('/v4/trades?market=ETH-USD')).body.data?.length === 4, 10_000);
  t.same((await again.client.raw('/stats/total_users')).body, { total_users: 2 }, 'the same two traders');
});
