// The keys the node keeps in its data directory, each in a file of its own (mode 0600), created on
// first use with an atomic write (node/atomic-file.ts). A file that exists but does not hold its
// key is refused, naming it: a key is never replaced behind the operator's back.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateValidatorKey, validatorKeyFromPem, type ValidatorKey } from '../consensus/index.ts';
import { writeFileAtomic } from './atomic-file.ts';
import { DataDirDamagedError } from './start-error.ts';

export interface KeyFile<K> {
  readonly name: string;
  /** What the file holds, for the refusal. */
  readonly holds: string;
  /** What the operator does about a damaged file. */
  readonly remedy: string;
  parse(text: string): K;
  create(): { readonly key: K; readonly text: string };
}

/** 32 bytes as 64 hex digits (a trailing newline allowed). */
function hex32(text: string): Buffer {
  const hex = text.trim();
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new Error('not 64 hex digits');
  return Buffer.from(hex, 'hex');
}

function newHex32(): { key: Buffer; text: string } {
  const key = randomBytes(32);
  return { key, text: `${key.toString('hex')}\n` };
}

export const VALIDATOR_KEY: KeyFile<ValidatorKey> = {
  name: 'validator_key.pem',
  holds: 'an ed25519 private key in PKCS#8 PEM (the validator key)',
  remedy: 'restore it from a backup; removing it makes the node create a new key, which is another validator than the one the genesis or the staking state names',
  parse: validatorKeyFromPem,
  create: () => {
    const key = generateValidatorKey();
    return { key, text: key.exportPem() };
  },
};

export const NODE_KEY: KeyFile<Uint8Array> = {
  name: 'node_key.hex',
  holds: '64 hex digits (the seed of the node\'s libp2p identity)',
  remedy: 'restore it from a backup, or remove it: the node then creates a new identity, and peers that list this node by its old peer id need the new one',
  parse: (text) => Uint8Array.from(hex32(text)),
  create: newHex32,
};

export const API_KEY_MASTER: KeyFile<Buffer> = {
  name: 'api_key_master.hex',
  holds: '64 hex digits (the master key of the node\'s API keys)',
  remedy: 'restore it from a backup, or remove it and create the API keys again: every API key\'s secret derives from it',
  parse: hex32,
  create: newHex32,
};

/** The key in `dataDir`, or null when its file does not exist; a file that does not parse is refused. */
export async function readKeyFile<K>(dataDir: string, file: KeyFile<K>): Promise<K | null> {
  const path = join(dataDir, file.name);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    return file.parse(text);
  } catch (err) {
    throw new DataDirDamagedError(path, `${path} must hold ${file.holds} but does not (${(err as Error).message}): ${file.remedy}`);
  }
}

/** Writes a new key (atomically, mode 0600) to `dataDir`. */
export async function createKeyFile<K>(dataDir: string, file: KeyFile<K>): Promise<K> {
  const { key, text } = file.create();
  await writeFileAtomic(join(dataDir, file.name), text, 0o600);
  return key;
}

export async function loadOrCreateKeyFile<K>(dataDir: string, file: KeyFile<K>): Promise<K> {
  return (await readKeyFile(dataDir, file)) ?? createKeyFile(dataDir, file);
}
