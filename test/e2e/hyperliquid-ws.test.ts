// The Hyperliquid dialect of the WebSocket API (/hyperliquid/ws) against a real node, driven by
// @nktkas/hyperliquid's own WebSocketTransport, SubscriptionClient, InfoClient and ExchangeClient:
// pushes after a trade placed through the spec's root /exchange, info and action posts matched by
// id, errors matched to their requests.
// Then the dialect's vocabulary without a node (a second spot pair, which the devnet lacks).
import t from 'tap';
import WebSocket from 'ws';
import type { FillRecord, OrderView } from '../../exchange/index.ts';
import { hyperliquidWsShapes, type NodeApi } from '../../rpc/index.ts';
import { ExchangeClient, InfoClient, SubscriptionClient, WebSocketTransport } from '@nktkas/hyperliquid';
import { privateKeyToAccount } from 'viem/accounts';
import { DEV_ACCOUNTS } from '../../genesis/index.ts';
import { limit, nextNonce, orderAction, startNode, wallets } from '../support/node.ts';
import { until } from '../support/network.ts';
import { signRequest } from '../support/signing.ts';
import { connect } from '../support/ws.ts';

// Node 20 has no global WebSocket; the SDK's transport takes the `ws` package's, which has the same API.
(globalThis as { WebSocket?: unknown }).WebSocket ??= WebSocket;

const [alice, bob] = wallets as [typeof wallets[0], typeof wallets[0]];
const A = alice.address.toLowerCase() as `0x${string}`;
const B = bob.address.toLowerCase();

