// Validators' system transactions: canonical JSON {system, signature}, where the validator signs
// canonical({chainId, system}) with its ed25519 key. Two kinds: oracle prices, and the bridge's
// attestations and withdrawal signatures. They carry no nonce: a replayed oracle submission older
// than the validator's last is ignored by exchange/, and bridge items are idempotent (a validator's
// second attestation of a claim, or a second copy of its signature, changes nothing).
import { verifyValidatorSignature, type ValidatorKey } from '../consensus/index.ts';
import { canonicalize, utf8 } from '../primitives/index.ts';

export interface OracleSystem {
  readonly type: 'oracle';
  /** Hex ed25519 public key. */
  readonly validator: string;
  readonly time: number;
  readonly prices: Readonly<Record<string, string>>;
}

export interface BridgeSystem {
  readonly type: 'bridge';
  readonly validator: string;
  /** The validator's clock when it sent it (ms): keeps two submissions of the same items distinct. */
  readonly time: number;
  /** Attested facts of other chains (exchange/bridge.ts `BridgeClaim`), checked by exchange/. */
  readonly claims: readonly unknown[];
  /** `{withdrawalId, signature}` items: the validator's bridge signer's signatures. */
  readonly signatures: readonly unknown[];
}

export interface SystemTx {
  readonly system: OracleSystem | BridgeSystem;
  readonly signature: string;
}

function signBytes(chainId: number, system: SystemTx['system']): Uint8Array {
  return utf8(canonicalize({ chainId, system }));
}

function encode(chainId: number, key: ValidatorKey, system: SystemTx['system']): Uint8Array {
  return utf8(canonicalize({ system, signature: key.sign(signBytes(chainId, system)) }));
}

export function encodeOracleTx(chainId: number, key: ValidatorKey, time: number, prices: Record<string, string>): Uint8Array {
  return encode(chainId, key, { type: 'oracle', validator: key.publicKey, time, prices });
}

export function encodeBridgeTx(chainId: number, key: ValidatorKey, time: number, claims: readonly unknown[], signatures: readonly unknown[]): Uint8Array {
  return encode(chainId, key, { type: 'bridge', validator: key.publicKey, time, claims, signatures });
}

/** The system transaction in `bytes`, or null when they are something else (a user action). */
export function decodeSystemTx(bytes: Uint8Array): SystemTx | null {
  // User actions start with {"action": in canonical form; only system transactions with {"signature".
  if (bytes.length < 14 || bytes[2] !== 0x73 /* s */) return null;
  try {
    const v = JSON.parse(Buffer.from(bytes).toString('utf8')) as Partial<SystemTx>;
    const sys = v.system as Record<string, unknown> | undefined;
    if (sys === undefined || sys === null || typeof v.signature !== 'string') return null;
    if (typeof sys.validator !== 'string' || typeof sys.time !== 'number') return null;
    if (sys.type === 'oracle') return typeof sys.prices === 'object' && sys.prices !== null ? (v as SystemTx) : null;
    if (sys.type === 'bridge') return Array.isArray(sys.claims) && Array.isArray(sys.signatures) ? (v as SystemTx) : null;
    return null;
  } catch {
    return null;
  }
}

export function verifySystemTx(chainId: number, tx: SystemTx): boolean {
  try {
    return /^[0-9a-f]{64}$/.test(tx.system.validator) && verifyValidatorSignature(tx.system.validator, signBytes(chainId, tx.system), tx.signature);
  } catch {
    return false;
  }
}
