// rpc/limits.ts with an injected clock: token buckets (capacity = burst, refill = rate per
// minute, weights), the historical tiers the /v4 routes will call, /stats, the /info weights,
// configuration parsing and the 429 body.
import { createHmac } from 'node:crypto';
import t from 'tap';
import {
  HttpError, Limits, RateLimitError, RateLimiter, SPEC_RATE_LIMITS, DEVNET_RATE_LIMITS, exchangeWeight, infoExtraWeight, infoWeight, rateLimitsFrom,
  type ApiKeyRecord, type ApiKeyStore, type HistoricalRequest,
} from '../../rpc/index.ts';

const STAKER = '0x0000000000000000000000000000000000005a4e';
const PLAIN = '0x00000000000000000000000000000000000000aa';

/** An in-memory store with two keys: one of a staker, one of a plain address. */
function fakeStore(): ApiKeyStore {
  const records = new Map<string, ApiKeyRecord>([
    ['1'.repeat(32), { apiKey: '1'.repeat(32), address: STAKER, name: '', createdAt: 0, revokedAt: null }],
    ['2'.repeat(32), { apiKey: '2'.repeat(32), address: PLAIN, name: '', createdAt: 0, revokedAt: null }],
    ['3'.repeat(32), { apiKey: '3'.repeat(32), address: PLAIN, name: '', createdAt: 0, revokedAt: 1 }],
  ]);
  return {
    get: (k) => records.get(k),
    secretOf: (k) => (records.has(k) ? `secret-${k}` : null),
    list: (a) => [...records.values()].filter((r) => r.address === a),
    create: () => Promise.reject(new Error('unused')),
    revoke: () => Promise.reject(new Error('unused')),
    useNonce: () => Promise.resolve(true),
  };
}

function request(now: number, apiKey?: string, path = '/v4/trades?market=BTC-USD'): HistoricalRequest {
  if (apiKey === undefined) return { ip: '10.0.0.1', method: 'GET', pathWithQuery: path, hmac: { key: '', sign: '', timestamp: '' } };
  const timestamp = String(Math.floor(now / 1000));
  const sign = createHmac('sha256', `secret-${apiKey}`).update(`${timestamp}GET${path}`).digest('base64');
  return { ip: '10.0.0.1', method: 'GET', pathWithQuery: path, hmac: { key: apiKey, sign, timestamp } };
}

/** Takes requests until the first refusal; returns how many passed and the refusal. */
function drain(take: () => unknown): { passed: number; error: RateLimitError } {
  for (let passed = 0; passed < 100_000; passed++) {
    try {
      take();
    } catch (err) {
      if (err instanceof RateLimitError) return { passed, error: err };
      throw err;
    }
  }
  throw new Error('never refused');
}

t.test('token bucket: capacity = burst, refill = rate per minute, weights', async (t) => {
  let now = 0;
  const b = new RateLimiter(60, () => now, 10);
  for (let i = 0; i < 10; i++) t.equal(b.take('ip'), 0);
  t.equal(b.take('ip'), 1, 'burst spent: a token a second');
  now += 500;
  t.equal(b.take('ip'), 1, 'half a token: still a second (rounded up)');
  now += 500;
  t.equal(b.take('ip'), 0);
  now += 60_000;
  for (let i = 0; i < 10; i++) t.equal(b.take('ip'), 0, 'refilled to the burst, not beyond');
  t.ok(b.take('ip') > 0);
  now += 10_000;
  t.equal(b.take('ip', 4), 0, 'a weight takes that many tokens');
  t.equal(b.take('ip', 7), 1, '6 left, 7 asked: a second');
  t.equal(b.take('ip', 50), 4, 'a weight above the burst waits for a full bucket');
  b.charge('ip', 6);
  t.equal(b.take('ip'), 1, 'charged after the fact');
  const off = new RateLimiter(0, () => now, 0);
  for (let i = 0; i < 1000; i++) t.equal(off.take('ip'), 0, 'rate 0: no limit');
});

