// A real node over HTTP: orders rest, cross, fill and cancel; reads show every step.
import t from 'tap';
import { limit, orderAction, startNode, wallets } from '../support/node.ts';

const [alice, bob] = wallets as [typeof wallets[0], typeof wallets[0]];
const A = alice.address.toLowerCase();
const B = bob.address.toLowerCase();
const BTC = 0;

t.test('a resting order, crossed by another account, then cancels', async (t) => {
  const { client } = await startNode(t);

  const placed = await client.exchange(alice, orderAction(limit(BTC, false, '100000', '0.5')));
  t.equal(placed.status, 200);
  t.equal(placed.body.status, 'ok');
  t.equal(placed.body.response.type, 'order');
  const oid = placed.body.response.data.statuses[0].resting.oid;
  t.type(oid, 'number');

  const open = await client.info({ type: 'openOrders', user: A });
  t.match(open.body, [{ coin: 'BTC', limitPx: '100000', oid, side: 'A', sz: '0.5', timestamp: Number }]);

  const book = await client.info({ type: 'l2Book', coin: 'BTC' });
  t.same(book.body.levels, [[], [{ px: '100000', sz: '0.5', n: 1 }]]);
  t.type(book.body.time, 'number');

  // Bob buys 0.2 through the ask: filled at the maker's price.
  const taken = await client.exchange(bob, orderAction(limit(BTC, true, '100100', '0.2', 'Ioc')));
  t.same(taken.body.response.data.statuses, [{ filled: { totalSz: '0.2', avgPx: '100000', oid: oid + 1 } }]);

  const bobFills = await client.info({ type: 'userFills', user: B });
  t.match(bobFills.body, [{ coin: 'BTC', px: '100000', sz: '0.2', side: 'B', crossed: true, dir: 'Open Long', closedPnl: '0', oid: oid + 1, hash: /^0x[0-9a-f]{64}$/ }]);
  const aliceFills = await client.info({ type: 'userFills', user: A });
  t.match(aliceFills.body, [{ coin: 'BTC', px: '100000', sz: '0.2', side: 'A', crossed: false, dir: 'Open Short', oid }]);
  t.equal(aliceFills.body[0].hash, bobFills.body[0].hash, 'both fills carry the taker transaction hash');
  t.equal(aliceFills.body[0].tid, bobFills.body[0].tid);

  const after = await client.info({ type: 'l2Book', coin: 'BTC' });
  t.same(after.body.levels[1], [{ px: '100000', sz: '0.3', n: 1 }]);

  const bobState = await client.info({ type: 'clearinghouseState', user: B });
  t.match(bobState.body.assetPositions, [{ position: { coin: 'BTC', szi: '0.2', entryPx: '100000', leverage: { type: 'cross', value: 20 } } }]);
  t.equal(bobState.body.marginSummary.accountValue, '999991', 'less the 4.5 bps taker fee on 20,000');
  t.equal(bobState.body.crossMarginSummary.totalMarginUsed, '1000');

  const status = await client.info({ type: 'orderStatus', user: A, oid });
  t.match(status.body, { status: 'order', order: { status: 'open', order: { oid, sz: '0.3', origSz: '0.5' } } });

  const cancelled = await client.exchange(alice, { type: 'cancel', cancels: [{ a: BTC, o: oid }] });
  t.same(cancelled.body, { status: 'ok', response: { type: 'cancel', data: { statuses: ['success'] } } });
  t.same((await client.info({ type: 'openOrders', user: A })).body, []);
  t.same((await client.info({ type: 'l2Book', coin: 'BTC' })).body.levels, [[], []]);
  t.match((await client.info({ type: 'orderStatus', user: A, oid })).body, { status: 'order', order: { status: 'canceled' } });

  const again = await client.exchange(alice, { type: 'cancel', cancels: [{ a: BTC, o: oid }] });
  t.same(again.body.response.data.statuses, [{ error: 'Order not found' }]);
  t.same((await client.info({ type: 'orderStatus', user: A, oid: 999999 })).body, { status: 'unknownOid' });
});

