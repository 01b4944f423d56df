// Spot trading, fees, modify, TP/SL and the /v1 spot resources over REST against a real node.
import t from 'tap';
import { limit, orderAction, startNode, wallets } from '../support/node.ts';

const [alice, bob] = wallets as [typeof wallets[0], typeof wallets[0]];
const A = alice.address.toLowerCase();
const B = bob.address.toLowerCase();

t.test('spot: a pair trades in both tokens; balances, holds and markets show it', async (t) => {
  const { client } = await startNode(t);
  const markets = await client.raw('/v1/spot/markets');
  t.same(markets.body, {
    markets: [{ pair: 'SVC-USDC', base_asset: 'SVC', quote_asset: 'USDC', price_decimals: 6, size_decimals: 2, min_order_size: '1', tick_size: '0.000001', status: 'active' }],
  });
  const ask = await client.exchange(alice, orderAction(limit(10000, false, '1.25', '100')));
  t.match(ask.body.response.data.statuses, [{ resting: { oid: Number } }]);
  const book = await client.raw('/v1/spot/orderbook/SVC-USDC?depth=5');
  t.match(book.body, { pair: 'SVC-USDC', timestamp: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, bids: [], asks: [{ price: '1.25', size: '100' }] });
  t.equal((await client.raw('/v1/spot/orderbook/NOPE-USDC')).status, 404);
  t.equal((await client.raw('/v1/spot/orderbook/SVC-USDC?depth=0')).status, 400);
  t.same((await client.info({ type: 'l2Book', coin: '@0' })).body.levels[1], [{ px: '1.25', sz: '100', n: 1 }], "Hyperliquid's @<pair> coin works too");

  const buy = await client.exchange(bob, orderAction(limit(10000, true, '1.3', '40', 'Ioc')));
  t.same(buy.body.response.data.statuses, [{ filled: { totalSz: '40', avgPx: '1.25', oid: 2 } }]);
  const bobSpot = await client.info({ type: 'spotClearinghouseState', user: B });
  // 1,000,000 - 50 - 0.035 (7 bps) USDC; 100,000 + 40 SVC.
  t.same(bobSpot.body.balances, [
    { coin: 'USDC', token: 10000, hold: '0', total: '999949.965', entryNtl: '0' },
    { coin: 'SVC', token: 10001, hold: '0', total: '100040', entryNtl: '0' },
  ]);
  const aliceSpot = await client.info({ type: 'spotClearinghouseState', user: A });
  t.match(aliceSpot.body.balances, [{ coin: 'USDC', total: '1000049.98' }, { coin: 'SVC', hold: '60', total: '99960' }]);
  t.match((await client.info({ type: 'userFills', user: B })).body, [{ coin: 'SVC-USDC', dir: 'Buy', px: '1.25', sz: '40', fee: '0.035', feeToken: 'USDC', crossed: true }]);
  const fees = await client.info({ type: 'userFees', user: B });
  t.match(fees.body, { feeSchedule: { cross: '0.00045', add: '0.00015', spotCross: '0.0007', spotAdd: '0.0004' }, userSpotCrossRate: '0.0007', dailyUserVlm: [{ userCross: '50', userAdd: '0' }] });
});

