// The fuzzing campaign of the node's request surfaces (issue #24): valid requests of every /info
// type, /exchange action, /v1, /v4 and /stats route, WebSocket message and JSON-RPC method,
// mutated by fast-check values (fields replaced, removed, added, retyped) and at the byte level
// (flips, insertions, deletions, truncations of the JSON text), sent one at a time to a real
// node in this process. Each answer is checked: never a 5xx, never a hang, an error in the
// spec's format, and a refused /exchange request leaves the exchange state as it was (apart from
// the block clock, and the nonce and request count a signed action spends when it executes).
// `test/e2e/fuzz-short.test.ts` runs a seeded slice; `npm run bench -- fuzz` the campaign.
import fc from 'fast-check';
import WebSocket from 'ws';
import { Wallet } from 'ethers';
import { canonicalize } from '../../primitives/index.ts';
import { snapshotState, type Exchange } from '../../exchange/index.ts';
import { ETH_METHOD_NAMES, HISTORY_ROUTE_NAMES, HYPERLIQUID_INFO_TYPES, INFO_TYPES, STATS_ROUTE_NAMES } from '../../rpc/index.ts';
import { mulberry32 } from './exchange.ts';
import { wallets as devWallets } from './node.ts';
import { signRequest } from './signing.ts';

export type Surface = 'info' | 'hlInfo' | 'exchange' | 'hlExchange' | 'v1' | 'v4' | 'stats' | 'rpc' | 'ws' | 'hlWs';

export const SURFACES: readonly Surface[] = ['info', 'hlInfo', 'exchange', 'hlExchange', 'v1', 'v4', 'stats', 'rpc', 'ws', 'hlWs'];

export interface FuzzTargetNode {
  readonly restUrl: string;
  readonly wsUrl: string | null;
  readonly rpcUrl: string | null;
  readonly exchange: Exchange;
  /** The last committed height. */
  height(): number;
}

export interface Finding {
  readonly surface: Surface;
  readonly input: string;
  readonly problem: string;
}

export interface FuzzReport {
  readonly inputs: number;
  readonly bySurface: Record<string, number>;
  /** Answers by HTTP status (WebSocket: `ws:<outcome>`). */
  readonly byStatus: Record<string, number>;
  /** /exchange requests refused (HTTP error or `status: err`) whose state was checked unchanged. */
  readonly refusalsChecked: number;
  /** Wall milliseconds spent per surface. */
  readonly msBySurface: Record<string, number>;
  readonly findings: Finding[];
}

export interface FuzzOptions {
  readonly seed: number;
  readonly inputs: number;
  /** Stop after this many findings (a broken node would otherwise report every input). */
  readonly maxFindings?: number;
  /** Called every `progressEvery` inputs. */
  readonly onProgress?: (done: number) => void;
  readonly progressEvery?: number;
}

const REQUEST_TIMEOUT_MS = 15_000;
const COINS = ['BTC', 'ETH', 'SOL', 'PURR/USDC', '@1', 'NOPE'];

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** A seeded source of choices, and a pool of fast-check JSON values drawn with the same seed. */
class Chooser {
  readonly rand: () => number;
  private readonly values: Json[];
  private readonly strings: string[];

  constructor(seed: number) {
    this.rand = mulberry32(seed);
    const edge = fc.constantFrom<Json>(
      0, -1, 1.5, 1e308, -1e308, 2 ** 53, 2 ** 53 + 2, 2 ** 64, 5e-324, '', ' ', '0', '-0', '1e400', 'NaN', 'Infinity',
      '0x', '0x00', `0x${'f'.repeat(40)}`, `0x${'0'.repeat(64)}`, '\u0000', '\ud800', '💥', 'x'.repeat(10_000), [], {}, true, false, null,
      JSON.parse(`${'['.repeat(64)}${']'.repeat(64)}`) as Json, JSON.parse('{"__proto__":{"x":1}}') as Json, { constructor: 'x' }, { toString: 1 }, { hasOwnProperty: 0 },
    );
    this.values = fc.sample(fc.oneof(edge, fc.jsonValue({ maxDepth: 4 }) as fc.Arbitrary<Json>), { seed, numRuns: 4096 });
    this.strings = fc.sample(fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('BTC', 'Gtc', 'latest', 'na', '%', '..', '/', '?', '#', '%00', '%zz')), { seed: seed + 1, numRuns: 1024 });
  }

  int(n: number): number {
    return Math.floor(this.rand() * n);
  }

  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)] as T;
  }

  chance(p: number): boolean {
    return this.rand() < p;
  }

  value(): Json {
    return structuredClone(this.pick(this.values));
  }

  string(): string {
    return this.pick(this.strings);
  }
}

