// End-to-end order throughput of a devnet node over REST: orders pre-signed by the typed client
// (client/), sent with bounded concurrency, each answered after its block commits. Prints
// orders/s and latency.
import { rm } from 'node:fs/promises';
import { NO_RETRY, NonceManager, SvcClient, type SignedRequest } from '../client/index.ts';
import { DEV_ACCOUNTS, devnetGenesis } from '../genesis/index.ts';
import { DEFAULT_NODE_CONFIG, SvcNode } from '../node/index.ts';
import { DEVNET_RATE_LIMITS } from '../rpc/index.ts';
import { tempDir } from '../test/support/node.ts';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 4000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 128);

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

export async function benchRestOrders(): Promise<void> {
  const dataDir = await tempDir('svc-bench-');
  // Request limits off, as on `svc devnet`: the benchmark measures throughput, not the limits.
  const node = await SvcNode.start({ ...DEFAULT_NODE_CONFIG, genesis: devnetGenesis(), dataDir, restPort: 0, wsPort: null, log: () => {}, rateLimits: DEVNET_RATE_LIMITS });
  try {
    const nonces = new NonceManager();
    const clients = DEV_ACCOUNTS.slice(0, 8).map((a) => new SvcClient({ url: node.restUrl, privateKey: a.privateKey, nonces, retry: NO_RETRY }));
    const signed: { client: SvcClient; req: SignedRequest }[] = [];
    for (let i = 0; i < ORDERS; i++) {
      const client = clients[i % clients.length] as SvcClient;
      const isBuy = i % 2 === 0;
      // Alternate sides around 100,000 so about half the orders trade.
      const px = String(isBuy ? 100000 + (i % 7) * 10 : 100000 + (i % 5) * 10);
      const req = await client.exchange.sign({ type: 'order', orders: [{ a: 0, b: isBuy, p: px, s: '0.001', r: false, t: { limit: { tif: 'Gtc' } } }], grouping: 'na' });
      signed.push({ client, req });
    }
    const latencies: number[] = [];
    let next = 0;
    let failures = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < signed.length) {
          const { client, req } = signed[next++] as (typeof signed)[number];
          const t0 = performance.now();
          const res = await client.exchange.sendSigned(req).catch(() => null);
          latencies.push(performance.now() - t0);
          if (res?.status !== 'ok') failures++;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    console.table({
      'REST /exchange orders': {
        orders: ORDERS,
        concurrency: CONCURRENCY,
        'orders/s': Math.round(ORDERS / seconds),
        'p50 ms': pct(latencies, 50).toFixed(1),
        'p99 ms': pct(latencies, 99).toFixed(1),
        blocks: node.height,
        failures,
      },
    });
  } finally {
    await node.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
