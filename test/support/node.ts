// Starts a real node in this process on an ephemeral port with a temporary data directory.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { DEV_ACCOUNTS, devnetGenesis } from '../../genesis/index.ts';
import { DEFAULT_NODE_CONFIG, SvcNode, type NodeConfig } from '../../node/index.ts';
import { DEVNET_RATE_LIMITS } from '../../rpc/index.ts';
import { signRequest, type SignOptions } from './signing.ts';
import { NO_RETRY, SvcClient, type SvcClientOptions } from '../../client/index.ts';

export const wallets = DEV_ACCOUNTS.map((a) => new Wallet(a.privateKey));

export async function tempDir(prefix = 'svc-test-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export async function startNode(t: { teardown(fn: () => unknown): void }, overrides: Partial<NodeConfig> = {}) {
  const dataDir = overrides.dataDir ?? (await tempDir());
  const node = await SvcNode.start({
    ...DEFAULT_NODE_CONFIG,
    genesis: devnetGenesis(),
    dataDir,
    restPort: 0,
    wsPort: 0,
    rpcPort: 0,
    log: () => {},
    oracleIntervalMs: 0, // tests that want oracle ticks ask for them
    // No worker threads unless a test asks: each loads the sources, and a node with none starts
    // for about 5 s less CPU. Recovery inline and no history are both configurations the node
    // runs in (`signerWorkers: 0`, `--no-history`); the pool has its own tests, and the devnet
    // processes the tests spawn run the defaults. Tests of the history pass `history: true`.
    signerWorkers: 0,
    history: false,
    rateLimits: DEVNET_RATE_LIMITS, // request limits off, as on `svc devnet`; rate-limit tests set theirs
    ...overrides,
  });
  t.teardown(async () => {
    await node.stop();
    if (overrides.dataDir === undefined) await rm(dataDir, { recursive: true, force: true });
  });
  /** The typed client for a key on this node (no retries: tests see the first answer), sharing this process's nonces. */
  const svc = (privateKey?: string, opts: SvcClientOptions = {}) =>
    new SvcClient({ url: node.restUrl, wsUrl: node.wsUrl ?? undefined, privateKey, nonces: { next: nextNonce }, retry: NO_RETRY, ...opts });
  return { node, dataDir, client: new Client(node.restUrl), svc };
}

/** Nonces unique within the test process: now-ms, strictly increasing. */
let lastNonce = 0;
export function nextNonce(): number {
  lastNonce = Math.max(lastNonce + 1, Date.now());
  return lastNonce;
}

export interface HttpAnswer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  headers: Headers;
}

export class Client {
  constructor(readonly url: string) {}

  async raw(path: string, init: RequestInit = {}): Promise<HttpAnswer> {
    const res = await fetch(this.url + path, init);
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // leave as text
    }
    return { status: res.status, body, headers: res.headers };
  }

  post(path: string, body: unknown): Promise<HttpAnswer> {
    return this.raw(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  }

  info(body: Record<string, unknown>): Promise<HttpAnswer> {
    return this.post('/info', body);
  }

  async exchange(wallet: Wallet, action: unknown, opts: SignOptions & { nonce?: number } = {}): Promise<HttpAnswer> {
    return this.post('/exchange', await signRequest(wallet, action, opts.nonce ?? nextNonce(), opts));
  }
}

export function limit(a: number, b: boolean, p: string, s: string, tif: 'Gtc' | 'Ioc' | 'Alo' = 'Gtc', extra: Record<string, unknown> = {}) {
  return { a, b, p, s, r: false, t: { limit: { tif } }, ...extra };
}

export function orderAction(...orders: unknown[]) {
  return { type: 'order', orders, grouping: 'na' };
}
