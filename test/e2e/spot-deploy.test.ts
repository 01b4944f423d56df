// spotDeploy against a real node: a token and a pair deployed over REST show in spotMeta,
// spotMetaAndAssetCtxs, /v1/spot/markets and the WebSocket streams, trade at once, and survive a
// clean restart (snapshot) and a SIGKILL (replay); a WebSocket post of spotDeploy is refused.
import { rm } from 'node:fs/promises';
import t from 'tap';
import { Client, limit, nextNonce, orderAction, startNode, tempDir, wallets } from '../support/node.ts';
import { spawnDevnet } from '../support/process.ts';
import { signRequest } from '../support/signing.ts';
import { connect } from '../support/ws.ts';

const [alice, bob] = wallets as [typeof wallets[0], typeof wallets[0]];
const A = alice.address.toLowerCase();
const B = bob.address.toLowerCase();
const TOKEN = { type: 'spotDeploy', deployType: 'token', tokenName: 'MEME', szDecimals: 1, weiDecimals: 18, initialSupply: '1000000' };
const PAIR = { type: 'spotDeploy', deployType: 'pair', baseToken: 10002, quoteToken: 10000, initialPrice: '0.05' };

async function listing(client: Client) {
  return {
    spotMeta: (await client.info({ type: 'spotMeta' })).body,
    ctxs: (await client.info({ type: 'spotMetaAndAssetCtxs' })).body,
    markets: (await client.raw('/v1/spot/markets')).body,
    book: (await client.raw('/v1/spot/orderbook/MEME-USDC')).body.asks,
    balances: (await client.info({ type: 'spotClearinghouseState', user: A })).body,
  };
}

t.test('deploy a token and a pair over REST, trade it, stream it, restart with it', async (t) => {
  const dataDir = await tempDir();
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const { node, client } = await startNode(t, { dataDir });
  const c = await connect(node.wsUrl as string);
  t.teardown(() => c.ws.close());

  // A WebSocket post of spotDeploy is refused before it is signed-checked or executed.
  const signed = await signRequest(alice, TOKEN, nextNonce());
  c.send({ method: 'post', id: 1, request: { type: 'exchange', payload: signed } });
  t.same((await c.next((m) => m.channel === 'post' && m.data.id === 1)).data.response, {
    status: 'err', response: 'spotDeploy is not available over WebSocket; use POST /exchange',
  });
  t.equal((await client.info({ type: 'spotMeta' })).body.tokens.length, 2, 'nothing was deployed');

  const usdcBefore = (await client.info({ type: 'clearinghouseState', user: A })).body.withdrawable;
  const token = await client.exchange(alice, TOKEN);
  t.same(token.body, { status: 'ok', response: { type: 'spotDeploy', data: { tokenIndex: 10002, tokenName: 'MEME', deployer: A } } });
  const usdcAfter = (await client.info({ type: 'clearinghouseState', user: A })).body.withdrawable;
  t.equal(Number(usdcBefore) - Number(usdcAfter), 10, 'the fee is 10 USDC');
  t.same((await client.exchange(alice, TOKEN)).body, { status: 'err', response: 'Token name already taken: MEME is token 10002' });
  const bad = await client.exchange(alice, { ...TOKEN, tokenName: 'meme' });
  t.equal(bad.status, 400);
  t.match(bad.body, { error: 'bad_request', message: /action.tokenName: expected 1 to 10 uppercase/, details: { field: 'action.tokenName' } });

  c.send({ method: 'subscribe', subscription: { type: 'allMids' } });
  await c.next((m) => m.channel === 'allMids');
  const pair = await client.exchange(bob, PAIR);
  t.same(pair.body, { status: 'ok', response: { type: 'spotDeploy', data: { pairIndex: 1, pairName: 'MEME-USDC', baseToken: 10002, quoteToken: 10000 } } });
  t.same((await client.exchange(bob, PAIR)).body, { status: 'err', response: 'Pair already exists: MEME-USDC is pair 1 (asset 10001)' });

  const spotMeta = (await client.info({ type: 'spotMeta' })).body;
  t.match(spotMeta.tokens[2], { name: 'MEME', szDecimals: 1, weiDecimals: 18, index: 10002 });
  t.same(spotMeta.universe[1], { name: 'MEME-USDC', tokens: [10002, 10000], index: 1, isCanonical: true });
  const [meta, ctxs] = (await client.info({ type: 'spotMetaAndAssetCtxs' })).body;
  t.same(meta, spotMeta);
  t.match(ctxs[1], { coin: 'MEME-USDC', markPx: '0.05', totalSupply: '1000000' });
  t.match((await client.raw('/v1/spot/markets')).body.markets[1], {
    pair: 'MEME-USDC', base_asset: 'MEME', quote_asset: 'USDC', price_decimals: 7, size_decimals: 1, min_order_size: '0.1', tick_size: '0.0000001', status: 'active',
  });

  // The new pair streams and trades at once: asset 10001.
  c.send({ method: 'subscribe', subscription: { type: 'l2Book', coin: 'MEME-USDC' } });
  c.send({ method: 'subscribe', subscription: { type: 'trades', coin: 'MEME-USDC' } });
  c.send({ method: 'subscribe', subscription: { type: 'userFills', user: B } });
  c.send({ method: 'subscribe', subscription: { type: 'activeAssetCtx', coin: 'MEME-USDC' } });
  t.match(await c.next((m) => m.channel === 'activeSpotAssetCtx'), { data: { coin: 'MEME-USDC', ctx: { coin: 'MEME-USDC', markPx: '0.05', totalSupply: '1000000' } } });
  t.same((await c.next((m) => m.channel === 'l2Book')).data.levels, [[], []]);
  await c.next((m) => m.channel === 'userFills' && m.data.isSnapshot === true);
  const ask = await client.exchange(alice, orderAction(limit(10001, false, '0.05', '20000'), limit(10001, false, '0.051', '5000')));
  t.match(ask.body.response.data.statuses, [{ resting: { oid: Number } }, { resting: { oid: Number } }]);
  t.match(await c.next((m) => m.channel === 'l2Book' && m.data.levels[1].length === 2), { data: { coin: 'MEME-USDC', levels: [[], [{ px: '0.05', sz: '20000', n: 1 }, { px: '0.051', sz: '5000', n: 1 }]] } });
  const buy = await client.exchange(bob, orderAction(limit(10001, true, '0.05', '1500', 'Ioc')));
  t.same(buy.body.response.data.statuses, [{ filled: { totalSz: '1500', avgPx: '0.05', oid: 3 } }]);
  t.match(await c.next((m) => m.channel === 'trades'), { data: [{ coin: 'MEME-USDC', side: 'B', px: '0.05', sz: '1500', users: [B, A] }] });
  t.match(await c.next((m) => m.channel === 'activeSpotAssetCtx'), { data: { coin: 'MEME-USDC', ctx: { markPx: '0.05' } } }, 'the context is pushed after blocks that touch the pair');
  t.match(await c.next((m) => m.channel === 'userFills' && m.data.fills.length > 0), { data: { user: B, fills: [{ coin: 'MEME-USDC', px: '0.05', sz: '1500', crossed: true }] } });
  t.match(await c.next((m) => m.channel === 'allMids' && m.data.mids['MEME-USDC'] !== undefined), { data: { mids: { 'MEME-USDC': '0.05' } } });
  t.match((await client.info({ type: 'spotClearinghouseState', user: B })).body.balances, [{ coin: 'USDC' }, { coin: 'SVC' }, { coin: 'MEME', token: 10002, total: '1500' }]);

  // Clean restart: the snapshot carries the deployed token, the pair and its book.
  const before = await listing(client);
  c.ws.close();
  await node.stop();
  const restarted = (await startNode(t, { dataDir })).client;
  t.same(await listing(restarted), before, 'same tokens, pairs, book and balances after a restart');
  const more = await restarted.exchange(bob, orderAction(limit(10001, true, '0.051', '100', 'Ioc')));
  t.same(more.body.response.data.statuses, [{ filled: { totalSz: '100', avgPx: '0.05', oid: 4 } }], 'and the pair still trades');
});

