// The node's EIP-712 hashing, recovery and canonical JSON against independent implementations
// (ethers, the npm `canonicalize` package).
import canonicalizeRef from 'canonicalize';
import { TypedDataEncoder, Wallet, Signature, ZeroAddress, hexlify, randomBytes } from 'ethers';
import t from 'tap';
import { agentDigest, bytesToHex, canonicalize, domainSeparator, hexToBytes, recoverAddress } from '../../primitives/index.ts';
import { AGENT_TYPES, DOMAIN } from '../support/signing.ts';

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
});
