// API keys against a real devnet node: created with an ethers-signed request, then listed and
// revoked with HMAC-SHA256 headers computed here with node:crypto (no code shared with the node).
import { createHmac } from 'node:crypto';
import { rm } from 'node:fs/promises';
import t from 'tap';
import { Wallet } from 'ethers';
import { nextNonce, startNode, tempDir, wallets, type Client } from '../support/node.ts';
import { signRequest } from '../support/signing.ts';
import { DEVNET_RATE_LIMITS } from '../../rpc/index.ts';

/** The headers of a request signed with a key: message = timestamp + METHOD + path with query + body. */
function hmacHeaders(apiKey: string, secret: string, method: string, path: string, body = '', timestamp = Math.floor(Date.now() / 1000)) {
  const ts = String(timestamp);
  const sign = createHmac('sha256', secret).update(ts + method + path + body).digest('base64');
  return { 'EX-API-KEY': apiKey, 'EX-API-SIGN': sign, 'EX-API-TIMESTAMP': ts };
}

interface Key { api_key: string; secret: string; address: string; name: string; created_at: string }

async function create(client: Client, wallet: Wallet, name?: string, nonce = nextNonce()) {
  return client.post('/v1/api-keys', await signRequest(wallet, { type: 'createApiKey', ...(name === undefined ? {} : { name }) }, nonce));
}

function list(client: Client, key: Key, address: string, query = '', timestamp?: number) {
  const path = `/v1/api-keys/${address}${query}`;
  return client.raw(path, { headers: hmacHeaders(key.api_key, key.secret, 'GET', path, '', timestamp) });
}

function revoke(client: Client, key: Key, target: string) {
  const path = `/v1/api-keys/${target}/revoke`;
  const body = '{}';
  return client.raw(path, { method: 'POST', body, headers: { 'Content-Type': 'application/json', ...hmacHeaders(key.api_key, key.secret, 'POST', path, body) } });
}