// ---- mutations ---------------------------------------------------------------------------

/** Paths to every field and element of a JSON value. */
function paths(v: Json, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (v !== null && typeof v === 'object') {
    for (const [k, x] of Array.isArray(v) ? v.map((x, i) => [i, x] as const) : Object.entries(v)) {
      const p = [...prefix, k];
      out.push(p);
      paths(x as Json, p, out);
    }
  }
  return out;
}

function parentOf(root: Json, path: (string | number)[]): { parent: Record<string | number, Json>; key: string | number } | null {
  let cur: Json = root;
  for (let i = 0; i < path.length - 1; i++) {
    if (cur === null || typeof cur !== 'object') return null;
    cur = (cur as Record<string | number, Json>)[path[i] as string | number] as Json;
  }
  if (cur === null || typeof cur !== 'object') return null;
  return { parent: cur as Record<string | number, Json>, key: path[path.length - 1] as string | number };
}

/** A structural mutation of a copy of `seed`. */
export function mutateValue(c: Chooser, seed: Json): Json {
  const v = structuredClone(seed);
  const all = paths(v);
  const rounds = 1 + c.int(3);
  let out: Json = v;
  for (let r = 0; r < rounds; r++) {
    const op = c.int(7);
    if (op === 6 || all.length === 0) {
      out = c.chance(0.5) ? c.value() : [out];
      continue;
    }
    const at = parentOf(out, c.pick(all));
    if (at === null) continue;
    const { parent, key } = at;
    if (op <= 2) parent[key] = c.value(); // replaced by any value
    else if (op === 3) {
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key];
    } else if (op === 4) {
      if (Array.isArray(parent)) parent.push(c.value());
      else parent[c.string()] = c.value();
    } else {
      // retyped: a number as a string, a string as a number, a value wrapped in an array
      const x = parent[key] as Json;
      parent[key] = typeof x === 'number' ? String(x) : typeof x === 'string' ? (Number.isFinite(Number(x)) ? Number(x) : x.length) : [x];
    }
  }
  return out;
}

/** Byte-level mutations of a request's text. */
export function mutateBytes(c: Chooser, text: string): Buffer {
  const b = [...Buffer.from(text)];
  const edits = 1 + c.int(4);
  for (let e = 0; e < edits && b.length > 0; e++) {
    const i = c.int(b.length);
    switch (c.int(6)) {
      case 0:
        b[i] = (b[i] as number) ^ (1 << c.int(8));
        break;
      case 1:
        b.splice(i, 0, c.int(256));
        break;
      case 2:
        b.splice(i, 1 + c.int(4));
        break;
      case 3:
        b.length = i; // truncated
        break;
      case 4:
        b.splice(i, 0, ...b.slice(i, i + 1 + c.int(16))); // a piece repeated
        break;
      default:
        b.splice(i, 0, ...Buffer.from(c.pick(['{', '}', '[', ']', '"', '\\', ',', ':', '\\u0000', '1e999', 'null', '-'])));
    }
  }
  return Buffer.from(b);
}

// ---- seeds: valid requests of every surface ------------------------------------------------

function infoSeed(c: Chooser, type: string, users: readonly string[], now: number): Json {
  const user = c.pick(users);
  const coin = c.pick(COINS.slice(0, 3));
  return {
    type, user, coin, oid: 1 + c.int(50), startTime: now - 3_600_000, endTime: now, aggregateByTime: c.chance(0.5),
    req: { coin, interval: c.pick(['1m', '15m', '1h', '1d']), startTime: now - 3_600_000, endTime: now },
    nSigFigs: c.pick([null, 2, 5]), dex: '',
  };
}

