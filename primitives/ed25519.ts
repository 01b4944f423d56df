// Ed25519 signature verification (node:crypto, deterministic): the exchange checks validator
// registrations with it. Keys and signatures are lowercase hex without 0x.
import { createPublicKey, verify } from 'node:crypto';

const HEX_64 = /^[0-9a-f]{64}$/;
const HEX_128 = /^[0-9a-f]{128}$/;

/** False for malformed keys or signatures as well as wrong ones; never throws on input. */
export function verifyEd25519(publicKeyHex: string, message: Uint8Array, signatureHex: string): boolean {
  if (!HEX_64.test(publicKeyHex) || !HEX_128.test(signatureHex)) return false;
  try {
    const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKeyHex, 'hex').toString('base64url') }, format: 'jwk' });
    return verify(null, message, key, Buffer.from(signatureHex, 'hex'));
  } catch {
    return false;
  }
}
