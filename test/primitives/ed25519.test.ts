// Ed25519 (libsodium): node:crypto's signatures verify and validator keys sign as it does; wrong, malformed, small-order
// and non-canonical inputs are refused without throwing.
import t from 'tap';
import { generateKeyPairSync, sign } from 'node:crypto';
import { verifyEd25519 } from '../../primitives/index.ts';
import { generateValidatorKey, validatorKeyFromPem } from '../../consensus/index.ts';

const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const pub = Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url').toString('hex');
const message = new TextEncoder().encode('{"chainId":1,"height":5,"round":0,"type":"prevote","valueId":null}');
const signature = sign(null, message, privateKey).toString('hex');

t.test('signatures made by node:crypto verify; others do not', async (t) => {
  t.equal(verifyEd25519(pub, message, signature), true);
  t.equal(verifyEd25519(pub, Buffer.from(message), signature), true, 'from a Buffer too');
  t.equal(verifyEd25519(pub, message.subarray(1), signature), false, 'another message');
  const flipped = Buffer.from(signature, 'hex');
  flipped[10] = (flipped[10] as number) ^ 1;
  t.equal(verifyEd25519(pub, message, flipped.toString('hex')), false, 'a changed signature');
  const other = Buffer.from(generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x as string, 'base64url').toString('hex');
  t.equal(verifyEd25519(other, message, signature), false, 'another key');
});

t.test('malformed, small-order and non-canonical inputs are refused', async (t) => {
  for (const [key, sig, why] of [
    [pub.toUpperCase(), signature, 'upper-case key'],
    [pub.slice(2), signature, 'short key'],
    [pub, signature.slice(2), 'short signature'],
    [`0x${pub.slice(2)}`, signature, 'prefixed key'],
    ['00'.repeat(32), signature, 'a small-order key'],
    [`01${'00'.repeat(31)}`, `01${'00'.repeat(63)}`, 'the identity as key and R, S zero (verifies under a lax check)'],
  ] as const) t.equal(verifyEd25519(key, message, sig), false, why);
  // S + L: the same signature with a non-canonical S.
  const L = 2n ** 252n + 27742317777372353535851937790883648493n;
  const sig = Buffer.from(signature, 'hex');
  const s = BigInt(`0x${Buffer.from(sig.subarray(32)).reverse().toString('hex')}`) + L;
  const high = Buffer.from(s.toString(16).padStart(64, '0'), 'hex').reverse();
  t.equal(verifyEd25519(pub, message, Buffer.concat([sig.subarray(0, 32), high]).toString('hex')), false, 'S not below the group order');
});

t.test('validator keys sign through libsodium: the same bytes as node:crypto (RFC 8032 is deterministic)', async (t) => {
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const key = validatorKeyFromPem(pem);
  t.equal(key.publicKey, pub);
  t.equal(key.sign(message), signature, 'the signature node:crypto made');
  const fresh = generateValidatorKey();
  t.equal(fresh.sign(message), sign(null, message, fresh.exportPem()).toString('hex'), 'a generated key too');
  t.equal(verifyEd25519(fresh.publicKey, message, fresh.sign(message)), true);
  const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  t.throws(() => validatorKeyFromPem(p256), /an Ed25519 key, not ec/, 'another kind of key is refused, not used as a seed');
});
