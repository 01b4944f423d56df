// Who signed a request: the EIP-712 `Agent` message under the two bindings of DESIGN.md.
//   action binding:  connectionId = keccak256(canonical(action) || uint64_be(nonce) || vault)
//                    vault = 0x00, or 0x01 followed by the 20 address bytes
//   literal binding: connectionId = nonce as a 32-byte big-endian integer (the spec's flow;
//                    only where the genesis allows it, since it does not bind the action)
import {
  agentDigest, canonicalize, concatBytes, domainSeparator, hexToBytes, keccak256,
  recoverAddress, uint64BE, type Address, type Eip712Domain, type RecoveryItem,
} from '../primitives/index.ts';
import type { HyperliquidAuth } from './hyperliquid-auth.ts';

export type Binding = 'action' | 'literal';

export interface AuthConfig {
  readonly domain: Eip712Domain;
  /** `a` on mainnet, `b` on testnet and local. */
  readonly source: string;
  readonly literalNonceBinding: boolean;
  /** The Hyperliquid dialect's signing (hyperliquid-auth.ts); absent or null: refused. */
  readonly hyperliquid?: HyperliquidAuth | null;
}

export interface SignatureWire {
  readonly r: string;
  readonly s: string;
  readonly v: number;
}

export interface SignerCandidate {
  readonly binding: Binding;
  readonly address: Address;
}

export function exchangeDomain(chainId: number): Eip712Domain {
  return { name: 'SvcExchange', version: '1', chainId, verifyingContract: '0x0000000000000000000000000000000000000000' };
}


export function actionConnectionId(action: unknown, nonce: number, vault: Address | null): Uint8Array {
  return connectionIdOfCanonical(canonicalize(action), nonce, vault);
}

/** Scratch preimage of the action binding, grown as needed (hashing is synchronous, per thread). */
let preimage = new Uint8Array(1024);

/** The action binding from the action's canonical JSON, when the caller has it already. */
export function connectionIdOfCanonical(canonicalAction: string | Uint8Array, nonce: number, vault: Address | null): Uint8Array {
  // The canonical text as text or as its UTF-8 bytes. UTF-8 is at most 3 bytes per UTF-16 unit;
  // then 8 nonce bytes and at most 21 vault bytes.
  const bytes = typeof canonicalAction !== 'string';
  const need = (bytes ? canonicalAction.length : canonicalAction.length * 3) + 29;
  if (preimage.length < need) preimage = new Uint8Array(need * 2);
  let n: number;
  if (bytes) {
    preimage.set(canonicalAction);
    n = canonicalAction.length;
  } else n = ENCODER.encodeInto(canonicalAction, preimage).written;
  new DataView(preimage.buffer).setBigUint64(n, BigInt(nonce));
  n += 8;
  if (vault === null) preimage[n++] = 0;
  else {
    preimage[n++] = 1;
    preimage.set(hexToBytes(vault), n);
    n += 20;
  }
  return keccak256(preimage.subarray(0, n));
}

const ENCODER = new TextEncoder();

export function literalConnectionId(nonce: number): Uint8Array {
  return concatBytes(new Uint8Array(24), uint64BE(nonce));
}

const SCALAR_RE = /^0x[0-9a-fA-F]{1,64}$/;

/** Parses `{r, s, v}`; v may be 27/28 or 0/1. Null when malformed. */
export function parseSignature(sig: unknown): { r: bigint; s: bigint; recovery: number } | null {
  if (typeof sig !== 'object' || sig === null) return null;
  const { r, s, v } = sig as Record<string, unknown>;
  // r and s are integers: clients that print them without leading zeros (ccxt, Hyperliquid's Python SDK) send odd lengths.
  if (typeof r !== 'string' || typeof s !== 'string' || !SCALAR_RE.test(r) || !SCALAR_RE.test(s)) return null;
  if (typeof v !== 'number' || ![0, 1, 27, 28].includes(v)) return null;
  return { r: BigInt(r), s: BigInt(s), recovery: v >= 27 ? v - 27 : v };
}

const separators = new Map<string, Uint8Array>();

function separatorOf(d: Eip712Domain): Uint8Array {
  const key = `${d.name}|${d.version}|${d.chainId}|${d.verifyingContract}`;
  let sep = separators.get(key);
  if (sep === undefined) separators.set(key, (sep = domainSeparator(d)));
  return sep;
}

export interface SignedFields {
  readonly action: unknown;
  readonly nonce: number;
  readonly vaultAddress: Address | null;
  readonly signature: unknown;
  /** Set for the Hyperliquid dialect, whose schemes are hyperliquid-auth.ts's, not this file's. */
  readonly dialect?: 'hyperliquid';
  readonly expiresAfter?: number | null;
}

/**
 * What recovery under one binding takes: the signed digest and the signature; null when the
 * request recovers to no address under it (malformed, or a binding the genesis does not allow).
 */
export function signerDigest(cfg: AuthConfig, req: SignedFields, binding: Binding, canonicalAction?: string | Uint8Array): RecoveryItem | null {
  const sig = parseSignature(req.signature);
  if (sig === null || !Number.isSafeInteger(req.nonce) || req.nonce < 0 || req.dialect !== undefined) return null;
  if (binding === 'literal' && !cfg.literalNonceBinding) return null;
  const connectionId = binding === 'literal'
    ? literalConnectionId(req.nonce)
    : connectionIdOfCanonical(canonicalAction ?? canonicalize(req.action), req.nonce, req.vaultAddress);
  return { digest: agentDigest(separatorOf(cfg.domain), cfg.source, connectionId), sig };
}

/** The address the signature recovers to under one binding, or null when it recovers to none. */
export function recoverSigner(cfg: AuthConfig, req: SignedFields, binding: Binding, canonicalAction?: string | Uint8Array): Address | null {
  const item = signerDigest(cfg, req, binding, canonicalAction);
  return item === null ? null : recoverAddress(item.digest, item.sig);
}

/** The bindings to try, in order: the action binding first, the literal one where allowed. */
export function allowedBindings(cfg: AuthConfig): Binding[] {
  return cfg.literalNonceBinding ? ['action', 'literal'] : ['action'];
}

/**
 * Addresses the signature recovers to under the allowed bindings, action binding first, computed
 * lazily: a caller that accepts the first known signer pays for one recovery, not two.
 */
export function* signerCandidates(cfg: AuthConfig, req: SignedFields): Generator<SignerCandidate> {
  for (const binding of allowedBindings(cfg)) {
    const address = recoverSigner(cfg, req, binding);
    if (address !== null) yield { binding, address };
  }
}

/** What a client author needs to fix a signer whose address the node does not know. */
export function signingHint(cfg: AuthConfig): string {
  const d = cfg.domain;
  const literal = cfg.literalNonceBinding ? ', or connectionId = nonce as bytes32 (literal binding)' : '';
  return (
    `EIP-712 domain {name: "${d.name}", version: "${d.version}", chainId: ${d.chainId}, verifyingContract: ${d.verifyingContract}}, ` +
    `primary type Agent {string source, bytes32 connectionId}, source "${cfg.source}", ` +
    `connectionId = keccak256(RFC 8785 canonical JSON of action || uint64 big-endian nonce || vault byte(s))${literal}`
  );
}
