// Consensus messages on the wire, checked field by field on the way in, since they come from any
// peer; signatures are checked later by the replica. Votes and status are JSON. A message that
// carries a block (proposal, decided) is `[kind][u32 n][n bytes of JSON][the block's bytes]`, so
// the block travels as its own bytes; a compact proposal carries a compact block
// (`compactBlock`), which the receiver expands from the transactions it was gossiped.
import { utf8, utf8Text } from '../primitives/index.ts';
import { compactBlock, expandBlock } from './block-codec.ts';
import type { CommitCertificate } from './certificate.ts';
import type { ConsensusMessage } from './replica.ts';
import type { Proposal, Vote } from './types.ts';

const HEX_KEY = /^[0-9a-f]{64}$/;
const HEX_SIG = /^[0-9a-f]{128}$/;
const VALUE_ID = /^0x[0-9a-f]{64}$/;

/** Largest message accepted (a block of the default 4 MiB of transactions, with room). */
export const MAX_MESSAGE_BYTES = 8 << 20;

/** First byte of a message carrying a block; a JSON message starts with `{`. */
const PROPOSAL = 1;
const COMPACT_PROPOSAL = 2;
const DECIDED = 3;

function withBlock(kind: number, head: unknown, block: Uint8Array): Uint8Array {
  const json = utf8(JSON.stringify(head));
  const out = new Uint8Array(5 + json.length + block.length);
  out[0] = kind;
  new DataView(out.buffer).setUint32(1, json.length);
  out.set(json, 5);
  out.set(block, 5 + json.length);
  return out;
}

/** The JSON head and the block of a message with a block, or null when its framing is broken. */
function splitBlock(bytes: Uint8Array): { head: unknown; block: Uint8Array } | null {
  if (bytes.length < 5) return null;
  const n = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(1);
  if (5 + n > bytes.length) return null;
  try {
    return { head: JSON.parse(utf8Text(bytes.subarray(5, 5 + n))), block: bytes.subarray(5 + n) };
  } catch {
    return null;
  }
}

/** `bytes` (a message with a block of `blockLength` bytes at its end) as `kind` with `block` instead. */
function rewrap(bytes: Uint8Array, blockLength: number, kind: number, block: Uint8Array): Uint8Array {
  const headLength = bytes.length - blockLength;
  const out = new Uint8Array(headLength + block.length);
  out.set(bytes.subarray(0, headLength));
  out[0] = kind;
  out.set(block, headLength);
  return out;
}

export function encodeMessage(msg: ConsensusMessage): Uint8Array {
  if (msg.kind === 'proposal') return withBlock(PROPOSAL, { proposal: msg.proposal }, msg.payload);
  if (msg.kind === 'decided') return withBlock(DECIDED, { certificate: msg.certificate }, msg.payload);
  return utf8(JSON.stringify(msg));
}

/**
 * An encoded proposal with the transactions `known` to the receiver as keys, or null when `encoded`
 * is not a proposal or none is known (send it whole).
 */
export function compactMessage(encoded: Uint8Array, known: (key: string) => boolean): Uint8Array | null {
  if (encoded[0] !== PROPOSAL) return null;
  const parts = splitBlock(encoded);
  if (parts === null) return null;
  const block = compactBlock(parts.block, known);
  return block === null ? null : rewrap(encoded, parts.block.length, COMPACT_PROPOSAL, block);
}

export function isCompactMessage(bytes: Uint8Array): boolean {
  return bytes[0] === COMPACT_PROPOSAL;
}

/**
 * A compact proposal as the whole proposal's encoding, its transactions looked up by key; when
 * some are not found, how many and the proposal's signature (to ask its sender for it whole).
 * Null when malformed.
 */
export function expandMessage(
  bytes: Uint8Array,
  lookup: (key: string) => Uint8Array | undefined,
): Uint8Array | { missing: number; signature: string } | null {
  if (bytes[0] !== COMPACT_PROPOSAL) return null;
  const parts = splitBlock(bytes);
  if (parts === null) return null;
  const block = expandBlock(parts.block, lookup);
  if (block === null) return null;
  if (!(block instanceof Uint8Array)) {
    const p = isObj(parts.head) && isObj(parts.head.proposal) ? signature(parts.head.proposal.signature) : null;
    return p === null ? null : { missing: block.missing, signature: p };
  }
  return rewrap(bytes, parts.block.length, PROPOSAL, block);
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

function signature(x: unknown): string | null {
  return typeof x === 'string' && HEX_SIG.test(x) ? x : null;
}

/** The message in `bytes`, or null when they are not a well-formed consensus message. */
export function decodeMessage(bytes: Uint8Array): ConsensusMessage | null {
  if (bytes.length > MAX_MESSAGE_BYTES) return null;
  if (bytes[0] === PROPOSAL || bytes[0] === DECIDED) {
    const parts = splitBlock(bytes);
    if (parts === null || !isObj(parts.head)) return null;
    // Its own bytes: the replica keeps the payload (WAL, decision) beyond this frame.
    const payload = new Uint8Array(parts.block);
    if (bytes[0] === DECIDED) {
      const c = certificate(parts.head.certificate);
      return c === null ? null : { kind: 'decided', certificate: c, payload };
    }
    if (!isObj(parts.head.proposal)) return null;
    const m = proposal(parts.head.proposal.message);
    const s = signature(parts.head.proposal.signature);
    return m === null || s === null ? null : { kind: 'proposal', proposal: { message: m, signature: s }, payload };
  }
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
    default:
      return null;
  }
}
