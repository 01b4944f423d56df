// Blocks as consensus values: the bytes a proposal carries, and the checks a validator makes
// before prevoting for a block someone else built (valid(v) in the paper).
import { canonicalize, keccak256, utf8, utf8Text } from '../primitives/index.ts';
import { evidenceHash, headerHash, txRoot, type Block, type BlockHeader } from './block.ts';
import type { CommittedHead } from './engine.ts';
import { evidenceHeight, evidenceKey, verifyEvidence, type Evidence } from './evidence.ts';
import type { ValidatorSet } from './types.ts';

/**
 * A block's bytes: `[0x01][u32 n][n bytes: canonical JSON of { header, evidence? }][u32 count]`
 * then per transaction `[u32 length][bytes]`, all big-endian. Transactions are raw bytes, so a
 * block is its transactions' size plus 4 bytes each and a small head (base64 inside JSON was 4/3
 * of it, then base64 again in the proposal), and `compactBlock` finds them without parsing.
 */
const BLOCK_FORMAT = 1;
/** In a compact block: a transaction's bytes follow, or its 32-byte key (`txKey`) does. */
const TX_INLINE = 0;
const TX_REF = 1;
const KEY_BYTES = 32;

function blockHead(block: Block): Uint8Array {
  const head = { header: block.header, ...(block.evidence !== undefined && block.evidence.length > 0 ? { evidence: block.evidence } : {}) };
  return utf8(canonicalize(head));
}

/** `prefix` (a block's bytes up to its first transaction) then each transaction as `[u32 length][bytes]`. */
function withTxs(prefix: Uint8Array, txs: readonly Uint8Array[]): Uint8Array {
  let size = prefix.length;
  for (const tx of txs) size += 4 + tx.length;
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  out.set(prefix);
  let at = prefix.length;
  for (const tx of txs) {
    view.setUint32(at, tx.length);
    out.set(tx, at + 4);
    at += 4 + tx.length;
  }
  return out;
}

export function encodeBlock(block: Block): Uint8Array {
  const head = blockHead(block);
  const prefix = new Uint8Array(9 + head.length);
  const view = new DataView(prefix.buffer);
  prefix[0] = BLOCK_FORMAT;
  view.setUint32(1, head.length);
  prefix.set(head, 5);
  view.setUint32(5 + head.length, block.txs.length);
  return withTxs(prefix, block.txs);
}

const HASH = /^0x[0-9a-f]{64}$/;

function isHeader(h: unknown): h is BlockHeader {
  if (h === null || typeof h !== 'object') return false;
  const x = h as Record<string, unknown>;
  return Number.isSafeInteger(x.chainId) && Number.isSafeInteger(x.height) && Number.isSafeInteger(x.time)
    && typeof x.parentHash === 'string' && typeof x.txRoot === 'string' && typeof x.appHash === 'string'
    && typeof x.proposer === 'string' && (x.evidenceHash === undefined || typeof x.evidenceHash === 'string');
}

/** A block's head from its parsed JSON, or null when it is not one (evidence, when present, is not empty). */
function headOf(wire: { header?: unknown; evidence?: unknown }): Pick<Block, 'header' | 'evidence'> | null {
  if (wire === null || typeof wire !== 'object' || !isHeader(wire.header)) return null;
  if (wire.evidence === undefined) return { header: wire.header };
  return Array.isArray(wire.evidence) && wire.evidence.length > 0 ? { header: wire.header, evidence: wire.evidence as Evidence[] } : null;
}

/** Where a block's parts lie in its bytes, or null when the framing is broken. */
function frameOf(bytes: Uint8Array): { head: Uint8Array; count: number; txsAt: number } | null {
  if (bytes.length < 9 || bytes[0] !== BLOCK_FORMAT) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = view.getUint32(1);
  if (5 + n + 4 > bytes.length) return null;
  return { head: bytes.subarray(5, 5 + n), count: view.getUint32(5 + n), txsAt: 9 + n };
}

/**
 * A block in the JSON encoding of versions before the binary one (`{header, txs: [base64…],
 * evidence?}`, canonical): still read, since a WAL written before an upgrade may hold one.
 */
function decodeJsonBlock(bytes: Uint8Array): Block | null {
  let wire: { header?: unknown; txs?: unknown; evidence?: unknown };
  try {
    wire = JSON.parse(utf8Text(bytes)) as typeof wire;
  } catch {
    return null;
  }
  const head = headOf(wire);
  if (head === null || !Array.isArray(wire.txs) || !wire.txs.every((t) => typeof t === 'string')) return null;
  const txs = (wire.txs as string[]).map((t) => new Uint8Array(Buffer.from(t, 'base64')));
  const again = canonicalize({ ...head, txs: txs.map((t) => Buffer.from(t).toString('base64')) });
  return again === utf8Text(bytes) ? { ...head, txs } : null;
}

/** The block in `bytes`, or null when they are not a block's canonical encoding. */
export function decodeBlock(bytes: Uint8Array): Block | null {
  if (bytes[0] === 0x7b) return decodeJsonBlock(bytes); // '{'
  const f = frameOf(bytes);
  if (f === null) return null;
  const headText = utf8Text(f.head);
  let wire: { header?: unknown; evidence?: unknown };
  try {
    wire = JSON.parse(headText) as typeof wire;
  } catch {
    return null;
  }
  const head = headOf(wire);
  if (head === null) return null;
  // The head's one encoding (no other keys), so the value id (header hash) pins the bytes too.
  if (canonicalize(head) !== headText) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (f.count > (bytes.length - f.txsAt) / 4) return null;
  const txs: Uint8Array[] = new Array(f.count);
  let at = f.txsAt;
  for (let i = 0; i < f.count; i++) {
    if (at + 4 > bytes.length) return null;
    const len = view.getUint32(at);
    if (at + 4 + len > bytes.length) return null;
    // Each its own bytes: a view would hold, and a worker message would copy, the whole block.
    txs[i] = new Uint8Array(bytes.subarray(at + 4, at + 4 + len));
    at += 4 + len;
  }
  if (at !== bytes.length) return null;
  return { ...head, txs };
}