t.test('/stats: 100 a minute per IP', async (t) => {
  let now = 1_000_000;
  const limits = new Limits(SPEC_RATE_LIMITS, { now: () => now });
  const { passed, error } = drain(() => limits.stats('1.1.1.1'));
  t.equal(passed, 100);
  t.same(error.body(), { error: 'rate_limit_exceeded', message: error.message, retry_after: 1 });
  t.match(error.message, /at most 100 a minute per IP/);
  t.equal(error.key, 'rate_limit_exceeded');
  t.doesNotThrow(() => limits.stats('2.2.2.2'), 'per IP');
  now += 600;
  t.doesNotThrow(() => limits.stats('1.1.1.1'), '100 a minute: one every 0.6 s');
});

t.test('historical: free per IP, authenticated and staker per API key', async (t) => {
  let now = 1_800_000_000_000;
  const limits = new Limits(SPEC_RATE_LIMITS, { now: () => now, apiKeys: fakeStore(), isStaker: (a) => a === STAKER });
  t.equal(limits.historical(request(now)), 'free');
  const free = drain(() => limits.historical(request(now)));
  t.equal(free.passed + 1, 10, 'free: burst 10');
  t.equal(free.error.retryAfter, 1, '60 a minute: a token a second');
  t.match(free.error.message, /free tier/);
  now += 1000;
  t.equal(limits.historical(request(now)), 'free', 'refilled one');

  const plain = '2'.repeat(32);
  t.equal(limits.historical(request(now, plain)), 'authenticated');
  const auth = drain(() => limits.historical(request(now, plain)));
  t.equal(auth.passed + 1, 50, 'authenticated: burst 50');
  t.equal(auth.error.retryAfter, 1, '300 a minute: 0.2 s per token, rounded up to a second');
  now += 1000;
  t.equal(drain(() => limits.historical(request(now, plain))).passed, 5, 'five tokens a second');

  const staker = '1'.repeat(32);
  t.equal(limits.historical(request(now, staker)), 'staker');
  t.equal(drain(() => limits.historical(request(now, staker))).passed + 1, 100, 'staker: burst 100');
  t.equal(limits.historical(request(now)), 'free', 'the IP budget is apart from the keys\'');

  t.throws(() => limits.historical({ ...request(now, plain), hmac: { ...request(now, plain).hmac, sign: 'AAAA' } }), { message: 'Invalid signature' }, 'a bad signature is 401, not a downgrade');
  t.throws(() => limits.historical(request(now, '3'.repeat(32))), { message: 'API key revoked' });
  t.throws(() => limits.historical(request(now - 31_000, plain)), { message: /30-second validity window/ });
  t.throws(() => limits.historical({ ...request(now), hmac: { key: plain, sign: '', timestamp: '' } }), { message: /Missing header EX-API-SIGN/ });
  const noKeys = new Limits(SPEC_RATE_LIMITS, { now: () => now });
  t.throws(() => noKeys.historical(request(now, plain)), HttpError);
});

t.test('/info weights (Hyperliquid): 2, 20, 60, and list answers weigh more', async (t) => {
  t.equal(infoWeight('l2Book'), 2);
  t.equal(infoWeight('allMids'), 2);
  t.equal(infoWeight('clearinghouseState'), 2);
  t.equal(infoWeight('orderStatus'), 2);
  t.equal(infoWeight('spotClearinghouseState'), 2);
  t.equal(infoWeight('exchangeStatus'), 2);
  t.equal(infoWeight('userRole'), 60);
  t.equal(infoWeight('meta'), 20);
  t.equal(infoWeight('nonsense'), 20);
  t.equal(infoWeight(undefined), 20);
  t.equal(infoExtraWeight('userFills', new Array(2000)), 100, 'one per 20 fills');
  t.equal(infoExtraWeight('candleSnapshot', new Array(5000)), 83, 'one per 60 candles');
  t.equal(infoExtraWeight('meta', new Array(100)), 0);
  let now = 0;
  const limits = new Limits(SPEC_RATE_LIMITS, { now: () => now });
  t.equal(drain(() => limits.info('ip', { type: 'meta' })).passed, 60, '1,200 of weight: 60 meta requests');
  t.equal(drain(() => limits.info('ip2', { type: 'l2Book' })).passed, 600, 'or 600 books');
  limits.infoAnswered('ip3', 'userFills', new Array(2000).fill(0));
  t.equal(drain(() => limits.info('ip3', { type: 'meta' })).passed, 55, 'a long answer spends the budget');
  now += 60_000;
  t.equal(drain(() => limits.info('ip', { type: 'meta' })).passed, 60, 'refilled after a minute');
});

