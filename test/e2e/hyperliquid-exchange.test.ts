// Hyperliquid's own TypeScript SDK trading against a devnet through the dialect: its signing
// (L1 phantom agent, user-signed typed data, Mainnet and Testnet), vocabulary and answers.
import { ExchangeClient, HttpTransport, InfoClient } from '@nktkas/hyperliquid';
import t from 'tap';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { DEV_ACCOUNTS, devnetGenesis } from '../../genesis/index.ts';
import { limit, orderAction, startNode } from '../support/node.ts';
import { typeErrors } from '../support/hyperliquid-types.ts';

const keys = DEV_ACCOUNTS.map((a) => a.privateKey as `0x${string}`);

t.test('place, modify, cancel, fill, transfer and approve an agent with @nktkas/hyperliquid', async (t) => {
  const { node, client } = await startNode(t);
  const transport = new HttpTransport({ apiUrl: `${node.restUrl}/hyperliquid` });
  const alice = privateKeyToAccount(keys[0]!);
  const bob = privateKeyToAccount(keys[1]!);
  const A = alice.address.toLowerCase();
  const B = bob.address.toLowerCase();
  const aliceX = new ExchangeClient({ wallet: alice, transport });
  // Bob signs as for Hyperliquid's testnet (source "b", hyperliquidChain "Testnet"): both are accepted on a devnet.
  const bobX = new ExchangeClient({ wallet: bob, transport: new HttpTransport({ apiUrl: `${node.restUrl}/hyperliquid`, isTestnet: true }) });
  const info = new InfoClient({ transport });

  // Every answer is also compiled against the SDK's response type at the end.
  const answers: [string, unknown][] = [];
  const keep = <T>(type: string, answer: T): T => (answers.push([type, answer]), answer);
  const placed = keep('OrderSuccessResponse', await aliceX.order({ orders: [{ a: 0, b: true, p: '95000', s: '0.01', r: false, t: { limit: { tif: 'Gtc' } }, c: '0x00000000000000000000000000000001' }], grouping: 'na' }));
  const oid = (placed.response.data.statuses[0] as { resting: { oid: number } }).resting.oid;
  t.type(oid, 'number');
  keep('ModifySuccessResponse', await aliceX.modify({ oid, order: { a: 0, b: true, p: '95500', s: '0.02', r: false, t: { limit: { tif: 'Gtc' } } } }));
  const open = await info.openOrders({ user: A });
  t.match(open, [{ coin: 'BTC', limitPx: '95500', sz: '0.02', oid }]);

  const filled = keep('OrderSuccessResponse', await bobX.order({ orders: [{ a: 0, b: false, p: '95000', s: '0.01', r: false, t: { limit: { tif: 'Ioc' } } }], grouping: 'na' }));
  t.match(filled.response.data.statuses, [{ filled: { totalSz: '0.01', avgPx: '95500' } }]);
  keep('CancelSuccessResponse', await aliceX.cancel({ cancels: [{ a: 0, o: oid }] }));
  t.same(await info.openOrders({ user: A }), []);

  keep('UpdateLeverageSuccessResponse', await aliceX.updateLeverage({ asset: 1, isCross: false, leverage: 5 }));
  keep('UsdSendSuccessResponse', await aliceX.usdSend({ destination: B, amount: '12.5' }));
  keep('SpotSendSuccessResponse', await aliceX.spotSend({ destination: B, token: 'SVC:0x00000000000000000000000000000000', amount: '3' }));

  // An agent approved through the dialect trades in both dialects.
  const agentKey = generatePrivateKey();
  const agent = privateKeyToAccount(agentKey);
  keep('ApproveAgentSuccessResponse', await aliceX.approveAgent({ agentAddress: agent.address, agentName: 'hlbot' }));
  const agentX = new ExchangeClient({ wallet: agent, transport });
  const viaAgent = await agentX.order({ orders: [{ a: 0, b: true, p: '90000', s: '0.01', r: false, t: { limit: { tif: 'Gtc' } } }], grouping: 'na' });
  t.match(viaAgent.response.data.statuses, [{ resting: { oid: Number } }]);
  const { Wallet } = await import('ethers');
  const spec = await client.exchange(new Wallet(agentKey), orderAction(limit(0, true, '90000', '0.01')), { vaultAddress: A });
  t.match(spec.body, { status: 'ok' }, 'the same agent signs for Alice through the spec API');
  t.equal((await info.openOrders({ user: A })).length, 2);

  // batchModify answers with order statuses; a builder fee approved by the user is charged on its fills.
  const modified = keep('BatchModifySuccessResponse', await aliceX.batchModify({ modifies: [{ oid: (viaAgent.response.data.statuses[0] as { resting: { oid: number } }).resting.oid, order: { a: 0, b: true, p: '91000', s: '0.01', r: false, t: { limit: { tif: 'Gtc' } } } }] }));
  t.match(modified.response.data.statuses, [{ resting: { oid: Number } }]);
  keep('ApproveBuilderFeeSuccessResponse', await aliceX.approveBuilderFee({ builder: B, maxFeeRate: '0.01%' }));
  const withBuilder = await aliceX.order({ orders: [{ a: 1, b: true, p: '3600', s: '0.1', r: false, t: { limit: { tif: 'Gtc' } } }], grouping: 'na', builder: { b: B, f: 10 } });
  t.match(withBuilder.response.data.statuses, [{ resting: { oid: Number } }]);
  await bobX.order({ orders: [{ a: 1, b: false, p: '3500', s: '0.1', r: false, t: { limit: { tif: 'Ioc' } } }], grouping: 'na' });
  const fills = await info.userFills({ user: A });
  t.match(fills[0], { coin: 'ETH', builderFee: '0.036' }, '1 bp of 360 USDC to the builder');

  // The dead man's switch: set, then cleared.
  keep('ScheduleCancelSuccessResponse', await aliceX.scheduleCancel({ time: Date.now() + 60_000 }));
  keep('ScheduleCancelSuccessResponse', await aliceX.scheduleCancel());
  t.same(await typeErrors(answers, 'exchange'), [], 'every answer has the type the SDK declares');
});

