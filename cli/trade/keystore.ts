// Trading keys on disk: one file per key under $SVC_HOME/keys, an Ethereum V3 keystore (scrypt +
// AES-128-CTR, the format of geth, Foundry and ethers) encrypted with a passphrase, or, with
// --insecure, the private key in clear text in a file of mode 0600, flagged as such everywhere.
import { chmod, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { HDNodeWallet, Mnemonic, Wallet } from 'ethers';
import { UsageError } from '../options.ts';

export interface StoredKey {
  readonly name: string;
  readonly address: string;
  readonly encrypted: boolean;
  readonly file: string;
}

interface InsecureFile {
  readonly insecure: true;
  readonly address: string;
  readonly privateKey: string;
}

const NAME_RE = /^[A-Za-z0-9_.-]{1,64}$/;
export const DEV_MNEMONIC = 'test test test test test test test test test test test junk';

export function keysDir(env: NodeJS.ProcessEnv, home: string): string {
  return join(env.SVC_HOME ?? join(home, '.svc'), 'keys');
}

export function checkName(name: string): string {
  if (!NAME_RE.test(name)) throw new UsageError(`key name must be 1 to 64 letters, digits, "_", "." or "-", got "${name}"`);
  return name;
}

/** A private key from a mnemonic (BIP-39) at m/44'/60'/0'/0/index, or from hex. */
export function walletFrom(source: { mnemonic?: string; privateKey?: string; index?: number }): Wallet | HDNodeWallet {
  if (source.mnemonic !== undefined) {
    const phrase = source.mnemonic.trim().split(/\s+/).join(' ');
    if (!Mnemonic.isValidMnemonic(phrase)) throw new UsageError('not a valid BIP-39 mnemonic (check the words and their count)');
    return HDNodeWallet.fromPhrase(phrase, undefined, `m/44'/60'/0'/0/${source.index ?? 0}`);
  }
  const hex = (source.privateKey ?? '').trim();
  const key = hex.startsWith('0x') ? hex : `0x${hex}`;
  if (!/^0x[0-9a-fA-F]{64}$/.test(key)) throw new UsageError('a private key is 32 bytes of hex (64 digits, 0x optional)');
  return new Wallet(key);
}

/** Writes the key; refuses to overwrite one of the same name. `passphrase` null: stored in clear. */
export async function saveKey(dir: string, name: string, wallet: Wallet | HDNodeWallet, passphrase: string | null): Promise<StoredKey> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `${checkName(name)}.json`);
  const body = passphrase === null
    ? JSON.stringify({ insecure: true, address: wallet.address.toLowerCase(), privateKey: wallet.privateKey } satisfies InsecureFile)
    : await wallet.encrypt(passphrase);
  try {
    await writeFile(file, `${body}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new UsageError(`a key named "${name}" exists already (${file})`);
    throw err;
  }
  await chmod(file, 0o600);
  return { name, address: wallet.address.toLowerCase(), encrypted: passphrase !== null, file };
}

export async function listKeys(dir: string): Promise<StoredKey[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((f) => f.endsWith('.json')).sort();
  } catch {
    return [];
  }
  const out: StoredKey[] = [];
  for (const f of names) {
    const file = join(dir, f);
    try {
      const j = JSON.parse(await readFile(file, 'utf8')) as { insecure?: boolean; address?: string };
      const address = (j.address ?? '').toLowerCase();
      out.push({ name: f.slice(0, -5), address: address.startsWith('0x') ? address : `0x${address}`, encrypted: j.insecure !== true, file });
    } catch {
      // not a key file: skipped
    }
  }
  return out;
}

/** The private key of a stored key; `passphrase` is asked only for an encrypted one. */
export async function loadKey(dir: string, name: string, passphrase: () => Promise<string>): Promise<{ privateKey: string; encrypted: boolean }> {
  const file = join(dir, `${checkName(name)}.json`);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new UsageError(`no key named "${name}" in ${dir} (svc keys list; svc keys new --name ${name})`);
  }
  const j = JSON.parse(text) as Partial<InsecureFile>;
  if (j.insecure === true && typeof j.privateKey === 'string') return { privateKey: j.privateKey, encrypted: false };
  try {
    return { privateKey: (await Wallet.fromEncryptedJson(text, await passphrase())).privateKey, encrypted: true };
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot decrypt key "${name}": wrong passphrase?`);
  }
}
