// Validators' system transactions (oracle prices): canonical JSON {system, signature}, where the
// validator signs canonical({chainId, system}) with its ed25519 key. They carry no nonce: a
// submission older than the last one of the same validator is ignored by exchange/, and stale
// ones are refused there.
import { verifyValidatorSignature, type ValidatorKey } from '../consensus/index.ts';
import { canonicalize, utf8 } from '../primitives/index.ts';

export interface SystemTx {
  readonly system: {
    readonly type: 'oracle';
    /** Hex ed25519 public key. */
    readonly validator: string;
    readonly time: number;
    readonly prices: Readonly<Record<string, string>>;
  };
  readonly signature: string;
}

function signBytes(chainId: number, system: SystemTx['system']): Uint8Array {
  return utf8(canonicalize({ chainId, system }));
}

export function encodeOracleTx(chainId: number, key: ValidatorKey, time: number, prices: Record<string, string>): Uint8Array {
  const system = { type: 'oracle' as const, validator: key.publicKey, time, prices };
  return utf8(canonicalize({ system, signature: key.sign(signBytes(chainId, system)) }));
}

/** The system transaction in `bytes`, or null when they are something else (a user action). */
export function decodeSystemTx(bytes: Uint8Array): SystemTx | null {
  // User actions start with {"action": in canonical form; only system transactions with {"signature".
  if (bytes.length < 14 || bytes[2] !== 0x73 /* s */) return null;
  try {
    const v = JSON.parse(Buffer.from(bytes).toString('utf8')) as Partial<SystemTx>;
    const sys = v.system;
    if (sys === undefined || sys.type !== 'oracle' || typeof v.signature !== 'string') return null;
    if (typeof sys.validator !== 'string' || typeof sys.time !== 'number' || typeof sys.prices !== 'object' || sys.prices === null) return null;
    return v as SystemTx;
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
