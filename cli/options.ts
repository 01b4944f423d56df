// Command-line flags of `svc devnet`, mapped onto typed options; the environment is read here only.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { rateLimitsFrom, type RateLimitConfig } from '../rpc/index.ts';

export interface DevnetOptions {
  readonly dataDir: string;
  readonly restPort: number;
  readonly wsPort: number;
  readonly rpcPort: number;
  readonly host: string;
  readonly fresh: boolean;
  readonly oracleIntervalMs: number;
  /** JSON-RPC URLs of local chains to bridge (the devnet deploys the bridge there once). */
  readonly bridgeChains: readonly string[];
  /** An existing USDC on those chains; absent: the devnet deploys a test USDC. */
  readonly bridgeToken: string | null;
  readonly bridgeConfirmations: number;
  /** PostgreSQL URL of the history store; null: the embedded store in the data directory. */
  readonly indexerDb: string | null;
  /** False with --no-history: no indexer, no /v4 or /stats. */
  readonly history: boolean;
  /** False with --no-explorer: no page at `/`. */
  readonly explorer: boolean;
  readonly rateLimits: RateLimitConfig;
  /** Worker threads recovering signers; null: the node's default (docs/performance.md). */
  readonly signerWorkers: number | null;
  /** A block starts at least this long after the one before (ms); null: the node's default. */
  readonly minBlockIntervalMs: number | null;
}

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const DEVNET_USAGE = `Usage: svc devnet [options]

Runs a single-validator local chain from the built-in devnet genesis.

Options:
  --data-dir <dir>   where blocks and state live (default: $SVC_HOME/devnet, SVC_HOME=~/.svc)
  --rest-port <n>    REST API port (default 4001; 0 picks a free port)
  --ws-port <n>      WebSocket port, path /ws (default 4000; 0 picks a free port)
  --rpc-port <n>     EVM JSON-RPC port, HTTP and WebSocket (default 3001; 0 picks a free port)
  --host <addr>      interface to listen on (default 127.0.0.1)
  --fresh            wipe the data directory first
  --oracle-interval <ms>  publish the devnet oracle prices this often (default 3000; 0 = never)
  --bridge-chain <url>    bridge USDC with the EVM chain at this JSON-RPC URL (e.g. anvil; repeatable):
                          deploys the bridge there once (and a test USDC), then relays deposits and withdrawals
  --bridge-token <addr>   the USDC contract on the bridged chain (default: deploy a test USDC)
  --bridge-confirmations <n>  blocks that must hold a deposit before it is credited (default 1)
  --indexer-db <url>      keep the history in PostgreSQL (postgres://user@host:port/db) instead of
                          the embedded store in the data directory (docs/history.md)
  --no-history            keep no history: no indexer; /v4 and /stats answer 503
  --no-explorer           serve no explorer page at / on the REST port
  --rate-limits <preset>  devnet (default: request limits off) or spec (the spec's limits and
                          the node's defaults, as testnet and mainnet nodes run; docs/api.md)
  --rate-limit <scope>=<per minute>[/<burst>]  one scope's limit over the preset (repeatable;
                          0 = none): stats, info, historical-free, historical-authenticated,
                          historical-staker, exchange-ip, exchange-signer, v1; or a count for
                          ws-connections-per-ip, ws-subscriptions-per-connection, ws-subscriptions-per-ip
  --signer-workers <n>    worker threads recovering signers (default: one per core, 1 to 4; 0 =
                          on the event loop)
  --min-block-interval <ms>  a block starts at least this long after the one before (default 0:
                          back to back; larger blocks cost less CPU an action under load, and
                          add up to that long to an answer; docs/performance.md)
  -h, --help         show this help`;

function port(value: string | undefined, fallback: number, flag: string): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new UsageError(`${flag} must be a port number from 0 to 65535, got "${value}"`);
  return n;
}

function interval(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) > 86_400_000) throw new UsageError(`--oracle-interval must be a number of milliseconds, got "${value}"`);
  return Number(value);
}

