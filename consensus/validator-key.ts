// Ed25519 validator keys: node:crypto keeps and exports them (PEM), libsodium signs
// (primitives' `signEd25519`: 16-19 µs against node:crypto's 26-31 in a loop here, and a devnet
// signs every block).
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { signEd25519, verifyEd25519 } from '../primitives/index.ts';

export interface ValidatorKey {
  /** Hex of the raw 32-byte public key. */
  readonly publicKey: string;
  sign(message: Uint8Array): string;
  /** PKCS#8 PEM, for storage. */
  exportPem(): string;
}

function rawPublicKey(key: KeyObject): string {
  const jwk = key.export({ format: 'jwk' });
  return Buffer.from(jwk.x as string, 'base64url').toString('hex');
}

function fromPrivate(priv: KeyObject): ValidatorKey {
  if (priv.asymmetricKeyType !== 'ed25519') throw new Error(`a validator key is an Ed25519 key, not ${priv.asymmetricKeyType ?? 'unknown'}`);
  const publicKey = rawPublicKey(createPublicKey(priv));
  // libsodium's secret key: the RFC 8032 seed (the JWK's d), then the public key; its own
  // allocation, not a slice of Node's shared pool.
  const secretKey = Buffer.alloc(64);
  secretKey.set(Buffer.from(priv.export({ format: 'jwk' }).d as string, 'base64url'), 0);
  secretKey.set(Buffer.from(publicKey, 'hex'), 32);
  return {
    publicKey,
    sign: (message) => signEd25519(secretKey, message),
    exportPem: () => priv.export({ format: 'pem', type: 'pkcs8' }).toString(),
  };
}

export function generateValidatorKey(): ValidatorKey {
  return fromPrivate(generateKeyPairSync('ed25519').privateKey);
}

export function validatorKeyFromPem(pem: string): ValidatorKey {
  return fromPrivate(createPrivateKey(pem));
}

/** PKCS#8 DER prefix of an Ed25519 private key; the 32-byte seed follows. */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** A key from a 32-byte seed (RFC 8032): deterministic keys for tests and simulations. */
export function validatorKeyFromSeed(seed: Uint8Array): ValidatorKey {
  if (seed.length !== 32) throw new Error('an ed25519 seed is 32 bytes');
  return fromPrivate(createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' }));
}

/** False for malformed keys or signatures as well as for wrong ones: never throws on input. */
export const verifyValidatorSignature = verifyEd25519;
