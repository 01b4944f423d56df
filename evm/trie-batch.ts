// Many puts into a Merkle Patricia trie with one hashing pass. ethereumjs's trie re-encodes and
// re-hashes the path to the root on every put, and writes every intermediate node, although all
// but the last version of each node are dead by the end of a block. Here the nodes on the paths of
// all updated keys are loaded, changed in memory, and encoded, hashed and written once, bottom-up.
// Nodes are stored as ethereumjs's MerklePatriciaTrie stores them on a level database (keys and
// values unprefixed hex, keyed by node hash), so either can read what the other wrote. Puts only:
// a deletion (which may collapse nodes) goes through ethereumjs. Held equal to ethereumjs's trie
// in test/evm/trie-batch.test.ts. The upper levels of the last pass's trie, and the paths its last
// few passes changed, stay decoded for the next pass from its root (a block's state starts from
// the last block's).
import { RLP } from '@ethereumjs/rlp';
import type { LevelTrieDB } from './level-db.ts';
import { Slab, encodeList, encodeString, encodeStrings } from './rlp-write.ts';
import { keccak256 } from '../primitives/index.ts';

/** A child reference: the 32-byte hash of a node not loaded, or the node itself. */
type Ref = Uint8Array | Node;

/**
 * A decoded node. `hash` is set while the node is as stored under it (it was loaded, or written by
 * the last pass) and cleared when the node changes, so a pass re-encodes only changed nodes.
 */
type Node =
  | { readonly t: 'leaf'; readonly path: Uint8Array; value: Uint8Array; hash?: Uint8Array; pass?: number }
  | { readonly t: 'ext'; readonly path: Uint8Array; child: Ref; hash?: Uint8Array; pass?: number }
  | { readonly t: 'branch'; readonly children: (Ref | null)[]; value: Uint8Array | null; hash?: Uint8Array; pass?: number };

type Raw = Uint8Array | Raw[];

/** The empty string's encoding: no child, no value. */
const EMPTY_ITEM = Uint8Array.of(0x80);

function hashItem(hash: Uint8Array): Uint8Array {
  const out = new Uint8Array(33);
  out[0] = 0xa0;
  out.set(hash, 1);
  return out;
}

const EMPTY = new Uint8Array(0);
/** Node encodings: each is hashed and written as hex text (or copied into its parent), then dropped. */
const slab = new Slab();
/** keccak256(RLP('')): the root of the empty trie. */
export const EMPTY_TRIE_ROOT = keccak256(RLP.encode(EMPTY));
/** How ethereumjs's trie (on a DB it was given) encodes keys and values: as hex strings. */
const STRING = { keyEncoding: 'string', valueEncoding: 'string' } as const;

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

function fromHex(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'hex'));
}

function toNibbles(key: Uint8Array): Uint8Array {
  const out = new Uint8Array(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    out[2 * i] = (key[i] as number) >> 4;
    out[2 * i + 1] = (key[i] as number) & 15;
  }
  return out;
}

/** Hex-prefix encoding of a nibble path (Yellow Paper appendix C). */
function hexPrefix(path: Uint8Array, leaf: boolean): Uint8Array {
  const odd = path.length & 1;
  const out = new Uint8Array(1 + (path.length >> 1));
  out[0] = ((leaf ? 2 : 0) + odd) << 4;
  let i = 0;
  if (odd === 1) out[0] |= path[i++] as number;
  for (let o = 1; i < path.length; i += 2, o++) out[o] = ((path[i] as number) << 4) | (path[i + 1] as number);
  return out;
}

function decodeNode(raw: Raw): Node {
  if (!Array.isArray(raw)) throw new Error('invariant: trie node is not a list');
  if (raw.length === 17) {
    const children: (Ref | null)[] = raw.slice(0, 16).map((c) => decodeRef(c));
    const value = raw[16] as Uint8Array;
    return { t: 'branch', children, value: value.length === 0 ? null : value };
  }
  if (raw.length !== 2) throw new Error(`invariant: trie node of ${raw.length} items`);
  const prefix = raw[0] as Uint8Array;
  const flag = (prefix[0] as number) >> 4;
  const nibbles = toNibbles(prefix);
  const path = nibbles.subarray(flag & 1 ? 1 : 2);
  if (flag >= 2) return { t: 'leaf', path, value: raw[1] as Uint8Array };
  const child = decodeRef(raw[1] as Raw);
  if (child === null) throw new Error('invariant: extension without a child');
  return { t: 'ext', path, child };
}