t.test('create, list, revoke', async (t) => {
  const { client } = await startNode(t, { history: true });
  const alice = wallets[0] as Wallet;
  const bob = wallets[1] as Wallet;
  const aliceAddress = alice.address.toLowerCase();

  const nonce = nextNonce();
  const created = await create(client, alice, 'trading bot', nonce);
  t.equal(created.status, 200, JSON.stringify(created.body));
  const key = created.body as Key;
  t.match(key, { api_key: /^[0-9a-f]{32}$/, secret: /^[0-9a-f]{64}$/, address: aliceAddress, name: 'trading bot' });
  t.ok(Math.abs(Date.parse(key.created_at) - Date.now()) < 60_000, 'created_at is an ISO time of now');

  const replay = await client.post('/v1/api-keys', await signRequest(alice, { type: 'createApiKey', name: 'trading bot' }, nonce));
  t.equal(replay.status, 401, 'a nonce is usable once');
  t.match(replay.body, { error: 'unauthorized', message: /Nonce already used/ });

  const stranger = await create(client, Wallet.createRandom() as unknown as Wallet);
  t.equal(stranger.status, 401, 'an address that is not activated');
  t.match(stranger.body, { message: /Account not activated/ });

  const old = await client.post('/v1/api-keys', await signRequest(alice, { type: 'createApiKey' }, Date.now() - 120_000));
  t.equal(old.status, 401);
  t.match(old.body, { message: /Nonce too old/ });

  const wrongType = await client.post('/v1/api-keys', await signRequest(alice, { type: 'order' }, nextNonce()));
  t.equal(wrongType.status, 400);
  t.match(wrongType.body, { details: { field: 'action.type' } });

  // List, with a query string in the signed path.
  const listed = await list(client, key, aliceAddress, '?details=1');
  t.equal(listed.status, 200, JSON.stringify(listed.body));
  t.same(listed.body, {
    address: aliceAddress,
    api_keys: [{ api_key: key.api_key, address: aliceAddress, name: 'trading bot', created_at: key.created_at, revoked: false, revoked_at: null }],
  });
  t.notOk(JSON.stringify(listed.body).includes(key.secret), 'the list never shows a secret');
  t.equal((await list(client, key, alice.address)).status, 200, 'a checksummed address lists the same keys');

  // Outside the 30-second window.
  const stale = Math.floor(Date.now() / 1000) - 31;
  const late = await list(client, key, aliceAddress, '', stale);
  t.equal(late.status, 401);
  t.match(late.body, { error: 'unauthorized', message: /30-second validity window/, details: { server_time: Number, provided: stale } });
  // Well past 30 s ahead: the floor of the client's clock, and the request's way to the node, eat into it.
  const early = await list(client, key, aliceAddress, '', Math.floor(Date.now() / 1000) + 40);
  t.equal(early.status, 401, 'the window holds either way');
  t.equal((await list(client, key, aliceAddress, '', Math.floor(Date.now() / 1000) - 20)).status, 200, 'inside it');

  // Bad signatures and keys.
  const path = `/v1/api-keys/${aliceAddress}`;
  const forged = await client.raw(path, { headers: hmacHeaders(key.api_key, 'not the secret', 'GET', path) });
  t.equal(forged.status, 401);
  t.match(forged.body, { message: /Invalid signature/ });
  const lower = await client.raw(path, { headers: hmacHeaders(key.api_key, key.secret, 'get', path) });
  t.equal(lower.status, 401, 'the method is signed in upper case');
  const noQuery = await client.raw(`${path}?x=1`, { headers: hmacHeaders(key.api_key, key.secret, 'GET', path) });
  t.equal(noQuery.status, 401, 'the query string is part of the signed path');
  const unknown = await client.raw(path, { headers: hmacHeaders('0'.repeat(32), key.secret, 'GET', path) });
  t.equal(unknown.status, 401);
  t.match(unknown.body, { message: /Unknown API key/ });
  const bare = await client.raw(path);
  t.equal(bare.status, 401);
  t.match(bare.body, { message: /Missing header EX-API-KEY/ });

  // Another address's keys: 403.
  const bobKey = (await create(client, bob, 'bob')).body as Key;
  const foreign = await list(client, key, bob.address.toLowerCase());
  t.equal(foreign.status, 403);
  t.match(foreign.body, { error: 'forbidden' });
  t.equal((await revoke(client, key, bobKey.api_key)).status, 403, 'nor revoke them');
  t.equal((await list(client, bobKey, bob.address.toLowerCase())).status, 200, 'bob lists his own');

  // A second key of alice revokes the first; the first is refused from then on.
  const second = (await create(client, alice)).body as Key;
  t.equal(second.name, '', 'the name is optional');
  const revoked = await revoke(client, second, key.api_key);
  t.equal(revoked.status, 200, JSON.stringify(revoked.body));
  t.match(revoked.body, { api_key: key.api_key, revoked: true, revoked_at: String });
  const refused = await list(client, key, aliceAddress);
  t.equal(refused.status, 401);
  t.match(refused.body, { message: /API key revoked/ });
  const after = await list(client, second, aliceAddress);
  t.same(after.body.api_keys.map((k: { api_key: string; revoked: boolean }) => [k.api_key, k.revoked]), [[key.api_key, true], [second.api_key, false]]);
  t.equal((await revoke(client, second, key.api_key)).status, 200, 'revoking again changes nothing');
  t.equal((await revoke(client, second, 'f'.repeat(32))).status, 404, 'an unknown key');
  t.equal((await revoke(client, second, second.api_key)).status, 200, 'a key may revoke itself');
  t.equal((await list(client, second, aliceAddress)).status, 401);
});

t.test('keys survive a restart', async (t) => {
  const dataDir = await tempDir();
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const first = await startNode(t, { history: true, dataDir });
  const alice = wallets[2] as Wallet;
  const key = (await create(first.client, alice, 'kept')).body as Key;
  await first.node.stop();
  const second = await startNode(t, { history: true, dataDir });
  const listed = await list(second.client, key, alice.address.toLowerCase());
  t.equal(listed.status, 200);
  t.equal(listed.body.api_keys[0].name, 'kept');
  await second.node.stop(); // before the directory goes, whatever order teardowns run in
});

