// The node's EIP-712 hashing, recovery and canonical JSON against independent implementations
// (ethers, the npm `canonicalize` package).
import canonicalizeRef from 'canonicalize';
import { TypedDataEncoder, Wallet, Signature, ZeroAddress, hexlify, keccak256 as keccak, randomBytes } from 'ethers';
import t from 'tap';
import { agentDigest, bytesToHex, canonicalBytesTo, canonicalize, canonicalKeccak, domainSeparator, hexToBytes, recoverAddress, utf8 } from '../../primitives/index.ts';
import { AGENT_TYPES, DOMAIN } from '../support/signing.ts';

/** The canonical bytes' pieces, copied (a piece is a view of a reused buffer). */
function collect(v: unknown, onPiece: () => void = () => {}): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  canonicalBytesTo(v, (p) => {
    onPiece();
    pieces.push(p.slice());
  });
  return pieces;
}

const canonicalBytes = (v: unknown): Uint8Array => Buffer.concat(collect(v));
const bytesEqual = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);

t.test('Agent digest equals ethers TypedDataEncoder', async (t) => {
  for (let i = 0; i < 20; i++) {
    const connectionId = hexlify(randomBytes(32));
    const source = i % 2 === 0 ? 'a' : 'b';
    const domain = { ...DOMAIN, chainId: 1 + i * 1000 };
    const want = TypedDataEncoder.hash(domain, AGENT_TYPES, { source, connectionId });
    t.equal(bytesToHex(agentDigest(domainSeparator(domain), source, hexToBytes(connectionId))), want);
  }
});

t.test('recovery gives the ethers signer; malformed and high-s signatures give null', async (t) => {
  const wallet = Wallet.createRandom();
  const sep = domainSeparator(DOMAIN);
  for (let i = 0; i < 10; i++) {
    const connectionId = hexlify(randomBytes(32));
    const sig = Signature.from(await wallet.signTypedData(DOMAIN, AGENT_TYPES, { source: 'b', connectionId }));
    const digest = agentDigest(sep, 'b', hexToBytes(connectionId));
    const parsed = { r: BigInt(sig.r), s: BigInt(sig.s), recovery: sig.v - 27 };
    t.equal(recoverAddress(digest, parsed), wallet.address.toLowerCase());
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    t.equal(recoverAddress(digest, { ...parsed, s: n - parsed.s, recovery: 1 - parsed.recovery }), null, 'high-s');
    t.not(recoverAddress(digest, { ...parsed, recovery: 1 - parsed.recovery }), wallet.address.toLowerCase(), 'wrong v');
  }
  const digest = new Uint8Array(32);
  t.equal(recoverAddress(digest, { r: 0n, s: 1n, recovery: 0 }), null);
  t.equal(recoverAddress(digest, { r: 1n, s: 1n, recovery: 2 }), null);
  t.equal(ZeroAddress.length, 42);
});

t.test('canonical JSON equals the RFC 8785 reference package', async (t) => {
  const samples: unknown[] = [
    { type: 'order', orders: [{ a: 0, b: true, p: '100', s: '1', r: false, t: { limit: { tif: 'Gtc' } } }], grouping: 'na' },
    { z: 1, a: [3, 2, { y: null, b: 'é\u2028"\\' }], m: { '\u00e9': 1, e: 2, E: 3, '10': 4, '9': 5 } },
    { n: [0, -0, 1e21, 1e-7, 123.456, -5, 2 ** 53] },
    [],
    'x',
    { emoji: '😀', k: { '\ud83d\ude00': 1, '\uffff': 2 } },
  ];
  for (const s of samples) t.equal(canonicalize(s), canonicalizeRef(s));
  // Own keys only, whatever the prototype: enumerable inherited keys are not written.
  class Point {
    constructor(readonly y: number, readonly x: number) {}
    norm(): number {
      return this.x + this.y;
    }
  }
  const inherited = Object.assign(Object.create({ inherited: 1, zz: 2 }) as object, { b: 1, a: 2 });
  const bare = Object.assign(Object.create(null) as object, { b: [new Point(1, 2)], a: { c: inherited } });
  for (const s of [inherited, bare, [bare, inherited, { p: new Point(3, 4) }]]) {
    t.equal(canonicalize(s), canonicalizeRef(s));
    t.ok(bytesEqual(canonicalBytes(s), utf8(canonicalizeRef(s) as string)));
  }
});

