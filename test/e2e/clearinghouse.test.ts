// The clearinghouse over REST: asset contexts, positions with funding and liquidation prices,
// funding history, leverage, and the devnet oracle feeder following the book.
import t from 'tap';
import { limit, orderAction, startNode, wallets } from '../support/node.ts';

const [alice, bob, carol] = wallets as [typeof wallets[0], typeof wallets[0], typeof wallets[0]];
const A = alice.address.toLowerCase();

t.test('asset contexts, full position objects, leverage and funding history', async (t) => {
  const { client } = await startNode(t);
  await client.exchange(bob, orderAction(limit(0, false, '100000', '2')));
  await client.exchange(alice, orderAction(limit(0, true, '100000', '2', 'Ioc')));
  const [meta, ctxs] = (await client.info({ type: 'metaAndAssetCtxs' })).body;
  t.equal(meta.universe.length, 3);
  t.match(ctxs[0], { markPx: '100000', oraclePx: '100000', openInterest: '2', dayNtlVlm: '200000', funding: String, premium: String, prevDayPx: '100000', midPx: null, impactPxs: null });

  const state = (await client.info({ type: 'clearinghouseState', user: A })).body;
  t.match(state.assetPositions[0].position, {
    coin: 'BTC', szi: '2', entryPx: '100000', positionValue: '200000', unrealizedPnl: '0', returnOnEquity: '0',
    leverage: { type: 'cross', value: 20 }, maxLeverage: 50, cumFunding: { allTime: '0', sinceOpen: '0', sinceChange: '0' },
  });
  // Alice has 999,910 (after the 90 taker fee) against 200,000 of BTC at 1% maintenance: no liquidation above 0.
  t.equal(state.assetPositions[0].position.liquidationPx, null);

  const lev = await client.exchange(alice, { type: 'updateLeverage', asset: 0, isCross: true, leverage: 5 });
  t.same(lev.body, { status: 'ok', response: { type: 'default' } });
  t.match((await client.info({ type: 'clearinghouseState', user: A })).body.assetPositions[0].position, { leverage: { value: 5 }, marginUsed: '40000' });
  const tooMuch = await client.exchange(alice, { type: 'updateLeverage', asset: 0, isCross: true, leverage: 60 });
  t.match(tooMuch.body, { status: 'err', response: /leverage must be from 1 to 50/ });

  t.same((await client.info({ type: 'fundingHistory', coin: 'BTC', startTime: 0 })).body, []);
  t.equal((await client.info({ type: 'fundingHistory', coin: 'DOGE', startTime: 0 })).status, 400);
  t.same((await client.info({ type: 'userFunding', user: A, startTime: 0 })).body, []);
});

t.test('the devnet feeder moves the oracle toward the book', async (t) => {
  const { client } = await startNode(t, { oracleIntervalMs: 20 });
  await client.exchange(bob, orderAction(limit(2, false, '160', '1')));
  await client.exchange(carol, orderAction(limit(2, true, '158', '1')));
  // mid 159 vs oracle 150: each tick moves a fifth of the way. Wait (bounded) for a few ticks.
  const deadline = Date.now() + 10_000;
  let oracle = 150;
  while (Date.now() < deadline && oracle < 155) {
    oracle = Number((await client.info({ type: 'metaAndAssetCtxs' })).body[1][2].oraclePx);
    await new Promise((r) => setImmediate(r));
  }
  t.ok(oracle >= 155 && oracle <= 159, `SOL oracle followed the book: ${oracle}`);
});
