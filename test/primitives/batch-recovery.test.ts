// Batched recovery (native/secp256k1-batch through primitives' recoverAddresses and
// recoverPublicKeysPacked) against the pure JS reference (@noble/curves), one signature at a
// time, on seeded batches of good and bad signatures.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import t from 'tap';
import {
  batchSecp256k1, bytesToHex, keccak256, recoverAddresses, recoverAddressNoble, recoverPublicKeysPacked, type RecoverableSignature,
} from '../../primitives/index.ts';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const P = 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2fn;

/** A small seeded generator (xorshift32), so a failing case replays from its printed seed. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>>= 0);
  };
}

function bytes(next: () => number, n: number): Uint8Array {
  return Uint8Array.from({ length: n }, () => next() & 0xff);
}

const word = (b: Uint8Array): bigint => BigInt(bytesToHex(b));

interface Case {
  readonly digest: Uint8Array;
  readonly sig: RecoverableSignature;
}

/** A signature by a random key, then sometimes broken in one of the ways clients or attackers do. */
function makeCase(next: () => number): Case {
  const key = secp256k1.utils.randomSecretKey(bytes(next, 48));
  const digest = bytes(next, 32);
  const raw = secp256k1.sign(digest, key, { prehash: false, lowS: true, format: 'recovered' });
  const good = { r: word(raw.subarray(1, 33)), s: word(raw.subarray(33, 65)), recovery: raw[0] as number };
  switch (next() % 12) {
    case 0: return { digest, sig: { ...good, recovery: 1 - good.recovery } }; // another key, or none
    case 1: return { digest, sig: { ...good, s: N - good.s, recovery: 1 - good.recovery } }; // high s
    case 2: return { digest, sig: { ...good, r: 0n } };
    case 3: return { digest, sig: { ...good, r: N } };
    case 4: return { digest, sig: { ...good, s: 0n } };
    case 5: return { digest, sig: { ...good, r: word(bytes(next, 32)) % N } }; // often no point
    case 6: return { digest, sig: { ...good, recovery: 2 } };
    case 7: return { digest: bytes(next, 32), sig: good }; // another digest: another key
    default: return { digest, sig: good };
  }
}

t.test('the batch addon is built and loads here', async (t) => {
  t.ok(batchSecp256k1, 'native/secp256k1-batch builds on this machine (npm ci runs node-gyp)');
});

t.test('recoverAddresses equals one reference recovery per signature, batches of 0 to 70', async (t) => {
  const seed = Number(process.env.SEED ?? 20261127);
  const next = rng(seed);
  let compared = 0;
  for (let round = 0; round < 40; round++) {
    const n = round < 3 ? round : next() % 71;
    const cases = Array.from({ length: n }, () => makeCase(next));
    const got = recoverAddresses(cases);
    const want = cases.map((c) => recoverAddressNoble(c.digest, c.sig));
    for (let i = 0; i < n; i++) {
      if (got[i] !== want[i]) return void t.fail(`round ${round}, signature ${i} of ${n}: ${got[i]} against ${want[i]} (SEED=${seed})`);
      compared++;
    }
  }
  t.ok(compared > 500, `${compared} signatures agree (SEED=${seed})`);
});

t.test('recoverPublicKeysPacked equals the reference, high s accepted as transactions allow', async (t) => {
  const seed = Number(process.env.SEED ?? 20261128);
  const next = rng(seed);
  for (let round = 0; round < 20; round++) {
    const n = 1 + (next() % 60);
    const cases = Array.from({ length: n }, () => makeCase(next));
    const packed = new Uint8Array(n * 97);
    cases.forEach((c, i) => {
      packed.set(c.digest, i * 97);
      const hex = (v: bigint) => v.toString(16).padStart(64, '0').slice(-64);
      packed.set(Buffer.from(hex(c.sig.r) + hex(c.sig.s), 'hex'), i * 97 + 32);
      packed[i * 97 + 96] = c.sig.recovery;
    });
    const before = bytesToHex(packed);
    const got: (string | null)[] = new Array(n).fill(null);
    recoverPublicKeysPacked(packed, (i, pub) => (got[i] = bytesToHex(pub)));
    t.equal(bytesToHex(packed), before, 'the jobs are not written to');
    for (let i = 0; i < n; i++) {
      const { r, s, recovery } = cases[i]!.sig;
      let want: string | null = null;
      if (r > 0n && r < N && s > 0n && s < N && (recovery === 0 || recovery === 1)) {
        try {
          want = bytesToHex(new secp256k1.Signature(r, s, recovery).recoverPublicKey(cases[i]!.digest).toBytes(false).subarray(1));
        } catch {
          want = null;
        }
      }
      if (got[i] !== want) return void t.fail(`round ${round}, job ${i} of ${n}: ${got[i]} against ${want} (SEED=${seed})`);
    }
  }
  t.pass('20 batches agree');
});