t.test('the SDK subscribes, gets pushes after a trade, posts and is told which post failed; raw envelopes', async (t) => {
  const { node, client } = await startNode(t, { history: true });
  const url = (node.wsUrl as string).replace(/\/ws$/, '/hyperliquid/ws');
  const transport = new WebSocketTransport({ url, reconnect: { maxRetries: 0 } });
  t.teardown(() => transport.close());
  const subs = new SubscriptionClient({ transport });
  const info = new InfoClient({ transport });

  // Every push of every stream, by channel.
  const got: Record<string, any[]> = {}; // eslint-disable-line @typescript-eslint/no-explicit-any
  const log = (name: string) => (data: unknown) => void (got[name] ??= []).push(data);
  const last = (name: string) => got[name]?.at(-1);
  await Promise.all([
    subs.l2Book({ coin: 'BTC' }, log('l2Book')),
    subs.trades({ coin: 'BTC' }, log('trades')),
    subs.allMids(log('allMids')),
    subs.userFills({ user: A }, log('userFills')),
    subs.orderUpdates({ user: A }, log('orderUpdates')),
    subs.userEvents({ user: A }, log('userEvents')),
  ]);
  // (at most 10 requests in flight: the SDK hangs a listener per request on one signal)
  await Promise.all([
    subs.clearinghouseState({ user: A }, log('clearinghouseState')),
    subs.openOrders({ user: A }, log('openOrders')),
    subs.spotState({ user: A }, log('spotState')),
    subs.twapStates({ user: A }, log('twapStates')),
    subs.userTwapHistory({ user: A }, log('userTwapHistory')),
    subs.assetCtxs(log('assetCtxs')),
  ]);
  await until('snapshots', () => ['l2Book', 'allMids', 'userFills', 'clearinghouseState', 'openOrders', 'spotState', 'twapStates', 'userTwapHistory', 'assetCtxs'].every((c) => got[c] !== undefined), 5000);
  t.same(last('l2Book').levels, [[], []], 'book snapshot');
  t.equal(last('l2Book').coin, 'BTC');
  t.match(last('allMids'), { mids: { BTC: String, ETH: String, SOL: String } });
  t.notOk('dex' in last('allMids'), 'no dex on the main dex, as the SDK filters');
  t.match(last('userFills'), { isSnapshot: true, user: A, fills: [] });
  t.match(last('clearinghouseState'), { dex: '', user: A, clearinghouseState: { assetPositions: [] } });
  t.same(last('openOrders'), { dex: '', user: A, orders: [] });
  t.match(last('spotState'), { user: A, spotState: { balances: [{ coin: 'USDC' }, { coin: 'SVC' }] } });
  t.same(last('twapStates'), { dex: '', user: A, states: [] }, 'no TWAP on this chain: the empty state');
  t.same(last('userTwapHistory'), { isSnapshot: true, user: A, history: [] });
  t.match(last('assetCtxs'), { dex: '', ctxs: [{ markPx: '100000' }, { markPx: String }, { markPx: String }] });

  // webData2 has no SubscriptionClient method in this SDK version: the transport's own subscribe.
  const hasWebData2 = await info.webData2({ user: A }).then(() => true, () => false);
  if (hasWebData2) await transport.subscribe('webData2', { type: 'webData2', user: A }, (e: CustomEvent) => log('webData2')(e.detail));

  // Alice rests an ask through the spec's root /exchange; Bob takes part of it.
  t.match((await client.exchange(alice, orderAction(limit(0, false, '100000', '0.5')))).body, { status: 'ok' });
  await until('the resting order pushed', () => got.orderUpdates !== undefined && last('openOrders').orders.length === 1, 5000);
  t.match(got.orderUpdates![0], [{ order: { coin: 'BTC', side: 'A', limitPx: '100000', sz: '0.5', origSz: '0.5', oid: Number }, status: 'open', statusTimestamp: Number }]);
  t.notOk('cloid' in got.orderUpdates![0][0].order, 'no cloid when none was set');
  t.match(last('openOrders').orders, [{ coin: 'BTC', side: 'A', sz: '0.5' }]);
  await until('the book pushed', () => last('l2Book').levels[1].length === 1, 5000);
  t.match(last('l2Book'), { coin: 'BTC', levels: [[], [{ px: '100000', sz: '0.5', n: 1 }]] });

  t.match((await client.exchange(bob, orderAction(limit(0, true, '100000', '0.2', 'Ioc')))).body, { status: 'ok' });
  await until('the trade pushed', () => got.trades !== undefined && got.userEvents !== undefined && got.userFills!.length > 1 && last('clearinghouseState').clearinghouseState.assetPositions.length === 1, 5000);
  t.match(last('trades'), [{ coin: 'BTC', side: 'B', px: '100000', sz: '0.2', users: [B, A], tid: Number, time: Number }]);
  const fill = { coin: 'BTC', px: '100000', sz: '0.2', side: 'A', crossed: false, dir: 'Open Short', twapId: null, feeToken: 'USDC' };
  t.match(last('userFills'), { user: A, fills: [fill] });
  t.notOk('isSnapshot' in last('userFills'), 'a push is no snapshot');
  t.match(last('userEvents'), { fills: [fill] });
  t.match(last('clearinghouseState').clearinghouseState.assetPositions, [{ position: { coin: 'BTC', szi: '-0.2' } }]);
  await until('the order update and the book after the fill', () => last('openOrders').orders[0]?.sz === '0.3' && last('l2Book').levels[1][0]?.sz === '0.3', 5000);
  t.ok(got.allMids!.length > 1, 'mids pushed after the trade');
  t.ok(got.spotState!.length > 1, 'spot state pushed after a block touching the user');
  if (hasWebData2) {
    await until('webData2 pushed after the trade', () => (got.webData2?.length ?? 0) > 1 && last('webData2').clearinghouseState.assetPositions.length === 1, 5000);
    t.match(last('webData2'), { clearinghouseState: { assetPositions: [{ position: { coin: 'BTC' } }] } });
  } else t.comment('webData2: the info dialect of this branch does not answer it yet (temporary delegate)');

  // Posts: answers matched by id; a failing one rejects its own promise only.
  const [book, meta, state, bad] = await Promise.allSettled([
    info.l2Book({ coin: 'BTC' }),
    info.meta(),
    info.clearinghouseState({ user: A }),
    transport.request('info', { type: 'noSuchType' }),
  ]);
  t.match(book, { status: 'fulfilled', value: { coin: 'BTC', levels: [[], [{ px: '100000', sz: '0.3' }]] } });
  t.match(meta, { status: 'fulfilled', value: { universe: [{ name: 'BTC' }, { name: 'ETH' }, { name: 'SOL' }] } });
  t.match(state, { status: 'fulfilled', value: { assetPositions: [{ position: { coin: 'BTC', szi: '-0.2' } }] } });
  t.match(bad, { status: 'rejected', reason: { name: 'WebSocketRequestError', message: /noSuchType/ } });

  // Exchange posts: the SDK's ExchangeClient signs Hyperliquid's way and sends over the same socket.
  const aliceX = new ExchangeClient({ wallet: privateKeyToAccount(DEV_ACCOUNTS[0]!.privateKey as `0x${string}`), transport });
  const placed = await aliceX.order({ orders: [{ a: 1, b: true, p: '3000', s: '0.1', r: false, t: { limit: { tif: 'Gtc' } } }], grouping: 'na' });
  const ethOid = (placed.response.data.statuses[0] as { resting: { oid: number } }).resting.oid;
  await until('the order placed over WS pushed', () => got.orderUpdates!.some((u) => u[0].order.oid === ethOid), 5000);
  t.match(got.orderUpdates!.find((u) => u[0].order.oid === ethOid), [{ order: { coin: 'ETH', side: 'B', limitPx: '3000', sz: '0.1' }, status: 'open' }]);

  // A bad subscription rejects its own subscribe.
  await t.rejects(subs.l2Book({ coin: 'DOGE' }, () => {}), { message: /^Invalid subscription \{.*"coin":"DOGE".*\}/ });

  // Raw frames on a second connection to the same node.
  const c = await connect(url);
  t.teardown(() => c.ws.close());
  t.equal(await c.next((m) => typeof m === 'string'), 'Websocket connection established.', "Hyperliquid's greeting, a text frame");

  c.send({ method: 'post', id: 1, request: { type: 'info', payload: { type: 'allMids' } } });
  t.match(await c.next((m) => m.channel === 'post' && m.data.id === 1), { data: { id: 1, response: { type: 'info', payload: { type: 'allMids', data: { BTC: String } } } } });

  // The action envelope by hand: signed with the spec's scheme, which recovers nobody in Hyperliquid's.
  const req = await signRequest(alice, orderAction(limit(0, true, '90000', '0.01')), nextNonce());
  c.send({ method: 'post', id: 2, request: { type: 'action', payload: req } });
  t.match(await c.next((m) => m.channel === 'post' && m.data.id === 2), { data: { id: 2, response: { type: 'action', payload: { status: 'err', response: /^User or API Wallet 0x[0-9a-f]{40} does not exist\.$/ } } } });
  c.send({ method: 'post', id: 3, request: { type: 'action', payload: { action: req.action, signature: req.signature } } });
  t.same(await c.next((m) => m.channel === 'post' && m.data.id === 3), { channel: 'post', data: { id: 3, response: { type: 'error', payload: 'Failed to deserialize the JSON body into the target type: nonce: missing' } } });
  c.send({ method: 'post', id: 4, request: { type: 'bogus', payload: {} } });
  t.same(await c.next((m) => m.channel === 'post' && m.data.id === 4), { channel: 'post', data: { id: 4, response: { type: 'error', payload: 'Unknown request type: bogus' } } });

  // A spot pair by either name; pushes use the name subscribed.
  c.send({ method: 'subscribe', subscription: { type: 'l2Book', coin: '@0' } });
  t.match(await c.next((m) => m.channel === 'l2Book'), { data: { coin: '@0', levels: [Array, Array] } });
  c.send({ method: 'subscribe', subscription: { type: 'activeAssetCtx', coin: 'SVC/USDC' } });
  t.match(await c.next((m) => m.channel === 'activeSpotAssetCtx'), { data: { coin: 'SVC/USDC', ctx: { markPx: String } } });
  c.send({ method: 'subscribe', subscription: { type: 'l2Book', coin: '@0' } });
  t.same(await c.next((m) => m.channel === 'error'), { channel: 'error', data: 'Already subscribed: {"type":"l2Book","coin":"@0"}' });
  c.send({ method: 'unsubscribe', subscription: { type: 'trades', coin: 'BTC' } });
  t.same(await c.next((m) => m.channel === 'error'), { channel: 'error', data: 'Already unsubscribed: {"type":"trades","coin":"BTC"}' });
  c.send({ method: 'subscribe', subscription: { type: 'userFills', user: '0x12' } });
  t.match(await c.next((m) => m.channel === 'error'), { data: /^Invalid subscription \{"type":"userFills","user":"0x12"\}/ });
  c.send({ method: 'subscribe', subscription: { type: 'noSuchFeed' } });
  t.match(await c.next((m) => m.channel === 'error'), { data: /^Invalid subscription/ });
  c.send({ method: 'bogus' });
  t.same(await c.next((m) => m.channel === 'error'), { channel: 'error', data: 'Error parsing JSON into valid websocket request: {"method":"bogus"}' });
  c.send({ method: 'ping' });
  t.same(await c.next((m) => m.channel === 'pong'), { channel: 'pong' });
});

