// Flags every client command shares (--node, --key, --json, ...) and the client they make.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ActionError, ApiError, DEVNET_URL, SvcClient, TransportError } from '../../client/index.ts';
import { DEV_ACCOUNTS } from '../../genesis/index.ts';
import { UsageError } from '../options.ts';
import type { Io } from './io.ts';
import { keysDir, loadKey } from './keystore.ts';

export const COMMON_OPTIONS = {
  node: { type: 'string' },
  ws: { type: 'string' },
  key: { type: 'string' },
  'private-key': { type: 'string' },
  dev: { type: 'string' },
  vault: { type: 'string' },
  'passphrase-file': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const COMMON_HELP = `Common options:
  --node <url>         REST address of a node (default $SVC_NODE or ${DEVNET_URL}, the local devnet)
  --ws <url>           WebSocket address (default: the node's host, port 4000, path /ws)
  --key <name>         a key of "svc keys" (default $SVC_KEY, else "default")
  --private-key <hex>  sign with this key instead ($SVC_PRIVATE_KEY); "-" reads it from stdin
  --dev <n>            sign with development account n (0 to 9) of the devnet genesis
  --vault <address>    act for this main address as its approved agent (or for a sub-account)
  --passphrase-file <f>  read the key's passphrase from a file (else $SVC_PASSPHRASE, else asked)
  --json               print JSON instead of tables
  -h, --help           show this help`;

type Spec = Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>;

export interface Parsed {
  readonly values: Record<string, string | boolean | string[] | undefined>;
  readonly positionals: string[];
}

export function parse(argv: string[], options: Spec): Parsed {
  try {
    const r = parseArgs({ args: argv, options: { ...COMMON_OPTIONS, ...options }, allowPositionals: true, strict: true });
    return { values: r.values as Parsed['values'], positionals: r.positionals };
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

export class Context {
  readonly json: boolean;
  readonly nodeUrl: string;
  private client: SvcClient | null = null;

  constructor(
    readonly io: Io,
    readonly values: Parsed['values'],
  ) {
    this.json = values.json === true;
    this.nodeUrl = str(values.node) ?? io.env.SVC_NODE ?? DEVNET_URL;
  }

  get keysDir(): string {
    return keysDir(this.io.env, homedir());
  }

  /** A client that only reads. */
  reader(): SvcClient {
    return new SvcClient({ url: this.nodeUrl, wsUrl: str(this.values.ws), retry: { connectionRetries: 0 } });
  }

  /** A client that signs with the chosen key (nonces persisted per address across runs). */
  async signer(): Promise<SvcClient> {
    if (this.client !== null) return this.client;
    const privateKey = await this.privateKey();
    const probe = new SvcClient({ privateKey });
    const vault = str(this.values.vault) ?? null;
    this.client = new SvcClient({
      url: this.nodeUrl,
      wsUrl: str(this.values.ws),
      privateKey,
      vaultAddress: vault,
      nonceFile: join(this.keysDir, 'nonces', `${probe.exchange.signer.address}.nonce`),
      retry: { connectionRetries: 0 },
    });
    return this.client;
  }

  /** The address a read is about: the positional, else the signing key's account. */
  async addressOr(given: string | undefined): Promise<string> {
    if (given !== undefined) {
      if (!/^0x[0-9a-fA-F]{40}$/.test(given)) throw new UsageError(`not an address: "${given}" (0x and 40 hex digits)`);
      return given.toLowerCase();
    }
    return (await this.signer()).address;
  }

  print(json: unknown, lines: () => string[]): void {
    if (this.json) this.io.out(JSON.stringify(json, null, 2));
    else for (const l of lines()) this.io.out(l);
  }

  private async privateKey(): Promise<string> {
    const v = this.values;
    const direct = str(v['private-key']) ?? this.io.env.SVC_PRIVATE_KEY;
    if (direct !== undefined) return direct === '-' ? (await this.io.stdin()).trim() : direct;
    const dev = str(v.dev);
    if (dev !== undefined) {
      const account = /^\d$/.test(dev) ? DEV_ACCOUNTS[Number(dev)] : undefined;
      if (account === undefined) throw new UsageError(`--dev takes a development account from 0 to 9, got "${dev}"`);
      return account.privateKey;
    }
    const name = str(v.key) ?? this.io.env.SVC_KEY ?? 'default';
    return (await loadKey(this.keysDir, name, () => this.passphrase(`Passphrase for key "${name}": `))).privateKey;
  }

  async passphrase(question: string): Promise<string> {
    const file = str(this.values['passphrase-file']);
    if (file !== undefined) {
      const { readFile } = await import('node:fs/promises');
      return (await readFile(file, 'utf8')).replace(/\r?\n$/, '');
    }
    if (this.io.env.SVC_PASSPHRASE !== undefined) return this.io.env.SVC_PASSPHRASE;
    const typed = await this.io.prompt(question);
    if (typed === null) throw new UsageError('a passphrase is needed: set SVC_PASSPHRASE or --passphrase-file (no terminal to ask on)');
    return typed;
  }
}

export function str(v: string | boolean | string[] | undefined): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** The error in plain words: the node's message first, then what kind of failure it was. */
export function describeError(err: unknown): string | null {
  if (err instanceof ApiError) {
    const field = typeof err.details?.field === 'string' ? ` (field ${err.details.field})` : '';
    const hint = typeof err.details?.hint === 'string' ? `\n  expected: ${err.details.hint}` : '';
    const kind = { 400: 'bad request', 401: 'not authorized', 403: 'forbidden', 404: 'not found', 429: 'rate limited', 500: 'node error', 503: 'node unavailable' }[err.status] ?? `HTTP ${err.status}`;
    return `${err.message}${field} [${kind}]${hint}`;
  }
  if (err instanceof ActionError) return `refused: ${err.message}`;
  if (err instanceof TransportError) return `${err.message}. Is a node running there? (start a local devnet with "npm start"; --node <url> names another)`;
  return null;
}