function decodeRef(raw: Raw): Ref | null {
  if (Array.isArray(raw)) return decodeNode(raw); // embedded (encoding under 32 bytes)
  return raw.length === 0 ? null : raw;
}

function commonPrefix(a: Uint8Array, b: Uint8Array, bFrom: number): number {
  let n = 0;
  while (n < a.length && bFrom + n < b.length && a[n] === b[bFrom + n]) n++;
  return n;
}

function newBranch(pass: number): { t: 'branch'; children: (Ref | null)[]; value: Uint8Array | null; pass: number } {
  return { t: 'branch', children: new Array<Ref | null>(16).fill(null), value: null, pass };
}

/**
 * Node levels kept decoded between passes (the root's level is 0): up to 1 + 16 + 256 + 4096
 * nodes. The next pass over the same root starts from them instead of loading and decoding the
 * paths again.
 */
const KEEP_LEVELS = 4;

/**
 * Deeper nodes stay decoded while they were changed in one of the last RECENT_PASSES passes (the
 * paths of accounts in use, which the next blocks are likely to change again); the others go
 * back to being hashes. The nodes a pass writes are not cached by the database (writeNodes), so
 * these paths are what spares the next passes a load.
 */
const RECENT_PASSES = 4;

/** Keys put between two pauses of putAll. */
const PAUSE_EVERY = 64;

/** The last pass's root (decoded as above) and number, per database. */
const kept = new WeakMap<LevelTrieDB, { readonly root: string; readonly node: Node; readonly pass: number }>();

/**
 * Replaces the stored nodes below `node` (at `level`) by their hashes: from `keepLevels` on,
 * those not changed since pass `oldest`.
 */
function prune(node: Node, level: number, keepLevels: number, oldest: number): void {
  const cut = <R extends Ref | null>(child: R): R | Uint8Array => {
    if (child === null || child instanceof Uint8Array) return child;
    // An embedded child (no hash) stays a node: its parent's encoding holds it whole.
    if (level + 1 >= keepLevels && child.hash !== undefined && (child.pass ?? -1) < oldest) return child.hash;
    prune(child, level + 1, keepLevels, oldest);
    return child;
  };
  if (node.t === 'branch') for (let i = 0; i < 16; i++) node.children[i] = cut(node.children[i] ?? null);
  else if (node.t === 'ext') node.child = cut(node.child);
}

export class TrieBatch {
  private readonly ops: { key: string; value: string }[] = [];
  /** This pass's number (one more than the last pass's on the same database). */
  private pass = 0;
  /** Nodes loaded from the database in this pass (tests). */
  loads = 0;

  /** `keepLevels`: KEEP_LEVELS but in tests, which make small tries deep enough to prune. */
  constructor(
    private readonly db: LevelTrieDB,
    private readonly keepLevels = KEEP_LEVELS,
  ) {}

  private async load(hash: Uint8Array): Promise<Node> {
    const key = hex(hash);
    const value = await this.db.get(key, STRING as never);
    if (value === undefined) throw new Error(`invariant: trie node ${key} is missing`);
    this.loads++;
    const node = decodeNode(RLP.decode(typeof value === 'string' ? fromHex(value) : value) as Raw);
    node.hash = hash;
    return node;
  }

