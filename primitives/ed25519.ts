// Ed25519 signature verification on node:crypto (native, deterministic): consensus checks votes
// and system transactions with it, the exchange validator registrations. Keys and signatures are
// lowercase hex without 0x. Public KeyObjects are cached: importing a key costs more than
// verifying with it.
import { createPublicKey, verify, type KeyObject } from 'node:crypto';

/** Bound on cached keys; callers verify for validator-set members, so a small cache suffices. */
const KEY_CACHE_LIMIT = 4096;
const publicKeys = new Map<string, KeyObject>();

function publicKeyObject(publicKeyHex: string): KeyObject {
  let key = publicKeys.get(publicKeyHex);
  if (key === undefined) {
    key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKeyHex, 'hex').toString('base64url') }, format: 'jwk' });
    if (publicKeys.size >= KEY_CACHE_LIMIT) publicKeys.clear();
    publicKeys.set(publicKeyHex, key);
  }
  return key;
}

const HEX_64 = /^[0-9a-f]{64}$/;
const HEX_128 = /^[0-9a-f]{128}$/;

/** False for malformed keys or signatures as well as wrong ones; never throws on input. */
export function verifyEd25519(publicKeyHex: string, message: Uint8Array, signatureHex: string): boolean {
  if (!HEX_64.test(publicKeyHex) || !HEX_128.test(signatureHex)) return false;
  try {
    return verify(null, message, publicKeyObject(publicKeyHex), Buffer.from(signatureHex, 'hex'));
  } catch {
    return false;
  }
}
