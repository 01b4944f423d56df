// Rate limits against a real node: the spec's 429 with retry_after and the Retry-After header, on
// every scope that exists today (/info with its weights, /exchange per IP and per signer, /v1,
// WebSocket connections and subscriptions).
import t, { type Test } from 'tap';
import WebSocket from 'ws';
import { nextNonce, startNode, wallets, type HttpAnswer } from '../support/node.ts';
import { signRequest } from '../support/signing.ts';
import { DEVNET_RATE_LIMITS, RateLimiter, type RateLimitConfig } from '../../rpc/index.ts';

const limits = (over: Partial<RateLimitConfig>): RateLimitConfig => ({ ...DEVNET_RATE_LIMITS, ...over });

function is429(t: Test, a: HttpAnswer, message: RegExp): void {
  t.equal(a.status, 429);
  t.match(a.body, { error: 'rate_limit_exceeded', message, retry_after: Number });
  t.ok(a.body.retry_after >= 1, 'retry_after is at least a second');
  t.equal(a.headers.get('retry-after'), String(a.body.retry_after), 'Retry-After header = retry_after');
}

t.test('/info beyond the per-IP budget answers 429', async (t) => {
  const { client } = await startNode(t, { rateLimits: limits({ info: { perMinute: 100, burst: 100 } }) });
  for (let i = 0; i < 5; i++) t.equal((await client.info({ type: 'meta' })).status, 200, 'meta weighs 20');
  is429(t, await client.info({ type: 'meta' }), /at most 100 of weight a minute per IP \(this type weighs 20\)/);
  t.equal((await client.raw('/v1/height')).status, 200, 'other endpoints are not counted');
});

t.test('/info weights: l2Book and allMids weigh 2', async (t) => {
  const { client } = await startNode(t, { rateLimits: limits({ info: { perMinute: 20, burst: 20 } }) });
  for (let i = 0; i < 10; i++) t.equal((await client.info({ type: i % 2 === 0 ? 'allMids' : 'l2Book', coin: 'BTC' })).status, 200);
  is429(t, await client.info({ type: 'allMids' }), /weighs 2/);
});

t.test('/exchange per IP and per signer', async (t) => {
  const { client } = await startNode(t, {
    rateLimits: limits({ exchangeIp: { perMinute: 60, burst: 4 }, exchangeSigner: { perMinute: 60, burst: 2 } }),
  });
  const [alice, bob] = wallets as [(typeof wallets)[0], (typeof wallets)[0]];
  const leverage = { type: 'updateLeverage', asset: 0, isCross: true, leverage: 5 };
  t.equal((await client.exchange(alice, leverage)).status, 200);
  t.equal((await client.exchange(alice, leverage)).status, 200);
  is429(t, await client.exchange(alice, leverage), /per signer address/);
  t.equal((await client.exchange(bob, leverage)).status, 200, 'another signer has its own budget');
  // Four requests have reached the IP's bucket of 4.
  is429(t, await client.post('/exchange', await signRequest(bob, leverage, nextNonce())), /\/exchange requests: at most 60 a minute, burst 4 per IP/);
});

t.test('/v1 per IP', async (t) => {
  const { client } = await startNode(t, { rateLimits: limits({ v1: { perMinute: 60, burst: 3 } }) });
  for (let i = 0; i < 3; i++) t.equal((await client.raw('/v1/height')).status, 200);
  is429(t, await client.raw('/v1/spot/markets'), /\/v1 requests: at most 60 a minute, burst 3 per IP/);
  t.equal((await client.info({ type: 'meta' })).status, 200, '/info has its own budget');
});

t.test('WebSocket: connections per IP, subscriptions per connection and per IP, posts on the IP budgets', async (t) => {
  const { node } = await startNode(t, {
    rateLimits: limits({ wsConnectionsPerIp: 2, wsSubscriptionsPerConnection: 2, wsSubscriptionsPerIp: 3, info: { perMinute: 40, burst: 40 } }),
  });
  const url = node.wsUrl as string;
  const open = (): Promise<WebSocket> => new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
  const a = await open();
  const b = await open();
  t.teardown(() => { a.close(); b.close(); });
  const refused = await new Promise<{ status: number; retryAfter: string | undefined; body: string }>((resolve) => {
    const ws = new WebSocket(url);
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], body }));
    });
    ws.once('error', () => {});
  });
  t.equal(refused.status, 429, 'the third connection of the IP');
  t.equal(refused.retryAfter, '10');
  t.match(JSON.parse(refused.body), { error: 'rate_limit_exceeded', message: /at most 2 per IP/, retry_after: 10 });

  const next = (ws: WebSocket): Promise<{ channel: string; data: unknown }> =>
    new Promise((resolve) => ws.once('message', (m: Buffer) => resolve(JSON.parse(m.toString()) as { channel: string; data: unknown })));
  const subscribe = async (ws: WebSocket, subscription: unknown) => {
    const reply = next(ws);
    ws.send(JSON.stringify({ method: 'subscribe', subscription }));
    return reply;
  };
  t.equal((await subscribe(a, { type: 'trades', coin: 'BTC' })).channel, 'subscriptionResponse');
  t.equal((await subscribe(a, { type: 'trades', coin: 'ETH' })).channel, 'subscriptionResponse');
  t.match(await subscribe(a, { type: 'trades', coin: 'SOL' }), { channel: 'error', data: /At most 2 subscriptions per connection/ });
  t.equal((await subscribe(b, { type: 'trades', coin: 'SOL' })).channel, 'subscriptionResponse');
  t.match(await subscribe(b, { type: 'trades', coin: 'BTC' }), { channel: 'error', data: /At most 3 subscriptions per IP/ });

  // info posts take from the IP's /info budget (meta weighs 20): the third is refused.
  const post = async (id: number) => {
    const reply = next(b);
    b.send(JSON.stringify({ method: 'post', id, request: { type: 'info', payload: { type: 'meta' } } }));
    return reply;
  };
  t.equal((await post(1)).channel, 'post');
  t.equal((await post(2)).channel, 'post');
  t.match(await post(3), { channel: 'error', data: /post 3: Too many \/info requests/ });
});

t.test('the bucket refills with time (capacity = burst, refill = rate per minute)', async (t) => {
  let now = 0;
  const limiter = new RateLimiter(60, () => now);
  for (let i = 0; i < 60; i++) t.equal(limiter.take('a'), 0);
  t.equal(limiter.take('a'), 1, 'one token a second: wait a second');
  t.equal(limiter.take('b'), 0, 'per key');
  now += 1000;
  t.equal(limiter.take('a'), 0);
  now += 120_000; // idle buckets are swept; a swept key starts full again
  for (let i = 0; i < 60; i++) t.equal(limiter.take('a'), 0);
  t.equal(limiter.take('a'), 1);
});
