// The /v1 resources (dYdX v4 indexer shapes) and the `referral` info type against a real node.
import t from 'tap';
import { Wallet } from 'ethers';
import { limit, nextNonce, orderAction, startNode, wallets, type Client } from '../support/node.ts';
import { signRequest } from '../support/signing.ts';

const [alice, bob] = wallets as [typeof wallets[0], typeof wallets[0]];
const A = alice.address.toLowerCase();
const B = bob.address.toLowerCase();
const BTC = 0;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

async function v1(client: Client, path: string, wallet: Wallet, action: unknown) {
  return client.post(path, await signRequest(wallet, action, nextNonce()));
}

t.test('perpetual markets, the perpetual book, orders through /v1/orders', async (t) => {
  const { client } = await startNode(t);

  const before = await client.raw('/v1/perpetualMarkets');
  t.equal(before.status, 200);
  t.same(Object.keys(before.body.markets), ['BTC-USD', 'ETH-USD', 'SOL-USD']);
  t.match(before.body.markets['BTC-USD'], {
    clobPairId: '0',
    ticker: 'BTC-USD',
    status: 'ACTIVE',
    oraclePrice: '100000',
    priceChange24H: '0',
    volume24H: '0',
    trades24H: 0,
    nextFundingRate: String,
    initialMarginFraction: '0.02',
    maintenanceMarginFraction: '0.01',
    openInterest: '0',
    tickSize: '0.1',
    stepSize: '0.00001',
    marketType: 'CROSS',
    assetIndex: 0,
    szDecimals: 5,
    maxLeverage: 50,
    minOrderSize: '0.0001',
  });
  t.match(before.body.markets['SOL-USD'], { assetIndex: 2, initialMarginFraction: '0.05', maintenanceMarginFraction: '0.025', tickSize: '0.0001', stepSize: '0.01' });

  // Orders go in through /v1/orders exactly as through /exchange.
  const ask = await v1(client, '/v1/orders', alice, orderAction(limit(BTC, false, '100000', '0.5'), limit(BTC, false, '101000', '0.1')));
  t.equal(ask.status, 200);
  t.equal(ask.body.status, 'ok');
  const [askOid] = ask.body.response.data.statuses.map((s: { resting: { oid: number } }) => s.resting.oid);
  const bids = await v1(client, '/v1/orders', alice, orderAction(limit(BTC, true, '98000', '0.1'), limit(BTC, true, '99000', '0.25')));
  t.match(bids.body.response.data.statuses, [{ resting: {} }, { resting: {} }]);
  const taken = await v1(client, '/v1/orders', bob, orderAction(limit(BTC, true, '100100', '0.2', 'Ioc')));
  t.same(taken.body.response.data.statuses, [{ filled: { totalSz: '0.2', avgPx: '100000', oid: askOid + 4 } }]);

  const after = await client.raw('/v1/perpetualMarkets?ticker=BTC-USD');
  t.same(Object.keys(after.body.markets), ['BTC-USD']);
  t.match(after.body.markets['BTC-USD'], { volume24H: '20000', trades24H: 1, openInterest: '0.2' });
  t.same(Object.keys((await client.raw('/v1/perpetualMarkets?market=ETH')).body.markets), ['ETH-USD'], 'market is an alias; the bare coin works');
  t.same(Object.keys((await client.raw('/v1/perpetualMarkets?limit=2')).body.markets), ['BTC-USD', 'ETH-USD']);
  const unknown = await client.raw('/v1/perpetualMarkets?ticker=DOGE-USD');
  t.equal(unknown.status, 404);
  t.same(unknown.body, { error: 'not_found', message: 'DOGE-USD not found in markets of type PERPETUAL' });
  t.equal((await client.raw('/v1/perpetualMarkets?ticker=BTC-USD&market=BTC-USD')).status, 400);
  t.match((await client.raw('/v1/perpetualMarkets?limit=0')).body, { error: 'bad_request', details: { field: 'limit' } });

  const book = await client.raw('/v1/orderbooks/perpetualMarket/BTC-USD');
  t.equal(book.status, 200);
  t.same(book.body, {
    bids: [{ price: '99000', size: '0.25' }, { price: '98000', size: '0.1' }],
    asks: [{ price: '100000', size: '0.3' }, { price: '101000', size: '0.1' }],
  });
  t.same((await client.raw('/v1/orderbooks/perpetualMarket/BTC?depth=1')).body, { bids: [{ price: '99000', size: '0.25' }], asks: [{ price: '100000', size: '0.3' }] });
  t.same((await client.raw('/v1/orderbooks/perpetualMarket/ETH-USD')).body, { bids: [], asks: [] });
  const noBook = await client.raw('/v1/orderbooks/perpetualMarket/DOGE-USD');
  t.equal(noBook.status, 404);
  t.equal(noBook.body.error, 'not_found');
  t.equal((await client.raw('/v1/orderbooks/perpetualMarket/SVC-USDC')).status, 404, 'a spot pair is not a perpetual');
  const escape = await client.raw('/v1/orderbooks/perpetualMarket/%E0%A4%A');
  t.same(escape.body, { error: 'bad_request', message: 'Malformed path parameter: %E0%A4%A is not valid percent-encoding' }, 'a bad escape is a 400, not a crash');
  t.equal((await client.raw('/v1/spot/orderbook/%ZZ')).status, 400);
  t.equal((await client.raw('/v1/height')).status, 200, 'the node still answers');
  for (const depth of ['0', '501', 'x', '1.5']) {
    const bad = await client.raw(`/v1/orderbooks/perpetualMarket/BTC-USD?depth=${depth}`);
    t.equal(bad.status, 400, `depth=${depth}`);
    t.same(bad.body.details, { field: 'depth' });
  }

  // Cancels: /v1/orders/cancel takes cancel and cancelByCloid, and nothing else.
  const wrongRoute = await v1(client, '/v1/orders', alice, { type: 'cancel', cancels: [{ a: BTC, o: askOid }] });
  t.equal(wrongRoute.status, 400);
  t.same(wrongRoute.body, { error: 'bad_request', message: 'Invalid field action.type: /v1/orders takes order actions, not cancel', details: { field: 'action.type' } });
  const orderOnCancel = await v1(client, '/v1/orders/cancel', alice, orderAction(limit(BTC, true, '90000', '0.1')));
  t.equal(orderOnCancel.status, 400);
  t.same(orderOnCancel.body.details, { field: 'action.type' });
  const transfer = await v1(client, '/v1/orders', alice, { type: 'usdTransfer', destination: B, amount: '1' });
  t.equal(transfer.status, 400);
  const cancelled = await v1(client, '/v1/orders/cancel', alice, { type: 'cancel', cancels: [{ a: BTC, o: askOid }] });
  t.same(cancelled.body, { status: 'ok', response: { type: 'cancel', data: { statuses: ['success'] } } });
  const again = await v1(client, '/v1/orders/cancel', alice, { type: 'cancel', cancels: [{ a: BTC, o: askOid }] });
  t.same(again.body.response.data.statuses, [{ error: 'Order not found' }]);
  const cloid = '0x000000000000000000000000000000aa';
  await v1(client, '/v1/orders', alice, orderAction(limit(BTC, true, '90000', '0.1', 'Gtc', { c: cloid })));
  const byCloid = await v1(client, '/v1/orders/cancel', alice, { type: 'cancelByCloid', cancels: [{ asset: BTC, cloid }] });
  t.same(byCloid.body, { status: 'ok', response: { type: 'cancel', data: { statuses: ['success'] } } });

  // The same checks and status codes as /exchange.
  const stranger = new Wallet(Wallet.createRandom().privateKey);
  const unsigned = await v1(client, '/v1/orders', stranger, orderAction(limit(BTC, true, '90000', '0.1')));
  t.equal(unsigned.status, 401);
  t.match(unsigned.body, { error: 'unauthorized', message: /^Account not activated/ });
  const noNonce = await signRequest(alice, orderAction(limit(BTC, true, '90000', '0.1')), nextNonce());
  const missing = await client.post('/v1/orders', { ...noNonce, nonce: undefined });
  t.same(missing.body, { error: 'bad_request', message: 'Missing field: nonce', details: { field: 'nonce' } });
  const small = await v1(client, '/v1/orders', alice, orderAction(limit(BTC, true, '90000', '0.00001')));
  t.equal(small.status, 400);
  t.match(small.body.details, { field: 'action.orders[0].s', min: '0.0001', provided: '0.00001' });
  t.equal((await client.raw('/v1/orders', { method: 'POST', body: '{' })).status, 400);
  t.equal((await client.raw('/v1/orders')).status, 404, 'GET /v1/orders is not a route');
});

