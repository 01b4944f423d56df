// The Hyperliquid dialect's /info against a real node, through @nktkas/hyperliquid's InfoClient:
// values after real activity, and every answer type-checked against the SDK's response types.
import t from 'tap';
import { HttpTransport, InfoClient } from '@nktkas/hyperliquid';
import { SymbolConverter } from '@nktkas/hyperliquid/utils';
import { limit, nextNonce, orderAction, startNode, wallets } from '../support/node.ts';
import { until } from '../support/network.ts';
import { typeErrors } from '../support/hyperliquid-types.ts';

const [alice, bob, carol] = wallets as [typeof wallets[0], typeof wallets[0], typeof wallets[0]];
const A = alice.address.toLowerCase() as `0x${string}`;
const B = bob.address.toLowerCase() as `0x${string}`;
const C = carol.address.toLowerCase() as `0x${string}`;

t.test('InfoClient against /hyperliquid after trading', async (t) => {
  const { client, node } = await startNode(t, { history: true });
  const ok = async (who: typeof alice, action: unknown) => {
    const res = await client.exchange(who, action);
    t.equal(res.body.status, 'ok', JSON.stringify(res.body));
    return res.body.response.data.statuses;
  };
  // Perps: alice bids, bob sells into her best bid; spot: alice asks SVC, bob buys.
  await ok(alice, orderAction(limit(0, true, '95000', '0.1'), limit(0, true, '94990', '0.2'), limit(0, true, '94900', '0.3')));
  await ok(alice, orderAction(limit(0, false, '96001', '0.1', 'Gtc', { c: '0xabcdef00000000000000000000001234' })));
  await ok(bob, orderAction(limit(0, false, '95000', '0.05', 'Ioc')));
  await ok(alice, orderAction(limit(10000, false, '1.25', '100')));
  await ok(bob, orderAction(limit(10000, true, '1.3', '40', 'Ioc')));
  const nonce = nextNonce();
  await client.exchange(bob, { type: 'approveBuilderFee', maxFeeRate: '0.01%', builder: C, nonce }, { nonce });
  // A size finer than szDecimals is `Invalid size`, even below the minimum.
  const fine = await client.exchange(alice, orderAction(limit(1, true, '3500', '0.00005')));
  t.match(JSON.stringify(fine.body), /Invalid size/);

  const info = new InfoClient({ transport: new HttpTransport({ apiUrl: `${node.restUrl}/hyperliquid` }) });
  const answers: [string, unknown][] = [];
  const got = async <R>(type: string, p: Promise<R>): Promise<R> => {
    const v = await p;
    answers.push([type, v]);
    return v;
  };

  // The SDK's own symbol table, built from meta and spotMeta as a client does on start.
  const symbols = await SymbolConverter.create({ transport: new HttpTransport({ apiUrl: `${node.restUrl}/hyperliquid` }) });
  t.same([symbols.getAssetId('ETH'), symbols.getAssetId('SVC/USDC'), symbols.getSzDecimals('SVC/USDC'), symbols.getSpotPairId('SVC/USDC')], [1, 10000, 2, 'SVC/USDC']);
  const meta = await got('MetaResponse', info.meta());
  t.match(meta.universe[0], { name: 'BTC', szDecimals: 5, maxLeverage: 50, marginTableId: 50 });
  t.same(meta.marginTables.find(([id]) => id === 50), [50, { description: '', marginTiers: [{ lowerBound: '0.0', maxLeverage: 50 }] }]);
  t.equal(meta.collateralToken, 0);
  const spotMeta = await got('SpotMetaResponse', info.spotMeta());
  t.match(spotMeta.tokens[0], { name: 'USDC', index: 0, tokenId: /^0x[0-9a-f]{32}$/, deployerTradingFeeShare: '0.0' });
  t.same(spotMeta.universe[0], { tokens: [1, 0], name: 'SVC/USDC', index: 0, isCanonical: true });
  const [, ctxs] = await got('MetaAndAssetCtxsResponse', info.metaAndAssetCtxs());
  t.equal(ctxs[0]?.dayBaseVlm, '0.05', 'day base volume from the trade');
  const [, spotCtxs] = await got('SpotMetaAndAssetCtxsResponse', info.spotMetaAndAssetCtxs());
  t.match(spotCtxs[0], { coin: 'SVC/USDC', dayBaseVlm: '40' });
  const mids = await got('AllMidsResponse', info.allMids());
  t.equal(mids['SVC/USDC'], spotCtxs[0]?.markPx, 'no bid: the mark');
  t.ok(mids.BTC !== undefined);

  const book = await got('L2BookResponse', info.l2Book({ coin: 'BTC' }));
  t.same(book?.levels[0].map((l) => l.px), ['95000', '94990', '94900']);
  const agg = await got('L2BookResponse', info.l2Book({ coin: 'BTC', nSigFigs: 3 }));
  t.same(agg?.levels, [[{ px: '95000', sz: '0.05', n: 1 }, { px: '94900', sz: '0.5', n: 2 }], [{ px: '96100', sz: '0.1', n: 1 }]], 'bids down, asks up');
  t.equal(await got('L2BookResponse', info.l2Book({ coin: '@99' })), null, 'an unknown coin');
  const spotBook = await got('L2BookResponse', info.l2Book({ coin: '@0' }));
  t.same(spotBook?.levels[1], [{ px: '1.25', sz: '60', n: 1 }]);
  t.equal(spotBook?.coin, '@0');

  const now = Date.now();
  const candles = await got('CandleSnapshotResponse', info.candleSnapshot({ coin: 'SVC/USDC', interval: '1m', startTime: now - 3_600_000, endTime: now + 60_000 }));
  t.match(candles, [{ s: 'SVC/USDC', i: '1m', v: '40', n: 1 }]);
  await got('FundingHistoryResponse', info.fundingHistory({ coin: 'BTC', startTime: 0 }));

  const ch = await got('ClearinghouseStateResponse', info.clearinghouseState({ user: B }));
  t.match(ch.assetPositions, [{ type: 'oneWay', position: { coin: 'BTC', szi: '-0.05', leverage: { type: 'cross' } } }]);
  const spot = await got('SpotClearinghouseStateResponse', info.spotClearinghouseState({ user: B }));
  t.match(spot.balances, [{ coin: 'USDC', token: 0 }, { coin: 'SVC', token: 1, total: '100040' }]);
  const open = await got('OpenOrdersResponse', info.openOrders({ user: A }));
  t.equal(open.length, 5);
  t.match(open.find((o) => o.coin === 'SVC/USDC'), { sz: '60', origSz: '100', side: 'A' });
  t.equal(open.find((o) => o.limitPx === '96001')?.cloid, '0xabcdef00000000000000000000001234');
  t.notOk('reduceOnly' in (open[0] as object), 'optional fields absent when unset');
  const front = await got('FrontendOpenOrdersResponse', info.frontendOpenOrders({ user: A }));
  t.match(front[0], { orderType: 'Limit', tif: 'Gtc', children: [], isTrigger: false });
  const fills = await got('UserFillsResponse', info.userFills({ user: B }));
  t.match(fills, [{ coin: 'SVC/USDC', dir: 'Buy', sz: '40', twapId: null }, { coin: 'BTC', dir: 'Open Short', px: '95000', sz: '0.05', twapId: null }]);
  t.equal((await got('UserFillsResponse', info.userFillsByTime({ user: B, startTime: 0 }))).length, 2);
  t.match(await got('UserFillsResponse', info.userFillsByTime({ user: A, startTime: 0, aggregateByTime: true })), [{ coin: 'BTC' }, { coin: 'SVC/USDC' }]);
  await got('UserFundingResponse', info.userFunding({ user: B, startTime: 0 }));
  const fees = await got('UserFeesResponse', info.userFees({ user: B }));
  t.match(fees, { feeSchedule: { cross: '0.00045', tiers: { vip: [], mm: [] } }, dailyUserVlm: [{ userCross: String }], trial: null });
  const oid = open.find((o) => o.coin === 'SVC/USDC')?.oid as number;
  const status = await got('OrderStatusResponse', info.orderStatus({ user: A, oid }));
  t.match(status, { status: 'order', order: { status: 'open', order: { coin: 'SVC/USDC' } } });
  t.same(await got('OrderStatusResponse', info.orderStatus({ user: A, oid: 999999 })), { status: 'unknownOid' });
  const byCloid = await info.orderStatus({ user: A, oid: '0xabcdef00000000000000000000001234' });
  t.match(byCloid, { status: 'order', order: { order: { limitPx: '96001' } } });
  const hist = await got('HistoricalOrdersResponse', info.historicalOrders({ user: B }));
  t.match(hist, [{ status: 'filled', order: { coin: 'SVC/USDC' } }, { status: 'filled', order: { coin: 'BTC' } }]);
  t.match(await got('UserRateLimitResponse', info.userRateLimit({ user: B })), { nRequestsUsed: Number, nRequestsCap: Number });
  const pf = await got('PortfolioResponse', info.portfolio({ user: B }));
  t.same(pf.map(([p]) => p), ['day', 'week', 'month', 'allTime', 'perpDay', 'perpWeek', 'perpMonth', 'perpAllTime']);
  await got('PortfolioResponse', info.portfolio({ user: C }));
  t.equal(await got('SubAccountsResponse', info.subAccounts({ user: B })), null);
  t.equal(await got('SubAccounts2Response', info.subAccounts2({ user: B })), null);
  t.same(await got('ExtraAgentsResponse', info.extraAgents({ user: B })), []);
  t.match(await got('ReferralResponse', info.referral({ user: B })), { referredBy: null, tokenToState: [] });
  t.match(await got('DelegatorSummaryResponse', info.delegatorSummary({ user: B })), { nPendingWithdrawals: 0 });
  await got('DelegationsResponse', info.delegations({ user: B }));
  t.same(await got('UserRoleResponse', info.userRole({ user: B })), { role: 'user' });
  t.same(await got('UserRoleResponse', info.userRole({ user: '0x000000000000000000000000000000000000dead' })), { role: 'missing' });
  await until('the trades indexed', async () => (await info.recentTrades({ coin: 'SVC/USDC' })).length === 1, 10_000);
  const trades = await got('RecentTradesResponse', info.recentTrades({ coin: 'SVC/USDC' }));
  t.match(trades, [{ coin: 'SVC/USDC', side: 'B', px: '1.25', sz: '40', users: [B, A] }]);
  const predicted = await got('PredictedFundingsResponse', info.predictedFundings());
  t.match(predicted[0], ['BTC', [['HlPerp', { nextFundingTime: Number }]]]);
  t.match(await got('ExchangeStatusResponse', info.exchangeStatus()), { specialStatuses: null });
  const web = await got('WebData2Response', info.webData2({ user: A }));
  t.equal(web.openOrders.length, 5);
  t.equal(web.user, A);
  t.equal(web.cumLedger, '0', 'genesis balances are no ledger movement');
  const active = await got('ActiveAssetDataResponse', info.activeAssetData({ user: B, coin: 'BTC' }));
  t.match(active, { coin: 'BTC', leverage: { type: 'cross', value: 20 }, markPx: ctxs[0]?.markPx });
  const [buySz, sellSz] = active.maxTradeSzs.map(Number) as [number, number];
  const [buyUsd, sellUsd] = active.availableToTrade.map(Number) as [number, number];
  t.equal((buySz - sellSz).toFixed(5), '0.05000', 'buying may also close the 0.05 short');
  t.equal((buyUsd - sellUsd).toFixed(2), (0.05 * Number(ctxs[0]?.markPx) / 20).toFixed(2), 'closing frees its margin');
  await got('UserNonFundingLedgerUpdatesResponse', info.userNonFundingLedgerUpdates({ user: B, startTime: 0 }));
  t.equal(await got('MaxBuilderFeeResponse', info.maxBuilderFee({ user: B, builder: A })), 0);
  t.equal(await got('MaxBuilderFeeResponse', info.maxBuilderFee({ user: B, builder: C })), 10, '0.01% in tenths of a basis point');
  t.same(await got('PerpDexsResponse', info.perpDexs()), [null]);
  await got('MarginTableResponse', info.marginTable({ id: 50 }));
  const details = await got('TokenDetailsResponse', info.tokenDetails({ tokenId: spotMeta.tokens[1]?.tokenId as `0x${string}` }));
  t.match(details, { name: 'SVC', markPx: spotCtxs[0]?.markPx, totalSupply: String });
  t.same(await got('VaultSummariesResponse', info.vaultSummaries()), []);
  t.same(await got('UserVaultEquitiesResponse', info.userVaultEquities({ user: B })), []);
  t.same(await got('LeadingVaultsResponse', info.leadingVaults({ user: B })), []);
  t.same(await got('PerpsAtOpenInterestCapResponse', info.perpsAtOpenInterestCap()), []);
  await got('SpotDeployStateResponse', info.spotDeployState({ user: B }));
  await got('ValidatorSummariesResponse', info.validatorSummaries());
  t.same(await got('TwapHistoryResponse', info.twapHistory({ user: B })), []);
  t.same(await got('UserTwapSliceFillsResponse', info.userTwapSliceFills({ user: B })), []);
  t.equal(await got('UserToMultiSigSignersResponse', info.userToMultiSigSigners({ user: B })), null);
  await got('IsVipResponse', info.isVip({ user: B }));
  t.same(await got('OutcomeMetaResponse', info.outcomeMeta()), { outcomes: [], questions: [] });
  t.equal((await got('AllPerpMetasResponse', info.allPerpMetas())).length, 1);
  t.equal(await got('PerpDexLimitsResponse', info.perpDexLimits({ dex: '' })), null);
  t.same(await got('ApprovedBuildersResponse', info.approvedBuilders({ user: B })), [C]);
  t.same(await got('ApprovedBuildersResponse', info.approvedBuilders({ user: A })), []);
  t.equal(await got('UserAbstractionResponse', info.userAbstraction({ user: B })), 'default');
  await got('UserDexAbstractionResponse', info.userDexAbstraction({ user: B }));
  await got('LegalCheckResponse', info.legalCheck({ user: B }));

  t.same(await typeErrors(answers), [], 'every answer is of the SDK response type');

  const raw = await client.raw('/hyperliquid/info', { method: 'POST', body: 'nope' });
  t.equal(raw.status, 422);
  t.match(raw.headers.get('content-type'), /^text\/plain/);
  t.match(raw.body, /^Failed to deserialize the JSON body into the target type/);
  t.equal((await client.post('/hyperliquid/info', { type: 'noSuchType' })).status, 422);
  t.equal((await client.post('/hyperliquid/info', { type: 'clearinghouseState' })).status, 422, 'a missing user');
  const noStart = await client.post('/hyperliquid/info', { type: 'userNonFundingLedgerUpdates', user: B });
  t.same([noStart.status, noStart.body], [200, []], 'startTime may be absent (ccxt sends none)');
  const json = await client.post('/hyperliquid/info', { type: 'meta', dex: '' });
  t.equal(json.headers.get('content-type'), 'application/json');
});
