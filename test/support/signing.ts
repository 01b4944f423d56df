// Client-side signing with ethers and the npm `canonicalize` package: an implementation of the
// exchange's signing rules that shares no code with the node.
import canonicalize from 'canonicalize';
import type { Wallet} from 'ethers';
import { ZeroAddress, concat, getBytes, keccak256, toBeHex, toUtf8Bytes, zeroPadValue, Signature } from 'ethers';

export const CHAIN_ID = 42069;
export const DOMAIN = { name: 'SvcExchange', version: '1', chainId: CHAIN_ID, verifyingContract: ZeroAddress };
export const AGENT_TYPES = { Agent: [{ name: 'source', type: 'string' }, { name: 'connectionId', type: 'bytes32' }] };

export interface SignOptions {
  binding?: 'action' | 'literal';
  vaultAddress?: string | null;
  domain?: typeof DOMAIN;
  source?: string;
}

export function actionConnectionId(action: unknown, nonce: number, vault: string | null): string {
  const vaultBytes = vault === null ? new Uint8Array([0]) : concat([new Uint8Array([1]), getBytes(vault)]);
  return keccak256(concat([toUtf8Bytes(canonicalize(action) as string), zeroPadValue(toBeHex(nonce), 8), vaultBytes]));
}

export async function signRequest(wallet: Wallet, action: unknown, nonce: number, opts: SignOptions = {}) {
  const vault = opts.vaultAddress ?? null;
  const connectionId = opts.binding === 'literal' ? zeroPadValue(toBeHex(nonce), 32) : actionConnectionId(action, nonce, vault);
  const sig = Signature.from(await wallet.signTypedData(opts.domain ?? DOMAIN, AGENT_TYPES, { source: opts.source ?? 'b', connectionId }));
  return { action, nonce, signature: { r: sig.r, s: sig.s, v: sig.v }, vaultAddress: vault };
}
