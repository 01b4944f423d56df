// Consensus messages on the wire: JSON with byte arrays in base64, checked field by field on
// the way in, since they come from any peer. Signatures are checked later by the replica.
import { utf8Text } from '../primitives/index.ts';
import type { CommitCertificate } from './certificate.ts';
import type { ConsensusMessage } from './replica.ts';
import type { Proposal, Vote } from './types.ts';

const HEX_KEY = /^[0-9a-f]{64}$/;
const HEX_SIG = /^[0-9a-f]{128}$/;
const VALUE_ID = /^0x[0-9a-f]{64}$/;

/** Largest message accepted (a block of the default 4 MiB of transactions in base64, with room). */
export const MAX_MESSAGE_BYTES = 8 << 20;

export function encodeMessage(msg: ConsensusMessage): Uint8Array {
  const wire = msg.kind === 'proposal' || msg.kind === 'decided'
    ? { ...msg, payload: Buffer.from(msg.payload).toString('base64') }
    : msg;
  return Buffer.from(JSON.stringify(wire));
}

const isInt = (x: unknown, min: number): x is number => Number.isSafeInteger(x) && (x as number) >= min;
const isObj = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === 'object' && !Array.isArray(x);

function vote(x: unknown): Vote | null {
  if (!isObj(x)) return null;
  if (x.type !== 'prevote' && x.type !== 'precommit') return null;
  if (!isInt(x.height, 1) || !isInt(x.round, 0)) return null;
  if (x.valueId !== null && !(typeof x.valueId === 'string' && VALUE_ID.test(x.valueId))) return null;
  if (typeof x.validator !== 'string' || !HEX_KEY.test(x.validator)) return null;
  return { type: x.type, height: x.height, round: x.round, valueId: x.valueId as string | null, validator: x.validator };
}

function proposal(x: unknown): Proposal | null {
  if (!isObj(x)) return null;
  if (!isInt(x.height, 1) || !isInt(x.round, 0) || !isInt(x.polRound, -1)) return null;
  if (typeof x.valueId !== 'string' || !VALUE_ID.test(x.valueId)) return null;
  if (typeof x.proposer !== 'string' || !HEX_KEY.test(x.proposer)) return null;
  return { height: x.height, round: x.round, polRound: x.polRound, valueId: x.valueId, proposer: x.proposer };
}

function certificate(x: unknown): CommitCertificate | null {
  if (!isObj(x) || !isInt(x.height, 1) || !isInt(x.round, 0)) return null;
  if (typeof x.valueId !== 'string' || !VALUE_ID.test(x.valueId) || !Array.isArray(x.signatures)) return null;
  const signatures: { validator: string; signature: string }[] = [];
  for (const s of x.signatures) {
    if (!isObj(s) || typeof s.validator !== 'string' || !HEX_KEY.test(s.validator)) return null;
    if (typeof s.signature !== 'string' || !HEX_SIG.test(s.signature)) return null;
    signatures.push({ validator: s.validator, signature: s.signature });
  }
  return { height: x.height, round: x.round, valueId: x.valueId, signatures };
}

/**
 * Canonical base64 only (what encodeMessage writes): Buffer's decoder skips characters outside
 * the alphabet, so the decoded bytes must encode back to the same text. Native on both sides; a
 * regular expression and a per-element copy over a block's megabytes cost more than its decoding.
 */
function payload(x: unknown): Uint8Array | null {
  if (typeof x !== 'string') return null;
  const bytes = Buffer.from(x, 'base64');
  return bytes.toString('base64') === x ? new Uint8Array(bytes) : null;
}

function signature(x: unknown): string | null {
  return typeof x === 'string' && HEX_SIG.test(x) ? x : null;
}

/** The message in `bytes`, or null when they are not a well-formed consensus message. */
export function decodeMessage(bytes: Uint8Array): ConsensusMessage | null {
  if (bytes.length > MAX_MESSAGE_BYTES) return null;
  let x: unknown;
  try {
    x = JSON.parse(utf8Text(bytes));
  } catch {
    return null;
  }
  if (!isObj(x)) return null;
  switch (x.kind) {
    case 'status':
      return isInt(x.height, 1) ? { kind: 'status', height: x.height } : null;
    case 'vote': {
      if (!isObj(x.vote)) return null;
      const m = vote(x.vote.message);
      const s = signature(x.vote.signature);
      return m === null || s === null ? null : { kind: 'vote', vote: { message: m, signature: s } };
    }
    case 'proposal': {
      if (!isObj(x.proposal)) return null;
      const m = proposal(x.proposal.message);
      const s = signature(x.proposal.signature);
      const p = payload(x.payload);
      return m === null || s === null || p === null ? null : { kind: 'proposal', proposal: { message: m, signature: s }, payload: p };
    }
    case 'decided': {
      const c = certificate(x.certificate);
      const p = payload(x.payload);
      return c === null || p === null ? null : { kind: 'decided', certificate: c, payload: p };
    }
    default:
      return null;
  }
}
