// An EVM transaction's signature as the signer pool recovers it: the signing digest and (r, s, y).
import { bytesToHex, recoverPublicKey } from '../primitives/index.ts';

export interface EvmSignature {
  readonly digest: Uint8Array;
  readonly r: bigint;
  readonly s: bigint;
  readonly recovery: number;
}

/** The 64-byte public key (hex, no 0x04 prefix) that signed an EVM transaction, or null. */
export function recoverEvmKey(sig: EvmSignature): string | null {
  const pub = recoverPublicKey(sig.digest, sig);
  return pub === null ? null : bytesToHex(pub.subarray(1));
}
