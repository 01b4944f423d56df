// Per-IP budget of /info: the spec's 429 with retry_after and the Retry-After header.
import t from 'tap';
import { startNode } from '../support/node.ts';
import { RateLimiter } from '../../rpc/index.ts';

t.test('/info beyond the per-IP budget answers 429', async (t) => {
  const { client } = await startNode(t, { infoPerMinute: 5 });
  for (let i = 0; i < 5; i++) t.equal((await client.info({ type: 'meta' })).status, 200);
  const limited = await client.info({ type: 'meta' });
  t.equal(limited.status, 429);
  t.match(limited.body, { error: 'rate_limit_exceeded', message: /at most 5 a minute per IP/, retry_after: Number });
  t.ok(limited.body.retry_after >= 1);
  t.equal(limited.headers.get('retry-after'), String(limited.body.retry_after));
  t.equal((await client.raw('/v1/height')).status, 200, 'other endpoints are not counted');
});

t.test('the bucket refills with time', async (t) => {
  let now = 0;
  const limiter = new RateLimiter(60, () => now);
  for (let i = 0; i < 60; i++) t.equal(limiter.take('a'), 0);
  t.equal(limiter.take('a'), 1, 'one token a second: wait a second');
  t.equal(limiter.take('b'), 0, 'per IP');
  now += 1000;
  t.equal(limiter.take('a'), 0);
  now += 120_000; // idle buckets are swept; a swept IP starts full again
  for (let i = 0; i < 60; i++) t.equal(limiter.take('a'), 0);
  t.equal(limiter.take('a'), 1);
});