  /** The node for `ref` with (key, value) put below `depth` nibbles of the key. */
  private async insert(ref: Ref | null, key: Uint8Array, depth: number, value: Uint8Array): Promise<Node> {
    if (ref === null) return { t: 'leaf', path: key.subarray(depth), value, pass: this.pass };
    const node = ref instanceof Uint8Array ? await this.load(ref) : ref;
    node.hash = undefined; // changed below, whichever way
    node.pass = this.pass;
    if (node.t === 'branch') {
      if (depth === key.length) {
        node.value = value;
        return node;
      }
      const i = key[depth] as number;
      node.children[i] = await this.insert(node.children[i] ?? null, key, depth + 1, value);
      return node;
    }
    const cp = commonPrefix(node.path, key, depth);
    if (node.t === 'leaf' && cp === node.path.length && depth + cp === key.length) {
      node.value = value;
      return node;
    }
    if (node.t === 'ext' && cp === node.path.length) {
      node.child = await this.insert(node.child, key, depth + cp, value);
      return node;
    }
    // The paths diverge after cp nibbles: a branch there, under an extension for the shared part.
    const branch = newBranch(this.pass);
    const rest = node.path.subarray(cp + 1);
    if (cp === node.path.length) branch.value = (node as { value: Uint8Array }).value; // a leaf ending here
    else if (node.t === 'leaf') branch.children[node.path[cp] as number] = { t: 'leaf', path: rest, value: node.value, pass: this.pass };
    else branch.children[node.path[cp] as number] = rest.length === 0 ? node.child : { t: 'ext', path: rest, child: node.child, pass: this.pass };
    await this.insert(branch, key, depth + cp, value);
    return cp === 0 ? branch : { t: 'ext', path: node.path.subarray(0, cp), child: branch, pass: this.pass };
  }

  /** The encoding of a changed node, its changed children hashed and queued for writing. */
  private encode(node: Node): Uint8Array {
    if (node.t === 'leaf') return encodeStrings([hexPrefix(node.path, true), node.value], slab.take);
    if (node.t === 'ext') return encodeList([encodeString(hexPrefix(node.path, false), slab.take), this.ref(node.child)], slab.take);
    const items = node.children.map((c) => (c === null ? EMPTY_ITEM : this.ref(c)));
    items.push(node.value === null ? EMPTY_ITEM : encodeString(node.value, slab.take));
    return encodeList(items, slab.take);
  }

  /**
   * How a parent holds a child, as an encoded item: the child's encoding when under 32 bytes
   * (embedded), else its hash as a string.
   */
  private ref(child: Ref): Uint8Array {
    if (child instanceof Uint8Array) return hashItem(child);
    if (child.hash !== undefined) return hashItem(child.hash); // unchanged since stored
    const encoded = this.encode(child);
    if (encoded.length < 32) return encoded;
    child.hash = this.store(encoded);
    return hashItem(child.hash);
  }

  private store(encoded: Uint8Array): Uint8Array {
    const hash = keccak256(encoded);
    this.ops.push({ key: hex(hash), value: hex(encoded) });
    return hash;
  }

  /**
   * Puts every (key, value) into the trie at `root` (keys as the trie sees them: hashed already
   * for a secure trie; all distinct) and writes the changed nodes in one batch. Returns the new root.
   * `pause`, if given, is taken every PAUSE_EVERY keys (a large block gives other work turns).
   */
  async putAll(root: Uint8Array, entries: readonly (readonly [Uint8Array, Uint8Array])[], pause?: () => Promise<void>): Promise<Uint8Array> {
    if (entries.length === 0) return root;
    const rootKey = hex(root);
    // The decoded nodes of the last pass serve when this pass starts from its root; they are
    // taken (and changed in place), so a pass that fails leaves none behind.
    const last = kept.get(this.db);
    kept.delete(this.db);
    this.pass = (last?.pass ?? 0) + 1;
    let top: Node | null = null;
    let ref: Ref | null = rootKey === hex(EMPTY_TRIE_ROOT) ? null : last?.root === rootKey ? last.node : root;
    for (let i = 0; i < entries.length; i++) {
      if (pause !== undefined && i > 0 && i % PAUSE_EVERY === 0) await pause();
      const [key, value] = entries[i] as readonly [Uint8Array, Uint8Array];
      top = await this.insert(top ?? ref, toNibbles(key), 0, value);
      ref = top;
    }
    // The root node is stored under its hash whatever its size.
    const node = top as Node;
    const newRoot = this.store(this.encode(node));
    node.hash = newRoot;
    await this.db.writeNodes(this.ops.splice(0));
    prune(node, 0, this.keepLevels, this.pass - RECENT_PASSES + 1);
    kept.set(this.db, { root: hex(newRoot), node, pass: this.pass });
    return newRoot;
  }
}
