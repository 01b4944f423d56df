// The HMAC-SHA256 verifier of API keys: message building, base64, the 30-second window's edges.
import { createHmac } from 'node:crypto';
import t from 'tap';
import { HMAC_WINDOW_SECONDS, HttpError, checkHmacTimestamp, hmacMatches, hmacMessage, hmacSign } from '../../rpc/index.ts';

const SECRET = 'a'.repeat(64);

t.test('message = timestamp + METHOD + path with query + raw body', async (t) => {
  t.equal(hmacMessage('1700000000', 'get', '/v1/api-keys/0xabc?x=1&y=2').toString(), '1700000000GET/v1/api-keys/0xabc?x=1&y=2', 'method upper-cased, query kept');
  t.equal(hmacMessage('1700000000', 'POST', '/v1/api-keys/k/revoke', '{"a": 1}').toString(), '1700000000POST/v1/api-keys/k/revoke{"a": 1}', 'body as sent, not re-serialized');
  const raw = Buffer.from([0x7b, 0xff, 0x7d]); // not valid UTF-8: the bytes are signed as they are
  t.same([...hmacMessage('1', 'POST', '/p', raw)], [...Buffer.from('1POST/p'), 0x7b, 0xff, 0x7d]);
  t.equal(hmacMessage('1', 'GET', '/p').toString(), '1GET/p', 'no body: nothing appended');
});

t.test('signature: base64 of HMAC-SHA256 keyed by the secret string', async (t) => {
  const msg = hmacMessage('1700000000', 'GET', '/v1/api-keys/0xabc');
  const independent = createHmac('sha256', Buffer.from(SECRET, 'utf8')).update('1700000000GET/v1/api-keys/0xabc').digest('base64');
  t.equal(hmacSign(SECRET, msg), independent);
  t.ok(hmacMatches(SECRET, msg, independent));
  t.ok(hmacMatches(SECRET, msg, independent.replace(/=+$/, '')), 'padding may be left out');
  t.notOk(hmacMatches('b'.repeat(64), msg, independent), 'another secret');
  t.notOk(hmacMatches(SECRET, hmacMessage('1700000001', 'GET', '/v1/api-keys/0xabc'), independent), 'another timestamp');
  t.notOk(hmacMatches(SECRET, msg, Buffer.from(createHmac('sha256', SECRET).update(msg).digest()).toString('hex')), 'hex is not base64 of the digest');
  t.notOk(hmacMatches(SECRET, msg, independent.slice(0, 20)), 'truncated');
  t.notOk(hmacMatches(SECRET, msg, ''), 'empty');
  t.notOk(hmacMatches(SECRET, msg, `${independent}!`), 'not base64');
});

t.test('the 30-second window, both ways, inclusive', async (t) => {
  const now = 1_700_000_000_000;
  const at = (s: number) => () => checkHmacTimestamp(String(s), now);
  t.equal(HMAC_WINDOW_SECONDS, 30);
  t.doesNotThrow(at(1_700_000_000));
  t.doesNotThrow(at(1_700_000_000 - 30), '30 s old');
  t.doesNotThrow(at(1_700_000_000 + 30), '30 s ahead');
  for (const s of [1_700_000_000 - 31, 1_700_000_000 + 31]) {
    try {
      at(s)();
      t.fail('outside the window');
    } catch (err) {
      t.ok(err instanceof HttpError);
      t.match((err as HttpError).body(), { error: 'unauthorized', message: /30-second validity window/, details: { server_time: 1_700_000_000, provided: s } });
    }
  }
  t.throws(() => checkHmacTimestamp('1700000030.5', now), 'fractions count: 30.5 s ahead');
  t.doesNotThrow(() => checkHmacTimestamp('1699999970.5', now), 'fractional seconds are accepted');
  t.throws(() => checkHmacTimestamp(String(now), now), 'milliseconds are far outside the window');
  for (const bad of ['', 'abc', '-5', '1e9', ' 1700000000']) {
    try {
      checkHmacTimestamp(bad, now);
      t.fail(`malformed: "${bad}"`);
    } catch (err) {
      t.match((err as HttpError).body(), { error: 'unauthorized', message: /Unix time in seconds/, details: { provided: bad } }, `malformed: "${bad}"`);
    }
  }
});
