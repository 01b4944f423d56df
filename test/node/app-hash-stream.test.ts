// Canonical JSON written as bytes in pieces and Keccak over them: the same bytes and the same hash
// as the canonical string's, so the app hash computed as a stream is the app hash of that string.
import t from 'tap';
import { bytesToHex, canonicalBytesTo, canonicalize, canonicalKeccak, concatBytes, hexToBytes, keccak256, utf8 } from '../../primitives/index.ts';
import { nextAppHash } from '../../node/index.ts';

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
    if (nextAppHash(prev, v.results, v.events, v.state, v.evm) !== expected) return t.fail(`app hash differs (seed ${seed}, round ${round})`);
  }
  t.pass('40 values of up to thousands of elements: same bytes, same hashes, same app hash');
});
