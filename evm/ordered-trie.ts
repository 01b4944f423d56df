// The root of a Merkle Patricia trie built at once from all its (key, value) pairs, as Ethereum
// derives transaction and receipt roots (keys RLP(index)). Each node is encoded and hashed once;
// inserting pair by pair into ethereumjs's trie re-hashes the path on every insert, which costs
// far more for blocks of thousands of transactions. Nodes are encoded straight into one buffer
// each (rlp-write.ts). Held equal to the trie in test/evm.
import { RLP } from '@ethereumjs/rlp';
import { keccak256 } from '../primitives/index.ts';
import { Slab, encodeList, encodeString, encodeStrings } from './rlp-write.ts';

/** Every node encoded here is hashed or copied into its parent, then dropped. */
const slab = new Slab();

/** The nibbles of RLP(i), the key of the i-th item (without encoding it first). */
function computeKeyNibbles(i: number): number[] {
  if (i === 0) return [8, 0]; // RLP(0) is the empty string, 0x80
  if (i < 128) return [i >> 4, i & 15];
  const bytes: number[] = [];
  for (let n = i; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
  const out = [(0x80 + bytes.length) >> 4, (0x80 + bytes.length) & 15];
  for (const b of bytes) out.push(b >> 4, b & 15);
  return out;
}

/**
 * keyNibbles(i) for every index seen so far, shared by all blocks and never changed: a block's
 * paths would otherwise be allocated anew and live for its whole build (young collections copy
 * them). Grows to the most transactions a block has held.
 */
const keyNibblesCache: (readonly number[])[] = [];

function keyNibbles(i: number): readonly number[] {
  while (keyNibblesCache.length <= i) keyNibblesCache.push(computeKeyNibbles(keyNibblesCache.length));
  return keyNibblesCache[i] as readonly number[];
}

/** Hex-prefix encoding of a nibble path (Yellow Paper appendix C). */
function hexPrefix(path: readonly number[], from: number, to: number, leaf: boolean): Uint8Array {
  const n = to - from;
  const odd = n % 2;
  const out = new Uint8Array(1 + (n >> 1));
  out[0] = ((leaf ? 2 : 0) + odd) << 4;
  let i = from;
  if (odd === 1) out[0] |= path[i++] as number;
  for (let o = 1; i < to; i += 2, o++) out[o] = ((path[i] as number) << 4) | (path[i + 1] as number);
  return out;
}

/**
 * How a parent holds a child: the encoding itself when under 32 bytes (embedded), else the
 * encoding of its hash as a string (0xa0 and 32 bytes).
 */
function ref(encoded: Uint8Array): Uint8Array {
  if (encoded.length < 32) return encoded;
  const out = new Uint8Array(33);
  out[0] = 0xa0;
  out.set(keccak256(encoded), 1);
  return out;
}

/** A [path, value] leaf, or [path, child] extension with the child already a reference. */
function pair(path: Uint8Array, second: Uint8Array, secondEncoded: boolean): Uint8Array {
  return secondEncoded ? encodeList([encodeString(path, slab.take), second], slab.take) : encodeStrings([path, second], slab.take);
}

const EMPTY_STRING = Uint8Array.of(0x80);

interface Pair {
  readonly path: readonly number[];
  readonly value: Uint8Array;
}

/** The encoded node for `pairs[from, to)` (sorted by path, distinct) below `depth` nibbles. */
function build(pairs: readonly Pair[], from: number, to: number, depth: number): Uint8Array {
  const first = pairs[from] as Pair;
  if (to - from === 1) return pair(hexPrefix(first.path, depth, first.path.length, true), first.value, false);
  const last = pairs[to - 1] as Pair;
  let common = 0;
  while (depth + common < first.path.length && depth + common < last.path.length && first.path[depth + common] === last.path[depth + common]) common++;
  if (common > 0) return pair(hexPrefix(first.path, depth, depth + common, false), ref(build(pairs, from, to, depth + common)), true);
  const items: Uint8Array[] = new Array<Uint8Array>(17).fill(EMPTY_STRING);
  let i = from;
  if (first.path.length === depth) {
    items[16] = encodeString(first.value, slab.take);
    i++;
  }
  while (i < to) {
    const nibble = (pairs[i] as Pair).path[depth] as number;
    let j = i;
    while (j < to && (pairs[j] as Pair).path[depth] === nibble) j++;
    items[nibble] = ref(build(pairs, i, j, depth + 1));
    i = j;
  }
  return encodeList(items, slab.take);
}

const EMPTY_ROOT = keccak256(RLP.encode(new Uint8Array(0)));

export function orderedTrieRoot(values: readonly Uint8Array[]): Uint8Array {
  if (values.length === 0) return EMPTY_ROOT;
  // Keys in byte order without sorting: RLP(1..127) are the bytes 0x01..0x7f, RLP(0) is 0x80,
  // and from 128 on each length class (0x81 xx, 0x82 xx xx, ...) is in numeric order after the last.
  const order: number[] = [];
  for (let i = 1; i < Math.min(128, values.length); i++) order.push(i);
  order.push(0);
  for (let i = 128; i < values.length; i++) order.push(i);
  const pairs = order.map((i) => ({ path: keyNibbles(i), value: values[i] as Uint8Array }));
  return keccak256(build(pairs, 0, pairs.length, 0));
}
