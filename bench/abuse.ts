// Abuse resistance (issue #24): a real `svc devnet` with the spec's rate limits, a well-behaved
// client on 127.0.0.2 (REST /info, a WebSocket ping, eth_blockNumber, each every 100 ms), and one
// attack at a time from another process on 127.0.0.3 (bench/abuse-attacker.ts). Prints, per
// attack, the well-behaved client's latency (p50, p99, max) and failures, the node's RSS, and what
// the attacker got back. ABUSE_SECONDS per attack (10); ABUSE_ONLY=<attack> runs one.
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { tempDir } from '../test/support/node.ts';
import { rssMb, startSvc, stopAll } from './processes.ts';

const ATTACKER = fileURLToPath(new URL('./abuse-attacker.ts', import.meta.url));
export const ATTACKS = ['oversized-bodies', 'nested-json', 'slow-loris', 'flood', 'idle-websockets', 'unread-websockets', 'rpc-batches', 'get-logs', 'huge-gas-calls'] as const;
const FROM = '127.0.0.2';

interface Probe {
  readonly rest: number[];
  readonly ws: number[];
  readonly rpc: number[];
  failures: number;
  stop(): Promise<void>;
}

/** The well-behaved client: one request of each kind in flight at a time, every 100 ms. */
async function startProbe(restUrl: string, wsUrl: string, rpcUrl: string): Promise<Probe> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1, localAddress: FROM });
  const probe: Probe = { rest: [], ws: [], rpc: [], failures: 0, stop: async () => {} };
  let running = true;
  const post = (url: string, body: string) => new Promise<boolean>((resolve) => {
    const req = request(url, { method: 'POST', agent, headers: { 'Content-Type': 'application/json' }, timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end(body);
  });
  const ws = new WebSocket(wsUrl, { localAddress: FROM });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  let pong: (() => void) | null = null;
  ws.on('message', (d) => {
    if (d.toString().includes('"pong"')) pong?.();
  });
  const loop = async (into: number[], once: () => Promise<boolean>) => {
    while (running) {
      const t0 = performance.now();
      if (await once()) into.push(performance.now() - t0);
      else probe.failures++;
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const loops = [
    loop(probe.rest, () => post(`${restUrl}/info`, '{"type":"allMids"}')),
    loop(probe.rpc, () => post(rpcUrl, '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}')),
    loop(probe.ws, () => new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 10_000);
      pong = () => {
        clearTimeout(timer);
        resolve(true);
      };
      ws.send('{"method":"ping"}');
    })),
  ];
  probe.stop = async () => {
    running = false;
    await Promise.all(loops);
    ws.close();
    agent.destroy();
  };
  return probe;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : (s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number);
};
const fmt = (xs: number[]) => `${pct(xs, 50).toFixed(1)} / ${pct(xs, 99).toFixed(1)} / ${Math.max(...xs).toFixed(1)}`;

function runAttacker(attack: string, rest: string, ws: string, rpc: string, seconds: number): Promise<string> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['--import', 'tsx', ATTACKER, attack, rest, ws, rpc, String(seconds)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString()));
    p.stderr.on('data', (c: Buffer) => (out += c.toString()));
    p.once('exit', () => resolve(out.trim().split('\n').pop() ?? ''));
  });
}

export async function benchAbuse(): Promise<void> {
  const seconds = Number(process.env.ABUSE_SECONDS ?? 10);
  const only = process.env.ABUSE_ONLY;
  const dir = await tempDir('svc-abuse-');
  const node = await startSvc(['devnet', '--data-dir', dir, '--rest-port', '0', '--ws-port', '0', '--rpc-port', '0', '--rate-limits', 'spec']);
  const rpcUrl = /JSON-RPC\s+(http:\/\/\S+)/.exec(node.output())?.[1] ?? '';
  const pid = node.proc.pid as number;
  const rows: Record<string, Record<string, string | number>> = {};
  try {
    for (const attack of ['(none)', ...ATTACKS]) {
      if (only !== undefined && attack !== only && attack !== '(none)') continue;
      const probe = await startProbe(node.rest, node.ws, rpcUrl);
      const rss: number[] = [];
      const sampler = setInterval(() => rss.push(rssMb(pid)), 250);
      const outcome = attack === '(none)'
        ? await new Promise<string>((r) => setTimeout(() => r(''), 3000))
        : await runAttacker(attack, node.rest, node.ws, rpcUrl, seconds);
      clearInterval(sampler);
      await probe.stop();
      rows[attack] = {
        'REST p50/p99/max ms': fmt(probe.rest), 'WS ping': fmt(probe.ws), 'JSON-RPC': fmt(probe.rpc),
        'probe failures': probe.failures, 'node RSS max MB': Math.round(Math.max(...rss)),
      };
      console.log(`${attack}: attacker got ${outcome.slice(0, 300)}`);
      if (node.proc.exitCode !== null) throw new Error(`the node exited during ${attack}:\n${node.output().slice(-2000)}`);
    }
    console.table(rows);
  } finally {
    await stopAll([node]);
    await rm(dir, { recursive: true, force: true });
  }
}