const { CoinNames, hlFill, hlFunding, hlLedgerUpdate, hlOrderUpdate, parseHlSubscription, resolveMarket } = hyperliquidWsShapes;

const api = {
  meta: () => ({ universe: [{ name: 'BTC' }] }),
  isPerp: (coin: string) => coin === 'BTC',
  spotMeta: () => ({
    tokens: [{ name: 'USDC', index: 10000 }, { name: 'SVC', index: 10001 }, { name: 'ABC', index: 10002 }],
    universe: [{ name: 'SVC-USDC', tokens: [10001, 10000], index: 0 }, { name: 'ABC-USDC', tokens: [10002, 10000], index: 1 }],
  }),
} as unknown as NodeApi;

t.test('coin names: pair 0 as BASE/QUOTE, the others as @<pair>; requests in either form', async (t) => {
  t.same(resolveMarket(api, 'BTC'), { name: 'BTC', coin: 'BTC', kind: 'perp', index: 0 });
  t.same(resolveMarket(api, 'SVC/USDC'), { name: 'SVC/USDC', coin: 'SVC-USDC', kind: 'spot', index: 0 });
  t.same(resolveMarket(api, '@0'), { name: '@0', coin: 'SVC-USDC', kind: 'spot', index: 0 });
  t.same(resolveMarket(api, '@1'), { name: '@1', coin: 'ABC-USDC', kind: 'spot', index: 1 });
  t.same(resolveMarket(api, 'ABC/USDC'), { name: 'ABC/USDC', coin: 'ABC-USDC', kind: 'spot', index: 1 });
  t.equal(resolveMarket(api, '@2'), null);
  t.equal(resolveMarket(api, 'DOGE'), null);
  const names = new CoinNames(api);
  t.same(['BTC', 'SVC-USDC', 'ABC-USDC'].map((c) => names.of(c)), ['BTC', 'SVC/USDC', '@1']);
});

