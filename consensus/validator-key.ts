// Ed25519 validator keys on node:crypto (native sign and verify).
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';

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
  const publicKey = rawPublicKey(createPublicKey(priv));
  return {
    publicKey,
    sign: (message) => sign(null, message, priv).toString('hex'),
    exportPem: () => priv.export({ format: 'pem', type: 'pkcs8' }).toString(),
  };
}

export function generateValidatorKey(): ValidatorKey {
  return fromPrivate(generateKeyPairSync('ed25519').privateKey);
}

export function validatorKeyFromPem(pem: string): ValidatorKey {
  return fromPrivate(createPrivateKey(pem));
}

export function verifyValidatorSignature(publicKeyHex: string, message: Uint8Array, signatureHex: string): boolean {
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKeyHex, 'hex').toString('base64url') }, format: 'jwk' });
  return verify(null, message, key, Buffer.from(signatureHex, 'hex'));
}
