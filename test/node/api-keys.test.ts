// The node's API key store: keys and create nonces survive a restart, revoked keys are refused,
// and no secret is written anywhere in the data directory.
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { API_KEY_MASTER_FILE, ChainStoreForTests, NodeApiKeyStore } from '../../node/index.ts';
import { HttpError, authenticateApiKey, hmacMessage, hmacSign } from '../../rpc/index.ts';
import { tempDir } from '../support/node.ts';

const ALICE = '0x00000000000000000000000000000000000a11ce';
const BOB = '0x0000000000000000000000000000000000000b0b';
const WINDOW = 60_000;

async function open(dir: string, now: number) {
  const db = new ChainStoreForTests(join(dir, 'db'));
  await db.open();
  const store = await NodeApiKeyStore.open(db.localStore('apikeys'), dir, WINDOW, now);
  return { db, store };
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await filesUnder(p)));
    else out.push(p);
  }
  return out;
}

/** A list request signed with the key. */
function signed(apiKey: string, secret: string, nowMs: number, path = `/v1/api-keys/${ALICE}`) {
  const timestamp = String(Math.floor(nowMs / 1000));
  const sign = hmacSign(secret, hmacMessage(timestamp, 'GET', path));
  return { method: 'GET', pathWithQuery: path, body: new Uint8Array(0), hmac: { key: apiKey, sign, timestamp } };
}

t.test('keys survive a restart; revoked keys are refused; secrets are nowhere on disk', async (t) => {
  const dir = await tempDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const now = 1_800_000_000_000;
  let { db, store } = await open(dir, now);
  await t.rejects(stat(join(dir, API_KEY_MASTER_FILE)), 'no master key before the first key');
  const a = await store.create(ALICE, 'one', now);
  const b = await store.create(ALICE, 'two', now + 1);
  const c = await store.create(BOB, '', now + 2);
  t.equal((await stat(join(dir, API_KEY_MASTER_FILE))).mode & 0o777, 0o600, 'the master key file is 0600');
  t.equal(store.secretOf(a.record.apiKey), a.secret, 'the secret is derived again, not looked up');
  t.not(a.secret, b.secret);
  t.same(authenticateApiKey(store, signed(a.record.apiKey, a.secret, now), now), a.record);
  await store.revoke(b.record.apiKey, now + 5);
  await db.close();

  ({ db, store } = await open(dir, now + 10));
  t.teardown(() => db.close());
  t.same(store.list(ALICE).map((k) => [k.name, k.revokedAt]), [['one', null], ['two', now + 5]], 'metadata and revocation kept, oldest first');
  t.same(store.list(BOB).map((k) => k.apiKey), [c.record.apiKey]);
  t.equal(store.secretOf(a.record.apiKey), a.secret, 'the same secret after the restart');
  t.same(authenticateApiKey(store, signed(a.record.apiKey, a.secret, now + 10), now + 10).apiKey, a.record.apiKey);
  t.throws(() => authenticateApiKey(store, signed(b.record.apiKey, b.secret, now + 10), now + 10), { message: 'API key revoked', key: 'unauthorized' });
  t.throws(() => authenticateApiKey(store, signed(c.record.apiKey, a.secret, now + 10), now + 10), { message: 'Invalid signature' }, 'another key\'s secret');
  try {
    authenticateApiKey(store, signed(a.record.apiKey, a.secret, now - 31_000), now + 10);
    t.fail('stale');
  } catch (err) {
    t.ok(err instanceof HttpError && err.key === 'unauthorized' && err.details?.provided === Math.floor((now - 31_000) / 1000));
  }

  // No file of the data directory holds a secret, as text or as bytes.
  for (const file of await filesUnder(dir)) {
    const bytes = await readFile(file);
    for (const k of [a, b, c]) {
      t.notOk(bytes.includes(Buffer.from(k.secret, 'utf8')), `${file} has no secret text`);
      t.notOk(bytes.includes(Buffer.from(k.secret, 'hex')), `${file} has no secret bytes`);
    }
  }
});

t.test('create nonces: once per signer, kept across a restart, forgotten after the window', async (t) => {
  const dir = await tempDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const now = 1_800_000_000_000;
  let { db, store } = await open(dir, now);
  t.ok(await store.useNonce(ALICE, now, now));
  t.notOk(await store.useNonce(ALICE, now, now), 'used');
  t.ok(await store.useNonce(BOB, now, now), 'per signer');
  const [first, second] = await Promise.all([store.useNonce(ALICE, now + 1, now), store.useNonce(ALICE, now + 1, now)]);
  t.same([first, second], [true, false], 'concurrent replays: one wins');
  await db.close();
  ({ db, store } = await open(dir, now + 1000));
  t.notOk(await store.useNonce(ALICE, now, now + 1000), 'still used after a restart');
  await db.close();
  ({ db, store } = await open(dir, now + WINDOW + 5000));
  t.teardown(() => db.close());
  t.ok(await store.useNonce(ALICE, now, now + WINDOW + 5000), 'dropped once outside the window (admission refuses it as too old anyway)');
});