t.test('subscriptions: fields checked as Hyperliquid does', async (t) => {
  const user = '0x' + 'ab'.repeat(20);
  t.match(parseHlSubscription(api, { type: 'l2Book', coin: '@1', nSigFigs: 5, mantissa: 2 }), { type: 'l2Book', market: { coin: 'ABC-USDC' }, nSigFigs: 5, mantissa: 2 });
  t.match(parseHlSubscription(api, { type: 'l2Book', coin: 'BTC', nSigFigs: null, mantissa: null }), { nSigFigs: null, mantissa: null });
  t.equal(parseHlSubscription(api, { type: 'l2Book', coin: 'BTC', nSigFigs: 4, mantissa: 2 }), 'mantissa must be 1, 2 or 5, with nSigFigs 5');
  t.equal(parseHlSubscription(api, { type: 'candle', coin: 'BTC', interval: '7m' }), 'unknown interval 7m');
  t.same(parseHlSubscription(api, { type: 'clearinghouseState', user: user.toUpperCase().replace('0X', '0x'), dex: '' }), { type: 'clearinghouseState', user });
  t.equal(parseHlSubscription(api, { type: 'openOrders', user, dex: 'xyz' }), 'unknown dex xyz');
  t.equal(parseHlSubscription(api, { type: 'allMids', dex: 'xyz' }), 'unknown dex xyz');
  t.match(parseHlSubscription(api, { type: 'activeAssetData', user, coin: 'BTC' }), { type: 'activeAssetData', user, market: { kind: 'perp' } });
  t.equal(parseHlSubscription(api, { type: 'activeAssetData', user, coin: '@1' }), 'activeAssetData is for perpetuals, not @1');
  t.equal(parseHlSubscription(api, { type: 'webData3', user }), 'unknown type webData3');
});