t.test('native and pure JS recovery agree, also on bad signatures', async (t) => {
  const { nativeSecp256k1, recoverAddressNative, recoverAddressNoble } = await import('../../primitives/index.ts');
  t.ok(nativeSecp256k1, 'the native module loads on this platform');
  const wallet = Wallet.createRandom();
  const sep = domainSeparator(DOMAIN);
  const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
  let compared = 0;
  for (let i = 0; i < 40; i++) {
    const connectionId = hexlify(randomBytes(32));
    const sig = Signature.from(await wallet.signTypedData(DOMAIN, AGENT_TYPES, { source: 'b', connectionId }));
    const digest = agentDigest(sep, 'b', hexToBytes(connectionId));
    const good = { r: BigInt(sig.r), s: BigInt(sig.s), recovery: sig.v - 27 };
    const variants = [
      good,
      { ...good, recovery: 1 - good.recovery }, // wrong v: another key or none
      { ...good, s: n - good.s, recovery: 1 - good.recovery }, // high s
      { ...good, r: 0n },
      { ...good, r: n },
      { ...good, s: 0n },
      { ...good, r: BigInt(hexlify(randomBytes(32))) % n }, // r not on the curve, often
      { ...good, recovery: 2 },
    ];
    for (const v of variants) {
      t.equal(recoverAddressNative(digest, v), recoverAddressNoble(digest, v));
      compared++;
    }
    t.equal(recoverAddressNative(digest, good), wallet.address.toLowerCase());
  }
  t.equal(compared, 320);
});