/** A transaction's key in compact blocks and the transaction caches that resolve them. */
export function txKey(tx: Uint8Array): string {
  const h = keccak256(tx);
  return Buffer.from(h.buffer, h.byteOffset, h.byteLength).toString('latin1');
}

/**
 * The block's bytes with each transaction the receiver is expected to hold (`known`) replaced by
 * its key: a proposal then carries 33 bytes for a transaction its peers were gossiped, instead of
 * the transaction again. Null when `bytes` is not a block or no transaction is known.
 */
export function compactBlock(bytes: Uint8Array, known: (key: string) => boolean): Uint8Array | null {
  const f = frameOf(bytes);
  if (f === null) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const parts: Uint8Array[] = [bytes.subarray(0, f.txsAt)];
  let refs = 0;
  let at = f.txsAt;
  for (let i = 0; i < f.count; i++) {
    const len = view.getUint32(at);
    const tx = bytes.subarray(at + 4, at + 4 + len);
    const key = txKey(tx);
    if (known(key)) {
      parts.push(Uint8Array.of(TX_REF), Buffer.from(key, 'latin1'));
      refs++;
    } else {
      parts.push(Uint8Array.of(TX_INLINE), bytes.subarray(at, at + 4 + len));
    }
    at += 4 + len;
  }
  return refs === 0 ? null : new Uint8Array(Buffer.concat(parts));
}

/**
 * The block a compact block stands for, its transactions looked up by key; `missing` counts the
 * keys not found (the sender then sends the whole block). Null when the framing is broken. The
 * result is checked like any block: a wrong lookup fails the header's transaction root.
 */
export function expandBlock(compact: Uint8Array, lookup: (key: string) => Uint8Array | undefined): Uint8Array | { missing: number } | null {
  const f = frameOf(compact);
  if (f === null) return null;
  const view = new DataView(compact.buffer, compact.byteOffset, compact.byteLength);
  const txs: Uint8Array[] = [];
  let missing = 0;
  let at = f.txsAt;
  for (let i = 0; i < f.count; i++) {
    if (at >= compact.length) return null;
    if (compact[at] === TX_REF) {
      if (at + 1 + KEY_BYTES > compact.length) return null;
      const tx = lookup(Buffer.from(compact.buffer, compact.byteOffset + at + 1, KEY_BYTES).toString('latin1'));
      if (tx === undefined) missing++;
      else txs.push(tx);
      at += 1 + KEY_BYTES;
    } else if (compact[at] === TX_INLINE) {
      if (at + 5 > compact.length) return null;
      const len = view.getUint32(at + 1);
      if (at + 5 + len > compact.length) return null;
      txs.push(compact.subarray(at + 5, at + 5 + len));
      at += 5 + len;
    } else return null;
  }
  if (at !== compact.length) return null;
  return missing > 0 ? { missing } : withTxs(compact.subarray(0, f.txsAt), txs);
}

export function blockValueId(block: Block): string {
  return headerHash(block.header);
}

export interface BlockCheckContext {
  readonly chainId: number;
  readonly parent: CommittedHead;
  readonly validators: ValidatorSet;
  /** The checking node's clock (ms). */
  readonly now: number;
  /** How far ahead of the checker's clock a block time may be. */
  readonly maxClockDriftMs: number;
  /** Evidence older than this many heights is refused. */
  readonly evidenceMaxAge: number;
  /** Whether this evidence (by `evidenceKey`) is already in the chain. */
  readonly evidenceCommitted: (key: string) => boolean;
}

/** Null when the block may be prevoted; otherwise why not. */
export function checkBlock(block: Block, ctx: BlockCheckContext): string | null {
  const h = block.header;
  if (h.chainId !== ctx.chainId) return 'wrong chain id';
  if (h.height !== ctx.parent.height + 1) return 'wrong height';
  if (h.parentHash !== ctx.parent.hash) return 'wrong parent hash';
  if (h.appHash !== ctx.parent.appHash) return 'app hash differs from ours after the parent';
  if (h.time <= ctx.parent.time) return 'time not after the parent';
  if (h.time > ctx.now + ctx.maxClockDriftMs) return 'time too far ahead of our clock';
  if (!ctx.validators.has(h.proposer)) return 'proposer not a validator';
  if (!HASH.test(h.txRoot) || h.txRoot !== txRoot(block.txs)) return 'wrong tx root';
  const evidence = block.evidence ?? [];
  if ((evidence.length === 0) !== (h.evidenceHash === undefined)) return 'evidence hash presence';
  if (evidence.length > 0 && h.evidenceHash !== evidenceHash(evidence)) return 'wrong evidence hash';
  const keys = new Set<string>();
  for (const e of evidence) {
    let bad: string | null;
    try {
      bad = verifyEvidence(ctx.chainId, e, ctx.validators);
    } catch {
      bad = 'malformed'; // evidence arrives from the network as decoded JSON, shape unchecked
    }
    if (bad !== null) return `evidence: ${bad}`;
    if (evidenceHeight(e) >= h.height || evidenceHeight(e) < h.height - ctx.evidenceMaxAge) return 'evidence height out of range';
    const key = evidenceKey(e);
    if (keys.has(key) || ctx.evidenceCommitted(key)) return 'evidence already committed';
    keys.add(key);
  }
  return null;
}
