// Signing of `/exchange` requests: EIP-712 `Agent {string source, bytes32 connectionId}` under the
// spec's domain. connectionId binds the action (docs/client.md):
//   action binding (default): keccak256(RFC 8785 canonical JSON of action || uint64 BE nonce || vault)
//                             vault = 0x00, or 0x01 followed by the 20 address bytes
//   literal binding (the spec's flow, accepted only where the genesis allows it, e.g. the devnet):
//                             the nonce as a 32-byte big-endian integer
import {
  agentDigest, canonicalize, concatBytes, domainSeparator, hexToBytes, keccak256, privateKeyToAddress, signDigest, uint64BE, utf8,
  type Eip712Domain,
} from '../primitives/index.ts';
import type { ExchangeAction, Signature, SignedRequest } from './types.ts';

export type Binding = 'action' | 'literal';

export const CHAIN_ID = 42069;
export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

export function exchangeDomain(chainId = CHAIN_ID): Eip712Domain {
  return { name: 'SvcExchange', version: '1', chainId, verifyingContract: ZERO_ADDRESS };
}

/** Anything that signs a 32-byte digest for an address: a private key here, or a wallet. */
export interface Signer {
  readonly address: string;
  signDigest(digest: Uint8Array): Promise<Signature> | Signature;
}

/** A signer holding a secp256k1 private key in memory. */
export class PrivateKeySigner implements Signer {
  readonly address: string;
  private readonly key: Uint8Array;

  constructor(privateKey: string) {
    const hex = privateKey.startsWith('0x') ? privateKey : `0x${privateKey}`;
    if (!/^0x[0-9a-fA-F]{64}$/.test(hex)) throw new TypeError('private key must be 32 bytes of hex');
    this.key = hexToBytes(hex);
    this.address = privateKeyToAddress(this.key);
  }

  signDigest(digest: Uint8Array): Signature {
    return signDigest(digest, this.key);
  }
}

export interface SigningOptions {
  readonly binding?: Binding;
  /** `a` on mainnet, `b` on testnet and local (default). */
  readonly source?: 'a' | 'b';
  readonly chainId?: number;
}

export function actionConnectionId(action: unknown, nonce: number, vaultAddress: string | null): Uint8Array {
  const vault = vaultAddress === null ? new Uint8Array([0]) : concatBytes(new Uint8Array([1]), hexToBytes(vaultAddress));
  return keccak256(concatBytes(utf8(canonicalize(action)), uint64BE(nonce), vault));
}

export function literalConnectionId(nonce: number): Uint8Array {
  return concatBytes(new Uint8Array(24), uint64BE(nonce));
}

/** Domain separators by chain id (a few chains at most: devnet, testnet, mainnet). */
const separators = new Map<number, Uint8Array>();

function separatorOf(chainId: number): Uint8Array {
  let sep = separators.get(chainId);
  if (sep === undefined) {
    sep = domainSeparator(exchangeDomain(chainId));
    if (separators.size < 16) separators.set(chainId, sep);
  }
  return sep;
}

/** The digest eth_signTypedData_v4 signs for this request. */
export function requestDigest(action: unknown, nonce: number, vaultAddress: string | null, opts: SigningOptions = {}): Uint8Array {
  const connectionId = opts.binding === 'literal' ? literalConnectionId(nonce) : actionConnectionId(action, nonce, vaultAddress);
  return agentDigest(separatorOf(opts.chainId ?? CHAIN_ID), opts.source ?? 'b', connectionId);
}

/** `{action, nonce, signature, vaultAddress}`, ready for `POST /exchange` or a WebSocket post. */
export async function signRequest<A extends ExchangeAction>(
  signer: Signer, action: A, nonce: number, vaultAddress: string | null = null, opts: SigningOptions = {},
): Promise<SignedRequest<A>> {
  if (!Number.isSafeInteger(nonce) || nonce < 0) throw new RangeError(`nonce must be a non-negative safe integer: ${nonce}`);
  const vault = vaultAddress === null ? null : vaultAddress.toLowerCase();
  const signature = await signer.signDigest(requestDigest(action, nonce, vault, opts));
  return { action, nonce, signature, vaultAddress: vault };
}