t.test('subaccounts, fills and referral', async (t) => {
  const { client } = await startNode(t);
  await client.exchange(alice, orderAction(limit(BTC, false, '100000', '0.5')));
  await client.exchange(bob, orderAction(limit(BTC, true, '100100', '0.2', 'Ioc')));
  await client.exchange(alice, orderAction(limit(10000, false, '1.25', '100')));
  await client.exchange(bob, orderAction(limit(10000, true, '1.3', '40', 'Ioc')));

  const sub = await client.raw(`/v1/addresses/${bob.address}/subaccountNumber/0`);
  t.equal(sub.status, 200);
  t.same(sub.body, {
    subaccount: {
      address: B,
      subaccountNumber: 0,
      subaccountAddress: B,
      // 1,000,000 USDC, less the 9 taker fee on 20,000 and the 50.035 paid for 40 SVC.
      equity: '999940.965',
      // Less 1,000 of initial margin at the default 20x.
      freeCollateral: '998940.965',
      openPerpetualPositions: {
        'BTC-USD': {
          market: 'BTC-USD', status: 'OPEN', side: 'LONG', size: '0.2', entryPrice: '100000', exitPrice: null,
          unrealizedPnl: '0', netFunding: '0', closedAt: null, subaccountNumber: 0,
          marginType: 'CROSS', leverage: 20, marginUsed: '1000', liquidationPrice: null,
        },
      },
      assetPositions: {
        USDC: { symbol: 'USDC', side: 'LONG', size: '999940.965', assetId: '0', subaccountNumber: 0 },
        SVC: { symbol: 'SVC', side: 'LONG', size: '100040', assetId: '1', subaccountNumber: 0 },
      },
      marginEnabled: true,
      latestProcessedBlockHeight: sub.body.subaccount.latestProcessedBlockHeight,
    },
  });
  t.match(sub.body.subaccount.latestProcessedBlockHeight, /^\d+$/);
  const aliceSub = await client.raw(`/v1/addresses/${A}/subaccountNumber/0`);
  t.match(aliceSub.body.subaccount.openPerpetualPositions['BTC-USD'], { side: 'SHORT', size: '-0.2', entryPrice: '100000' });

  // Sub-accounts: n >= 1 in creation order.
  t.equal((await client.raw(`/v1/addresses/${A}/subaccountNumber/1`)).status, 404);
  const first = (await client.exchange(alice, { type: 'createSubAccount', name: 'one' })).body.response.data;
  const second = (await client.exchange(alice, { type: 'createSubAccount', name: 'two' })).body.response.data;
  await client.exchange(alice, { type: 'subAccountTransfer', subAccountUser: second, isDeposit: true, usd: 1_000_000_000 });
  const one = await client.raw(`/v1/addresses/${A}/subaccountNumber/1`);
  t.match(one.body.subaccount, { address: A, subaccountNumber: 1, subaccountAddress: first, equity: '0', openPerpetualPositions: {}, assetPositions: { USDC: { size: '0' } } });
  const two = await client.raw(`/v1/addresses/${A}/subaccountNumber/2`);
  t.match(two.body.subaccount, { subaccountNumber: 2, subaccountAddress: second, equity: '1000', freeCollateral: '1000', assetPositions: { USDC: { size: '1000', subaccountNumber: 2 } } });
  const three = await client.raw(`/v1/addresses/${A}/subaccountNumber/3`);
  t.equal(three.status, 404);
  t.same(three.body, { error: 'not_found', message: `No subaccount found with address ${A} and subaccountNumber 3` });
  t.equal((await client.raw(`/v1/addresses/0x${'12'.repeat(20)}/subaccountNumber/0`)).status, 404, 'an address that is no account');
  for (const [address, n, field] of [['0x1234', '0', 'address'], [A, 'x', 'subaccountNumber'], [A, '-1', 'subaccountNumber'], [A, '128001', 'subaccountNumber']]) {
    const bad = await client.raw(`/v1/addresses/${address}/subaccountNumber/${n}`);
    t.equal(bad.status, 400, `${address} ${n}`);
    t.same(bad.body.details, { field });
  }

  // Fills: newest first, dYdX's fields.
  const bobFills = await client.raw(`/v1/fills?address=${B}`);
  t.equal(bobFills.status, 200);
  t.equal(bobFills.body.fills.length, 2);
  t.match(bobFills.body.fills, [
    { side: 'BUY', liquidity: 'TAKER', type: 'LIMIT', market: 'SVC-USDC', marketType: 'SPOT', price: '1.25', size: '40', fee: '0.035', feeToken: 'USDC', subaccountNumber: 0 },
    { side: 'BUY', liquidity: 'TAKER', type: 'LIMIT', market: 'BTC-USD', marketType: 'PERPETUAL', price: '100000', size: '0.2', fee: '9', orderId: '2', subaccountNumber: 0 },
  ]);
  for (const f of bobFills.body.fills) {
    t.match(f, { id: /^\d+-B$/, createdAt: ISO, hash: /^0x[0-9a-f]{64}$/ });
  }
  const aliceFills = await client.raw(`/v1/fills?address=${A}&subaccountNumber=0&market=BTC-USD`);
  t.match(aliceFills.body.fills, [{ side: 'SELL', liquidity: 'MAKER', market: 'BTC-USD', price: '100000', size: '0.2', fee: '3', orderId: '1' }]);
  t.equal(aliceFills.body.fills.length, 1);
  t.equal(aliceFills.body.fills[0].id.split('-')[0], bobFills.body.fills[1].id.split('-')[0], 'both fills of a trade share its id number');
  t.same((await client.raw(`/v1/fills?address=${A}&market=BTC`)).body, aliceFills.body, 'the bare coin works');
  t.match((await client.raw(`/v1/fills?address=${B}&marketType=SPOT`)).body.fills, [{ market: 'SVC-USDC' }]);
  t.equal((await client.raw(`/v1/fills?address=${B}&marketType=SPOT`)).body.fills.length, 1);
  t.match((await client.raw(`/v1/fills?address=${B}&market=SVC-USDC`)).body.fills, [{ marketType: 'SPOT' }]);
  const newest = await client.raw(`/v1/fills?address=${B}&limit=1`);
  t.same(newest.body.fills, [bobFills.body.fills[0]]);
  t.same((await client.raw(`/v1/fills?address=${A}&subaccountNumber=2`)).body, { fills: [] });
  t.equal((await client.raw(`/v1/fills?address=${A}&subaccountNumber=3`)).status, 404);
  const badQueries: [string, string][] = [
    ['', 'address'], ['address=0x12', 'address'], [`address=${B}&limit=0`, 'limit'], [`address=${B}&limit=1001`, 'limit'],
    [`address=${B}&market=DOGE-USD`, 'market'], [`address=${B}&marketType=FUTURES`, 'marketType'], [`address=${B}&subaccountNumber=a`, 'subaccountNumber'],
  ];
  for (const [query, field] of badQueries) {
    const bad = await client.raw(`/v1/fills?${query}`);
    t.equal(bad.status, 400, `?${query}`);
    t.same(bad.body.details, { field }, `?${query}`);
  }

  // Referral: no codes yet; the stage follows the account's traded volume.
  const stranger = await client.info({ type: 'referral', user: `0x${'34'.repeat(20)}` });
  t.equal(stranger.status, 200);
  t.same(stranger.body, {
    referredBy: null,
    cumVlm: '0',
    unclaimedRewards: '0',
    claimedRewards: '0',
    builderRewards: '0',
    referrerState: { stage: 'needToTrade', data: { required: '10000' } },
    rewardHistory: [],
  });
  const bobRef = await client.info({ type: 'referral', user: B });
  t.match(bobRef.body, { referredBy: null, cumVlm: '20050', referrerState: { stage: 'needToCreateCode' } });
  t.same(bobRef.body.referrerState, { stage: 'needToCreateCode' });

  // Codes: bob has traded enough to create one; carol joins it.
  const carol = wallets[2] as Wallet;
  const C = carol.address.toLowerCase();
  const early = await client.exchange(carol, { type: 'registerReferrer', code: 'carol' });
  t.same(early.body, { status: 'err', response: 'Invalid action: creating a referral code needs 10000 USD traded; the account traded 0' });
  t.same((await client.exchange(bob, { type: 'registerReferrer', code: 'bob1' })).body, { status: 'ok', response: { type: 'default' } });
  t.same((await client.exchange(carol, { type: 'setReferrer', code: 'BOB1' })).body, { status: 'ok', response: { type: 'default' } });
  t.same((await client.exchange(carol, { type: 'setReferrer', code: 'BOB1' })).body, { status: 'err', response: 'Invalid action: a referrer is already set: code BOB1' });
  t.match((await client.info({ type: 'referral', user: C })).body, { referredBy: { referrer: B, code: 'BOB1' }, cumVlm: '0', referrerState: { stage: 'needToTrade' } });
  t.match((await client.info({ type: 'referral', user: B })).body, {
    referredBy: null,
    referrerState: { stage: 'ready', data: { code: 'BOB1', referralStates: [{ user: C, cumVlm: '0', cumFeesRewardedToReferrer: '0', timeJoined: Number }] } },
  });
  const badCode = await client.exchange(carol, { type: 'setReferrer', code: 'no-dash' });
  t.equal(badCode.status, 400);
  t.same(badCode.body.details, { field: 'action.code' });

  const bad = await client.info({ type: 'referral', user: '0x12' });
  t.equal(bad.status, 400);
  t.same(bad.body.details, { field: 'user' });
});