t.test('a fully filled taker order and price-time priority across makers', async (t) => {
  const { client } = await startNode(t);
  const [, , carol, dave] = wallets as [typeof alice, typeof alice, typeof alice, typeof alice];
  const first = await client.exchange(alice, orderAction(limit(1, true, '3500', '1')));
  const second = await client.exchange(bob, orderAction(limit(1, true, '3500', '1')));
  const better = await client.exchange(carol, orderAction(limit(1, true, '3501', '0.5')));
  t.ok(first.body.response.data.statuses[0].resting && second.body.response.data.statuses[0].resting && better.body.response.data.statuses[0].resting);
  t.same((await client.info({ type: 'l2Book', coin: 'ETH' })).body.levels[0], [
    { px: '3501', sz: '0.5', n: 1 },
    { px: '3500', sz: '2', n: 2 },
  ]);
  const sell = await client.exchange(dave, orderAction(limit(1, false, '3500', '1.5', 'Gtc')));
  t.same(sell.body.response.data.statuses, [{ filled: { totalSz: '1.5', avgPx: '3500.3333', oid: 4 } }], 'avgPx of 0.5@3501 + 1@3500');
  t.match((await client.info({ type: 'userFills', user: A })).body, [{ sz: '1', px: '3500' }], 'the earlier order at 3500 filled first');
  t.same((await client.info({ type: 'userFills', user: B })).body, []);
  t.same((await client.info({ type: 'l2Book', coin: 'ETH' })).body.levels[0], [{ px: '3500', sz: '1', n: 1 }]);
  t.match((await client.info({ type: 'allMids' })).body, { BTC: '100000', ETH: '3500', SOL: '150' });
});

t.test('a batch gives one independent status per order', async (t) => {
  const { client } = await startNode(t);
  const res = await client.exchange(
    alice,
    orderAction(
      limit(BTC, true, '90000', '0.1'),
      limit(BTC, true, '90000', '0.123456'),
      limit(BTC, true, '90000.55', '0.1'),
      limit(BTC, true, '1000000', '100', 'Gtc'),
      limit(BTC, true, '90001', '0.1', 'Alo'),
      limit(7, true, '1', '1'),
      { ...limit(BTC, true, '80000', '0.1'), r: true },
      limit(BTC, true, '89000', '0.1', 'Ioc'),
    ),
  );
  t.equal(res.status, 200);
  t.equal(res.body.status, 'ok');
  const s = res.body.response.data.statuses;
  t.equal(s.length, 8);
  t.match(s[0], { resting: { oid: Number } });
  t.same(s[1], { error: 'Invalid size: 0.123456 does not conform to szDecimals 5' });
  t.match(s[2], { error: /^Invalid price: 90000.55 has more than 5 significant figures/ });
  t.same(s[3], { error: 'Insufficient margin' });
  t.match(s[4], { resting: { oid: Number } });
  t.same(s[5], { error: 'Unknown asset: 7' });
  t.same(s[6], { error: 'Reduce only violated' });
  t.match(s[7], { error: /^Order could not immediately match/ });
  const open = await client.info({ type: 'openOrders', user: A });
  t.equal(open.body.length, 2, 'only the two valid orders rest');

  const alo = await client.exchange(bob, orderAction(limit(BTC, false, '90001', '0.1', 'Alo')));
  t.match(alo.body.response.data.statuses[0], { error: /^Post only order would have immediately matched/ });

  // Hyperliquid's batchModify, noop and scheduleCancel through the same /exchange.
  const oid = s[0].resting.oid;
  const mod = await client.exchange(alice, { type: 'batchModify', modifies: [{ oid, order: limit(BTC, true, '89000', '0.1') }, { oid: 999_999, order: limit(BTC, true, '89000', '0.1') }] });
  t.same(mod.body, { status: 'ok', response: { type: 'order', data: { statuses: [{ resting: { oid } }, { error: 'Order not found' }] } } });
  t.same((await client.exchange(alice, { type: 'noop' })).body, { status: 'ok', response: { type: 'default' } });
  const early = await client.exchange(alice, { type: 'scheduleCancel', time: Date.now() });
  t.same(early.body, { status: 'err', response: 'Scheduled cancel time must be at least 5 seconds in the future' });
});