t.test('refusals read as Hyperliquid words them, and change nothing', async (t) => {
  // Only Hyperliquid-Mainnet signatures are accepted by this genesis.
  const genesis = devnetGenesis();
  genesis.auth.hyperliquidChains = ['Mainnet'];
  const { node, client } = await startNode(t, { genesis });
  const base = `${node.restUrl}/hyperliquid`;
  const alice = privateKeyToAccount(keys[2]!);
  const A = alice.address.toLowerCase();
  const mainnet = new ExchangeClient({ wallet: alice, transport: new HttpTransport({ apiUrl: base }) });
  const testnet = new ExchangeClient({ wallet: alice, transport: new HttpTransport({ apiUrl: base, isTestnet: true }) });

  await t.rejects(testnet.order({ orders: [{ a: 0, b: true, p: '90000', s: '0.01', r: false, t: { limit: { tif: 'Gtc' } } }], grouping: 'na' }),
    /User or API Wallet 0x[0-9a-f]{40} does not exist\./, 'a Testnet signature recovers some other address');
  await t.rejects(mainnet.twapOrder({ twap: { a: 0, b: true, s: '1', r: false, m: 10, t: false } }), /Action twapOrder is not supported on this chain/);
  await t.rejects(mainnet.order({ orders: [{ a: 0, b: true, p: '90000', s: '0.01', r: false, t: { limit: { tif: 'Gtc' } } }], grouping: 'na' }, { expiresAfter: Date.now() - 1000 }),
    /Action expired/);
  await mainnet.usdClassTransfer({ amount: '10', toPerp: false });
  await mainnet.noop({ nonce: Date.now() + 100 });

  // The same nonce twice: the second is a duplicate, as Hyperliquid words it.
  const { signL1Action } = await import('@nktkas/hyperliquid/signing');
  const action = { type: 'cancel', cancels: [{ a: 0, o: 1 }] };
  const nonce = Date.now();
  const body = { action, nonce, signature: await signL1Action({ wallet: alice, action, nonce }) };
  const first = await client.post('/hyperliquid/exchange', body);
  t.match(first.body, { status: 'ok', response: { type: 'cancel', data: { statuses: [{ error: String }] } } });
  t.same((await client.post('/hyperliquid/exchange', body)).body, { status: 'err', response: `Invalid nonce: duplicate nonce ${nonce}` });

  const bad = await client.raw('/hyperliquid/exchange', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"action":' });
  t.equal(bad.status, 422);
  t.equal(bad.body, 'Failed to deserialize the JSON body into the target type');
  t.match(bad.headers.get('content-type'), /^text\/plain/);

  // An agent approved through the spec API signs in the dialect too.
  const { Wallet } = await import('ethers');
  const agentKey = generatePrivateKey();
  const n = Date.now() + 5;
  const spec = await client.exchange(new Wallet(keys[2]!), { type: 'approveAgent', agentAddress: privateKeyToAccount(agentKey).address, agentName: '', nonce: n }, { nonce: n });
  t.same(spec.body, { status: 'ok', response: { type: 'default' } });
  const agentX = new ExchangeClient({ wallet: privateKeyToAccount(agentKey), transport: new HttpTransport({ apiUrl: base }) });
  const placed = await agentX.order({ orders: [{ a: 1, b: true, p: '3000', s: '0.01', r: false, t: { limit: { tif: 'Gtc' } } }], grouping: 'na' });
  t.match(placed.response.data.statuses, [{ resting: { oid: Number } }]);
  t.match((await client.info({ type: 'openOrders', user: A })).body, [{ coin: 'ETH', limitPx: '3000' }]);
  await t.rejects(agentX.usdSend({ destination: A, amount: '1' }), /User or API Wallet|only the main wallet/, 'an agent moves no funds');
});