/** A valid action of every type the state machine parses (most refused by state, which is the point). */
function actionSeeds(c: Chooser, users: readonly string[], now: number): Record<string, Json> {
  const other = c.pick(users);
  const order: Json = { a: c.int(3), b: c.chance(0.5), p: c.pick(['100000', '99000', '3500', '150.5', '1']), s: c.pick(['0.001', '0.01', '1']), r: c.chance(0.2), t: (c.chance(0.8) ? { limit: { tif: c.pick(['Gtc', 'Ioc', 'Alo']) } } : { trigger: { isMarket: true, triggerPx: '90000', tpsl: 'sl' } }) as Json };
  return {
    order: { type: 'order', orders: [order], grouping: 'na' },
    batchModify: { type: 'batchModify', modifies: [{ oid: 1 + c.int(20), order }] },
    noop: { type: 'noop' },
    scheduleCancel: { type: 'scheduleCancel', time: now + 60_000 },
    approveBuilderFee: { type: 'approveBuilderFee', builder: other, maxFeeRate: '0.01%', nonce: now },
    cancel: { type: 'cancel', cancels: [{ a: c.int(3), o: 1 + c.int(50) }] },
    cancelByCloid: { type: 'cancelByCloid', cancels: [{ asset: c.int(3), cloid: `0x${'1'.repeat(32)}` }] },
    modify: { type: 'modify', oid: 1 + c.int(20), order },
    approveAgent: { type: 'approveAgent', agentAddress: Wallet.createRandom().address.toLowerCase(), agentName: 'fuzz', nonce: now },
    usdTransfer: { type: 'usdTransfer', destination: other, amount: c.pick(['1', '0.000001', '1000000000']) },
    withdraw: { type: 'withdraw', destination: other, amount: c.pick(['10', '5', '1e9']), chainId: null },
    createSubAccount: { type: 'createSubAccount', name: `fz${c.int(1000)}` },
    subAccountTransfer: { type: 'subAccountTransfer', subAccountUser: other, isDeposit: c.chance(0.5), usd: 1_000_000 },
    updateLeverage: { type: 'updateLeverage', asset: c.int(3), isCross: c.chance(0.5), leverage: 1 + c.int(60) },
    updateIsolatedMargin: { type: 'updateIsolatedMargin', asset: c.int(3), isBuy: true, ntli: 1_000_000 },
    spotDeploy: c.chance(0.5)
      ? { type: 'spotDeploy', deployType: 'token', tokenName: `FZ${c.int(1000)}`, szDecimals: 2, weiDecimals: 8, initialSupply: '1000' }
      : { type: 'spotDeploy', deployType: 'pair', baseToken: 'PURR', quoteToken: 'USDC' },
    spotSend: { type: 'spotSend', destination: other, token: c.pick(['USDC', 'PURR', 'NOPE']), amount: '1' },
    cDeposit: { type: 'cDeposit', wei: 100_000_000 },
    cWithdraw: { type: 'cWithdraw', wei: 100_000_000 },
    tokenDelegate: { type: 'tokenDelegate', validator: 'ab'.repeat(32), wei: 100_000_000, isUndelegate: c.chance(0.5) },
    registerValidator: { type: 'registerValidator', pubKey: 'ab'.repeat(32), signature: 'cd'.repeat(64), name: 'fz' },
    registerReferrer: { type: 'registerReferrer', code: `FZ${c.int(1000)}` },
    setReferrer: { type: 'setReferrer', code: 'NOPE' },
  };
}