t.test('/exchange per IP and per signer, /v1 per IP', async (t) => {
  const limits = new Limits(SPEC_RATE_LIMITS, { now: () => 0 });
  t.equal(drain(() => limits.exchangeIp('ip')).passed, 2000, 'per IP: burst 2,000');
  let n = 0;
  while (limits.exchangeSigner('0xabc') === 0) n++;
  t.equal(n, 1000, 'per signer: burst 1,000');
  t.match(limits.exchangeSignerMessage(3), /at most 6000 a minute, burst 1000 per signer address; retry after 3 s/);
  t.equal(drain(() => limits.v1('ip')).passed, 200, '/v1: burst 200');
  t.equal(exchangeWeight({ type: 'order', orders: new Array(39) }), 1, 'Hyperliquid: 1 + floor(batch / 40)');
  t.equal(exchangeWeight({ type: 'order', orders: new Array(1000) }), 26);
  t.equal(exchangeWeight({ type: 'cancel', cancels: new Array(80) }), 3);
  t.equal(exchangeWeight({ type: 'batchModify', modifies: new Array(40) }), 2, 'modifies weigh as orders');
  t.equal(exchangeWeight({ type: 'usdTransfer' }), 1);
  t.equal(exchangeWeight(null), 1);
  t.equal(drain(() => limits.exchangeIp('ip-batch', { orders: new Array(400) })).passed, 181, 'a batch of 400 weighs 11: 2,000 / 11');
  t.ok(limits.exchangeSigner('0xdef', { orders: new Array(1000 * 40) }) === 0, 'a weight above the burst takes a full bucket');
  t.ok(limits.exchangeSigner('0xdef') > 0);
  const relaxed = new Limits(DEVNET_RATE_LIMITS, { now: () => 0 });
  for (let i = 0; i < 10_000; i++) relaxed.exchangeIp('ip');
  t.pass('the devnet preset has no request limits');
});

t.test('configuration: presets and scope overrides', async (t) => {
  t.same(rateLimitsFrom('spec'), SPEC_RATE_LIMITS);
  t.same(rateLimitsFrom('devnet'), DEVNET_RATE_LIMITS);
  const c = rateLimitsFrom('spec', { info: '2400/600', 'exchange-signer': 0, 'ws-connections-per-ip': '200', stats: '50' });
  t.same(c.info, { perMinute: 2400, burst: 600 });
  t.same(c.exchangeSigner, { perMinute: 0, burst: 0 });
  t.same(c.stats, { perMinute: 50, burst: 50 }, 'burst defaults to the rate');
  t.equal(c.wsConnectionsPerIp, 200);
  t.same(c.historicalFree, SPEC_RATE_LIMITS.historicalFree, 'the rest from the preset');
  t.throws(() => rateLimitsFrom('fast'), /unknown rate-limit preset "fast"/);
  t.throws(() => rateLimitsFrom('spec', { nope: '1' }), /unknown rate-limit scope "nope"/);
  t.throws(() => rateLimitsFrom('spec', { info: 'lots' }), /rate limit info must be/);
  t.throws(() => rateLimitsFrom('spec', { info: '10/0' }), /rate limit info must be/, 'a rate needs a burst');
  t.throws(() => rateLimitsFrom('spec', { 'ws-connections-per-ip': '0' }), /count from 1/);
});
