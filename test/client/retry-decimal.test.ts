// The client's retry table against a real HTTP server answering the spec's error statuses, and its
// decimal arithmetic (exact, no floating point).
import t from 'tap';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpTransport, roundPrice, toUnits, fromUnits, mulDecimal, addDecimal, toWire, ApiError } from '../../client/index.ts';

/** A server that answers the scripted statuses in order, then 200. */
async function scripted(t: { teardown(fn: () => unknown): void }, script: { status: number; body?: unknown; headers?: Record<string, string> }[]) {
  let hits = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    const step = script[hits++] ?? { status: 200, body: { ok: true } };
    res.writeHead(step.status, { 'Content-Type': 'application/json', ...step.headers });
    res.end(JSON.stringify(step.body ?? { error: 'x', message: `status ${step.status}` }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits: () => hits };
}

function transport(url: string, waits: number[]) {
  return new HttpTransport({ url, retry: { sleep: async (ms) => void waits.push(ms), random: () => 0.5 } });
}

t.test('500: backoff 1, 2, 4, 8 s, then the error', async (t) => {
  const s = await scripted(t, Array.from({ length: 6 }, () => ({ status: 500, body: { error: 'internal_error', message: 'Internal server error' } })));
  const waits: number[] = [];
  const err = await transport(s.url, waits).post('/info', { type: 'meta' }).catch((e: unknown) => e);
  t.same(waits, [1000, 2000, 4000, 8000]);
  t.match(err, { status: 500, key: 'internal_error', message: 'Internal server error' });
  t.equal(s.hits(), 5);
});

t.test('500 twice then 200: the answer', async (t) => {
  const s = await scripted(t, [{ status: 500 }, { status: 500 }]);
  const waits: number[] = [];
  t.same(await transport(s.url, waits).get('/v1/height'), { ok: true });
  t.same(waits, [1000, 2000]);
});

t.test('429: waits retry_after (body, else Retry-After header)', async (t) => {
  const s = await scripted(t, [
    { status: 429, body: { error: 'rate_limit_exceeded', message: 'Too many', retry_after: 3 }, headers: { 'Retry-After': '3' } },
    { status: 429, body: { error: 'rate_limit_exceeded', message: 'Too many' }, headers: { 'Retry-After': '7' } },
  ]);
  const waits: number[] = [];
  t.same(await transport(s.url, waits).post('/exchange', {}), { ok: true });
  t.same(waits, [3000, 7000]);
});

t.test('503: 5 to 10 s', async (t) => {
  const s = await scripted(t, [{ status: 503 }]);
  const waits: number[] = [];
  await transport(s.url, waits).get('/v1/health');
  t.equal(waits.length, 1);
  t.ok((waits[0] as number) >= 5000 && (waits[0] as number) <= 10000);
});

t.test('no other 4xx is retried', async (t) => {
  for (const status of [400, 401, 403, 404]) {
    const s = await scripted(t, [{ status }]);
    const waits: number[] = [];
    const err = await transport(s.url, waits).post('/exchange', {}).catch((e: unknown) => e);
    t.ok(err instanceof ApiError && err.status === status, String(status));
    t.same(waits, []);
    t.equal(s.hits(), 1);
  }
});

t.test('decimals are exact', async (t) => {
  t.equal(toUnits('0.1', 8), 10_000_000n);
  t.equal(toUnits('1.23456789', 4, 'floor'), 12345n);
  t.equal(toUnits('-1.23456789', 4, 'floor'), -12346n);
  t.equal(fromUnits(123456789012345678901234567890n, 18), '123456789012.34567890123456789');
  t.equal(addDecimal('0.1', '0.2'), '0.3');
  t.equal(mulDecimal('3000', '1.05'), '3150');
  t.equal(toWire('1.500'), '1.5');
  t.equal(roundPrice('67432.12', 1), '67432');
  t.equal(roundPrice('3521.26', 2, 'floor'), '3521.2');
  t.equal(roundPrice('123456.7', 1), '123457', 'integers keep every digit');
  t.equal(roundPrice('0.000123456', 6, 'ceil'), '0.000124');
  t.throws(() => toWire(0.1), /decimal strings/);
  t.throws(() => toUnits('1e5', 2), /not a decimal/);
});
