// The JSON-RPC envelope and errors as wallets expect them: batches, notifications, CORS, the
// standard codes, not-found results, and the WebSocket transport.
import t from 'tap';
import WebSocket from 'ws';
import { startNode } from '../support/node.ts';

async function rpc(url: string, body: unknown): Promise<{ status: number; json: any; headers: Headers }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: 'http://example.test' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, json: text === '' ? null : JSON.parse(text), headers: res.headers };
}

const call = (method: string, params: unknown[] = [], id: number | string = 1) => ({ jsonrpc: '2.0', id, method, params });

t.test('JSON-RPC envelope and errors', async (t) => {
  const { node } = await startNode(t);
  const url = node.rpcUrl as string;

  const chain = await rpc(url, call('eth_chainId'));
  t.same(chain.json, { jsonrpc: '2.0', id: 1, result: '0xa455' });
  t.equal(chain.headers.get('access-control-allow-origin'), '*', 'CORS');
  const pre = await fetch(url, { method: 'OPTIONS', headers: { Origin: 'http://example.test', 'Access-Control-Request-Method': 'POST' } });
  t.equal(pre.status, 204);
  t.match(pre.headers.get('access-control-allow-headers'), /Content-Type/);

  t.equal((await rpc(url, call('net_version'))).json.result, '42069');
  t.match((await rpc(url, call('web3_clientVersion'))).json.result, /^svc\//);
  t.equal((await rpc(url, call('eth_syncing'))).json.result, false);
  t.same((await rpc(url, call('eth_accounts'))).json.result, []);

  t.match((await rpc(url, '{"jsonrpc":"2.0",')).json, { id: null, error: { code: -32700 } }, 'parse error');
  t.match((await rpc(url, { jsonrpc: '1.0', id: 1, method: 'eth_chainId' })).json, { error: { code: -32600 } }, 'invalid request');
  t.match((await rpc(url, [])).json, { error: { code: -32600 } }, 'empty batch');
  t.match((await rpc(url, call('eth_nope'))).json, { id: 1, error: { code: -32601, message: 'the method eth_nope does not exist/is not available' } });
  t.match((await rpc(url, call('eth_getBalance', ['0x12']))).json, { error: { code: -32602 } }, 'bad address');
  t.match((await rpc(url, call('eth_getBalance', []))).json, { error: { code: -32602 } }, 'missing param');
  t.match((await rpc(url, call('eth_getStorageAt', ['0x' + '11'.repeat(20), '0xasdf', 'latest']))).json, { error: { code: -32602, message: 'invalid hex in storage key: "0xasdf"' } });
  t.match((await rpc(url, call('eth_getLogs', [{ fromBlock: '0x2', toBlock: '0x1' }]))).json, { error: { code: -32602, message: 'invalid block range params' } });
  t.match((await rpc(url, call('eth_getLogs', [{ fromBlock: '0xffffff' }]))).json, { error: { code: -32602, message: 'block range extends beyond current head block' } });
  t.match((await rpc(url, call('eth_sendRawTransaction', ['0x02']))).json, { error: { code: -32602 } }, 'undecodable transaction');
  for (const bad of ['0x02f', '0x02zz', '02f8', '0X02f8', 'x', 42]) {
    t.match((await rpc(url, call('eth_sendRawTransaction', [bad]))).json, { error: { code: -32602, message: /^invalid argument 0: hex string expected/ } }, `not hex bytes: ${JSON.stringify(bad)}`);
  }
  t.match((await rpc(url, call('eth_sendRawTransaction', ['0x']))).json, { error: { code: -32602, message: 'typed transaction too short' } }, 'no bytes');

  t.equal((await rpc(url, call('eth_getBlockByNumber', ['0xffffff', false]))).json.result, null, 'unknown block is null');
  t.equal((await rpc(url, call('eth_getTransactionByHash', ['0x' + '00'.repeat(32)]))).json.result, null);
  t.equal((await rpc(url, call('eth_getTransactionReceipt', ['0x' + '00'.repeat(32)]))).json.result, null);
  t.equal((await rpc(url, call('eth_getBalance', ['0x' + '12'.repeat(20), 'latest']))).json.result, '0x0', 'unknown account has 0');

  const batch = await rpc(url, [call('eth_chainId', [], 1), { jsonrpc: '2.0', method: 'eth_blockNumber', params: [] }, call('eth_nope', [], 'b')]);
  t.equal(batch.json.length, 2, 'a notification gets no answer in a batch');
  t.match(batch.json, [{ id: 1, result: '0xa455' }, { id: 'b', error: { code: -32601 } }]);
  const onlyNotification = await rpc(url, { jsonrpc: '2.0', method: 'eth_chainId' });
  t.equal(onlyNotification.json, null, 'a lone notification gets no body');

  const genesis = (await rpc(url, call('eth_getBlockByNumber', ['0x0', true]))).json.result;
  t.match(genesis, { number: '0x0', baseFeePerGas: '0x3b9aca00', transactions: [] });
  const byHash = (await rpc(url, call('eth_getBlockByHash', [genesis.hash, false]))).json.result;
  t.equal(byHash.stateRoot, genesis.stateRoot);
  const fees = (await rpc(url, call('eth_feeHistory', ['0x5', 'latest', [10, 50]]))).json.result;
  t.ok(Array.isArray(fees.baseFeePerGas) && Array.isArray(fees.reward), 'eth_feeHistory');
});

t.test('WebSocket: same methods, newHeads subscription', async (t) => {
  const { node } = await startNode(t, { emptyBlockIntervalMs: 100 });
  const ws = new WebSocket((node.rpcUrl as string).replace('http', 'ws'));
  t.teardown(() => ws.close());
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  const messages: any[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any
  const waiters: (() => void)[] = [];
  ws.on('message', (m) => {
    messages.push(JSON.parse(m.toString()));
    for (const w of waiters.splice(0)) w();
  });
  const until = async <T>(pick: () => T | undefined, what: string): Promise<T> => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const v = pick();
      if (v !== undefined) return v;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((r) => { waiters.push(r); setTimeout(r, 200); });
    }
  };
  ws.send(JSON.stringify(call('eth_chainId', [], 7)));
  t.equal((await until(() => messages.find((m) => m.id === 7), 'chain id')).result, '0xa455');
  ws.send(JSON.stringify(call('eth_subscribe', ['newHeads'], 8)));
  const sub = (await until(() => messages.find((m) => m.id === 8), 'subscription')).result;
  t.match(sub, /^0x[0-9a-f]+$/);
  const head = await until(() => messages.find((m) => m.method === 'eth_subscription' && m.params.subscription === sub), 'a new head');
  t.match(head.params.result, { number: /^0x/, hash: /^0x[0-9a-f]{64}$/, baseFeePerGas: /^0x/ });
  ws.send(JSON.stringify(call('eth_unsubscribe', [sub], 9)));
  t.equal((await until(() => messages.find((m) => m.id === 9), 'unsubscribe')).result, true);
});