t.test('a batch with an x beyond the curve order (recovery ids 2 and 3 are refused) and edge digests', async (t) => {
  const key = keccak256(Uint8Array.of(7));
  const cases: Case[] = [];
  for (const digest of [new Uint8Array(32), new Uint8Array(32).fill(0xff), keccak256(Uint8Array.of(1))]) {
    const raw = secp256k1.sign(digest, key, { prehash: false, lowS: true, format: 'recovered' });
    cases.push({ digest, sig: { r: word(raw.subarray(1, 33)), s: word(raw.subarray(33, 65)), recovery: raw[0] as number } });
  }
  cases.push({ digest: new Uint8Array(32), sig: { r: P - N + 1n, s: 1n, recovery: 3 } });
  cases.push({ digest: new Uint8Array(32), sig: { r: 1n, s: 1n, recovery: 0 } });
  const got = recoverAddresses(cases);
  t.same(got, cases.map((c) => recoverAddressNoble(c.digest, c.sig)));
  t.equal(got[0], bytesToHex(keccak256(secp256k1.getPublicKey(key, false).subarray(1)).subarray(12)));
});

t.test('verifyKeys is true exactly when every signature recovers to its guessed key', async (t) => {
  const { verifyKeys } = await import('../../primitives/index.ts');
  const seed = Number(process.env.SEED ?? 20261129);
  const next = rng(seed);
  const keys = Array.from({ length: 6 }, (_, i) => secp256k1.utils.randomSecretKey(bytes(next, 48 + i * 0)));
  const pubs = keys.map((k) => secp256k1.getPublicKey(k, false).subarray(1));
  const addressOf = (pub: Uint8Array) => bytesToHex(keccak256(pub).subarray(12));
  let trues = 0;
  let falses = 0;
  for (let round = 0; round < 60; round++) {
    const n = 1 + (next() % 40);
    const spread = 1 + (next() % keys.length); // how many keys sign this batch
    const items: Case[] = [];
    const guesses: Uint8Array[] = [];
    // Most rounds guess every key right; others break one job in one of the ways makeCase does.
    const breakAt = next() % 3 === 0 ? next() % n : -1;
    for (let i = 0; i < n; i++) {
      const k = next() % spread;
      const digest = bytes(next, 32);
      const raw = secp256k1.sign(digest, keys[k]!, { prehash: false, lowS: true, format: 'recovered' });
      let sig: RecoverableSignature = { r: word(raw.subarray(1, 33)), s: word(raw.subarray(33, 65)), recovery: raw[0] as number };
      let guess = pubs[k]!;
      if (i === breakAt) {
        const how = next() % 5;
        if (how === 0) guess = pubs[(k + 1) % keys.length]!; // another key
        if (how === 1) sig = { ...sig, recovery: 1 - sig.recovery };
        if (how === 2) sig = { ...sig, s: N - sig.s, recovery: 1 - sig.recovery }; // high s: refused
        if (how === 3) sig = { ...sig, r: (sig.r + 1n) % N };
        if (how === 4) digest[0] = (digest[0] as number) ^ 1;
      }
      items.push({ digest, sig });
      guesses.push(guess);
    }
    const want = items.every((c, i) => recoverAddressNoble(c.digest, c.sig) === addressOf(guesses[i]!));
    const got = verifyKeys(items, guesses);
    if (got !== want) return void t.fail(`round ${round} (${n} jobs, break at ${breakAt}): ${got} against ${want} (SEED=${seed})`);
    if (got) trues++;
    else falses++;
  }
  t.ok(trues > 10 && falses > 5, `60 batches agree with recovery one by one (${trues} true, ${falses} false; SEED=${seed})`);
  // Past 88 points libsecp256k1 switches from Strauss to Pippenger: 120 jobs by 120 keys.
  const many = Array.from({ length: 120 }, () => secp256k1.utils.randomSecretKey(bytes(next, 48)));
  const manyItems = many.map((k) => {
    const digest = bytes(next, 32);
    const raw = secp256k1.sign(digest, k, { prehash: false, lowS: true, format: 'recovered' });
    return { digest, sig: { r: word(raw.subarray(1, 33)), s: word(raw.subarray(33, 65)), recovery: raw[0] as number } };
  });
  const manyKeys = many.map((k) => secp256k1.getPublicKey(k, false).subarray(1));
  t.equal(verifyKeys(manyItems, manyKeys), true, '120 signatures by 120 keys (Pippenger)');
  t.equal(verifyKeys(manyItems, [...manyKeys.slice(0, 119), manyKeys[0]!]), false, 'the same with the last key wrong');
  t.equal(verifyKeys([], []), false, 'an empty batch verifies nothing');
  t.equal(verifyKeys([makeCase(next)], [new Uint8Array(64)]), false, 'a guess that is not a point of the curve');
});