t.test('native and pure JS keccak256 agree on every length around the rate, on views and on ethers', async (t) => {
  const { nativeKeccak256, keccak256, keccak256Hex, keccak256Noble, bytesToHex } = await import('../../primitives/index.ts');
  t.ok(nativeKeccak256(), 'the native keccak loads on this platform');
  const seed = 20261122;
  let x = seed;
  const next = (): number => (x = (Math.imul(x, 1103515245) + 12345) >>> 0);
  const backing = new Uint8Array(1200).map(() => next() & 0xff);
  for (let len = 0; len <= 600; len++) {
    const offset = next() % 500;
    const view = backing.subarray(offset, offset + len);
    const got = bytesToHex(keccak256(view));
    if (got !== bytesToHex(keccak256Noble(view)) || got !== keccak(view) || keccak256Hex(view) !== got) {
      t.fail(`keccak256 differs at length ${len}, offset ${offset} (seed ${seed})`);
      return;
    }
  }
  t.pass('601 lengths agree (keccak256Hex too)');
  const { keccak256Parts } = await import('../../primitives/index.ts');
  for (let n = 0; n < 200; n++) {
    const parts = Array.from({ length: next() % 4 }, () => backing.subarray(next() % 600, next() % 600 + 600).subarray(0, next() % 300));
    const whole = bytesToHex(keccak256Noble(Buffer.concat(parts)));
    if (bytesToHex(keccak256Parts(parts)) !== whole) return void t.fail(`keccak256Parts differs on case ${n} (seed ${seed})`);
  }
  t.pass('keccak256Parts hashes the concatenation (200 cases)');
  const { keccak256Stream } = await import('../../primitives/index.ts');
  const large = new Uint8Array(200_000).map(() => next() & 0xff);
  for (let n = 0; n < 30; n++) {
    // Lengths around the sponge's input area (480 blocks of 136 bytes) and its multiples, in random pieces.
    const len = [65_279, 65_280, 65_281, 130_560, 130_561, 199_999][n % 6] as number - (n >= 6 ? next() % 300 : 0);
    const data = large.subarray(0, len);
    const stream = keccak256Stream();
    for (let at = 0; at < len; ) {
      const piece = Math.min(len - at, [1, 135, 136, 137, 5000, 70_000][next() % 6] as number);
      stream.update(data.subarray(at, at + piece));
      at += piece;
    }
    if (bytesToHex(stream.digest()) !== bytesToHex(keccak256Noble(data))) return void t.fail(`keccak256Stream differs at length ${len} (case ${n}, seed ${seed})`);
  }
  t.pass('keccak256Stream over random pieces of up to 200 KB (30 cases)');
  t.equal(bytesToHex(keccak256(new Uint8Array(0))), '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
});

t.test('canonicalize equals the reference implementation on random JSON', async (t) => {
  const fc = (await import('fast-check')).default;
  const seed = Number(process.env.FC_SEED ?? 8785);
  fc.assert(fc.property(fc.jsonValue(), (v) => canonicalize(v) === canonicalizeRef(v) && bytesEqual(canonicalBytes(v), utf8(canonicalizeRef(v) as string))), { seed, numRuns: 500 });
  t.pass(`fast-check seed ${seed}, 500 values, as text and as bytes`);
});

t.test('canonicalize reuses key orders only for the same key set', async (t) => {
  const fc = (await import('fast-check')).default;
  const seed = Number(process.env.FC_SEED ?? 8786);
  // Objects over a small key alphabet: many share a first key and a size but not their keys.
  const key = fc.constantFrom('z', 'a', 'm', 'b', 'y', '10', '9', 'é', 'Z');
  const obj = fc.dictionary(key, fc.oneof(fc.integer(), fc.string({ maxLength: 3 })), { maxKeys: 6 });
  fc.assert(
    fc.property(fc.array(obj, { maxLength: 20 }), (list) => list.every((o) => canonicalize(o) === canonicalizeRef(o) && bytesEqual(canonicalBytes(o), utf8(canonicalizeRef(o) as string)))),
    { seed, numRuns: 300 },
  );
  t.pass(`fast-check seed ${seed}, 300 lists`);
});

t.test('canonical bytes in pieces: long strings, escapes and large arrays across piece boundaries', async (t) => {
  const { keccak256 } = await import('../../primitives/index.ts');
  const long = 'x'.repeat(70_000);
  const samples: unknown[] = [
    { s: long, t: `${long}é`, u: ['"\\\n', long.slice(0, 40_000)] },
    Array.from({ length: 5000 }, (_, i) => ({ oid: i, px: `${i}.5`, side: i % 2 === 0 ? 'B' : 'A', cloid: i % 3 === 0 ? undefined : null, n: -i / 4, z: -0 })),
    Array.from({ length: 3000 }, (_, i) => ({ [`k${i % 7}`]: i, a: 'ü'.repeat(i % 50), '\u2028': i })),
  ];
  for (const v of samples) {
    const ref = canonicalizeRef(v) as string;
    let pieces = 0;
    const got = Buffer.concat(collect(v, () => pieces++));
    t.ok(bytesEqual(got, utf8(ref)), 'the pieces join to the reference text');
    t.ok(pieces > 1, `in ${pieces} pieces`);
    t.equal(canonicalize(v), ref);
    t.equal(bytesToHex(canonicalKeccak(v)), bytesToHex(keccak256(utf8(ref))));
  }
});

t.test('native and pure JS signing give the same signature as ethers', async (t) => {
  const { signDigest, signDigestNoble, privateKeyToAddress } = await import('../../primitives/index.ts');
  const sep = domainSeparator(DOMAIN);
  for (let i = 0; i < 20; i++) {
    const wallet = Wallet.createRandom();
    const key = hexToBytes(wallet.privateKey);
    t.equal(privateKeyToAddress(key), wallet.address.toLowerCase());
    const connectionId = hexlify(randomBytes(32));
    const sig = Signature.from(await wallet.signTypedData(DOMAIN, AGENT_TYPES, { source: 'b', connectionId }));
    const digest = agentDigest(sep, 'b', hexToBytes(connectionId));
    const expected = { r: sig.r, s: sig.s, v: sig.v };
    t.same(signDigest(digest, key), expected);
    t.same(signDigestNoble(digest, key), expected);
  }
});
