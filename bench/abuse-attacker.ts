// One attack of bench/abuse.ts, run in its own process (so it does not share the probe's event
// loop) from 127.0.0.3 (so per-IP limits tell it from the well-behaved client on 127.0.0.2).
// Args: <attack> <rest url> <ws url> <rpc url> <seconds>. Prints one JSON line of outcome counts.
import { request, Agent } from 'node:http';
import { connect } from 'node:net';
import WebSocket from 'ws';

const [attack, rest, wsUrl, rpc, secondsArg] = process.argv.slice(2) as [string, string, string, string, string];
const until = Date.now() + Number(secondsArg) * 1000;
const FROM = '127.0.0.3';
const agent = new Agent({ keepAlive: true, maxSockets: 16, localAddress: FROM });
const outcomes: Record<string, number> = {};
const count = (k: string) => (outcomes[k] = (outcomes[k] ?? 0) + 1);

function post(url: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<void> {
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST', agent, headers: { 'Content-Type': 'application/json', ...headers } }, (res) => {
      res.resume();
      res.on('end', () => {
        count(String(res.statusCode));
        resolve();
      });
    });
    req.on('error', (e: NodeJS.ErrnoException) => {
      count(e.code ?? 'error');
      resolve();
    });
    req.end(body);
  });
}

/** Runs `n` loops of `step` until the attack's time is up. */
async function loops(n: number, step: () => Promise<void>): Promise<void> {
  await Promise.all(Array.from({ length: n }, async () => {
    while (Date.now() < until) await step();
  }));
}

const big = Buffer.alloc(32 << 20, 0x20); // 32 MiB of spaces
const deep = `{"type":"meta","x":${'['.repeat(200_000)}${']'.repeat(200_000)}}`;

switch (attack) {
  case 'oversized-bodies':
    await loops(4, () => post(`${rest}/info`, big));
    break;
  case 'nested-json':
    await loops(4, async () => {
      await post(`${rest}/info`, deep);
      await post(`${rest}/exchange`, `{"action":${'['.repeat(100_000)}${']'.repeat(100_000)},"nonce":1,"signature":{"r":"0x1","s":"0x1","v":27},"vaultAddress":null}`);
      await post(rpc, `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    });
    break;
  case 'slow-loris': {
    // Connections that send a request head a byte at a time and never finish it.
    const { port } = new URL(rest);
    const sockets = Array.from({ length: 1000 }, () => {
      const s = connect({ host: '127.0.0.1', port: Number(port), localAddress: FROM });
      s.on('error', () => count('socket error'));
      s.on('close', () => count('closed by node'));
      return s;
    });
    const head = 'POST /info HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n{"type":';
    for (let i = 0; Date.now() < until; i++) {
      for (const s of sockets) if (!s.destroyed) s.write(head[i % head.length] as string);
      await new Promise((r) => setTimeout(r, 1000));
    }
    count(`open at the end: ${sockets.filter((s) => !s.destroyed).length}`);
    for (const s of sockets) s.destroy();
    break;
  }
  case 'flood':
    // Far beyond every per-IP limit: /info, /exchange (unsigned), /v1, /v4, /stats.
    await loops(32, async () => {
      await post(`${rest}/info`, '{"type":"allMids"}');
      await post(`${rest}/exchange`, '{"action":{"type":"noop"},"nonce":1,"signature":{"r":"0x1","s":"0x1","v":27},"vaultAddress":null}');
      await new Promise<void>((resolve) => {
        request(`${rest}/v4/trades?coin=BTC`, { agent }, (res) => {
          count(`v4 ${res.statusCode}`);
          res.resume();
          res.on('end', resolve);
        }).on('error', () => resolve()).end();
      });
    });
    break;
  case 'idle-websockets':
  case 'unread-websockets': {
    // Idle: connections that subscribe and never send again. Unread: subscribed to the busiest
    // topics and never reading (their socket buffers fill; the node's backpressure bound closes them).
    const unread = attack === 'unread-websockets';
    const socks: WebSocket[] = [];
    for (let i = 0; i < 3000 && Date.now() < until; i++) {
      const ws = new WebSocket(wsUrl, { localAddress: FROM });
      ws.on('unexpected-response', (_req, res) => count(`refused ${res.statusCode}`));
      ws.on('error', () => {});
      ws.on('open', () => {
        count('open');
        ws.send(JSON.stringify({ method: 'subscribe', subscription: { type: unread ? 'l2Book' : 'allMids', coin: 'BTC' } }));
        ws.send(JSON.stringify({ method: 'subscribe', subscription: { type: 'trades', coin: 'BTC' } }));
        if (unread) (ws as unknown as { _socket: { pause(): void } })._socket.pause();
      });
      ws.on('close', () => count('closed'));
      socks.push(ws);
      if (i % 100 === 99) await new Promise((r) => setTimeout(r, 10));
    }
    while (Date.now() < until) await new Promise((r) => setTimeout(r, 200));
    count(`open at the end: ${socks.filter((s) => s.readyState === WebSocket.OPEN).length}`);
    for (const s of socks) s.terminate();
    break;
  }
  case 'rpc-batches': {
    const batch = JSON.stringify(Array.from({ length: 10_000 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_getBalance', params: ['0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266', 'latest'] })));
    await loops(4, () => post(rpc, batch));
    break;
  }
  case 'get-logs':
    await loops(8, () => post(rpc, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [{ fromBlock: '0x0', toBlock: 'latest' }] })));
    break;
  case 'huge-gas-calls': {
    // An infinite loop contract's init code run as a call with the largest gas a client may ask.
    const loop = '0x5b600056'; // JUMPDEST PUSH1 0 JUMP
    await loops(4, () => post(rpc, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ data: loop, gas: '0xffffffffffffffff' }, 'latest'] })));
    break;
  }
  default:
    throw new Error(`unknown attack ${attack}`);
}
console.log(JSON.stringify(outcomes));
process.exit(0);
