// Blocks as bytes: one encoding per block, and compact blocks that name gossiped transactions by
// key and expand back to the same bytes.
import t from 'tap';
import fc from 'fast-check';
import { compactBlock, decodeBlock, encodeBlock, expandBlock, txKey, txRoot, type Block } from '../../consensus/index.ts';
import { canonicalize, utf8 } from '../../primitives/index.ts';

const header = (txs: readonly Uint8Array[]) => ({
  chainId: 7, height: 3, time: 5000, parentHash: `0x${'11'.repeat(32)}`, txRoot: txRoot(txs), appHash: `0x${'22'.repeat(32)}`, proposer: 'ab'.repeat(32),
});
const blockOf = (txs: Uint8Array[]): Block => ({ header: header(txs), txs });

/** A block's bytes with its head replaced by `head` (the framing kept right). */
function withHead(block: Block, head: string): Uint8Array {
  const bytes = encodeBlock(block);
  const n = new DataView(bytes.buffer).getUint32(1);
  const h = utf8(head);
  const out = new Uint8Array(bytes.length - n + h.length);
  out[0] = 1;
  new DataView(out.buffer).setUint32(1, h.length);
  out.set(h, 5);
  out.set(bytes.subarray(5 + n), 5 + h.length);
  return out;
}

t.test('blocks round-trip, each transaction in its own buffer', async (t) => {
  fc.assert(fc.property(fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 40 }), (txs) => {
    const block = blockOf(txs);
    const back = decodeBlock(encodeBlock(block));
    if (back === null) return false;
    t.same(back, block);
    // From a Buffer too (frames are Buffers), whose slice() would be a view.
    const fromBuffer = decodeBlock(Buffer.from(encodeBlock(block)));
    return fromBuffer !== null && [...back.txs, ...fromBuffer.txs].every((tx) => tx.byteLength === tx.buffer.byteLength && tx.constructor === Uint8Array);
  }), { seed: 11 });
});

t.test('another encoding of the same block is refused', async (t) => {
  const block = blockOf([utf8('a'), utf8('bc')]);
  const bytes = encodeBlock(block);
  const head = canonicalize({ header: block.header });
  t.not(decodeBlock(withHead(block, head)), null, 'the canonical head');
  t.equal(decodeBlock(withHead(block, ` ${head}`)), null, 'whitespace');
  t.equal(decodeBlock(withHead(block, JSON.stringify({ header: { ...block.header } }).replace('"chainId":7,', '') .replace('{"height"', '{"chainId":7,"height"'))), null, 'keys out of order');
  t.equal(decodeBlock(withHead(block, canonicalize({ header: block.header, extra: 1 }))), null, 'another key');
  t.equal(decodeBlock(withHead(block, canonicalize({ header: block.header, evidence: [] }))), null, 'an empty evidence list');
  t.equal(decodeBlock(Uint8Array.of(...bytes, 0)), null, 'trailing bytes');
  t.equal(decodeBlock(bytes.subarray(0, bytes.length - 1)), null, 'a transaction cut short');
  const counted = bytes.slice();
  new DataView(counted.buffer).setUint32(5 + new DataView(bytes.buffer).getUint32(1), 3);
  t.equal(decodeBlock(counted), null, 'a count beyond the transactions');
  t.equal(decodeBlock(Uint8Array.of(2, ...bytes.subarray(1))), null, 'another format byte');
  // The JSON encoding of earlier versions is still read (a WAL written before an upgrade), canonical only.
  t.same(decodeBlock(utf8(canonicalize({ header: block.header, txs: ['YQ==', 'YmM='] }))), block, 'the JSON encoding of earlier versions');
  t.equal(decodeBlock(utf8(canonicalize({ header: block.header, txs: ['YQ', 'YmM='] }))), null, 'not canonical base64');
  t.equal(decodeBlock(utf8(` ${canonicalize({ header: block.header, txs: ['YQ==', 'YmM='] })}`)), null, 'not canonical JSON');
});

t.test('a compact block expands to the same bytes from the transactions the receiver holds', async () => {
  fc.assert(fc.property(fc.array(fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 200 }), fc.boolean()), { minLength: 1, maxLength: 30 }), (entries) => {
    const txs = entries.map(([tx]) => tx);
    const bytes = encodeBlock(blockOf(txs));
    const known = new Map(entries.filter(([, k]) => k).map(([tx]) => [txKey(tx), tx]));
    const compact = compactBlock(bytes, (k) => known.has(k));
    if (known.size === 0) return compact === null;
    // An entry grows by at most its tag, or a key (33 bytes) in place of a 1-byte transaction and its length (5).
    if (compact === null || compact.length > bytes.length + 28 * txs.length) return false;
    const back = expandBlock(compact, (k) => known.get(k));
    return back instanceof Uint8Array && Buffer.compare(back, bytes) === 0;
  }), { seed: 12 });
});

t.test('a compact block counts what the receiver lacks; broken framing is refused', async (t) => {
  const txs = [utf8('one'), utf8('two'), utf8('three')];
  const bytes = encodeBlock(blockOf(txs));
  const compact = compactBlock(bytes, () => true) as Uint8Array;
  t.same(expandBlock(compact, (k) => (k === txKey(txs[1]!) ? txs[1] : undefined)), { missing: 2 });
  t.equal(expandBlock(compact.subarray(0, compact.length - 1), () => utf8('x')), null, 'cut short');
  t.equal(expandBlock(Uint8Array.of(...compact, 0), () => utf8('x')), null, 'trailing bytes');
  const tagged = compact.slice();
  tagged[compact.length - 33] = 9;
  t.equal(expandBlock(tagged, () => utf8('x')), null, 'an unknown entry tag');
  // A wrong transaction under a key still expands; the header's transaction root then refuses it.
  const wrong = expandBlock(compact, () => utf8('x')) as Uint8Array;
  const decoded = decodeBlock(wrong);
  t.not(decoded, null);
  t.not(txRoot(decoded!.txs), decoded!.header.txRoot);
});

t.test('txRoot: leaves given for some transactions give the same root as hashing them all', async (t) => {
  const { txLeaf } = await import('../../consensus/index.ts');
  for (const n of [1, 2, 3, 7, 8]) {
    const list = Array.from({ length: n }, (_, i) => utf8(`tx ${i} ${'x'.repeat(i * 100)}`));
    const known = new Map(list.filter((_, i) => i % 2 === 0).map((tx) => [tx, txLeaf(tx)]));
    t.equal(txRoot(list, (tx) => known.get(tx)), txRoot(list), `${n} transactions`);
  }
});
