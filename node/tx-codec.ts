// Transactions on the wire and in blocks: the canonical JSON of a signed request
// {action, nonce, signature, vaultAddress}. Its keccak256 is the transaction hash.
import { canonicalize, normalizeAddress, utf8, type Address } from '../primitives/index.ts';
import type { ExchangeTx } from '../exchange/index.ts';

export interface SignedRequest {
  readonly action: unknown;
  readonly nonce: number;
  readonly signature: unknown;
  readonly vaultAddress: Address | null;
}

export function encodeRequest(req: SignedRequest, canonicalAction = canonicalize(req.action)): Uint8Array {
  // The four keys are already in canonical (sorted) order: the action's canonical text is reused.
  const vault = req.vaultAddress === null ? 'null' : JSON.stringify(req.vaultAddress);
  return utf8(`{"action":${canonicalAction},"nonce":${canonicalize(req.nonce)},"signature":${canonicalize(req.signature)},"vaultAddress":${vault}}`);
}

/** Decodes block bytes; a malformed transaction decodes to a request no account can have signed. */
export function decodeRequest(bytes: Uint8Array): SignedRequest | null {
  try {
    const v = JSON.parse(Buffer.from(bytes).toString('utf8')) as Record<string, unknown>;
    const vault = v.vaultAddress === null || v.vaultAddress === undefined ? null : normalizeAddress(v.vaultAddress);
    if (typeof v.nonce !== 'number' || (v.vaultAddress != null && vault === null)) return null;
    return { action: v.action, nonce: v.nonce, signature: v.signature, vaultAddress: vault };
  } catch {
    return null;
  }
}

export function toExchangeTx(hash: string, req: SignedRequest, signer: Address): ExchangeTx {
  return { hash, signer, nonce: req.nonce, vaultAddress: req.vaultAddress, action: req.action };
}
