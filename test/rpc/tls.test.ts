// A testnet-genesis node serves REST, WebSocket and JSON-RPC over TLS 1.3 only (rpc/tls-proxy.ts):
// a TLS 1.2 handshake is refused, a TLS 1.3 client works on all three, and per-IP limits see the
// client's own address through the PROXY header (clients bind distinct loopback addresses).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { request } from 'node:https';
import { connect as tlsConnect } from 'node:tls';
import { join } from 'node:path';
import t from 'tap';
import WebSocket from 'ws';
import { devnetGenesis } from '../../genesis/index.ts';
import { SvcNode, DEFAULT_NODE_CONFIG } from '../../node/index.ts';
import { proxyV2Header, rateLimitsFrom } from '../../rpc/index.ts';
import { startNode, tempDir } from '../support/node.ts';

/** A throwaway self-signed certificate for 127.0.0.1 (never committed). */
function selfSigned(dir: string): { cert: Buffer; key: Buffer } {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert], { stdio: 'ignore' });
  return { cert: readFileSync(cert), key: readFileSync(key) };
}

function httpsPost(url: string, body: unknown, ca: Buffer, localAddress = '127.0.0.1'): Promise<{ status: number; body: unknown; protocol: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', ca, localAddress, minVersion: 'TLSv1.3', headers: { 'Content-Type': 'application/json' }, agent: false }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), protocol: (res.socket as unknown as { getProtocol(): string }).getProtocol?.() ?? '' }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

t.test('PROXY v2 header layout', async (t) => {
  const h = proxyV2Header('203.0.113.7', 5555, '127.0.0.1', 443);
  t.equal(h.length, 28);
  t.same([...h.subarray(12, 16)], [0x21, 0x11, 0, 12], 'v2 PROXY, TCP4, 12 address bytes');
  t.same([...h.subarray(16, 20)], [203, 0, 113, 7]);
  t.equal(h.readUInt16BE(24), 5555);
  const v6 = proxyV2Header('2001:db8::1', 1, '::1', 2);
  t.equal(v6[13], 0x21, 'TCP6');
  t.same([...v6.subarray(16, 32)], [0x20, 0x01, 0x0d, 0xb8, ...Array(11).fill(0), 1]);
  t.equal(proxyV2Header('::ffff:10.0.0.1', 1, '::ffff:127.0.0.1', 2)[13], 0x11, 'IPv4-mapped addresses go as TCP4');
  t.equal(proxyV2Header(undefined, undefined, undefined, undefined)[12], 0x20, 'LOCAL when unknown');
});

t.test('a testnet node: TLS 1.3 only on REST, WebSocket and JSON-RPC', async (t) => {
  const dir = await tempDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const tls = selfSigned(dir);
  const genesis = { ...devnetGenesis(), network: 'testnet' as const, auth: { literalNonceBinding: false } };
  // A few /info requests a minute per IP: enough to tell two client addresses apart.
  const rateLimits = rateLimitsFrom('devnet', { info: '60/40' });
  const { node } = await startNode(t, { genesis, tls, rateLimits });
  t.match(node.restUrl, /^https:\/\/127\.0\.0\.1:\d+$/);
  t.match(node.wsUrl, /^wss:/);
  t.match(node.rpcUrl, /^https:/);

  for (const [name, url] of [['REST', node.restUrl], ['WebSocket', node.wsUrl], ['JSON-RPC', node.rpcUrl]] as const) {
    const port = Number(new URL(String(url)).port);
    const refused = await new Promise<string>((resolve) => {
      const s = tlsConnect({ host: '127.0.0.1', port, ca: tls.cert, minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' }, () => resolve(`connected with ${s.getProtocol()}`));
      s.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    });
    t.match(refused, /ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION|ERR_SSL_UNSUPPORTED_PROTOCOL|alert protocol version/i, `${name}: a TLS 1.2 handshake is refused (${refused})`);
    const proto = await new Promise<string | null>((resolve, reject) => {
      const s = tlsConnect({ host: '127.0.0.1', port, ca: tls.cert }, () => {
        resolve(s.getProtocol());
        s.end();
      });
      s.on('error', reject);
    });
    t.equal(proto, 'TLSv1.3', `${name}: TLS 1.3 is negotiated`);
  }

  const meta = await httpsPost(`${node.restUrl}/info`, { type: 'meta' }, tls.cert);
  t.equal(meta.status, 200, 'REST over TLS 1.3');
  t.equal(meta.protocol, 'TLSv1.3');
  t.ok(Array.isArray((meta.body as { universe: unknown[] }).universe));

  const chainId = await httpsPost(node.rpcUrl as string, { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }, tls.cert);
  t.equal((chainId.body as { result: string }).result, `0x${genesis.chainId.toString(16)}`, 'JSON-RPC over TLS 1.3');

  const ws = new WebSocket(node.wsUrl as string, { ca: tls.cert, minVersion: 'TLSv1.3' });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  ws.send(JSON.stringify({ method: 'post', id: 7, request: { type: 'info', payload: { type: 'meta' } } }));
  const answer = await new Promise<{ channel: string; data: { id: number } }>((resolve, reject) => {
    ws.once('message', (d) => resolve(JSON.parse(d.toString())));
    setTimeout(() => reject(new Error('no WebSocket answer within 5 s')), 5000).unref();
  });
  t.match(answer, { channel: 'post', data: { id: 7 } }, 'WebSocket upgrade and frames pass through TLS 1.3');
  ws.close();

  const rpcWs = new WebSocket(node.rpcUrl?.replace(/^https/, 'wss') as string, { ca: tls.cert });
  const rpcAnswer = await new Promise<{ result: string }>((resolve, reject) => {
    rpcWs.once('open', () => rpcWs.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'eth_blockNumber', params: [] })));
    rpcWs.once('message', (d) => resolve(JSON.parse(d.toString())));
    rpcWs.once('error', reject);
  });
  t.match(rpcAnswer.result, /^0x/, 'JSON-RPC over WebSocket and TLS 1.3');
  rpcWs.close();

  // 127.0.0.2 spends its /info budget; 127.0.0.3 still has its own.
  let limited = 0;
  for (let i = 0; i < 60 && limited === 0; i++) {
    const r = await httpsPost(`${node.restUrl}/info`, { type: 'meta' }, tls.cert, '127.0.0.2');
    if (r.status === 429) limited = i;
  }
  t.ok(limited > 0, `127.0.0.2 is rate limited after ${limited} requests`);
  t.equal((await httpsPost(`${node.restUrl}/info`, { type: 'meta' }, tls.cert, '127.0.0.3')).status, 200, 'another client address is not: limits see the real client');
});

t.test('a testnet node on a public interface without a certificate does not start', async (t) => {
  const dir = await tempDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const err = await SvcNode.start({
    ...DEFAULT_NODE_CONFIG, dataDir: dir, genesis: { ...devnetGenesis(), network: 'testnet', auth: { literalNonceBinding: false } },
    host: '0.0.0.0', restPort: 0, wsPort: null, rpcPort: null, log: () => {}, signerWorkers: 0, history: false,
  }).then((n) => n.stop().then(() => null), (e: Error) => e);
  t.match(String(err), /TLS 1\.3 only/);
});