t.test('modify and TP/SL over REST', async (t) => {
  const { client } = await startNode(t);
  const placed = await client.exchange(alice, orderAction(limit(0, true, '95000', '0.1', 'Gtc', { c: '0x0000000000000000000000000000abcd' })));
  const oid = placed.body.response.data.statuses[0].resting.oid;
  const modified = await client.exchange(alice, { type: 'modify', oid: '0x0000000000000000000000000000abcd', order: limit(0, true, '96000', '0.2', 'Gtc', { c: '0x0000000000000000000000000000abcd' }) });
  t.same(modified.body, { status: 'ok', response: { type: 'default' } });
  t.match((await client.info({ type: 'openOrders', user: A })).body, [{ oid, limitPx: '96000', sz: '0.2', cloid: '0x0000000000000000000000000000abcd' }]);
  const missing = await client.exchange(alice, { type: 'modify', oid: 999, order: limit(0, true, '96000', '0.2') });
  t.same(missing.body, { status: 'err', response: 'Order not found' });

  const tpsl = await client.exchange(alice, {
    type: 'order',
    grouping: 'normalTpsl',
    orders: [
      limit(1, true, '3500', '1'),
      { a: 1, b: false, p: '3000', s: '1', r: true, t: { trigger: { isMarket: true, triggerPx: '3100', tpsl: 'sl' } } },
      { a: 1, b: false, p: '4000', s: '1', r: true, t: { trigger: { isMarket: false, triggerPx: '3900', tpsl: 'tp' } } },
    ],
  });
  t.match(tpsl.body.response.data.statuses, [{ resting: {} }, { resting: {} }, { resting: {} }]);
  const open = (await client.info({ type: 'frontendOpenOrders', user: A })).body;
  t.match(open.filter((o: { isTrigger: boolean }) => o.isTrigger), [
    { coin: 'ETH', orderType: 'Take Profit Limit', triggerCondition: 'Price above 3900', triggerPx: '3900', reduceOnly: true },
    { coin: 'ETH', orderType: 'Stop Market', triggerCondition: 'Price below 3100', triggerPx: '3100', reduceOnly: true },
  ]);
  const status = await client.info({ type: 'orderStatus', user: A, oid: tpsl.body.response.data.statuses[1].resting.oid });
  t.match(status.body, { status: 'order', order: { status: 'open', order: { isTrigger: true } } });
});

t.test('hostile shapes are 400s, not 500s', async (t) => {
  const { client } = await startNode(t);
  const nested = (n: number) => `${'['.repeat(n)}1${']'.repeat(n)}`;
  const body = (n: number) => `{"action":{"type":"order","orders":[],"junk":${nested(n)}},"nonce":${Date.now()},"signature":{"r":"0x1","s":"0x1","v":27}}`;
  const post = (text: string) => client.raw('/exchange', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: text });
  const res = await post(body(100));
  t.equal(res.status, 400);
  t.match(res.body, { error: 'bad_request', message: /nested deeper than 16/, details: { field: 'action' } });
  const deeper = await post(body(100_000));
  t.equal(deeper.status, 400, 'nesting too deep to parse is malformed JSON');
  const big = await client.post('/exchange', { action: { type: 'order', orders: [], pad: 'x'.repeat(300_000) }, nonce: 1, signature: {} });
  t.equal(big.status, 400);
  t.match(big.body.message, /Request body larger than/);
});

t.test('a stop loss fires over REST when the mark crosses it, and orderStatus follows it', async (t) => {
  const { client } = await startNode(t);
  const [, , carol, dave] = wallets as [typeof alice, typeof alice, typeof alice, typeof alice];
  await client.exchange(bob, orderAction(limit(2, false, '150', '10')));
  await client.exchange(alice, orderAction(limit(2, true, '150', '10', 'Ioc'))); // alice long 10 SOL
  const sl = await client.exchange(alice, orderAction({ a: 2, b: false, p: '120', s: '10', r: true, t: { trigger: { isMarket: true, triggerPx: '140', tpsl: 'sl' } } }));
  const oid = sl.body.response.data.statuses[0].resting.oid;
  // SOL trades down: bid 135 / ask 139, last 135; mark = median(oracle 150, mid 137, last 135) = 137.
  await client.exchange(carol, orderAction(limit(2, true, '135', '20')));
  await client.exchange(carol, orderAction(limit(2, false, '139', '1')));
  await client.exchange(dave, orderAction(limit(2, false, '135', '1', 'Ioc')));
  // The trigger fires at the end of that block; the next read sees it.
  const status = await client.info({ type: 'orderStatus', user: A, oid });
  t.match(status.body, { status: 'order', order: { status: /^(filled|canceled)$/, order: { oid } } });
  const fills = (await client.info({ type: 'userFills', user: A })).body;
  t.match(fills[0], { coin: 'SOL', side: 'A', sz: '10', px: '135', dir: 'Close Long', oid });
  t.same((await client.info({ type: 'clearinghouseState', user: A })).body.assetPositions, []);
});
