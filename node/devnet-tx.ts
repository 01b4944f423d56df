// Devnet system transactions: the devnet's JSON-RPC methods (anvil_setBalance, evm_mine, ...)
// travel in blocks as canonical JSON {devnet, signature}, the validator signing
// canonical({chainId, devnet}) with its ed25519 key, so replaying the stored blocks applies them
// again. Execution takes one only on a chain that allows them (the single-validator devnet) and
// only from a current validator; a network's node refuses them. The first key sorts as "devnet",
// so the third byte is 'd' (user actions start {"action", validators' system transactions {"signature").
import { verifyValidatorSignature, type ValidatorKey } from '../consensus/index.ts';
import type { DevnetOp } from '../evm/index.ts';
import { canonicalize, utf8 } from '../primitives/index.ts';

/** A devnet operation as it is written in a block (quantities as decimal strings). */
type WireOp = Record<string, string>;

export interface DevnetTx {
  readonly devnet: {
    readonly op: WireOp;
    /** Keeps two equal operations distinct (the node counts them). */
    readonly seq: number;
    readonly time: number;
    readonly validator: string;
  };
  readonly signature: string;
}

function signBytes(chainId: number, devnet: DevnetTx['devnet']): Uint8Array {
  return utf8(canonicalize({ chainId, devnet }));
}

function wireOp(op: DevnetOp): WireOp {
  const out: WireOp = {};
  for (const [k, v] of Object.entries(op)) out[k] = typeof v === 'bigint' ? v.toString() : String(v);
  return out;
}

export function encodeDevnetTx(chainId: number, key: ValidatorKey, op: DevnetOp, seq: number, time: number): Uint8Array {
  const devnet = { op: wireOp(op), seq, time, validator: key.publicKey };
  return utf8(canonicalize({ devnet, signature: key.sign(signBytes(chainId, devnet)) }));
}

/** The devnet transaction in `bytes`, or null when they are something else. */
export function decodeDevnetTx(bytes: Uint8Array): DevnetTx | null {
  if (bytes.length < 14 || bytes[2] !== 0x64 /* d */) return null;
  try {
    const v = JSON.parse(Buffer.from(bytes).toString('utf8')) as Partial<DevnetTx>;
    const d = v.devnet;
    if (typeof d !== 'object' || d === null || typeof v.signature !== 'string') return null;
    if (typeof d.validator !== 'string' || typeof d.seq !== 'number' || typeof d.time !== 'number' || typeof d.op !== 'object' || d.op === null) return null;
    return v as DevnetTx;
  } catch {
    return null;
  }
}

export function verifyDevnetTx(chainId: number, tx: DevnetTx): boolean {
  try {
    return /^[0-9a-f]{64}$/.test(tx.devnet.validator) && verifyValidatorSignature(tx.devnet.validator, signBytes(chainId, tx.devnet), tx.signature);
  } catch {
    return false;
  }
}

const ADDRESS = /^0x[0-9a-f]{40}$/;
const HEX = /^0x([0-9a-f]{2})*$/;
const UINT = /^(0|[1-9][0-9]{0,77})$/;
const INT = /^-?(0|[1-9][0-9]{0,77})$/;
const MAX_UINT256 = (1n << 256n) - 1n;

/** The operation a devnet transaction carries, checked field by field; null when malformed. */
export function devnetOp(tx: DevnetTx): DevnetOp | null {
  const o = tx.devnet.op;
  const addr = (k: string) => (typeof o[k] === 'string' && ADDRESS.test(o[k]) ? o[k] : null);
  const uint = (k: string, max = MAX_UINT256) => (typeof o[k] === 'string' && UINT.test(o[k]) && BigInt(o[k]) <= max ? BigInt(o[k]) : null);
  switch (o.kind) {
    case 'setBalance': {
      const address = addr('address');
      const balance = uint('balance');
      return address === null || balance === null ? null : { kind: 'setBalance', address, balance };
    }
    case 'setNonce': {
      const address = addr('address');
      const nonce = uint('nonce', (1n << 64n) - 1n);
      return address === null || nonce === null ? null : { kind: 'setNonce', address, nonce };
    }
    case 'setCode': {
      const address = addr('address');
      const code = typeof o.code === 'string' && HEX.test(o.code) ? o.code : null;
      return address === null || code === null ? null : { kind: 'setCode', address, code };
    }
    case 'setStorageAt': {
      const address = addr('address');
      const slot = uint('slot');
      const value = uint('value');
      return address === null || slot === null || value === null ? null : { kind: 'setStorageAt', address, slot, value };
    }
    case 'setNextTimestamp': {
      const timestamp = uint('timestamp', (1n << 64n) - 1n);
      return timestamp === null ? null : { kind: 'setNextTimestamp', timestamp };
    }
    case 'increaseTime': {
      const seconds = typeof o.seconds === 'string' && INT.test(o.seconds) ? BigInt(o.seconds) : null;
      return seconds === null || seconds < 0n || seconds >= 1n << 63n ? null : { kind: 'increaseTime', seconds };
    }
    case 'mine':
      return { kind: 'mine' };
    case 'sendAs': {
      const from = addr('from');
      const raw = typeof o.raw === 'string' && HEX.test(o.raw) && o.raw.length > 2 ? o.raw : null;
      return from === null || raw === null ? null : { kind: 'sendAs', from, raw };
    }
    default:
      return null;
  }
}

/**
 * The operation of a devnet transaction in a block, or why it is refused: only on a chain that
 * allows devnet methods, signed by one of the current validators.
 */
export function acceptDevnetTx(tx: DevnetTx, chainId: number, enabled: boolean, validators: readonly { readonly pubKey: string }[]): DevnetOp | string {
  if (!enabled) return 'devnet transactions are refused on this chain';
  if (!validators.some((v) => v.pubKey === tx.devnet.validator) || !verifyDevnetTx(chainId, tx)) return 'devnet transaction not signed by a validator';
  return devnetOp(tx) ?? 'malformed devnet operation';
}
