// Blocks as consensus values: the bytes a proposal carries, and the checks a validator makes
// before prevoting for a block someone else built (valid(v) in the paper).
import { canonicalize, utf8, utf8Text } from '../primitives/index.ts';
import { evidenceHash, headerHash, txRoot, type Block, type BlockHeader } from './block.ts';
import type { CommittedHead } from './engine.ts';
import { evidenceHeight, evidenceKey, verifyEvidence, type Evidence } from './evidence.ts';
import type { ValidatorSet } from './types.ts';

export function encodeBlock(block: Block): Uint8Array {
  const wire = {
    header: block.header,
    txs: block.txs.map((tx) => Buffer.from(tx).toString('base64')),
    ...(block.evidence !== undefined && block.evidence.length > 0 ? { evidence: block.evidence } : {}),
  };
  return utf8(canonicalize(wire));
}

const HASH = /^0x[0-9a-f]{64}$/;

function isHeader(h: unknown): h is BlockHeader {
  if (h === null || typeof h !== 'object') return false;
  const x = h as Record<string, unknown>;
  return Number.isSafeInteger(x.chainId) && Number.isSafeInteger(x.height) && Number.isSafeInteger(x.time)
    && typeof x.parentHash === 'string' && typeof x.txRoot === 'string' && typeof x.appHash === 'string'
    && typeof x.proposer === 'string' && (x.evidenceHash === undefined || typeof x.evidenceHash === 'string');
}

/** The block in `bytes`, or null when they are not a block's canonical encoding. */
export function decodeBlock(bytes: Uint8Array): Block | null {
  let wire: { header?: unknown; txs?: unknown; evidence?: unknown };
  try {
    wire = JSON.parse(utf8Text(bytes)) as typeof wire;
  } catch {
    return null;
  }
  if (!isHeader(wire.header) || !Array.isArray(wire.txs) || !wire.txs.every((t) => typeof t === 'string')) return null;
  if (wire.evidence !== undefined && !Array.isArray(wire.evidence)) return null;
  const block: Block = {
    header: wire.header,
    // Each its own bytes (a copy off Buffer's shared pool): a view would hold, and a worker message
    // would copy, the whole slab.
    txs: (wire.txs as string[]).map((t) => new Uint8Array(Buffer.from(t, 'base64'))),
    ...(wire.evidence !== undefined ? { evidence: wire.evidence as Evidence[] } : {}),
  };
  // One encoding per block: the value id (header hash) then pins the bytes too.
  return Buffer.compare(encodeBlock(block), bytes) === 0 ? block : null;
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