t.test('pushes: dialect coin, twapId, optional fields absent when unset', async (t) => {
  const names = new CoinNames(api);
  const fill: FillRecord = {
    coin: 'ABC-USDC', px: '1.5', sz: '2', side: 'B', time: 1, startPosition: '0', dir: 'Buy', closedPnl: '0', hash: '0x01', oid: 7,
    crossed: true, fee: '0.001', feeToken: 'ABC', tid: 9,
  };
  t.same(hlFill(fill, names), { ...fill, coin: '@1', twapId: null });
  const order = {
    coin: 'BTC', side: 'A', limitPx: '100', sz: '1', oid: 3, timestamp: 5, origSz: '1', cloid: null, reduceOnly: false,
    orderType: 'Limit', tif: 'Gtc', isTrigger: false, triggerCondition: 'N/A', triggerPx: '0.0', isPositionTpsl: false, children: [],
  } satisfies OrderView;
  t.same(hlOrderUpdate(order, 'open', 5, names), { order: { coin: 'BTC', side: 'A', limitPx: '100', sz: '1', oid: 3, timestamp: 5, origSz: '1' }, status: 'open', statusTimestamp: 5 });
  t.same(hlFunding({ time: 1, coin: 'BTC', usdc: '-0.5', szi: '2', fundingRate: '0.0001' }, names), { time: 1, coin: 'BTC', usdc: '-0.5', szi: '2', fundingRate: '0.0001', nSamples: null });
  t.same(hlLedgerUpdate({ time: 2, hash: '0x02', delta: { type: 'deposit', usdc: '100', chainId: 1 } }), { time: 2, hash: '0x02', delta: { type: 'deposit', usdc: '100' } });
  t.same(hlLedgerUpdate({ time: 3, hash: '0x03', delta: { type: 'withdraw', usdc: '9', fee: '1', withdrawalId: '7', chainId: 1 } }), { time: 3, hash: '0x03', delta: { type: 'withdraw', usdc: '9', nonce: 3, fee: '1' } }, 'as the info dialect shows it');
  t.same(hlLedgerUpdate({ time: 4, hash: '0x04', delta: { type: 'withdrawRefund', usdc: '10', withdrawalId: '7', chainId: 1 } }).delta, { type: 'deposit', usdc: '10' }, 'a refund is money back');
  t.same(hlOrderUpdate({ ...order, cloid: '0x' + '00'.repeat(16), reduceOnly: true }, 'canceled', 6, names).order, { coin: 'BTC', side: 'A', limitPx: '100', sz: '1', oid: 3, timestamp: 5, origSz: '1', cloid: '0x' + '00'.repeat(16), reduceOnly: true });
});
