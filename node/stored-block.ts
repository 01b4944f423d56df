// A consensus block as the chain store keeps it: bytes, not JSON. A busy block holds thousands of
// transactions and their signers; as JSON each transaction was base64 text and each signer a
// quoted string, and the whole text was built as a rope, flattened and copied twice more into
// LevelDB's batch (about 3% of the event loop under EVM transfers). Values written as JSON by
// earlier versions (they start with `{`) still read.
//
//   0x01                         version
//   u32 n, n bytes               JSON of { header, commit, evidence? }
//   u32 count                    transactions
//   count × (u32 n, n bytes)     each transaction's bytes
//   count × (u16 n, n bytes)     each signer, UTF-8 ('' for none)
// Integers are big-endian.
import type { BlockHeader, Commit, Evidence } from '../consensus/index.ts';

export interface StoredBlock {
  readonly header: BlockHeader;
  readonly txs: readonly Uint8Array[];
  /** Recovered signer of each transaction (a local verification cache). */
  readonly signers: readonly string[];
  readonly commit: Commit;
  /** Equivocation evidence the block commits (BFT); absent when none. */
  readonly evidence?: Evidence[];
}

const VERSION = 1;
const JSON_OPEN = 0x7b; // '{'

export function encodeChainBlock(b: StoredBlock): Uint8Array {
  if (b.signers.length !== b.txs.length) throw new Error(`invariant: ${b.txs.length} transactions, ${b.signers.length} signers`);
  const meta = JSON.stringify({ header: b.header, commit: b.commit, ...(b.evidence !== undefined && b.evidence.length > 0 ? { evidence: b.evidence } : {}) });
  let size = 1 + 4 + Buffer.byteLength(meta, 'utf8') + 4;
  for (const tx of b.txs) size += 4 + tx.length;
  // A signer is hex or empty; three bytes a character bounds any UTF-8, and the end is cut to what was written.
  for (const s of b.signers) size += 2 + 3 * s.length;
  const out = Buffer.allocUnsafe(size);
  out[0] = VERSION;
  let at = 5;
  const metaLength = out.write(meta, at, 'utf8');
  out.writeUInt32BE(metaLength, 1);
  at += metaLength;
  at = out.writeUInt32BE(b.txs.length, at);
  for (const tx of b.txs) {
    at = out.writeUInt32BE(tx.length, at);
    out.set(tx, at);
    at += tx.length;
  }
  for (const s of b.signers) {
    const n = out.write(s, at + 2, 'utf8');
    if (n > 0xffff) throw new Error(`invariant: a signer of ${n} bytes`);
    out.writeUInt16BE(n, at);
    at += 2 + n;
  }
  return new Uint8Array(out.buffer, out.byteOffset, at);
}

function truncated(): Error {
  return new Error('stored block: truncated');
}

/** A block from the bytes it is stored as (either form). */
export function decodeChainBlock(v: Uint8Array): StoredBlock {
  const buf = Buffer.from(v.buffer, v.byteOffset, v.length);
  if (v[0] === JSON_OPEN) {
    const j = JSON.parse(buf.toString('utf8')) as Omit<StoredBlock, 'txs'> & { txs: string[] };
    return { ...j, txs: j.txs.map((t) => new Uint8Array(Buffer.from(t, 'base64'))) };
  }
  if (v[0] !== VERSION) throw new Error(`stored block: unknown version ${v[0]}`);
  const need = (at: number, n: number) => {
    if (at + n > buf.length) throw truncated();
  };
  need(1, 4);
  const metaLength = buf.readUInt32BE(1);
  need(5, metaLength + 4);
  const meta = JSON.parse(buf.toString('utf8', 5, 5 + metaLength)) as Omit<StoredBlock, 'txs' | 'signers'>;
  let at = 5 + metaLength;
  const count = buf.readUInt32BE(at);
  at += 4;
  const txs: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    need(at, 4);
    const n = buf.readUInt32BE(at);
    need(at + 4, n);
    txs.push(new Uint8Array(v.subarray(at + 4, at + 4 + n))); // each its own copy, as a transaction's bytes are
    at += 4 + n;
  }
  const signers: string[] = [];
  for (let i = 0; i < count; i++) {
    need(at, 2);
    const n = buf.readUInt16BE(at);
    need(at + 2, n);
    signers.push(buf.toString('utf8', at + 2, at + 2 + n));
    at += 2 + n;
  }
  if (at !== buf.length) throw new Error(`stored block: ${buf.length - at} bytes past its end`);
  return { ...meta, txs, signers };
}
