// `svc status`: what a running node says about itself (GET /status on its metrics port).
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DATA_LOCK_FILE, type NodeStatus } from '../node/index.ts';
import { UsageError } from './options.ts';

export const STATUS_USAGE = `Usage: svc status (--home DIR | --node URL) [--json]

Prints a running node's height, peers, sync state, whether it is a validator, and its versions.
--home reads the metrics port from DIR/config.json ("metricsPort"); --node takes the metrics
endpoint's URL (http://127.0.0.1:26660). The node must run with its metrics port on.`;

/** The status endpoint of a home's node, or a message saying why there is none. */
async function homeUrl(home: string): Promise<string> {
  let config: { metricsPort?: number | null; metricsHost?: string };
  try {
    config = JSON.parse(await readFile(join(home, 'config.json'), 'utf8')) as typeof config;
  } catch (err) {
    throw new UsageError(`cannot read ${join(home, 'config.json')}: ${(err as Error).message}`);
  }
  if (typeof config.metricsPort !== 'number' || config.metricsPort === 0) {
    throw new UsageError(`${join(home, 'config.json')} sets no metricsPort: the node serves no status (set one, or run with --metrics-port and use --node)`);
  }
  const host = config.metricsHost === undefined || config.metricsHost === '0.0.0.0' || config.metricsHost === '::' ? '127.0.0.1' : config.metricsHost;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.metricsPort}`;
}

async function lockHolder(home: string): Promise<string | null> {
  try {
    return (await readFile(join(home, DATA_LOCK_FILE), 'utf8')).trim();
  } catch {
    return null;
  }
}

export function formatStatus(s: NodeStatus): string[] {
  return [
    `height        ${s.height} (block time ${s.headTime})`,
    `sync          ${s.syncing ? `catching up: peers are at ${s.syncTarget}` : 'caught up'}`,
    `peers         ${s.peers}`,
    `validator     ${s.validator ? 'yes' : 'no (full node)'}, key ${s.validatorKey}`,
    `chain         ${s.chainId} (${s.network}, genesis ${s.genesisHash})`,
    `mempool       ${s.mempool} transactions`,
    `versions      svc ${s.version}, node ${s.nodeVersion}`,
    `uptime        ${s.uptimeSeconds} s`,
  ];
}

export async function runStatus(argv: string[], out: (line: string) => void): Promise<number> {
  let v;
  try {
    ({ values: v } = parseArgs({ args: argv, strict: true, allowPositionals: false, options: { home: { type: 'string' }, node: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (v.help === true) return out(STATUS_USAGE), 0;
  if ((v.home === undefined) === (v.node === undefined)) throw new UsageError(`give --home or --node\n\n${STATUS_USAGE}`);
  const home = v.home === undefined ? null : resolve(v.home);
  const base = home === null ? (v.node as string).replace(/\/+$/, '').replace(/\/status$/, '') : await homeUrl(home);
  let status: NodeStatus;
  try {
    const res = await fetch(`${base}/status`, { signal: AbortSignal.timeout(5000) });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    status = (await res.json()) as NodeStatus;
  } catch (err) {
    const holder = home === null ? null : await lockHolder(home);
    const running = home === null ? '' : holder === null ? ' (no node holds the home\'s lock: it is not running)' : ` (process ${holder} holds the home's lock)`;
    console.error(`svc: no status from ${base}/status: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}${running}`);
    return 1;
  }
  if (v.json === true) out(JSON.stringify(status));
  else for (const line of formatStatus(status)) out(line);
  return 0;
}
