// The WebSocket dialect's vocabulary without a node: coin names both ways, subscription checks,
// and the pushes' shapes (optional fields absent when unset).
import t from 'tap';
import type { FillRecord, OrderView } from '../../exchange/index.ts';
import { hyperliquidWsShapes, type NodeApi } from '../../rpc/index.ts';

const { CoinNames, hlFill, hlFunding, hlLedgerUpdate, hlOrderUpdate, parseHlSubscription, resolveMarket } = hyperliquidWsShapes;

const api = {
  meta: () => ({ universe: [{ name: 'BTC' }] }),
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
  t.same(hlOrderUpdate({ ...order, cloid: '0x' + '00'.repeat(16), reduceOnly: true }, 'canceled', 6, names).order, { coin: 'BTC', side: 'A', limitPx: '100', sz: '1', oid: 3, timestamp: 5, origSz: '1', cloid: '0x' + '00'.repeat(16), reduceOnly: true });
});
