// The typed client against a real devnet node: every signature is checked by the node; the
// signatures also equal those of an independent implementation (ethers + `canonicalize`).
import t from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { Wallet } from 'ethers';
import {
  ApiError, NonceManager, PrivateKeySigner, SvcClient, signRequest, type OrderStatus, type SocketFactory,
} from '../../client/index.ts';
import { DEV_ACCOUNTS } from '../../genesis/index.ts';
import { startNode } from '../support/node.ts';
import { waitFor } from '../support/network.ts';
import { signRequest as ethersSign } from '../support/signing.ts';

const [alice, bob, carol] = DEV_ACCOUNTS as [typeof DEV_ACCOUNTS[0], typeof DEV_ACCOUNTS[0], typeof DEV_ACCOUNTS[0]];

function oidOf(s: OrderStatus | undefined): number {
  if (s !== undefined && 'resting' in s) return s.resting.oid;
  throw new Error(`not resting: ${JSON.stringify(s)}`);
}

t.test('client', async (t) => {
  const { node } = await startNode(t, { history: true });
  const url = node.restUrl;
  const wsUrl = node.wsUrl as string;
  const shared = new NonceManager();
  const a = new SvcClient({ url, wsUrl, privateKey: alice.privateKey, nonces: shared });
  const b = new SvcClient({ url, wsUrl, privateKey: bob.privateKey, nonces: shared });
  t.teardown(() => {
    a.close();
    b.close();
  });

  t.test('signatures equal an independent implementation, both bindings', async (t) => {
    const action = { type: 'order' as const, orders: [{ a: 0, b: true, p: '50000', s: '0.01', r: false, t: { limit: { tif: 'Gtc' as const } } }], grouping: 'na' as const };
    const signer = new PrivateKeySigner(alice.privateKey);
    t.equal(signer.address, alice.address);
    const wallet = new Wallet(alice.privateKey);
    for (const binding of ['action', 'literal'] as const) {
      for (const vault of [null, bob.address]) {
        const mine = await signRequest(signer, action, 1767225600123, vault, { binding });
        const theirs = await ethersSign(wallet, action, 1767225600123, { binding, vaultAddress: vault });
        t.same(mine.signature, theirs.signature, `${binding} binding, vault ${vault ?? 'none'}`);
      }
    }
  });

  t.test('place, modify and cancel an order (the README example)', async (t) => {
    const placed = await a.placeOrder({ coin: 'BTC', side: 'buy', price: '60000', size: '0.01' });
    const oid = oidOf(placed);
    await a.modifyOrder(oid, { coin: 'BTC', side: 'buy', price: '60500', size: '0.02' });
    t.match(await a.info.openOrders(a.address), [{ oid, limitPx: '60500', sz: '0.02', side: 'B' }]);
    t.equal(await a.cancelOrder('BTC', oid), 'success');
    t.same(await a.info.openOrders(a.address), []);
    t.same(await a.cancelOrder('BTC', oid), { error: 'Order not found' });
  });

  t.test('literal binding where the devnet allows it; spot by pair name', async (t) => {
    const lit = new SvcClient({ url, privateKey: carol.privateKey, binding: 'literal', nonces: shared });
    const s = await lit.placeOrder({ coin: 'SVC-USDC', side: 'sell', price: '2', size: '5', tif: 'Alo' });
    t.ok('resting' in s, JSON.stringify(s));
    t.equal((await lit.markets.get('SVC-USDC')).asset, 10000);
  });

  t.test('a market order fills against the book at a valid price', async (t) => {
    oidOf(await a.placeOrder({ coin: 'ETH', side: 'sell', price: '3000', size: '1' }));
    const [book] = [await a.info.l2Book('ETH')];
    t.same(book.levels[1], [{ px: '3000', sz: '1', n: 1 }]);
    const s = await b.placeOrder({ coin: 'ETH', side: 'buy', size: '0.5' });
    t.match(s, { filled: { totalSz: '0.5', avgPx: '3000' } });
  });

  t.test('parallel calls never share a nonce; a restart never reuses one', async (t) => {
    const results = await Promise.all(Array.from({ length: 40 }, () => a.exchange.noop()));
    t.equal(results.length, 40, 'every noop accepted (a repeated nonce is refused by the node)');
    const dir = await mkdtemp(join(tmpdir(), 'svc-nonce-'));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'nonce');
    const frozen = () => 1_000_000;
    const before = new NonceManager({ file, now: frozen, reserve: 5 });
    const handed = Array.from({ length: 12 }, () => before.next());
    const after = new NonceManager({ file, now: frozen, reserve: 5 }); // a restart with the clock not moved on
    t.ok(after.next() > Math.max(...handed), 'above every nonce handed out before the restart');
    t.same(new Set(handed).size, handed.length);
  });

  t.test('errors: a refused action, a 4xx not retried', async (t) => {
    const err = await a.exchange.usdTransfer(bob.address, '100000000000').catch((e: unknown) => e);
    t.match(err, { name: 'ActionError', message: /Insufficient balance/ });
    let sent = 0;
    const noRetry = new SvcClient({ url, retry: { sleep: async () => void sent++ } });
    const bad = await noRetry.info.l2Book('NOPE').catch((e: unknown) => e);
    t.ok(bad instanceof ApiError);
    t.match(bad, { status: 400, key: 'bad_request', message: 'Unknown coin: NOPE', details: { field: 'coin' } });
    t.equal(sent, 0, 'no retry after a 400');
  });

  t.test('agents, transfers, leverage, deploys', async (t) => {
    const agentKey = Wallet.createRandom().privateKey;
    await a.exchange.approveAgent(new PrivateKeySigner(agentKey).address, 'bot');
    const agent = new SvcClient({ url, privateKey: agentKey, vaultAddress: alice.address, nonces: shared });
    t.equal(agent.address, alice.address);
    const oid = oidOf(await agent.placeOrder({ coin: 'SOL', side: 'buy', price: '100', size: '1' }));
    t.equal(await agent.cancelOrder('SOL', oid), 'success');
    t.match(await a.info.extraAgents(a.address), [{ name: 'bot' }]);
    await a.exchange.revokeAgent('bot');
    const refused = await agent.placeOrder({ coin: 'SOL', side: 'buy', price: '100', size: '1' }).catch((e: unknown) => e);
    t.match(refused, { status: 403, message: /Agent not authorized/ });

    await a.exchange.usdTransfer(carol.address, '12.5');
    await a.setLeverage('BTC', 5);
    t.match(await a.info.clearinghouseState(a.address), {}, 'reads after leverage');
    const token = await a.exchange.deployToken({ tokenName: 'CLI', szDecimals: 2, weiDecimals: 18, initialSupply: '1000' });
    t.match(token, { tokenName: 'CLI', deployer: a.address });
    const pair = await a.exchange.deployPair({ baseToken: token.tokenIndex, quoteToken: 10000 });
    t.match(pair, { pairName: 'CLI-USDC' });
    t.equal((await a.markets.get('CLI-USDC')).asset, 10000 + pair.pairIndex, 'the directory reloads on a new market');
  });

  t.test('every info type, /v1, /v4 and /stats answer', async (t) => {
    const u = a.address;
    const now = Date.now();
    const i = a.info;
    const answers = await Promise.all([
      i.meta(), i.spotMeta(), i.metaAndAssetCtxs(), i.spotMetaAndAssetCtxs(), i.allMids(), i.l2Book('BTC'),
      i.candleSnapshot('ETH', '1m', now - 3_600_000), i.fundingHistory('BTC', 0), i.userFunding(u, 0), i.clearinghouseState(u),
      i.spotClearinghouseState(u), i.openOrders(u), i.frontendOpenOrders(u), i.userFills(u), i.userFillsByTime(u, 0, undefined, true),
      i.userFees(u), i.orderStatus(u, 1), i.userRateLimit(u), i.portfolio(u), i.subAccounts(u), i.extraAgents(u), i.referral(u),
      i.delegatorSummary(u), i.delegations(u), i.validatorSummaries(), i.withdrawals(u), i.bridge(),
    ]);
    t.equal(answers.length, 27);
    t.match((await i.metaAndAssetCtxs())[1][0], { markPx: String, oraclePx: String, funding: String, openInterest: String });
    t.match(await a.v1.height(), { height: /^\d+$/ });
    t.match(await a.v1.health(), { status: 'ok' });
    const { blocks, height } = await a.v1.blocks({ limit: 50 });
    t.equal(blocks[0]?.height, height, 'newest first');
    const withOrder = blocks.find((bl) => bl.txs.some((x) => x.type === 'order' && x.signer === bob.address));
    t.ok(withOrder, 'a block holds a taker order signed by bob');
    t.match(await a.v1.block(withOrder?.height ?? 1), { block: { height: withOrder?.height, hash: /^0x[0-9a-f]{64}$/, txs: Array } });
    t.match(await a.v1.block(height + 1000).catch((e: unknown) => e), { status: 404 });
    t.match((await a.v1.perpetualMarkets()).markets['BTC-USD'], { ticker: 'BTC-USD' });
    t.match(await a.v1.perpetualOrderbook('BTC-USD'), { bids: Array, asks: Array });
    t.match(await a.v1.subaccount(u), { subaccount: { address: u } });
    t.match((await a.v1.fills({ address: bob.address })).fills[0], { market: 'ETH-USD', side: 'BUY' });
    t.match(await a.v1.spotMarkets(), { markets: [{ pair: 'SVC-USDC' }] });
    t.match(await a.v1.spotOrderbook('SVC-USDC', 5), { pair: 'SVC-USDC' });
    const key = await a.exchange.createApiKey('test');
    const listed = await a.v1.listApiKeys({ apiKey: key.api_key, secret: key.secret }, u);
    t.match(listed.api_keys, [{ api_key: key.api_key, revoked: false }]);
    // The history indexes on its own thread: wait for the ETH trade.
    const trades = await waitFor('the indexed trade', async () => {
      const p = await a.history.trades('ETH-USD');
      return p.data.length > 0 ? p : undefined;
    });
    t.match(trades.data[0], { coin: 'ETH', px: '3000', sz: '0.5', side: 'B' });
    t.match(await a.history.candles('ETH', '1m'), { data: [{ o: '3000' }] });
    t.match(await a.stats.totalUsers(), { total_users: Number });
    t.ok(Array.isArray(await a.stats.assetCtxs()));
    t.match(await a.v1.trades('ETH-USD'), {});
    const revoked = await a.v1.revokeApiKey({ apiKey: key.api_key, secret: key.secret }, key.api_key);
    t.equal(revoked.revoked, true);
  });

  t.test('WebSocket: subscriptions, posts, reconnect and resubscribe', async (t) => {
    let live: WebSocket | null = null;
    const socket: SocketFactory = (u) => (live = new WebSocket(u)) as unknown as ReturnType<SocketFactory>;
    const states: string[] = [];
    const c = new SvcClient({ url, wsUrl, privateKey: carol.privateKey, nonces: shared, ws: { socket, minReconnectMs: 50, onState: (s) => states.push(s) } });
    t.teardown(() => c.close());
    const books: string[][] = [];
    await c.ws.subscribe({ type: 'l2Book', coin: 'SOL' }, (book) => books.push(book.levels[0].map((l) => l.px)));
    const fills: number[] = [];
    await c.ws.subscribe({ type: 'userFills', user: c.address }, (d) => fills.push(d.fills.length));
    await waitFor('the l2Book snapshot', () => (books.length > 0 ? true : undefined));

    const mids = await c.ws.postInfo({ type: 'allMids' });
    t.type(mids.BTC, 'string');
    const signed = await c.exchange.sign({ type: 'order', grouping: 'na', orders: [await c.orderWire({ coin: 'SOL', side: 'buy', price: '101', size: '1' })] });
    const res = await c.ws.postExchange<{ statuses: OrderStatus[] }>(signed);
    t.match(res, { status: 'ok', response: { data: { statuses: [{ resting: {} }] } } });
    await waitFor('the bid in a push', () => (books.some((b) => b.includes('101')) ? true : undefined));

    // Drop the connection under the client: it reconnects and subscribes again.
    (live as unknown as WebSocket).terminate();
    await waitFor('the reconnect', () => (states.filter((s) => s === 'open').length >= 2 ? true : undefined));
    await c.placeOrder({ coin: 'SOL', side: 'buy', price: '102', size: '1' });
    await waitFor('a push after the reconnect', () => (books.some((b) => b.includes('102')) ? true : undefined));
    t.same(states.slice(0, 3), ['open', 'closed', 'open']);
  });
});