t.test('a key of an address that stakes enough reads history at the staker tier', async (t) => {
  const { client, node } = await startNode(t, { history: true });
  const alice = wallets[3] as Wallet;
  const key = (await create(client, alice)).body as Key;
  const path = '/v4/trades?market=BTC-USD';
  // The /v4 routes are not served yet: ask the node's limits as they will.
  const historical = () => {
    const h = hmacHeaders(key.api_key, key.secret, 'GET', path);
    return node.limits.historical({ ip: '127.0.0.1', method: 'GET', pathWithQuery: path, hmac: { key: h['EX-API-KEY'], sign: h['EX-API-SIGN'], timestamp: h['EX-API-TIMESTAMP'] } });
  };
  t.equal(historical(), 'authenticated');
  // 9,999 SVC staked: below the devnet genesis's 10,000.
  const deposit = (svc: number) => client.exchange(alice, { type: 'cDeposit', wei: svc * 100_000_000 });
  t.equal((await deposit(9999)).body.status, 'ok');
  t.equal(historical(), 'authenticated');
  t.equal((await deposit(1)).body.status, 'ok');
  t.equal(historical(), 'staker', 'undelegated stake counts; delegated too (views.stakeOf)');
});

t.test('an approved agent creates keys for its account, an unapproved one cannot', async (t) => {
  const { client } = await startNode(t, { history: true });
  const owner = wallets[4] as Wallet;
  const agent = Wallet.createRandom() as unknown as Wallet;
  const nonce = nextNonce();
  t.equal((await client.exchange(owner, { type: 'approveAgent', agentAddress: agent.address, agentName: 'bot', nonce }, { nonce })).body.status, 'ok');
  const byAgent = await client.post('/v1/api-keys', await signRequest(agent, { type: 'createApiKey', name: 'via agent' }, nextNonce(), { vaultAddress: owner.address.toLowerCase() }));
  t.equal(byAgent.status, 200, JSON.stringify(byAgent.body));
  t.equal(byAgent.body.address, owner.address.toLowerCase(), 'the key belongs to the account, not the agent');
  const stranger = Wallet.createRandom() as unknown as Wallet;
  const refused = await client.post('/v1/api-keys', await signRequest(stranger, { type: 'createApiKey' }, nextNonce(), { vaultAddress: owner.address.toLowerCase() }));
  t.equal(refused.status, 403);
  t.match(refused.body, { error: 'forbidden', message: /Agent not authorized/ });
});

t.test('/v4 over HTTP: free tier per IP, a key lifts it; /stats has its own budget', async (t) => {
  const { client } = await startNode(t, {
    history: true,
    rateLimits: { ...DEVNET_RATE_LIMITS, historicalFree: { perMinute: 60, burst: 2 }, historicalAuthenticated: { perMinute: 300, burst: 4 }, stats: { perMinute: 100, burst: 3 } },
  });
  const alice = wallets[0] as Wallet;
  const path = '/v4/trades?market=BTC-USD';
  for (let i = 0; i < 2; i++) t.equal((await client.raw(path)).status, 200);
  const refused = await client.raw(path);
  t.equal(refused.status, 429);
  t.match(refused.body, { error: 'rate_limit_exceeded', retry_after: Number });
  t.equal(refused.headers.get('retry-after'), String(refused.body.retry_after));
  const key = (await create(client, alice)).body as Key;
  for (let i = 0; i < 4; i++) t.equal((await client.raw(path, { headers: hmacHeaders(key.api_key, key.secret, 'GET', path) })).status, 200, 'the authenticated tier');
  t.equal((await client.raw(path, { headers: hmacHeaders(key.api_key, key.secret, 'GET', path) })).status, 429, 'its burst spent');
  t.equal((await client.raw(path, { headers: hmacHeaders(key.api_key, 'not the secret', 'GET', path) })).status, 401, 'a bad signature is refused, not served free');
  for (let i = 0; i < 3; i++) t.equal((await client.raw('/stats/total_users')).status, 200);
  t.equal((await client.raw('/stats/total_users')).status, 429);
});
