// Canonical JSON written as bytes in pieces and Keccak over them: the same bytes and the same hash
// as the canonical string's, so the app hash computed as a stream is the app hash of that string;
// computed from the whole bytes with the big hash on another thread, it is the same app hash.
import t from 'tap';
import { bytesToHex, canonicalBytes, canonicalBytesTo, canonicalize, canonicalKeccak, concatBytes, hexToBytes, keccak256, utf8 } from '../../primitives/index.ts';
import { InlineRecovery, WorkerPoolRecovery, nextAppHash, nextAppHashOffLoop, type BlockOutputs } from '../../node/index.ts';
import { exchangeDomain, type AuthConfig } from '../../exchange/index.ts';

const seed = 20261125;
let x = seed;
const next = (): number => (x = (Math.imul(x, 1103515245) + 12345) >>> 0);

function value(depth: number): unknown {
  const k = next() % (depth > 3 ? 4 : 7);
  if (k === 0) return null;
  if (k === 1) return next() % 2 === 0;
  if (k === 2) return (next() % 2000001) - 1000000 + (next() % 3 === 0 ? 0.25 : 0);
  if (k === 3) return ['a', 'ü€', 'quote"back\\slash', '0x' + 'ab'.repeat(next() % 40), ''][next() % 5];
  if (k === 4 || k === 5) return Array.from({ length: next() % (depth === 0 ? 3000 : 12) }, () => value(depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = next() % 8; i > 0; i--) o[['z', 'a', 'oid', 'px', 'ß', 'sz', 'time'][next() % 7] as string] = value(depth + 1);
  return o;
}

t.test('canonical bytes in pieces join to the canonical text, and their hash is its hash', async (t) => {
  for (let round = 0; round < 40; round++) {
    const v = { results: value(0), events: value(0), state: round % 2 === 0 ? undefined : '0x12', evm: '0xab' };
    const whole = canonicalize(v);
    const pieces: Uint8Array[] = [];
    canonicalBytesTo(v, (p) => pieces.push(p.slice()));
    if (!Buffer.concat(pieces).equals(utf8(whole))) return t.fail(`pieces differ from the whole (seed ${seed}, round ${round})`);
    if (bytesToHex(canonicalKeccak(v)) !== bytesToHex(keccak256(utf8(whole)))) return t.fail(`stream hash differs (seed ${seed}, round ${round})`);
    const prev = bytesToHex(keccak256(utf8(String(round))));
    const expected = bytesToHex(keccak256(concatBytes(hexToBytes(prev), keccak256(utf8(whole)))));
    if (nextAppHash(prev, v as BlockOutputs, 1) !== expected) return t.fail(`app hash differs (seed ${seed}, round ${round})`);
  }
  t.pass('40 values of up to thousands of elements: same bytes, same hashes, same app hash');
});

t.test('the app hash with its big Keccak on a signer worker is the same app hash', async (t) => {
  const auth: AuthConfig = { domain: exchangeDomain(42069), source: 'b', literalNonceBinding: true, hyperliquid: { chains: ['Mainnet', 'Testnet'] } };
  const pool = await WorkerPoolRecovery.start(auth, 1);
  t.teardown(() => pool.close());
  const inline = new InlineRecovery(auth);
  let offLoop = 0;
  const hasher = (bytes: Uint8Array) => {
    if (bytes.length >= 128 << 10) offLoop++;
    return pool.digest(bytes, 'keccak256');
  };
  for (let round = 0; round < 12; round++) {
    const v = { results: value(0), events: value(0), state: round % 2 === 0 ? undefined : '0x12', evm: '0xab' };
    const whole = utf8(canonicalize(v));
    if (!Buffer.from(canonicalBytes(v)).equals(whole)) return t.fail(`canonicalBytes differs (seed ${seed}, round ${round})`);
    const prev = bytesToHex(keccak256(utf8(String(round))));
    const expected = nextAppHash(prev, v as BlockOutputs, 1);
    if ((await nextAppHashOffLoop(prev, v as BlockOutputs, 1, hasher)) !== expected) return t.fail(`off-loop app hash differs (seed ${seed}, round ${round})`);
    if ((await nextAppHashOffLoop(prev, v as BlockOutputs, 1, (b) => inline.digest(b, 'keccak256'))) !== expected) return t.fail(`inline differs (seed ${seed}, round ${round})`);
  }
  t.ok(offLoop > 0, `${offLoop} of 12 inputs went to the worker`);
  t.equal(bytesToHex(await pool.digest(new Uint8Array(0), 'keccak256')), bytesToHex(keccak256(new Uint8Array(0))), 'and an empty input');
});
