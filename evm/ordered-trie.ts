// The root of a Merkle Patricia trie built at once from all its (key, value) pairs, as Ethereum
// derives transaction and receipt roots (keys RLP(index)). Each node is encoded and hashed once;
// inserting pair by pair into ethereumjs's trie re-hashes the path on every insert, which costs
// far more for blocks of thousands of transactions. Held equal to the trie in test/evm.
import { RLP } from '@ethereumjs/rlp';
import { keccak256 } from '../primitives/index.ts';

type Node = Uint8Array | Node[];

function nibbles(key: Uint8Array): number[] {
  const out: number[] = [];
  for (const b of key) out.push(b >> 4, b & 15);
  return out;
}

/** Hex-prefix encoding of a nibble path (Yellow Paper appendix C). */
function hexPrefix(path: number[], leaf: boolean): Uint8Array {
  const odd = path.length % 2;
  const flag = (leaf ? 2 : 0) + odd;
  const all = odd === 1 ? [flag, ...path] : [flag, 0, ...path];
  const out = new Uint8Array(all.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = ((all[2 * i] as number) << 4) | (all[2 * i + 1] as number);
  return out;
}

/** How a child is referenced: inline when its encoding is under 32 bytes, else by hash. */
function ref(node: Node): Node {
  const encoded = RLP.encode(node as never);
  return encoded.length < 32 ? node : keccak256(encoded);
}

interface Pair {
  readonly path: number[];
  readonly value: Uint8Array;
}

/** The node for `pairs` (sorted by path, distinct) below `depth` nibbles. */
function build(pairs: readonly Pair[], depth: number): Node {
  const first = pairs[0] as Pair;
  if (pairs.length === 1) return [hexPrefix(first.path.slice(depth), true), first.value];
  const last = pairs[pairs.length - 1] as Pair;
  let common = 0;
  while (depth + common < first.path.length && depth + common < last.path.length && first.path[depth + common] === last.path[depth + common]) common++;
  if (common > 0) return [hexPrefix(first.path.slice(depth, depth + common), false), ref(build(pairs, depth + common))];
  const branch: Node[] = Array.from({ length: 17 }, () => new Uint8Array(0));
  let i = 0;
  if (first.path.length === depth) {
    branch[16] = first.value;
    i = 1;
  }
  while (i < pairs.length) {
    const nibble = (pairs[i] as Pair).path[depth] as number;
    let j = i;
    while (j < pairs.length && (pairs[j] as Pair).path[depth] === nibble) j++;
    branch[nibble] = ref(build(pairs.slice(i, j), depth + 1));
    i = j;
  }
  return branch;
}

const EMPTY_ROOT = keccak256(RLP.encode(new Uint8Array(0)));

export function orderedTrieRoot(values: readonly Uint8Array[]): Uint8Array {
  if (values.length === 0) return EMPTY_ROOT;
  const pairs = values.map((value, i) => ({ key: RLP.encode(i), value }))
    .sort((a, b) => Buffer.compare(a.key, b.key))
    .map((p) => ({ path: nibbles(p.key), value: p.value }));
  return keccak256(RLP.encode(build(pairs, 0) as never));
}