function bridgeToken(value: string | undefined): string | null {
  if (value === undefined) return null;
  if (!/^0x[0-9a-fA-F]{40}$/.test(value)) throw new UsageError(`--bridge-token must be a 0x-prefixed 20-byte address, got "${value}"`);
  return value.toLowerCase();
}

function confirmations(value: string | undefined): number {
  if (value === undefined) return 1;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 1000) throw new UsageError(`--bridge-confirmations must be from 1 to 1000, got "${value}"`);
  return Number(value);
}

export function indexerDb(value: string | undefined): string | null {
  if (value === undefined) return null;
  if (!/^postgres(ql)?:\/\/.+/.test(value)) throw new UsageError(`--indexer-db must be a postgres:// URL, got "${value}"`);
  return value;
}

/** A preset and `scope=value` overrides (`--rate-limit info=2400/600`). */
function rateLimits(preset: string, flags: readonly string[]): RateLimitConfig {
  const overrides: Record<string, string> = {};
  for (const f of flags) {
    const eq = f.indexOf('=');
    if (eq <= 0) throw new UsageError(`--rate-limit must be <scope>=<value>, got "${f}"`);
    overrides[f.slice(0, eq)] = f.slice(eq + 1);
  }
  try {
    return rateLimitsFrom(preset, overrides);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

function signerWorkers(v: string | undefined): number | null {
  if (v === undefined) return null;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 64) throw new UsageError(`--signer-workers must be an integer from 0 to 64, got "${v}"`);
  return n;
}

function minBlockInterval(v: string | undefined): number | null {
  if (v === undefined) return null;
  if (!/^\d+$/.test(v) || Number(v) > 1000) throw new UsageError(`--min-block-interval must be a number of milliseconds from 0 to 1000, got "${v}"`);
  return Number(v);
}

export function parseDevnetOptions(argv: string[], env: NodeJS.ProcessEnv): DevnetOptions | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        'data-dir': { type: 'string' },
        'rest-port': { type: 'string' },
        'ws-port': { type: 'string' },
        'rpc-port': { type: 'string' },
        host: { type: 'string' },
        fresh: { type: 'boolean' },
        'oracle-interval': { type: 'string' },
        'bridge-chain': { type: 'string', multiple: true },
        'bridge-token': { type: 'string' },
        'bridge-confirmations': { type: 'string' },
        'indexer-db': { type: 'string' },
        'no-history': { type: 'boolean' },
        'no-explorer': { type: 'boolean' },
        'rate-limits': { type: 'string' },
        'rate-limit': { type: 'string', multiple: true },
        'signer-workers': { type: 'string' },
        'min-block-interval': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (values.help) return 'help';
  const home = env.SVC_HOME ?? join(homedir(), '.svc');
  return {
    dataDir: resolve(values['data-dir'] ?? join(home, 'devnet')),
    restPort: port(values['rest-port'], 4001, '--rest-port'),
    wsPort: port(values['ws-port'], 4000, '--ws-port'),
    rpcPort: port(values['rpc-port'], 3001, '--rpc-port'),
    host: values.host ?? '127.0.0.1',
    fresh: values.fresh ?? false,
    oracleIntervalMs: interval(values['oracle-interval'], 3000),
    bridgeChains: (values['bridge-chain'] ?? []).map((url) => {
      if (!/^https?:\/\/.+/.test(url)) throw new UsageError(`--bridge-chain must be an http(s) JSON-RPC URL, got "${url}"`);
      return url;
    }),
    bridgeToken: bridgeToken(values['bridge-token']),
    bridgeConfirmations: confirmations(values['bridge-confirmations']),
    indexerDb: indexerDb(values['indexer-db']),
    history: !(values['no-history'] ?? false),
    explorer: !(values['no-explorer'] ?? false),
    rateLimits: rateLimits(values['rate-limits'] ?? 'devnet', values['rate-limit'] ?? []),
    signerWorkers: signerWorkers(values['signer-workers']),
    minBlockIntervalMs: minBlockInterval(values['min-block-interval']),
  };
}
