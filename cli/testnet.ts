// `svc testnet`, `svc start`, `svc init`, `svc keys`: multi-validator networks. A home directory
// holds one node: config.json, genesis.json, validator_key.pem, node_key.hex, and its data.
import { mkdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { peerIdOfSeed, type TimeoutConfig } from '../consensus/index.ts';
import { registrationBytes } from '../exchange/index.ts';
import { devnetGenesis, type GenesisFile } from '../genesis/index.ts';
import { normalizeAddress } from '../primitives/index.ts';
import {
  DEFAULT_NODE_CONFIG, NODE_KEY, NodeStartError, SvcNode, VALIDATOR_KEY, bridgeSignerKey, loadOrCreateKeyFile, writeFileAtomic, type BridgeChainConfig,
} from '../node/index.ts';
import { rateLimitsFrom, type RateLimitConfig } from '../rpc/index.ts';
import { UsageError, indexerDb } from './options.ts';
import { opsLogger, opsNodeConfig, type OpsConfig, type OpsFlags } from './ops-flags.ts';

/** What `svc start` reads from <home>/config.json; logs, metrics and TLS as OpsConfig (docs/operations.md). */
export interface HomeConfig extends OpsConfig {
  readonly host: string;
  readonly restPort: number;
  readonly wsPort: number | null;
  /** libp2p listen multiaddr, e.g. /ip4/127.0.0.1/tcp/26656. */
  readonly p2pListen: string;
  /** Peers to dial: multiaddrs with /p2p/<peer id>. */
  readonly peers: string[];
  readonly emptyBlockIntervalMs: number;
  readonly oracleIntervalMs: number;
  /** Round timeouts (ms); absent: the defaults (propose 3000 + 500 per round, the votes 500 + 500). */
  readonly timeouts?: TimeoutConfig;
  /** External chains this node's bridge relayer watches (docs/bridge.md); absent: none. */
  readonly bridgeChains?: BridgeChainConfig[];
  /** How often the relayer reads them (ms); default 1000. */
  readonly bridgePollMs?: number;
  /** PostgreSQL URL of the history store (docs/history.md); absent: the embedded store. */
  readonly indexerDb?: string;
  /** false: keep no history. */
  readonly history?: boolean;
  /** false: serve no explorer page at `/` (docs/api.md). */
  readonly explorer?: boolean;
  /**
   * Rate limits: `preset` ("spec", the default, or "devnet") and scopes over it, as the devnet's
   * `--rate-limit` (`{"preset": "spec", "info": "2400/600", "ws-connections-per-ip": 200}`).
   */
  readonly rateLimits?: { readonly preset?: string } & Readonly<Record<string, string | number>>;
}

/** The node's rate limits from config.json (docs/api.md, Rate limits). */
function homeRateLimits(config: HomeConfig): RateLimitConfig {
  const { preset, ...scopes } = config.rateLimits ?? {};
  try {
    return rateLimitsFrom(typeof preset === 'string' ? preset : 'spec', scopes);
  } catch (err) {
    throw new UsageError(`config.json: rateLimits: ${(err as Error).message}`);
  }
}

export const TESTNET_USAGE = `Usage: svc testnet --validators N --out DIR [--full-nodes M] [--base-port P]

Writes a genesis and one home directory per node (DIR/node0 ...): keys, and a config with
loopback addresses and distinct ports (node i: p2p P+10i, REST P+10i+1, WebSocket P+10i+2,
metrics P+10i+3; P defaults to 26600). Start each with "svc start --home DIR/nodeI".`;

export const START_USAGE = `Usage: svc start --home DIR

Runs the node of a home directory (see "svc testnet" and "svc init") and prints its URLs.
Also takes the operations flags of "svc help" (--log-level, --log-json, --metrics-port,
--metrics-host, --tls-cert, --tls-key, --pin-event-loop), over the same settings in
config.json.`;

export const INIT_USAGE = `Usage: svc init --home DIR --genesis FILE [--listen MULTIADDR] [--peer MULTIADDR]... [--rest-port N] [--ws-port N]

Creates a home directory to join an existing network: keys (kept if present), the genesis, and a
config. Give the validators' p2p addresses (from "svc keys") as --peer.`;

export const KEYS_USAGE = `Usage: svc keys --home DIR [--operator ADDRESS]

Prints the node's validator public key (for a genesis), its bridge signer address (for the
genesis and the bridge contracts) and its p2p address (for peers' lists).
With --operator, also the registerValidator action that links the key to that account on the
home's chain (genesis.json): the operator signs and sends it to join the validators by stake.`;

type Flags = Record<string, string | boolean | (string | boolean)[] | undefined>;

function parse(argv: string[], options: NonNullable<ParseArgsConfig['options']>): Flags {
  try {
    return parseArgs({ args: argv, strict: true, allowPositionals: false, options: { ...options, help: { type: 'boolean', short: 'h' } } }).values as Flags;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

function int(value: unknown, flag: string, min: number, max: number): number {
  const n = Number(value);
  if (typeof value !== 'string' || !/^\d+$/.test(value) || n < min || n > max) throw new UsageError(`${flag} must be an integer from ${min} to ${max}`);
  return n;
}

async function writeJson(path: string, value: unknown): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** A JSON file of a home; one that does not parse (a torn or hand-broken file) is refused, naming it. */
async function readJson<T>(path: string): Promise<T> {
  const text = await readFile(path, 'utf8');
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new NodeStartError(`${path} is not valid JSON (${(err as Error).message}): restore it, or write it again (svc init, svc testnet)`);
  }
}

/** The home's validator and node keys, created (atomically, mode 0600) when absent; a key file that does not parse is refused. */
async function ensureKeys(home: string): Promise<{ publicKey: string; peerId: string; bridgeSigner: string }> {
  await mkdir(home, { recursive: true });
  const key = await loadOrCreateKeyFile(home, VALIDATOR_KEY);
  const seed = await loadOrCreateKeyFile(home, NODE_KEY);
  return { publicKey: key.publicKey, peerId: await peerIdOfSeed(seed), bridgeSigner: bridgeSignerKey(key).address };
}

export async function runTestnet(argv: string[], out: (line: string) => void): Promise<void> {
  const v = parse(argv, { validators: { type: 'string' }, 'full-nodes': { type: 'string' }, out: { type: 'string' }, 'base-port': { type: 'string' } });
  if (v.help === true) return out(TESTNET_USAGE);
  if (v.validators === undefined || v.out === undefined) throw new UsageError(`--validators and --out are required\n\n${TESTNET_USAGE}`);
  const validators = int(v.validators, '--validators', 1, 100);
  const full = v['full-nodes'] === undefined ? 0 : int(v['full-nodes'], '--full-nodes', 0, 100);
  const base = v['base-port'] === undefined ? 26600 : int(v['base-port'], '--base-port', 1024, 60000);
  const dir = resolve(v.out as string);
  const total = validators + full;
  const nodes: { home: string; publicKey: string; peerId: string; bridgeSigner: string; p2p: number; rest: number; ws: number }[] = [];
  for (let i = 0; i < total; i++) {
    const home = join(dir, `node${i}`);
    const keys = await ensureKeys(home);
    nodes.push({ home, ...keys, p2p: base + 10 * i, rest: base + 10 * i + 1, ws: base + 10 * i + 2 });
  }
  const genesis: GenesisFile = {
    ...devnetGenesis(),
    network: 'testnet',
    auth: { literalNonceBinding: false },
    validators: nodes.slice(0, validators).map((n) => ({ pubKey: n.publicKey, power: 1, bridgeSigner: n.bridgeSigner })),
  };
  const addr = (n: (typeof nodes)[0]) => `/ip4/127.0.0.1/tcp/${n.p2p}/p2p/${n.peerId}`;
  for (const [i, n] of nodes.entries()) {
    const config: HomeConfig = {
      host: '127.0.0.1', restPort: n.rest, wsPort: n.ws, p2pListen: `/ip4/127.0.0.1/tcp/${n.p2p}`,
      peers: nodes.slice(0, validators).filter((_, j) => j !== i).map(addr),
      emptyBlockIntervalMs: 1000, oracleIntervalMs: i < validators ? 3000 : 0, metricsPort: base + 10 * i + 3,
      // A loopback network for development: request limits off, as on the devnet.
      rateLimits: { preset: 'devnet' },
    };
    await writeJson(join(n.home, 'config.json'), config);
    await writeJson(join(n.home, 'genesis.json'), genesis);
  }
  await writeJson(join(dir, 'genesis.json'), genesis);
  out(`svc testnet: ${validators} validators, ${full} full nodes in ${dir}`);
  for (const [i, n] of nodes.entries()) {
    out(`  node${i}  ${i < validators ? 'validator' : 'full node'}  REST http://127.0.0.1:${n.rest}  p2p ${addr(n)}`);
  }
  out(`Start each with: svc start --home ${join(dir, 'node0')}  (and node1, ...)`);
}

export async function runInit(argv: string[], out: (line: string) => void): Promise<void> {
  const v = parse(argv, {
    home: { type: 'string' }, genesis: { type: 'string' }, listen: { type: 'string' }, peer: { type: 'string', multiple: true },
    'rest-port': { type: 'string' }, 'ws-port': { type: 'string' },
  });
  if (v.help === true) return out(INIT_USAGE);
  if (v.home === undefined || v.genesis === undefined) throw new UsageError(`--home and --genesis are required\n\n${INIT_USAGE}`);
  const home = resolve(v.home as string);
  const keys = await ensureKeys(home);
  const genesis = await readJson<GenesisFile>(resolve(v.genesis as string));
  const config: HomeConfig = {
    host: '127.0.0.1',
    restPort: v['rest-port'] === undefined ? 4001 : int(v['rest-port'], '--rest-port', 0, 65535),
    wsPort: v['ws-port'] === undefined ? 4000 : int(v['ws-port'], '--ws-port', 0, 65535),
    p2pListen: (v.listen as string | undefined) ?? '/ip4/0.0.0.0/tcp/26656',
    peers: (v.peer as string[] | undefined) ?? [],
    emptyBlockIntervalMs: 1000,
    oracleIntervalMs: 0,
    metricsPort: 26660,
  };
  await writeJson(join(home, 'config.json'), config);
  await writeJson(join(home, 'genesis.json'), genesis);
  out(`initialised ${home}`);
  out(`  validator key  ${keys.publicKey}${genesis.validators.some((x) => x.pubKey === keys.publicKey) ? ' (in the genesis)' : ' (not in the genesis: a full node)'}`);
  out(`  peer id        ${keys.peerId}`);
}

export async function runKeys(argv: string[], out: (line: string) => void): Promise<void> {
  const v = parse(argv, { home: { type: 'string' }, operator: { type: 'string' } });
  if (v.help === true) return out(KEYS_USAGE);
  if (v.home === undefined) throw new UsageError(`--home is required\n\n${KEYS_USAGE}`);
  const home = resolve(v.home as string);
  const keys = await ensureKeys(home);
  const config = JSON.parse(await readFile(join(home, 'config.json'), 'utf8').catch(() => '{}')) as Partial<HomeConfig>;
  out(`validator key  ${keys.publicKey}`);
  out(`peer id        ${keys.peerId}`);
  out(`bridge signer  ${keys.bridgeSigner}`);
  if (config.p2pListen !== undefined) out(`p2p address    ${config.p2pListen}/p2p/${keys.peerId}`);
  if (v.operator !== undefined) {
    const operator = normalizeAddress(v.operator);
    if (operator === null) throw new UsageError('--operator must be a 20-byte hex address');
    const genesis = await readJson<GenesisFile>(join(home, 'genesis.json'));
    const key = await loadOrCreateKeyFile(home, VALIDATOR_KEY);
    const signature = key.sign(registrationBytes(genesis.chainId, operator, key.publicKey));
    out(`registerValidator action (sign and send as ${operator}):`);
    out(JSON.stringify({ type: 'registerValidator', pubKey: key.publicKey, signature }));
  }
}

/** Refuses a malformed `bridgeChains` in config.json with the entry and field named (a relayer would otherwise never scan). */
function checkBridgeChains(chains: unknown): void {
  if (chains === undefined) return;
  if (!Array.isArray(chains)) throw new UsageError('config.json: bridgeChains must be an array');
  chains.forEach((c: Record<string, unknown>, i) => {
    const at = `config.json: bridgeChains[${i}]`;
    if (typeof c !== 'object' || c === null) throw new UsageError(`${at} must be an object`);
    if (typeof c.url !== 'string' || !/^https?:\/\/.+/.test(c.url)) throw new UsageError(`${at}.url must be an http(s) JSON-RPC URL`);
    if (typeof c.confirmations !== 'number' || !Number.isSafeInteger(c.confirmations) || c.confirmations < 1) throw new UsageError(`${at}.confirmations must be a whole number of blocks, at least 1`);
    if (c.contract !== undefined && (typeof c.contract !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(c.contract))) throw new UsageError(`${at}.contract must be a 20-byte hex address`);
    for (const k of ['chainId', 'fromBlock'] as const) {
      if (c[k] !== undefined && (typeof c[k] !== 'number' || !Number.isSafeInteger(c[k]) || (c[k] as number) < 0)) throw new UsageError(`${at}.${k} must be a non-negative integer`);
    }
  });
}

/** A progress bar on a terminal while the node catches up; a line now and then otherwise. */
function syncProgress(out: (line: string) => void): (height: number, target: number) => void {
  const tty = process.stdout.isTTY === true;
  let lastLine = 0;
  return (height, target) => {
    const done = height >= target;
    const width = 30;
    const filled = target === 0 ? width : Math.round((width * Math.min(height, target)) / target);
    const text = `block sync ${'#'.repeat(filled)}${'.'.repeat(width - filled)} ${height}/${target}`;
    if (tty) {
      process.stdout.write(`\r${text}${done ? ' caught up\n' : ''}`);
    } else if (done || Date.now() - lastLine > 5000) {
      lastLine = Date.now();
      out(done ? `block sync: caught up at ${height}` : text);
    }
  };
}

/** `ops`: the operations flags, over config.json's; resolves with the node and the logger's info lines. */
export async function runStart(argv: string[], plainOut: (line: string) => void, ops: OpsFlags = {}): Promise<{ node: SvcNode; out: (line: string) => void } | null> {
  const v = parse(argv, { home: { type: 'string' } });
  if (v.help === true) return plainOut(START_USAGE), null;
  if (v.home === undefined) throw new UsageError(`--home is required\n\n${START_USAGE}`);
  const home = resolve(v.home as string);
  const config = await readJson<HomeConfig>(join(home, 'config.json'));
  const genesis = await readJson<GenesisFile>(join(home, 'genesis.json'));
  checkBridgeChains(config.bridgeChains);
  const rateLimits = homeRateLimits(config);
  const logger = opsLogger(ops, config);
  const out = logger.info;
  const nodeOps = await opsNodeConfig(ops, logger, config, home);
  const node = await SvcNode.start({
    ...DEFAULT_NODE_CONFIG,
    dataDir: home,
    genesis,
    host: config.host,
    restPort: config.restPort,
    wsPort: config.wsPort,
    emptyBlockIntervalMs: config.emptyBlockIntervalMs,
    oracleIntervalMs: config.oracleIntervalMs,
    p2p: { listen: config.p2pListen, peers: config.peers },
    rateLimits,
    ...(config.timeouts !== undefined ? { timeouts: config.timeouts } : {}),
    ...(config.bridgeChains !== undefined ? { bridgeChains: config.bridgeChains } : {}),
    ...(config.bridgePollMs !== undefined ? { bridgePollMs: config.bridgePollMs } : {}),
    ...(config.indexerDb !== undefined ? { indexerDb: indexerDb(config.indexerDb) } : {}),
    ...(config.history !== undefined ? { history: config.history !== false } : {}),
    ...(config.explorer !== undefined ? { explorer: config.explorer !== false } : {}),
    onSyncProgress: syncProgress(out),
    ...nodeOps,
  });
  const validator = genesis.validators.some((x) => x.pubKey.toLowerCase() === node.validatorKey.publicKey);
  out(`svc start: ${validator ? 'validator' : 'full node'} of chain ${genesis.chainId}`);
  out(`  home          ${home}`);
  out(`  validator     ${node.validatorKey.publicKey}`);
  out(`  height        ${node.height}${node.height === 0 ? ' (new chain)' : ' (resumed)'}`);
  out(`  REST API      ${node.restUrl}  (POST /info, POST /exchange, GET /v1/...)`);
  if (node.wsUrl !== null) out(`  WebSocket     ${node.wsUrl}  (post requests and subscriptions)`);
  if (node.rpcUrl !== null) out(`  EVM JSON-RPC  ${node.rpcUrl}`);
  if (node.metricsPort !== null) out(`  metrics       http://${node.config.metricsHost}:${node.metricsPort}/metrics  (svc status --home ${home})`);
  for (const a of node.p2pAddresses) out(`  p2p           ${a}`);
  return { node, out };
}
