// Equivocation evidence: two signed messages of one validator for the same (height, round,
// type) with different values. Either one alone is a valid message; together they prove the
// signer broke the protocol. Punishment is the application's business; consensus detects,
// keeps and verifies.
import { proposalSignBytes, voteSignBytes } from './signing.ts';
import type { SignedProposal, SignedVote, ValidatorSet } from './types.ts';
import { verifyValidatorSignature } from './validator-key.ts';
import { bytesToHex, canonicalize, keccak256, utf8 } from '../primitives/index.ts';

export type Evidence =
  | { readonly kind: 'duplicateVote'; readonly first: SignedVote; readonly second: SignedVote }
  | { readonly kind: 'duplicateProposal'; readonly first: SignedProposal; readonly second: SignedProposal };

export function evidenceOffender(e: Evidence): string {
  return e.kind === 'duplicateVote' ? e.first.message.validator : e.first.message.proposer;
}

export function evidenceHeight(e: Evidence): number {
  return e.first.message.height;
}

/**
 * Order-independent identity of a piece of evidence: the same equivocation seen as (a, b) by one
 * node and (b, a) by another is one offence.
 */
export function evidenceKey(e: Evidence): string {
  const [a, b] = [e.first.signature, e.second.signature].sort();
  return bytesToHex(keccak256(utf8(canonicalize({ kind: e.kind, a, b }))));
}

/** Null when the evidence proves an equivocation by a member of `validators`. */
export function verifyEvidence(chainId: number, e: Evidence, validators: ValidatorSet): string | null {
  if (e.kind === 'duplicateVote') {
    const [a, b] = [e.first.message, e.second.message];
    if (a.validator !== b.validator || a.type !== b.type || a.height !== b.height || a.round !== b.round) return 'not the same vote slot';
    if (a.valueId === b.valueId) return 'not conflicting';
    if (!validators.has(a.validator)) return 'not a validator';
    if (!verifyValidatorSignature(a.validator, voteSignBytes(chainId, a), e.first.signature)) return 'bad signature';
    if (!verifyValidatorSignature(b.validator, voteSignBytes(chainId, b), e.second.signature)) return 'bad signature';
    return null;
  }
  const [a, b] = [e.first.message, e.second.message];
  if (a.proposer !== b.proposer || a.height !== b.height || a.round !== b.round) return 'not the same proposal slot';
  if (a.valueId === b.valueId && a.polRound === b.polRound) return 'not conflicting';
  if (!validators.has(a.proposer)) return 'not a validator';
  if (!verifyValidatorSignature(a.proposer, proposalSignBytes(chainId, a), e.first.signature)) return 'bad signature';
  if (!verifyValidatorSignature(b.proposer, proposalSignBytes(chainId, b), e.second.signature)) return 'bad signature';
  return null;
}