t.test('a deploy is replayed from the blocks after SIGKILL', async (t) => {
  const dataDir = await tempDir();
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const node = await spawnDevnet(['--data-dir', dataDir]);
  t.teardown(() => node.stop('SIGKILL'));
  const client = new Client(node.url);
  t.match((await client.exchange(alice, TOKEN)).body, { status: 'ok' });
  t.match((await client.exchange(alice, PAIR)).body, { status: 'ok' });
  t.match((await client.exchange(alice, orderAction(limit(10001, false, '0.06', '10')))).body.response.data.statuses, [{ resting: {} }]);
  // A linked token whose release fails (no code at the address) is refunded; replay must agree.
  t.match((await client.exchange(alice, { type: 'spotDeploy', deployType: 'token', tokenName: 'GHOST', szDecimals: 0, weiDecimals: 18, initialSupply: '7', evmContract: '0x000000000000000000000000000000000000dead' })).body, { status: 'ok' });
  t.match((await client.exchange(alice, { type: 'spotSend', destination: '0x2000000000000000000000000000000000002713', token: 'GHOST', amount: '3' })).body, { status: 'ok' });
  t.match((await client.exchange(alice, { type: 'spotSend', destination: B, token: 'GHOST', amount: '2' })).body, { status: 'ok' });
  const before = await listing(client);
  t.match(before.balances.balances, [{ coin: 'USDC' }, { coin: 'SVC' }, { coin: 'MEME' }, { coin: 'GHOST', total: '5' }]);
  await node.stop('SIGKILL');
  const again = await spawnDevnet(['--data-dir', dataDir]);
  t.teardown(() => again.stop('SIGKILL'));
  t.same(await listing(new Client(again.url)), before, 'replay lists the same token and pair with the same book');
});
