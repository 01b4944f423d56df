// The WebSocket API against a real node with the `ws` client: post requests, subscriptions fed
// by committed blocks, ping/pong, and errors that leave the connection usable.
import t from 'tap';
import WebSocket from 'ws';
import { limit, nextNonce, orderAction, startNode, wallets } from '../support/node.ts';
import { signRequest } from '../support/signing.ts';
import { connect } from '../support/ws.ts';

const [alice, bob] = wallets as [typeof wallets[0], typeof wallets[0]];
const A = alice.address.toLowerCase();
const B = bob.address.toLowerCase();

t.test('posts, subscriptions fed by blocks, ping, errors', async (t) => {
  const { node, client } = await startNode(t);
  const c = await connect(node.wsUrl as string);
  t.teardown(() => c.ws.close());

  c.send({ method: 'ping' });
  t.same(await c.next((m) => m.channel === 'pong'), { channel: 'pong' });

  c.send({ method: 'post', id: 7, request: { type: 'info', payload: { type: 'meta' } } });
  const meta = await c.next((m) => m.channel === 'post' && m.data.id === 7);
  t.equal(meta.data.response.universe[0].name, 'BTC');

  for (const subscription of [{ type: 'l2Book', coin: 'BTC' }, { type: 'trades', coin: 'BTC' }, { type: 'orderUpdates', user: A }, { type: 'userFills', user: B }, { type: 'allMids' }, { type: 'activeAssetCtx', coin: 'BTC' }]) {
    c.send({ method: 'subscribe', subscription });
    t.same(await c.next((m) => m.channel === 'subscriptionResponse' && m.data.subscription.type === subscription.type), { channel: 'subscriptionResponse', data: { method: 'subscribe', subscription } });
  }
  t.same((await c.next((m) => m.channel === 'l2Book')).data.levels, [[], []], 'book snapshot on subscribe');
  t.match(await c.next((m) => m.channel === 'userFills'), { data: { isSnapshot: true, user: B, fills: [] } });
  t.match(await c.next((m) => m.channel === 'allMids'), { data: { mids: { BTC: String } } });
  t.match(await c.next((m) => m.channel === 'activeAssetCtx'), { data: { coin: 'BTC', ctx: { markPx: '100000', oraclePx: '100000' } } });

  // An order placed over WS post rests; another over REST takes it.
  const req = await signRequest(alice, orderAction(limit(0, false, '100000', '0.5')), nextNonce());
  c.send({ method: 'post', id: 8, request: { type: 'exchange', payload: req } });
  const placed = await c.next((m) => m.channel === 'post' && m.data.id === 8);
  t.match(placed.data.response, { status: 'ok', response: { type: 'order', data: { statuses: [{ resting: { oid: Number } }] } } });
  t.match(await c.next((m) => m.channel === 'orderUpdates'), { data: [{ status: 'open', order: { coin: 'BTC', side: 'A', sz: '0.5' } }] });
  t.match(await c.next((m) => m.channel === 'l2Book'), { data: { coin: 'BTC', levels: [[], [{ px: '100000', sz: '0.5', n: 1 }]] } });

  await client.exchange(bob, orderAction(limit(0, true, '100000', '0.2', 'Ioc')));
  t.match(await c.next((m) => m.channel === 'trades'), { data: [{ coin: 'BTC', side: 'B', px: '100000', sz: '0.2', users: [B, A] }] });
  t.match(await c.next((m) => m.channel === 'userFills' && m.data.fills.length > 0), { data: { user: B, fills: [{ sz: '0.2', crossed: true }] } });

  // Auth failures over WS post are envelopes; bad input is an error message; the socket stays usable.
  c.send({ method: 'post', id: 9, request: { type: 'exchange', payload: { ...req, nonce: req.nonce } } });
  t.match(await c.next((m) => m.channel === 'post' && m.data.id === 9), { data: { response: { status: 'err', response: 'Nonce already used' } } });
  c.send({ method: 'post', id: 10, request: { type: 'exchange', payload: { action: { type: 'spotDeploy' }, nonce: 1, signature: {} } } });
  t.match(await c.next((m) => m.channel === 'post' && m.data.id === 10), { data: { response: { status: 'err', response: /not available over WebSocket/ } } });
  // Hyperliquid's trading actions beyond orders pass too (no events: nothing changes).
  c.send({ method: 'post', id: 11, request: { type: 'exchange', payload: await signRequest(alice, { type: 'noop' }, nextNonce()) } });
  t.match(await c.next((m) => m.channel === 'post' && m.data.id === 11), { data: { response: { status: 'ok', response: { type: 'default' } } } });
  const modify = { type: 'batchModify', modifies: [{ oid: 999_999, order: limit(0, false, '100000', '0.1') }] };
  c.send({ method: 'post', id: 12, request: { type: 'exchange', payload: await signRequest(alice, modify, nextNonce()) } });
  t.match(await c.next((m) => m.channel === 'post' && m.data.id === 12), { data: { response: { status: 'ok', response: { type: 'order', data: { statuses: [{ error: 'Order not found' }] } } } } });
  c.ws.send('{not json');
  t.match(await c.next((m) => m.channel === 'error'), { data: /Malformed message/ });
  c.send({ method: 'subscribe', subscription: { type: 'l2Book', coin: 'DOGE' } });
  t.match(await c.next((m) => m.channel === 'error'), { data: 'Unknown coin: DOGE' });
  c.send({ method: 'subscribe', subscription: { type: 'userFills', user: '0x12' } });
  t.match(await c.next((m) => m.channel === 'error'), { data: /Invalid user/ });
  c.send({ method: 'bogus' });
  t.match(await c.next((m) => m.channel === 'error'), { data: 'Unknown method: bogus' });
  c.send({ method: 'unsubscribe', subscription: { type: 'trades', coin: 'BTC' } });
  t.match(await c.next((m) => m.channel === 'subscriptionResponse' && m.data.method === 'unsubscribe'), { data: { subscription: { type: 'trades' } } });
  c.send({ method: 'ping' });
  t.same(await c.next((m) => m.channel === 'pong'), { channel: 'pong' }, 'still usable');
});

