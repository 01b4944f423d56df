// The node's API keys (rpc/api-keys.ts declares the store): node-local, never in consensus state.
// No secret is stored anywhere: a master key file in the data directory (api_key_master.hex, mode
// 0600, created on first use) derives each key's secret as HMAC-SHA256(master, api key). The
// database holds only metadata (address, name, creation and revocation times), and the nonces of
// recent create requests so that a replayed one is refused after a restart too. Records are few
// and held in memory; writes go to disk (fsync) before they are answered.
import { createHmac, randomBytes } from 'node:crypto';
import type { Address } from '../primitives/index.ts';
import type { ApiKeyRecord, ApiKeyStore } from '../rpc/index.ts';
import { API_KEY_MASTER, createKeyFile, readKeyFile } from './key-files.ts';
import type { LocalKv } from './storage.ts';

export const API_KEY_MASTER_FILE = API_KEY_MASTER.name;

const hex16 = (n: number) => n.toString(16).padStart(16, '0');

interface StoredKey {
  readonly address: Address;
  readonly name: string;
  readonly createdAt: number;
  readonly revokedAt: number | null;
}

export class NodeApiKeyStore implements ApiKeyStore {
  private readonly records = new Map<string, ApiKeyRecord>();
  private readonly byAddress = new Map<Address, string[]>();
  /** Nonces of create requests by signer, kept for the nonce window. */
  private readonly nonces = new Map<Address, Set<number>>();
  private lastSweep = 0;
  private creatingMaster: Promise<Buffer> | null = null;

  private constructor(
    private readonly kv: LocalKv,
    private readonly dataDir: string,
    private master: Buffer | null,
    private readonly nonceWindowMs: number,
  ) {}

  static async open(kv: LocalKv, dataDir: string, nonceWindowMs: number, now: number): Promise<NodeApiKeyStore> {
    const store = new NodeApiKeyStore(kv, dataDir, await readKeyFile(dataDir, API_KEY_MASTER), nonceWindowMs);
    for await (const [k, v] of kv.entries({ gt: 'k!', lt: 'k!~' })) {
      const r = v as StoredKey;
      store.remember({ apiKey: k.slice(2), address: r.address, name: r.name, createdAt: r.createdAt, revokedAt: r.revokedAt });
    }
    for await (const [k, v] of kv.entries({ gt: 'n!', lt: 'n!~' })) {
      const signer = k.split('!')[1];
      const nonce = v as number;
      if (signer === undefined || nonce < now - nonceWindowMs) await kv.del(k);
      else store.nonceSet(signer).add(nonce);
    }
    return store;
  }

  async create(address: Address, name: string, now: number): Promise<{ record: ApiKeyRecord; secret: string }> {
    const master = this.master ?? (await this.createMaster());
    const apiKey = randomBytes(16).toString('hex');
    const record: ApiKeyRecord = { apiKey, address, name, createdAt: now, revokedAt: null };
    await this.kv.put(`k!${apiKey}`, stored(record));
    this.remember(record);
    return { record, secret: deriveSecret(master, apiKey) };
  }

  get(apiKey: string): ApiKeyRecord | undefined {
    return this.records.get(apiKey);
  }

  secretOf(apiKey: string): string | null {
    return this.master === null || !this.records.has(apiKey) ? null : deriveSecret(this.master, apiKey);
  }

  list(address: Address): ApiKeyRecord[] {
    return (this.byAddress.get(address) ?? [])
      .map((k) => this.records.get(k) as ApiKeyRecord)
      .sort((x, y) => x.createdAt - y.createdAt || (x.apiKey < y.apiKey ? -1 : 1));
  }

  async revoke(apiKey: string, now: number): Promise<ApiKeyRecord | undefined> {
    const r = this.records.get(apiKey);
    if (r === undefined || r.revokedAt !== null) return r;
    const revoked: ApiKeyRecord = { ...r, revokedAt: now };
    await this.kv.put(`k!${apiKey}`, stored(revoked));
    this.records.set(apiKey, revoked);
    return revoked;
  }

  async useNonce(signer: Address, nonce: number, now: number): Promise<boolean> {
    if (now - this.lastSweep > this.nonceWindowMs) await this.sweep(now);
    const set = this.nonceSet(signer);
    if (set.has(nonce)) return false;
    set.add(nonce); // before the write: a concurrent replay is refused already
    await this.kv.put(`n!${signer}!${hex16(nonce)}`, nonce);
    return true;
  }

  /** Forgets the nonces that have left the window (they are refused as too old anyway). */
  private async sweep(now: number): Promise<void> {
    this.lastSweep = now;
    const oldest = now - this.nonceWindowMs;
    for (const [signer, set] of this.nonces) {
      for (const n of set) {
        if (n >= oldest) continue;
        set.delete(n);
        await this.kv.del(`n!${signer}!${hex16(n)}`);
      }
      if (set.size === 0) this.nonces.delete(signer);
    }
  }

  private nonceSet(signer: Address): Set<number> {
    let set = this.nonces.get(signer);
    if (set === undefined) this.nonces.set(signer, (set = new Set()));
    return set;
  }

  private remember(r: ApiKeyRecord): void {
    if (!this.records.has(r.apiKey)) {
      const list = this.byAddress.get(r.address) ?? [];
      list.push(r.apiKey);
      this.byAddress.set(r.address, list);
    }
    this.records.set(r.apiKey, r);
  }

  /** Writes a new master key (atomically, mode 0600) the first time a key is created. */
  private createMaster(): Promise<Buffer> {
    this.creatingMaster ??= createKeyFile(this.dataDir, API_KEY_MASTER).then(
      (master) => (this.master = master),
      (err: unknown) => {
        this.creatingMaster = null; // the next key creation tries again
        throw err;
      },
    );
    return this.creatingMaster;
  }
}

function stored(r: ApiKeyRecord): StoredKey {
  return { address: r.address, name: r.name, createdAt: r.createdAt, revokedAt: r.revokedAt };
}

/** The secret of a key: hex of HMAC-SHA256(master, "svc-api-key-secret:" + api key). */
function deriveSecret(master: Buffer, apiKey: string): string {
  return createHmac('sha256', master).update(`svc-api-key-secret:${apiKey}`).digest('hex');
}
