// What the TLS 1.3 front (rpc/tls-proxy.ts) costs: a devnet process serving plain HTTP, then one
// serving TLS 1.3 with a throwaway self-signed certificate; the same small REST request
// (GET /v1/height) with keep-alive connections, and then a new connection (full handshake) per
// request. Prints requests/s and the node process's CPU per request (/proc, user + system).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { tempDir } from '../test/support/node.ts';
import { spawnDevnet, type DevnetProcess } from '../test/support/process.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);

/** CPU seconds (user + system) the process has used. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

async function drive(url: string, ca: Buffer | null, keepAlive: boolean, pid: number): Promise<{ rps: number; cpuUs: number; n: number }> {
  const agent = ca === null ? new HttpAgent({ keepAlive, maxSockets: CONCURRENCY }) : new HttpsAgent({ keepAlive, maxSockets: CONCURRENCY, ca, minVersion: 'TLSv1.3' });
  const get = () => new Promise<void>((resolve, reject) => {
    const req = (ca === null ? httpRequest : httpsRequest)(`${url}/v1/height`, { agent }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end();
  });
  for (let i = 0; i < 200; i++) await get(); // warm up
  const cpu0 = cpuSeconds(pid);
  const t0 = performance.now();
  const until = t0 + SECONDS * 1000;
  let n = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (performance.now() < until) {
      await get();
      n++;
    }
  }));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds(pid) - cpu0;
  agent.destroy();
  return { rps: Math.round(n / seconds), cpuUs: Math.round((cpu / n) * 1e6), n };
}

export async function benchTls(): Promise<void> {
  const dir = await tempDir('svc-bench-tls-');
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert], { stdio: 'ignore' });
  const ca = readFileSync(cert);
  const rows: Record<string, Record<string, number | string>> = {};
  const lean = ['--signer-workers', '0', '--no-history'];
  let node: DevnetProcess | null = null;
  try {
    for (const tls of [false, true]) {
      node = await spawnDevnet([...lean, '--data-dir', join(dir, tls ? 'tls' : 'plain'), ...(tls ? ['--tls-cert', cert, '--tls-key', key] : [])]);
      const url = tls ? node.url.replace(/^http:/, 'https:') : node.url;
      const pid = node.proc.pid as number;
      for (const keepAlive of [true, false]) {
        const r = await drive(url, tls ? ca : null, keepAlive, pid);
        rows[`${tls ? 'TLS 1.3' : 'plain'}, ${keepAlive ? 'keep-alive' : 'connection per request'}`] = { 'requests/s': r.rps, 'node CPU µs/request': r.cpuUs, requests: r.n };
      }
      await node.stop('SIGTERM');
      node = null;
    }
  } finally {
    await node?.stop('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
  console.log(`GET /v1/height, ${CONCURRENCY} concurrent clients, ${SECONDS} s each (client and node share the machine)`);
  console.table(rows);
}