t.test('a slow consumer is cut off; a fast one keeps receiving', async (t) => {
  const { node, client } = await startNode(t, { wsMaxBackpressure: 64 << 10 });
  const slow = await connect(node.wsUrl as string);
  const fast = await connect(node.wsUrl as string);
  t.teardown(() => {
    slow.ws.terminate();
    fast.ws.close();
  });
  fast.send({ method: 'subscribe', subscription: { type: 'l2Book', coin: 'ETH' } });
  await fast.next((m) => m.channel === 'l2Book');
  const closed = new Promise<number>((resolve) => slow.ws.once('close', (code) => resolve(code)));
  // The slow client stops reading and keeps asking: the answers pile up on the server.
  (slow.ws as unknown as { _socket: { pause(): void } })._socket.pause();
  const ask = JSON.stringify({ method: 'post', id: 1, request: { type: 'info', payload: { type: 'metaAndAssetCtxs' } } });
  for (let i = 0; i < 20_000 && slow.ws.readyState === WebSocket.OPEN; i++) slow.ws.send(ask);
  (slow.ws as unknown as { _socket: { resume(): void } })._socket.resume();
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([closed, new Promise<number>((_, reject) => (timer = setTimeout(() => reject(new Error('the slow consumer was not closed')), 20_000)))]);
  clearTimeout(timer);
  t.ok(code > 0, `closed by the server (code ${code})`);
  await client.exchange(alice, orderAction(limit(1, true, '3400', '1')));
  t.match(await fast.next((m) => m.channel === 'l2Book' && m.data.levels[0].length > 0), { data: { coin: 'ETH', levels: [[{ px: '3400' }], []] } }, 'the fast one still gets its book');
});

t.test('a stream of posts with rising nonces over one connection is admitted in order, none refused', async (t) => {
  // Two workers recover signatures in parallel and finish out of order; admission still hands the
  // mempool the requests in arrival order, so no nonce falls 100 places behind the signer's newest.
  const { node } = await startNode(t, { signerWorkers: 2 });
  const c = await connect(node.wsUrl as string);
  t.teardown(() => c.ws.close());
  const n = 600;
  const reqs = [];
  for (let i = 0; i < n; i++) reqs.push(await signRequest(alice, orderAction(limit(0, true, String(90000 - (i % 50) * 10), '0.001')), nextNonce()));
  reqs.forEach((payload, i) => c.send({ method: 'post', id: 1000 + i, request: { type: 'exchange', payload } }));
  const answers = [];
  for (let i = 0; i < n; i++) answers.push(await c.next((m) => m.channel === 'post' && m.data.id === 1000 + i, 30_000));
  const refused = answers.filter((a) => a.data.response.status !== 'ok');
  t.equal(refused.length, 0, `all ${n} admitted${refused.length > 0 ? `; first refusal: ${JSON.stringify(refused[0])}` : ''}`);
});