const V1_ROUTES: readonly ((c: Chooser, user: string) => { method: 'GET' | 'POST'; path: string })[] = [
  () => ({ method: 'GET', path: '/v1/perpetualMarkets' }),
  (c) => ({ method: 'GET', path: `/v1/orderbooks/perpetualMarket/${c.pick(['BTC-USD', 'ETH-USD', 'NOPE'])}` }),
  (c, u) => ({ method: 'GET', path: `/v1/addresses/${u}/subaccountNumber/${c.int(3)}` }),
  (c, u) => ({ method: 'GET', path: `/v1/fills?address=${u}&subaccountNumber=0&limit=${c.int(200)}` }),
  (c) => ({ method: 'GET', path: `/v1/trades/perpetualMarket/${c.pick(['BTC-USD', 'SOL-USD'])}?limit=10` }),
  () => ({ method: 'GET', path: '/v1/spot/markets' }),
  (c) => ({ method: 'GET', path: `/v1/spot/orderbook/${c.pick(['PURR-USDC', 'PURR/USDC', 'NOPE'])}` }),
  () => ({ method: 'GET', path: '/v1/health' }),
  () => ({ method: 'GET', path: '/v1/height' }),
  () => ({ method: 'GET', path: '/v1/blocks' }),
  (c) => ({ method: 'GET', path: `/v1/blocks/${c.pick(['1', '0', '-1', '99999999', 'x'])}` }),
  (c, u) => ({ method: 'GET', path: `/v1/api-keys/${u}` }),
  (c) => ({ method: 'POST', path: `/v1/api-keys/${c.string()}/revoke` }),
  () => ({ method: 'POST', path: '/v1/orders' }),
  () => ({ method: 'POST', path: '/v1/orders/cancel' }),
  () => ({ method: 'POST', path: '/v1/api-keys' }),
];

function querySeed(c: Chooser, user: string, now: number): Record<string, string> {
  const q: Record<string, string> = {};
  const put = (k: string, v: string) => {
    if (c.chance(0.6)) q[k] = v;
  };
  put('coin', c.pick(COINS));
  put('market', c.pick(['BTC-USD', 'BTC', 'ETH-USD']));
  put('ticker', c.pick(['BTC-USD', 'ETH-USD']));
  put('interval', c.pick(['1m', '1h', '8h', '1d', '1w']));
  put('startTime', String(now - 86_400_000));
  put('endTime', String(now));
  put('limit', String(c.int(2000)));
  put('cursor', c.string());
  put('address', user);
  put('user', user);
  put('days', String(c.int(400)));
  return q;
}

/** Parameters of a JSON-RPC method that it accepts (or close to it); unknown methods get a plain guess. */
function rpcParams(c: Chooser, method: string, user: string): Json[] {
  const block = c.pick(['latest', 'earliest', 'pending', '0x0', '0x1', 'safe', 'finalized']);
  const hash = `0x${'ab'.repeat(32)}`;
  const call = { from: user, to: `0x${'00'.repeat(19)}0806`, data: `0x${'00'.repeat(32)}`, value: '0x0' };
  const table: Record<string, Json[]> = {
    eth_getBalance: [user, block], eth_getTransactionCount: [user, block], eth_getCode: [user, block],
    eth_getStorageAt: [user, '0x0', block], eth_call: [call, block], eth_estimateGas: [call, block],
    eth_getBlockByNumber: [block, c.chance(0.5)], eth_getBlockByHash: [hash, false],
    eth_getBlockTransactionCountByNumber: [block], eth_getBlockTransactionCountByHash: [hash],
    eth_getTransactionByHash: [hash], eth_getTransactionReceipt: [hash],
    eth_getTransactionByBlockNumberAndIndex: [block, '0x0'], eth_getTransactionByBlockHashAndIndex: [hash, '0x0'],
    eth_getLogs: [{ fromBlock: '0x0', toBlock: 'latest', address: user, topics: [hash] }],
    eth_newFilter: [{ fromBlock: 'latest' }], eth_getFilterChanges: ['0x1'], eth_getFilterLogs: ['0x1'], eth_uninstallFilter: ['0x1'],
    eth_feeHistory: ['0x4', block, [25, 75]], eth_sendRawTransaction: [`0x02${'00'.repeat(40)}`],
    eth_getBlockReceipts: [block], eth_createAccessList: [call, block], eth_getProof: [user, [], block],
    debug_traceTransaction: [hash], debug_traceCall: [call, block], debug_traceBlockByNumber: [block],
  };
  return table[method] ?? c.pick([[], [user], [block], [hash], [call]]);
}

