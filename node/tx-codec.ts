// Transactions on the wire and in blocks. Exchange actions (and validators' system transactions)
// are canonical JSON objects, so their first byte is '{' (0x7b); anything else is an EVM
// transaction as Ethereum encodes it: an EIP-2718 envelope (first byte 0x01-0x04) or a legacy RLP
// list (first byte >= 0xc0). Either way keccak256 of the bytes is the transaction hash.
import { canonicalize, normalizeAddress, utf8, utf8Text, type Address } from '../primitives/index.ts';
import type { ExchangeTx } from '../exchange/index.ts';

export interface SignedRequest {
  readonly action: unknown;
  readonly nonce: number;
  readonly signature: unknown;
  readonly vaultAddress: Address | null;
  /** A Hyperliquid-dialect request: its action keeps the key order the client hashed (msgpack). */
  readonly dialect?: 'hyperliquid';
  readonly expiresAfter?: number | null;
}

/** Whether block bytes carry an EVM transaction rather than an exchange or system one. */
export function isEvmTx(bytes: Uint8Array): boolean {
  return bytes.length > 0 && bytes[0] !== 0x7b;
}

/**
 * A request's block bytes. `canonicalAction`, the action's canonical text as text or as its UTF-8
 * bytes, is computed when not given.
 */
export function encodeRequest(req: SignedRequest, canonicalAction?: string | Uint8Array): Uint8Array {
  if (req.dialect === 'hyperliquid') return encodeHyperliquid(req);
  canonicalAction ??= canonicalize(req.action);
  // The four keys are already in canonical (sorted) order: the action's canonical text is reused.
  const vault = req.vaultAddress === null ? 'null' : JSON.stringify(req.vaultAddress);
  const rest = `,"nonce":${canonicalize(req.nonce)},"signature":${canonicalize(req.signature)},"vaultAddress":${vault}}`;
  if (typeof canonicalAction === 'string') return utf8(`${ACTION_OPEN}${canonicalAction}${rest}`);
  const tail = utf8(rest);
  const out = new Uint8Array(ACTION_OPEN_BYTES.length + canonicalAction.length + tail.length);
  out.set(ACTION_OPEN_BYTES);
  out.set(canonicalAction, ACTION_OPEN_BYTES.length);
  out.set(tail, ACTION_OPEN_BYTES.length + canonicalAction.length);
  return out;
}

const ACTION_OPEN = '{"action":';
const ACTION_OPEN_BYTES = utf8(ACTION_OPEN);

/**
 * A dialect request: the action as the client sent it (JSON keeps its key order, which the
 * msgpack hash depends on), then the other fields in sorted order after the `dialect` marker.
 */
function encodeHyperliquid(req: SignedRequest): Uint8Array {
  const vault = req.vaultAddress === null ? 'null' : JSON.stringify(req.vaultAddress);
  const expires = req.expiresAfter === null || req.expiresAfter === undefined ? 'null' : canonicalize(req.expiresAfter);
  return utf8(`{"action":${JSON.stringify(req.action)},"dialect":"hyperliquid","expiresAfter":${expires},"nonce":${canonicalize(req.nonce)},"signature":${canonicalize(req.signature)},"vaultAddress":${vault}}`);
}

/** Decodes block bytes; a malformed transaction decodes to a request no account can have signed. */
export function decodeRequest(bytes: Uint8Array): SignedRequest | null {
  try {
    const v = JSON.parse(utf8Text(bytes)) as Record<string, unknown>;
    const vault = v.vaultAddress === null || v.vaultAddress === undefined ? null : normalizeAddress(v.vaultAddress);
    if (typeof v.nonce !== 'number' || (v.vaultAddress != null && vault === null)) return null;
    if (v.dialect === undefined) return { action: v.action, nonce: v.nonce, signature: v.signature, vaultAddress: vault };
    if (v.dialect !== 'hyperliquid' || (v.expiresAfter !== null && typeof v.expiresAfter !== 'number')) return null;
    return { action: v.action, nonce: v.nonce, signature: v.signature, vaultAddress: vault, dialect: 'hyperliquid', expiresAfter: v.expiresAfter as number | null };
  } catch {
    return null;
  }
}

export function toExchangeTx(hash: string, req: SignedRequest, signer: Address): ExchangeTx {
  return { hash, signer, nonce: req.nonce, vaultAddress: req.vaultAddress, action: req.action };
}
