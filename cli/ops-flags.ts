// Operations flags of `svc devnet` and `svc start`: logs, metrics, TLS and CPU pinning
// (docs/operations.md).
// Taken out of the argument list before the command parses the rest; `svc start` reads the same
// settings from config.json, the flags winning.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createLogger, isLogLevel, type LogLevel, type Logger, type NodeConfig } from '../node/index.ts';
import { UsageError } from './options.ts';

export interface OpsFlags {
  readonly logLevel?: LogLevel;
  readonly logJson?: boolean;
  /** A number, 'off', or absent (the command's default). */
  readonly metricsPort?: number | 'off';
  readonly metricsHost?: string;
  readonly tlsCert?: string;
  readonly tlsKey?: string;
  readonly pinEventLoop?: boolean;
}

/** What config.json may say about the same (paths relative to the home). */
export interface OpsConfig {
  readonly logLevel?: string;
  readonly logJson?: boolean;
  readonly metricsPort?: number | null;
  readonly metricsHost?: string;
  readonly tls?: { readonly cert: string; readonly key: string } | null;
  readonly pinEventLoop?: boolean;
}

export const OPS_USAGE = `Operations (docs/operations.md):
  --log-level <level>     error, warn, info (default) or debug
  --log-json              one JSON object per line ({"time","level","msg"})
  --metrics-port <n>      Prometheus metrics (GET /metrics) and GET /status on this port (0 picks
                          one; "off" serves none); devnet default off
  --metrics-host <addr>   interface of the metrics port (default 127.0.0.1)
  --tls-cert <file>       PEM certificate chain: REST, WebSocket and JSON-RPC serve TLS 1.3 only
  --tls-key <file>        its PEM private key
  --pin-event-loop        run the event loop on one CPU and the node's other threads on the rest
                          (Linux; for a machine the node has to itself; docs/performance.md)`;

const VALUED = new Set(['--log-level', '--metrics-port', '--metrics-host', '--tls-cert', '--tls-key']);

/** Splits the operations flags (`--flag value` or `--flag=value`) from the command's own. */
export function takeOpsFlags(argv: readonly string[]): { rest: string[]; ops: OpsFlags } {
  const rest: string[] = [];
  const ops: { -readonly [K in keyof OpsFlags]: OpsFlags[K] } = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--log-json') {
      ops.logJson = true;
      continue;
    }
    if (arg === '--pin-event-loop') {
      ops.pinEventLoop = true;
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (!VALUED.has(name)) {
      rest.push(arg);
      continue;
    }
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new UsageError(`${name} needs a value`);
    switch (name) {
      case '--log-level':
        if (!isLogLevel(value)) throw new UsageError(`--log-level must be error, warn, info or debug, got "${value}"`);
        ops.logLevel = value;
        break;
      case '--metrics-port':
        if (value === 'off') ops.metricsPort = 'off';
        else if (/^\d+$/.test(value) && Number(value) <= 65535) ops.metricsPort = Number(value);
        else throw new UsageError(`--metrics-port must be a port number from 0 to 65535 or "off", got "${value}"`);
        break;
      case '--metrics-host':
        ops.metricsHost = value;
        break;
      case '--tls-cert':
        ops.tlsCert = value;
        break;
      case '--tls-key':
        ops.tlsKey = value;
        break;
    }
  }
  return { rest, ops };
}

export function opsLogger(ops: OpsFlags, config: OpsConfig = {}): Logger {
  const level = ops.logLevel ?? config.logLevel ?? 'info';
  if (!isLogLevel(level)) throw new UsageError(`config.json: logLevel must be error, warn, info or debug, got "${level}"`);
  return createLogger({ level, json: ops.logJson ?? config.logJson ?? false });
}

async function pem(path: string, what: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (err) {
    throw new UsageError(`cannot read the TLS ${what} ${path}: ${(err as Error).message}`);
  }
}

/** The node settings of the flags over config.json's (`base`: where config.json's relative paths start). */
export async function opsNodeConfig(ops: OpsFlags, logger: Logger, config: OpsConfig = {}, base = process.cwd()): Promise<Pick<NodeConfig, 'log' | 'logger' | 'metricsPort' | 'metricsHost' | 'tls' | 'pinEventLoop'>> {
  const metricsPort = ops.metricsPort === 'off' ? null : (ops.metricsPort ?? config.metricsPort ?? null);
  if (metricsPort !== null && (!Number.isInteger(metricsPort) || metricsPort < 0 || metricsPort > 65535)) throw new UsageError(`config.json: metricsPort must be a port number or null, got ${String(metricsPort)}`);
  const certPath = ops.tlsCert !== undefined ? resolve(ops.tlsCert) : config.tls != null ? resolve(base, config.tls.cert) : undefined;
  const keyPath = ops.tlsKey !== undefined ? resolve(ops.tlsKey) : config.tls != null ? resolve(base, config.tls.key) : undefined;
  if ((certPath === undefined) !== (keyPath === undefined)) throw new UsageError('TLS needs both a certificate and a key (--tls-cert and --tls-key, or config.json "tls": {"cert", "key"})');
  const tls = certPath === undefined || keyPath === undefined ? null : { cert: await pem(certPath, 'certificate'), key: await pem(keyPath, 'key') };
  const pinEventLoop = ops.pinEventLoop ?? config.pinEventLoop ?? false;
  if (typeof pinEventLoop !== 'boolean') throw new UsageError(`config.json: pinEventLoop must be true or false, got ${JSON.stringify(pinEventLoop)}`);
  return { log: logger.info, logger, metricsPort, metricsHost: ops.metricsHost ?? config.metricsHost ?? '127.0.0.1', tls, pinEventLoop };
}
