// One chain, two history stores: a devnet indexes into the embedded store; the same data
// directory restarted with --indexer-db rebuilds the history into a real PostgreSQL (started here
// in a temp dir) from the stored blocks; every /v4 page and /stats answer must be the same. A
// second node on a copy of the chain, pointed at the same database, serves it read-only.
import t from 'tap';
import { cp, rm } from 'node:fs/promises';
import { limit, orderAction, startNode, tempDir, wallets, type Client } from '../support/node.ts';
import { until } from '../support/network.ts';
import { startPostgres } from '../support/postgres.ts';

const [alice, bob, carol] = wallets as [typeof wallets[0], typeof wallets[0], typeof wallets[0]];

/** Every page of a path, following the cursors; or the single answer of a path that is not a /v4 set. */
async function answer(client: Client, path: string): Promise<unknown> {
  if (!path.startsWith('/v4/')) {
    const res = await client.raw(path);
    return { status: res.status, body: res.body };
  }
  const pages: unknown[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 200; i++) {
    const res = await client.raw(`${path}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
    pages.push({ status: res.status, body: res.body });
    if (res.status !== 200 || !res.body.pagination.has_more) return pages;
    cursor = res.body.pagination.next_cursor;
  }
  throw new Error(`${path}: too many pages`);
}

async function answers(client: Client, paths: readonly string[]): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const p of paths) out[p] = await answer(client, p);
  return out;
}

t.test('the embedded store and PostgreSQL answer every /v4 and /stats query the same', async (t) => {
  const pg = await startPostgres();
  t.teardown(() => pg.stop());
  const dataDir = await tempDir();
  const copyDir = await tempDir();
  t.teardown(() => Promise.all([rm(dataDir, { recursive: true, force: true }), rm(copyDir, { recursive: true, force: true })]));

  // A chain with trades on two perpetuals and the spot pair, some liquidity left resting. No empty
  // blocks: the chain moves only with these actions, so no new minute's sample lands between the
  // answers compared.
  const quiet = { emptyBlockIntervalMs: 3_600_000 };
  const first = await startNode(t, { history: true, dataDir, ...quiet });
  const c = first.client;
  const trade = async (asset: number, px: string, sz: string, taker = bob) => {
    t.equal((await c.exchange(alice, orderAction(limit(asset, false, px, sz)))).body.status, 'ok');
    t.match((await c.exchange(taker, orderAction(limit(asset, true, px, sz, 'Ioc')))).body.response.data.statuses[0], { filled: {} });
  };
  for (let i = 0; i < 6; i++) await trade(1, String(3500 + i * 5), '0.5', i % 2 === 0 ? bob : carol);
  for (let i = 0; i < 4; i++) await trade(0, String(60000 + i * 10), '0.01');
  await trade(10000, '1.5', '10');
  await c.exchange(alice, orderAction(limit(0, true, '59000', '0.02'), limit(1, false, '3700', '1')));
  const head = Number((await c.raw('/v1/height')).body.height);
  await until('the history at the head', async () => Number((await c.raw('/v1/health')).body.indexed_height) >= head, 10_000);
  const end = (await c.raw('/v4/trades?market=BTC-USD')).body.data[0].time + 1;

  // Every set, paged small so cursors are exercised; windows end at a fixed time (empty blocks go on).
  const paths = [
    '/v4/trades?market=ETH-USD&limit=4', '/v4/trades?market=BTC&limit=3', '/v4/trades?market=SVC-USDC', `/v4/trades?market=ETH&start=0&end=${end}&limit=2`,
    '/v4/candles?market=ETH-USD&interval=1m&limit=1', '/v4/candles?market=ETH-USD&interval=1w', '/v4/candles?market=BTC-USD&interval=1h', '/v4/candles?market=SVC-USDC&interval=1d',
    '/v4/funding?market=BTC-USD', '/v4/funding?market=BTC-USD&interval=8h', '/v4/liquidations', '/v4/liquidations?market=ETH',
    `/v4/open_interest?market=ETH-USD&end=${end}&limit=2`, `/v4/orderbook_snapshots?market=BTC-USD&end=${end}`, '/v4/deposits', '/v4/withdrawals',
    `/v4/deposits?user=${alice.address.toLowerCase()}`,
    '/stats/total_users', '/stats/total_usd_volume', '/stats/total_deposits', '/stats/total_withdrawals', '/stats/cumulative_usd_volume',
    '/stats/daily_usd_volume', '/stats/daily_usd_volume?coins=ETH-USD,BTC', '/stats/open_interest', '/stats/funding_rate', '/stats/daily_unique_users',
    '/stats/cumulative_users', '/stats/asset_ctxs', '/stats/asset_ctxs?coins=ETH',
    '/v1/trades/perpetualMarket/ETH-USD?limit=3',
    // Errors answer the same too.
    '/v4/trades?market=ETH&cursor=AAAA', '/v4/trades?market=NOPE',
  ];
  const level = await answers(c, paths);
  t.equal((level['/v4/trades?market=ETH-USD&limit=4'] as unknown[]).length, 2, 'six trades in pages of four');
  await first.node.stop();
  await cp(dataDir, copyDir, { recursive: true });

  // The same chain with PostgreSQL: rebuilt from the stored blocks.
  const logs: string[] = [];
  const second = await startNode(t, { history: true, dataDir, indexerDb: pg.url, log: (l) => logs.push(l), ...quiet });
  t.match(logs.join('\n'), /history is at block 0, the chain at \d+: indexing the blocks in between/);
  t.same(await answers(second.client, paths), level, 'PostgreSQL answers as the embedded store did');

  // Another node on a copy of the chain reads the database; the first holds the writer's lock.
  const third = await startNode(t, { history: true, dataDir: copyDir, indexerDb: pg.url, ...quiet });
  t.same(await answers(third.client, paths), level, 'a reader of the same database');
  t.equal(third.node.indexer?.writable, false, 'one writer per database');
});