// ---- the oracle --------------------------------------------------------------------------

/** The exchange state now (a copy: the snapshot's view may hold live objects). */
function snapshotOf(ex: Exchange): Record<string, unknown> {
  return structuredClone(snapshotState(ex.state)) as unknown as Record<string, unknown>;
}

/**
 * A state snapshot as canonical text. `executed`: the request ran in a block, so what a block
 * moves by itself (its clock, premium sampling, daily figures) and what a signed action spends
 * when it runs (its nonce, a request of its budget) are left out; nothing else may change.
 */
export function stateText(s: Record<string, unknown>, executed: boolean): string {
  if (!executed) return canonicalize(s);
  const rest: Record<string, unknown> = { ...s, height: 0, time: 0, lastSweep: 0, lastSweepOracles: 0, lastPremiumSample: 0, nonces: [] };
  rest.accounts = (s.accounts as unknown[][]).map((row) => row.map((x, i) => (i === 8 ? 0 : x)));
  rest.markets = (s.markets as Record<string, unknown>[]).map((m) => ({ ...m, funding: null, day: null }));
  return canonicalize(rest);
}

/** Where two states' texts first differ, with some context. */
function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `at ${i}: ${JSON.stringify(a.slice(Math.max(0, i - 80), i + 80))} became ${JSON.stringify(b.slice(Math.max(0, i - 80), i + 80))}`;
}

function errorBodyProblem(status: number, text: string, dialect: boolean): string | null {
  if (dialect && status === 422) return null; // Hyperliquid's own: a plain text body
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `status ${status} with a body that is not JSON: ${text.slice(0, 120)}`;
  }
  const b = body as Record<string, unknown>;
  if (typeof b !== 'object' || b === null || typeof b.error !== 'string' || typeof b.message !== 'string') {
    return `status ${status} without {error, message}: ${text.slice(0, 160)}`;
  }
  if (status === 429 && typeof b.retry_after !== 'number') return '429 without retry_after';
  return null;
}

/** Whether `path` stays under `prefix` once a client resolves it (`/v1/..` is `/`, the page). */
function apiPath(base: string, path: string, prefix: string): boolean {
  try {
    return new URL(`${base}${path}`).pathname.startsWith(prefix);
  } catch {
    return false;
  }
}

