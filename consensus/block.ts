// Blocks as consensus sees them: a header and opaque transactions. Hashes are keccak256.
import { bytesToHex, canonicalize, hexToBytes, keccak256, keccak256Parts, utf8 } from '../primitives/index.ts';
import type { Evidence } from './evidence.ts';

export interface BlockHeader {
  readonly chainId: number;
  readonly height: number;
  /** Milliseconds; strictly greater than the parent's. */
  readonly time: number;
  /** Hash of the parent header; the genesis hash for height 1. */
  readonly parentHash: string;
  /** Merkle root of the transactions. */
  readonly txRoot: string;
  /** Application state hash after executing the parent block (Tendermint's convention). */
  readonly appHash: string;
  /** Hex ed25519 public key of the proposer. */
  readonly proposer: string;
  /** Hash of the block's evidence list; absent when the block carries none. */
  readonly evidenceHash?: string;
}

export interface Block {
  readonly header: BlockHeader;
  readonly txs: readonly Uint8Array[];
  /** Equivocations committed by this block (absent: none). */
  readonly evidence?: readonly Evidence[];
}

export interface CommitSignature {
  readonly validator: string;
  readonly signature: string;
}

/**
 * +2/3 of the voting power signed the block hash at this height. A BFT commit carries the round
 * of the decision and its signatures are precommits (`voteSignBytes`); a commit without a round
 * is the single-validator engine's (`commitSignBytes`).
 */
export interface Commit {
  readonly height: number;
  readonly round?: number;
  readonly blockHash: string;
  readonly signatures: readonly CommitSignature[];
}

export function headerHash(h: BlockHeader): string {
  return bytesToHex(keccak256(utf8(canonicalize(h))));
}

export function evidenceHash(evidence: readonly Evidence[]): string {
  return bytesToHex(keccak256(utf8(canonicalize(evidence))));
}

export function txHash(tx: Uint8Array): string {
  return bytesToHex(keccak256(tx));
}

const LEAF = Uint8Array.of(0);
const NODE = Uint8Array.of(1);

/** A transaction's leaf in `txRoot`: Keccak-256 of 0x00 and its bytes. */
export function txLeaf(tx: Uint8Array): Uint8Array {
  return keccak256Parts([LEAF, tx]);
}

/**
 * Binary Merkle root with domain-separated leaves and nodes; an odd node is promoted. `leafOf`
 * gives the leaves already computed (`txLeaf` of the same bytes, undefined when not known).
 */
export function txRoot(txs: readonly Uint8Array[], leafOf?: (tx: Uint8Array) => Uint8Array | undefined): string {
  if (txs.length === 0) return bytesToHex(keccak256(new Uint8Array(0)));
  let level = txs.map((tx) => leafOf?.(tx) ?? txLeaf(tx));
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const right = level[i + 1];
      next.push(right === undefined ? (level[i] as Uint8Array) : keccak256Parts([NODE, level[i] as Uint8Array, right]));
    }
    level = next;
  }
  return bytesToHex(level[0] as Uint8Array);
}

/** Bytes a validator signs to commit a block. */
export function commitSignBytes(chainId: number, height: number, blockHash: string): Uint8Array {
  return utf8(canonicalize({ type: 'commit', chainId, height, blockHash: bytesToHex(hexToBytes(blockHash)) }));
}
