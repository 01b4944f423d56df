// Sign bytes of consensus messages: canonical JSON with a type tag and the chain id, so a
// signature means one thing on one chain (CometBFT ADR-024's domain separation).
import { canonicalize, utf8 } from '../primitives/index.ts';
import type { Proposal, Signed, SignedProposal, SignedVote, Vote } from './types.ts';
import { verifyValidatorSignature, type ValidatorKey } from './validator-key.ts';

export function voteSignBytes(chainId: number, v: Vote): Uint8Array {
  return utf8(canonicalize({ type: v.type, chainId, height: v.height, round: v.round, valueId: v.valueId }));
}

export function proposalSignBytes(chainId: number, p: Proposal): Uint8Array {
  return utf8(canonicalize({ type: 'proposal', chainId, height: p.height, round: p.round, polRound: p.polRound, valueId: p.valueId }));
}

export function signVote(chainId: number, key: ValidatorKey, vote: Vote): SignedVote {
  return { message: vote, signature: key.sign(voteSignBytes(chainId, vote)) };
}

export function signProposal(chainId: number, key: ValidatorKey, proposal: Proposal): SignedProposal {
  return { message: proposal, signature: key.sign(proposalSignBytes(chainId, proposal)) };
}

export function verifyVote(chainId: number, s: Signed<Vote>): boolean {
  return verifyValidatorSignature(s.message.validator, voteSignBytes(chainId, s.message), s.signature);
}

export function verifyProposal(chainId: number, s: Signed<Proposal>): boolean {
  return verifyValidatorSignature(s.message.proposer, proposalSignBytes(chainId, s.message), s.signature);
}