t.test('requests the node refuses: auth, nonces, shapes', async (t) => {
  const { client } = await startNode(t);
  const action = orderAction(limit(BTC, true, '90000', '0.1'));

  const nonce = Date.now();
  const ok = await client.exchange(alice, action, { nonce });
  t.equal(ok.body.status, 'ok');
  const replay = await client.exchange(alice, action, { nonce });
  t.equal(replay.status, 401);
  t.match(replay.body, { error: 'unauthorized', message: 'Nonce already used' });

  const stale = await client.exchange(alice, action, { nonce: Date.now() - 120_000 });
  t.equal(stale.status, 401);
  t.match(stale.body, { error: 'unauthorized', message: 'Nonce too old' });

  const future = await client.exchange(alice, action, { nonce: Date.now() + 120_000 });
  t.equal(future.status, 401);
  t.match(future.body, { error: 'unauthorized', message: /^Nonce too far in the future/ });

  const wrongChain = await client.exchange(alice, action, { domain: { name: 'SvcExchange', version: '1', chainId: 1, verifyingContract: '0x0000000000000000000000000000000000000000' } });
  t.equal(wrongChain.status, 401);
  t.equal(wrongChain.body.message, 'Account not activated');
  t.match(wrongChain.body.details, { signer: /^0x[0-9a-f]{40}$/, hint: /chainId: 42069/ });
  t.not(wrongChain.body.details.signer, alice.address.toLowerCase());

  const wrongName = await client.exchange(alice, action, { domain: { name: 'Exchange', version: '1', chainId: 42069, verifyingContract: '0x0000000000000000000000000000000000000000' } });
  t.equal(wrongName.status, 401, 'another domain name recovers another signer');
  t.match(wrongName.body, { message: 'Account not activated', details: { hint: /name: "SvcExchange"/ } });

  const literal = await client.exchange(alice, action, { binding: 'literal' });
  t.equal(literal.body.status, 'ok', 'the devnet accepts the spec literal binding');

  const badSig = await client.post('/exchange', { action, nonce: Date.now(), signature: { r: '0x1', s: '0xzz', v: 27 } });
  t.equal(badSig.status, 401);
  t.same(badSig.body, { error: 'unauthorized', message: 'Invalid signature' });

  const stranger = await client.exchange(alice, action, { vaultAddress: bob.address.toLowerCase() });
  t.equal(stranger.status, 403);
  t.match(stranger.body, { error: 'forbidden', message: 'Agent not authorized' });

  const garbage = await client.raw('/exchange', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"action": ' });
  t.equal(garbage.status, 400);
  t.same(garbage.body, { error: 'bad_request', message: 'Malformed JSON body' });
  t.match(garbage.headers.get('content-type'), /application\/json/);

  const noNonce = await client.post('/exchange', { action, signature: { r: '0x1', s: '0x1', v: 27 } });
  t.equal(noNonce.status, 400);
  t.same(noNonce.body.details, { field: 'nonce' });

  const noPrice = await client.post('/exchange', { action: orderAction({ a: 0, b: true, s: '1', r: false, t: { limit: { tif: 'Gtc' } } }), nonce: 1, signature: {} });
  t.equal(noPrice.status, 400);
  t.same(noPrice.body.details, { field: 'action.orders[0].p' });

  const tiny = await client.exchange(alice, orderAction(limit(BTC, true, '90000', '0.00001')));
  t.equal(tiny.status, 400);
  t.same(tiny.body.details, { field: 'action.orders[0].s', min: '0.0001', provided: '0.00001' });

  const unknownAction = await client.exchange(alice, { type: 'launchRocket' });
  t.equal(unknownAction.status, 400);
  t.match(unknownAction.body, { error: 'bad_request', message: 'Unknown action type: launchRocket', details: { field: 'action.type' } });

  const open = await client.info({ type: 'openOrders', user: A });
  t.equal(open.body.length, 2, 'refused requests changed nothing');
});

t.test('info and /v1 errors and shapes', async (t) => {
  const { client, node } = await startNode(t);
  const unknown = await client.info({ type: 'nope' });
  t.equal(unknown.status, 400);
  t.same(unknown.body, { error: 'bad_request', message: 'Unknown info type: nope', details: { field: 'type' } });
  const noType = await client.info({});
  t.same(noType.body.details, { field: 'type' });
  const noUser = await client.info({ type: 'clearinghouseState' });
  t.same(noUser.body, { error: 'bad_request', message: 'Missing field: user', details: { field: 'user' } });
  const badUser = await client.info({ type: 'openOrders', user: '0x123' });
  t.equal(badUser.status, 400);
  const badCoin = await client.info({ type: 'l2Book', coin: 'DOGE' });
  t.equal(badCoin.status, 400);
  t.same((await client.info({ type: 'openOrders', user: '0x000000000000000000000000000000000000dead' })).body, []);

  const notFound = await client.raw('/v2/whatever');
  t.equal(notFound.status, 404);
  t.same(notFound.body, { error: 'not_found', message: 'Unknown endpoint: GET /v2/whatever' });

  const meta = await client.info({ type: 'meta', dex: '' });
  t.same(meta.body.universe.map((u: { name: string }) => u.name), ['BTC', 'ETH', 'SOL']);
  t.match(meta.body.universe[0], { szDecimals: 5, maxLeverage: 50, onlyIsolated: false });
  const spot = await client.info({ type: 'spotMeta' });
  t.match(spot.body, {
    tokens: [{ name: 'USDC', index: 10000, szDecimals: 8, weiDecimals: 8 }, { name: 'SVC', index: 10001 }],
    universe: [{ name: 'SVC-USDC', tokens: [10001, 10000], index: 0 }],
  });
  const spotOrder = await client.exchange(alice, orderAction(limit(10000, true, '1', '1')));
  t.match(spotOrder.body.response.data.statuses[0], { resting: { oid: Number } }, 'spot asset 10000 is pair 0');

  const health = await client.raw('/v1/health');
  t.equal(health.status, 200);
  t.match(health.body, { status: 'ok', height: String });
  const height = await client.raw('/v1/height');
  t.match(height.body, { height: /^\d+$/, time: /^\d{4}-\d\d-\d\dT.*Z$/ });
  t.ok(Number(height.body.height) <= node.height);
});
