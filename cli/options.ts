// Command-line flags of `svc devnet`, mapped onto typed options; the environment is read here only.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

export interface DevnetOptions {
  readonly dataDir: string;
  readonly restPort: number;
  readonly wsPort: number;
  readonly rpcPort: number;
  readonly host: string;
  readonly fresh: boolean;
  readonly oracleIntervalMs: number;
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
  };
}