/** A sender of HTTP requests with a bound on each. */
async function http(url: string, method: string, body?: Buffer | string, headers: Record<string, string> = {}): Promise<{ status: number; text: string } | { hang: true } | { reset: string }> {
  try {
    const res = await fetch(url, { method, body, headers: { 'Content-Type': 'application/json', ...headers }, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    return { status: res.status, text: await res.text() };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    if (e.name === 'TimeoutError') return { hang: true };
    return { reset: e.cause?.code ?? e.message };
  }
}

/** One WebSocket connection for fuzz frames: each frame is followed by a ping, whose pong means every answer to it is out. */
class WsProbe {
  private ws: WebSocket | null = null;
  private inbox: string[] = [];
  private waiter: (() => void) | null = null;
  private closed = false;

  constructor(private readonly url: string, private readonly dialect: boolean) {}

  private async open(): Promise<WebSocket> {
    if (this.ws !== null && !this.closed) return this.ws;
    const ws = new WebSocket(this.url);
    this.closed = false;
    this.inbox = [];
    ws.on('message', (d) => {
      this.inbox.push(d.toString());
      this.waiter?.();
    });
    ws.on('close', () => {
      this.closed = true;
      this.waiter?.();
    });
    ws.on('error', () => {});
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    this.ws = ws;
    return ws;
  }

  /** Sends a frame; the messages it drew, or 'closed' when the server closed the connection, or 'hang'. */
  async send(frame: Buffer): Promise<string[] | 'closed' | 'hang'> {
    const ws = await this.open();
    this.inbox = [];
    ws.send(frame, { binary: false });
    ws.send(this.dialect ? JSON.stringify({ method: 'ping' }) : JSON.stringify({ method: 'ping' }));
    const deadline = Date.now() + REQUEST_TIMEOUT_MS;
    for (;;) {
      const pong = this.inbox.findIndex((m) => m.includes('"pong"'));
      if (pong >= 0) return this.inbox.slice(0, pong);
      if (this.closed) return 'closed';
      if (Date.now() > deadline) return 'hang';
      await new Promise<void>((r) => {
        this.waiter = r;
        setTimeout(r, 200);
      });
      this.waiter = null;
    }
  }

  close(): void {
    this.ws?.close();
  }
}

// ---- the campaign ------------------------------------------------------------------------

export async function runFuzz(node: FuzzTargetNode, opts: FuzzOptions): Promise<FuzzReport> {
  const c = new Chooser(opts.seed);
  const wallets = devWallets.slice(1, 5);
  const users = wallets.map((w) => w.address.toLowerCase());
  const report = { inputs: 0, bySurface: {} as Record<string, number>, byStatus: {} as Record<string, number>, refusalsChecked: 0, msBySurface: {} as Record<string, number>, findings: [] as Finding[] };
  const ws = node.wsUrl === null ? null : new WsProbe(`${node.wsUrl}`, false);
  const hlWs = node.wsUrl === null ? null : new WsProbe(`${node.wsUrl.replace(/\/ws$/, '')}/hyperliquid/ws`, true);
  const find = (surface: Surface, input: string, problem: string) => report.findings.push({ surface, input: input.slice(0, 400), problem });
  const tally = (key: string) => (report.byStatus[key] = (report.byStatus[key] ?? 0) + 1);
  const surfaces = SURFACES.filter((s) => (s !== 'rpc' || node.rpcUrl !== null) && ((s !== 'ws' && s !== 'hlWs') || node.wsUrl !== null));

  /**
   * Checks an HTTP answer; returns the parsed body of a 2xx JSON answer. `page`: a mutated path
   * that left the API (the explorer page's files answer there, not in JSON).
   */
  const checkHttp = (surface: Surface, input: string, a: Awaited<ReturnType<typeof http>>, dialect = false, page = false): unknown => {
    if ('hang' in a) return void find(surface, input, `no answer within ${REQUEST_TIMEOUT_MS} ms`);
    if ('reset' in a) return void find(surface, input, `connection failed: ${a.reset}`);
    tally(String(a.status));
    if (a.status >= 500) return void find(surface, input, `status ${a.status}: ${a.text.slice(0, 200)}`);
    if (a.status === 204 && a.text === '') return undefined; // nothing to answer (a JSON-RPC notification)
    if (a.status >= 400) {
      const problem = errorBodyProblem(a.status, a.text, dialect);
      if (problem !== null) find(surface, input, problem);
      return undefined;
    }
    try {
      return JSON.parse(a.text);
    } catch {
      if (page) return undefined;
      return void find(surface, input, `status ${a.status} with a body that is not JSON: ${a.text.slice(0, 120)}`);
    }
  };

  /** A JSON body, structurally or byte-mutated (sometimes the seed itself). */
  const mutated = (seed: Json): Buffer => {
    const r = c.int(10);
    if (r === 0) return Buffer.from(JSON.stringify(seed));
    if (r <= 5) return Buffer.from(JSON.stringify(mutateValue(c, seed)) ?? 'null');
    return mutateBytes(c, JSON.stringify(seed));
  };

  try {
    for (let i = 0; i < opts.inputs && report.findings.length < (opts.maxFindings ?? 20); i++) {
      const surface = surfaces[i % surfaces.length] as Surface;
      report.bySurface[surface] = (report.bySurface[surface] ?? 0) + 1;
      report.inputs++;
      const now = Date.now();
      const started = performance.now();
      const user = c.pick(users);
      switch (surface) {
        case 'info':
        case 'hlInfo': {
          const types = surface === 'info' ? INFO_TYPES : HYPERLIQUID_INFO_TYPES;
          const body = mutated(infoSeed(c, c.chance(0.95) ? c.pick(types) : c.string(), users, now));
          checkHttp(surface, body.toString(), await http(`${node.restUrl}${surface === 'info' ? '/info' : '/hyperliquid/info'}`, 'POST', body), surface === 'hlInfo');
          break;
        }
        case 'exchange':
        case 'hlExchange': {
          const seeds = actionSeeds(c, users, now);
          const action = seeds[c.pick(Object.keys(seeds))] as Json;
          const wallet = c.pick(wallets);
          // Signed after the mutation (the signature holds and the action reaches parsing and
          // execution) or before it (the signature no longer matches).
          let signFirst = c.chance(0.5);
          let signed: Json;
          try {
            signed = (await signRequest(wallet, signFirst ? action : mutateValue(c, action), now + i)) as unknown as Json;
          } catch {
            // Not signable by the client's canonicalization (a lone surrogate): mutated after signing instead.
            signFirst = true;
            signed = (await signRequest(wallet, action, now + i)) as unknown as Json;
          }
          const body = signFirst ? mutated(signed) : Buffer.from(JSON.stringify(signed));
          const heightBefore = node.height();
          const before = snapshotOf(node.exchange);
          const path = surface === 'exchange' ? '/exchange' : '/hyperliquid/exchange';
          const a = await http(`${node.restUrl}${path}`, 'POST', body);
          const answer = checkHttp(surface, body.toString(), a, surface === 'hlExchange') as { status?: string } | undefined;
          if ('status' in a && (a.status >= 400 || answer?.status === 'err')) {
            report.refusalsChecked++;
            // No block since (the node makes none while idle): nothing may have changed at all.
            const executed = node.height() !== heightBefore;
            const after = snapshotOf(node.exchange);
            const stateBefore = stateText(before, executed);
            const stateAfter = stateText(after, executed);
            // Money the clock moves in the same block, not the request: funding when an interval
            // opens, and staking withdrawals whose unbonding delay ended (paid at the block's end).
            const pending = (x: Record<string, unknown>) => JSON.stringify((x.staking as { pending?: unknown } | undefined)?.pending ?? []);
            const clockMoved = executed && (before.fundingIntervalStart !== after.fundingIntervalStart || pending(before) !== pending(after));
            if (!clockMoved && stateAfter !== stateBefore) find(surface, body.toString(), `a refused request (${a.status === 200 ? JSON.stringify(answer).slice(0, 160) : a.status}) changed the exchange state ${firstDifference(stateBefore, stateAfter)}`);
          }
          break;
        }
        case 'v1': {
          const route = c.pick(V1_ROUTES)(c, user);
          let path = route.path;
          if (c.chance(0.4)) path = mutateBytes(c, path).toString('latin1').replace(/[^\x21-\x7e]/g, '%').replace(/^[^/]/, '/');
          const body = route.method === 'POST' ? mutated({ action: { type: 'order', orders: [] }, nonce: now, signature: { r: '0x1', s: '0x1', v: 27 }, address: user, name: 'k' }) : undefined;
          checkHttp(surface, `${route.method} ${path} ${body?.toString() ?? ''}`, await http(`${node.restUrl}${path}`, route.method, body), false, !apiPath(node.restUrl, path, '/v1/'));
          break;
        }
        case 'v4':
        case 'stats': {
          const names = surface === 'v4' ? HISTORY_ROUTE_NAMES : STATS_ROUTE_NAMES;
          const q = querySeed(c, user, now);
          if (c.chance(0.5)) q[c.pick(Object.keys(q).length > 0 ? Object.keys(q) : ['coin'])] = c.chance(0.5) ? c.string() : JSON.stringify(c.value());
          let path = `/${surface}/${c.chance(0.95) ? c.pick(names) : c.string()}?${new URLSearchParams(q).toString()}`;
          if (c.chance(0.2)) path = mutateBytes(c, path).toString('latin1').replace(/[^\x21-\x7e]/g, '%').replace(/^[^/]/, '/');
          checkHttp(surface, `GET ${path}`, await http(`${node.restUrl}${path}`, 'GET'), false, !apiPath(node.restUrl, path, `/${surface}/`));
          break;
        }
        case 'rpc': {
          const method = c.chance(0.95) ? c.pick(ETH_METHOD_NAMES) : c.string();
          const one = () => ({ jsonrpc: '2.0', id: c.int(1000), method, params: rpcParams(c, method, user) });
          const seed: Json = c.chance(0.1) ? [one(), one(), one()] : one();
          const body = mutated(seed);
          const a = await http(node.rpcUrl as string, 'POST', body);
          if ('status' in a && a.status < 500 && a.status >= 400) {
            tally(String(a.status));
            break; // a transport-level refusal (oversized, not JSON-RPC at all): the body is the server's own
          }
          const answer = checkHttp(surface, body.toString(), a);
          const ok = (x: unknown) => {
            const r = x as Record<string, unknown> | null;
            if (r === null || typeof r !== 'object' || r.jsonrpc !== '2.0') return false;
            if ('error' in r) return typeof (r.error as { code?: unknown })?.code === 'number' && typeof (r.error as { message?: unknown }).message === 'string';
            return 'result' in r;
          };
          if (answer !== undefined && !(Array.isArray(answer) ? answer.every(ok) : ok(answer))) find(surface, body.toString(), `not a JSON-RPC answer: ${JSON.stringify(answer).slice(0, 200)}`);
          break;
        }
        case 'ws':
        case 'hlWs': {
          const probe = (surface === 'ws' ? ws : hlWs) as WsProbe;
          const subs: Json[] = surface === 'ws'
            ? [{ type: 'l2Book', coin: 'BTC' }, { type: 'trades', coin: 'ETH' }, { type: 'allMids' }, { type: 'userFills', user }, { type: 'orderUpdates', user }, { type: 'candle', coin: 'BTC', interval: '1m' }, { type: 'userEvents', user }]
            : [{ type: 'l2Book', coin: 'BTC' }, { type: 'webData2', user }, { type: 'clearinghouseState', user }, { type: 'allMids' }, { type: 'activeAssetData', user, coin: 'BTC' }];
          const seeds: Json[] = [
            { method: 'subscribe', subscription: c.pick(subs) },
            { method: 'unsubscribe', subscription: c.pick(subs) },
            { method: 'post', id: c.int(1000), request: { type: 'info', payload: infoSeed(c, c.pick(surface === 'ws' ? INFO_TYPES : HYPERLIQUID_INFO_TYPES), users, now) } },
            { method: 'post', id: c.int(1000), request: { type: 'action', payload: { action: { type: 'noop' }, nonce: now, signature: { r: '0x1', s: '0x1', v: 27 }, vaultAddress: null } } },
          ];
          const frame = mutated(c.pick(seeds));
          const out = await probe.send(frame);
          if (out === 'hang') find(surface, frame.toString(), `no pong within ${REQUEST_TIMEOUT_MS} ms`);
          else if (out === 'closed') tally('ws:closed');
          else {
            tally('ws:answered');
            for (const m of out) {
              let msg: Record<string, unknown>;
              try {
                msg = JSON.parse(m) as Record<string, unknown>;
              } catch {
                find(surface, frame.toString(), `a message that is not JSON: ${m.slice(0, 120)}`);
                continue;
              }
              if (msg.channel === 'error' && typeof msg.data !== 'string') find(surface, frame.toString(), `error without a message: ${m.slice(0, 160)}`);
            }
          }
          break;
        }
      }
      report.msBySurface[surface] = (report.msBySurface[surface] ?? 0) + performance.now() - started;
      if (opts.onProgress !== undefined && (i + 1) % (opts.progressEvery ?? 1000) === 0) opts.onProgress(i + 1);
    }
    // Still serving: a plain request answers.
    const health = await http(`${node.restUrl}/info`, 'POST', JSON.stringify({ type: 'meta' }));
    if (!('status' in health) || health.status !== 200) find('info', '{"type":"meta"}', 'the node no longer answers after the campaign');
  } finally {
    ws?.close();
    hlWs?.close();
  }
  return report;
}
