// Commit certificates: +2/3 of the voting power precommitted one value at one (height, round).
// Stored with each block; block sync accepts a block only with a certificate that verifies
// against the validator set of its height.
import { voteSignBytes } from './signing.ts';
import type { SignedVote, ValidatorSet, ValueId } from './types.ts';
import { verifyValidatorSignature } from './validator-key.ts';

export interface CertificateSignature {
  readonly validator: string;
  readonly signature: string;
}

export interface CommitCertificate {
  readonly height: number;
  readonly round: number;
  readonly valueId: ValueId;
  readonly signatures: readonly CertificateSignature[];
}

export function certificateFromVotes(height: number, round: number, valueId: ValueId, precommits: readonly SignedVote[]): CommitCertificate {
  const signatures = precommits
    .filter((v) => v.message.type === 'precommit' && v.message.height === height && v.message.round === round && v.message.valueId === valueId)
    .map((v) => ({ validator: v.message.validator, signature: v.signature }))
    .sort((a, b) => (a.validator < b.validator ? -1 : a.validator > b.validator ? 1 : 0));
  return { height, round, valueId, signatures };
}

export type CertificateError =
  | 'malformed'
  | 'unknown validator'
  | 'duplicate validator'
  | 'bad signature'
  | 'not enough voting power';

/** Null when the certificate holds: each signer in the set once, each signature valid, +2/3 of the power. */
export function verifyCertificate(chainId: number, cert: CommitCertificate, validators: ValidatorSet): CertificateError | null {
  if (!Number.isSafeInteger(cert.height) || cert.height < 1 || !Number.isSafeInteger(cert.round) || cert.round < 0) return 'malformed';
  if (typeof cert.valueId !== 'string' || !Array.isArray(cert.signatures)) return 'malformed';
  const seen = new Set<string>();
  let weight = 0;
  for (const s of cert.signatures) {
    const power = validators.power(s.validator);
    if (power === 0) return 'unknown validator';
    if (seen.has(s.validator)) return 'duplicate validator';
    seen.add(s.validator);
    const bytes = voteSignBytes(chainId, { type: 'precommit', height: cert.height, round: cert.round, valueId: cert.valueId, validator: s.validator });
    if (!verifyValidatorSignature(s.validator, bytes, s.signature)) return 'bad signature';
    weight += power;
  }
  return validators.isQuorum(weight) ? null : 'not enough voting power';
}
