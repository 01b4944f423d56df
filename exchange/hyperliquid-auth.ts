// Who signed a request of the Hyperliquid dialect, under Hyperliquid's two schemes exactly:
//   L1 actions: EIP-712 `Agent {string source, bytes32 connectionId}` in the domain
//     {name "Exchange", version "1", chainId 1337, verifyingContract 0}, where
//     connectionId = keccak256(msgpack(action) || uint64_be(nonce) || vault || expiry)
//     with the action's keys in the order the client sent them, vault = 0x00 or 0x01 + 20 bytes,
//     expiry = nothing, or 0x00 + uint64_be(expiresAfter); source "a" (Mainnet) or "b" (Testnet).
//   user-signed actions (usdSend, withdraw3, approveAgent, ...): the action itself as the typed
//     struct `HyperliquidTransaction:<Name>` in the domain {name "HyperliquidSignTransaction",
//     version "1", chainId = action.signatureChainId, verifyingContract 0}.
// A signature made for Hyperliquid's own chains recovers to the same address here: the genesis
// decides whether the dialect is accepted at all and under which chains (see docs/hyperliquid.md).
import { encode as msgpack } from '@msgpack/msgpack';
import {
  agentDigest, domainSeparator, hexToBytes, keccak256, recoverAddress, structTypeHash, typedDataDigest, type RecoveryItem,
  type Address, type TypedField,
} from '../primitives/index.ts';
import { parseSignature } from './auth.ts';

/** The dialect's signing as the genesis allows it; absent or null: the dialect is refused. */
export interface HyperliquidAuth {
  /** Hyperliquid chains whose signatures are accepted: "Mainnet" (source "a"), "Testnet" (source "b"). */
  readonly chains: readonly ('Mainnet' | 'Testnet')[];
}

/** A dialect request's signed fields, as they travel in a block. */
export interface HyperliquidSignedFields {
  readonly action: unknown;
  readonly nonce: number;
  readonly vaultAddress: Address | null;
  readonly expiresAfter: number | null;
  readonly signature: unknown;
}

const ZERO = '0x0000000000000000000000000000000000000000';
const L1_SEPARATOR = domainSeparator({ name: 'Exchange', version: '1', chainId: 1337, verifyingContract: ZERO });
const SOURCE: Record<'Mainnet' | 'Testnet', string> = { Mainnet: 'a', Testnet: 'b' };

interface UserSignedType {
  readonly primaryType: string;
  readonly fields: readonly TypedField[];
  readonly typeHash: Uint8Array;
  /** The field that must equal the request's nonce. */
  readonly nonceField: 'time' | 'nonce';
}

function userSigned(name: string, fields: [string, TypedField['type']][]): UserSignedType {
  const primaryType = `HyperliquidTransaction:${name}`;
  const typed = fields.map(([n, type]) => ({ name: n, type }));
  const nonceField = typed.some((f) => f.name === 'time') ? 'time' : 'nonce';
  return { primaryType, fields: typed, typeHash: structTypeHash(primaryType, typed), nonceField };
}

/** The user-signed actions the dialect accepts, by action type: Hyperliquid's struct of each. */
const USER_SIGNED: Readonly<Record<string, UserSignedType>> = {
  usdSend: userSigned('UsdSend', [['hyperliquidChain', 'string'], ['destination', 'string'], ['amount', 'string'], ['time', 'uint64']]),
  spotSend: userSigned('SpotSend', [['hyperliquidChain', 'string'], ['destination', 'string'], ['token', 'string'], ['amount', 'string'], ['time', 'uint64']]),
  withdraw3: userSigned('Withdraw', [['hyperliquidChain', 'string'], ['destination', 'string'], ['amount', 'string'], ['time', 'uint64']]),
  usdClassTransfer: userSigned('UsdClassTransfer', [['hyperliquidChain', 'string'], ['amount', 'string'], ['toPerp', 'bool'], ['nonce', 'uint64']]),
  sendAsset: userSigned('SendAsset', [
    ['hyperliquidChain', 'string'], ['destination', 'string'], ['sourceDex', 'string'], ['destinationDex', 'string'],
    ['token', 'string'], ['amount', 'string'], ['fromSubAccount', 'string'], ['nonce', 'uint64'],
  ]),
  approveAgent: userSigned('ApproveAgent', [['hyperliquidChain', 'string'], ['agentAddress', 'address'], ['agentName', 'string'], ['nonce', 'uint64']]),
  approveBuilderFee: userSigned('ApproveBuilderFee', [['hyperliquidChain', 'string'], ['maxFeeRate', 'string'], ['builder', 'address'], ['nonce', 'uint64']]),
  tokenDelegate: userSigned('TokenDelegate', [['hyperliquidChain', 'string'], ['validator', 'address'], ['wei', 'uint64'], ['isUndelegate', 'bool'], ['nonce', 'uint64']]),
  cDeposit: userSigned('CDeposit', [['hyperliquidChain', 'string'], ['wei', 'uint64'], ['nonce', 'uint64']]),
  cWithdraw: userSigned('CWithdraw', [['hyperliquidChain', 'string'], ['wei', 'uint64'], ['nonce', 'uint64']]),
};

/** Whether Hyperliquid signs this action type as a user-signed (typed) action rather than an L1 one. */
export function isUserSignedType(type: unknown): boolean {
  return typeof type === 'string' && Object.hasOwn(USER_SIGNED, type);
}

/** The field of a user-signed action that carries its nonce (`time` or `nonce`); null for L1 actions. */
export function userSignedNonceField(type: unknown): 'time' | 'nonce' | null {
  return isUserSignedType(type) ? (USER_SIGNED[type as string] as UserSignedType).nonceField : null;
}

/** msgpack with Hyperliquid's integer widths (the smallest that holds the value; beyond int32, 64 bits). */
function packAction(action: unknown): Uint8Array {
  return msgpack(action, { ignoreUndefined: true });
}

/** The L1 action's hash, the phantom agent's connectionId. */
export function l1ActionHash(action: unknown, nonce: number, vault: Address | null, expiresAfter: number | null): Uint8Array {
  const packed = packAction(action);
  const tail = new Uint8Array(8 + (vault === null ? 1 : 21) + (expiresAfter === null ? 0 : 9));
  const view = new DataView(tail.buffer);
  view.setBigUint64(0, BigInt(nonce));
  let n = 8;
  if (vault === null) tail[n++] = 0;
  else {
    tail[n++] = 1;
    tail.set(hexToBytes(vault), n);
    n += 20;
  }
  if (expiresAfter !== null) {
    tail[n++] = 0;
    view.setBigUint64(n, BigInt(expiresAfter));
  }
  const pre = new Uint8Array(packed.length + tail.length);
  pre.set(packed, 0);
  pre.set(tail, packed.length);
  return keccak256(pre);
}

const userSeparators = new Map<number, Uint8Array>();

function userSeparator(chainId: number): Uint8Array {
  let sep = userSeparators.get(chainId);
  if (sep === undefined) {
    sep = domainSeparator({ name: 'HyperliquidSignTransaction', version: '1', chainId, verifyingContract: ZERO });
    if (userSeparators.size < 64) userSeparators.set(chainId, sep);
  }
  return sep;
}

/** The digest a user-signed action's signature covers; null when the action does not fit its struct. */
export function userSignedDigest(action: Record<string, unknown>): Uint8Array | null {
  const t = USER_SIGNED[action.type as string];
  const chainIdHex = action.signatureChainId;
  if (t === undefined || typeof chainIdHex !== 'string' || !/^0x[0-9a-fA-F]{1,15}$/.test(chainIdHex)) return null;
  return typedDataDigest(userSeparator(Number.parseInt(chainIdHex, 16)), t.typeHash, t.fields, action);
}

/**
 * What recovering a dialect request takes: one digest per chain the genesis allows (one for a
 * user-signed action, whose chain is in it), with the signature; [] when the request is malformed
 * or signed for a chain not allowed.
 */
export function hyperliquidDigests(cfg: HyperliquidAuth | null | undefined, req: HyperliquidSignedFields): RecoveryItem[] {
  if (cfg === null || cfg === undefined || cfg.chains.length === 0) return [];
  const sig = parseSignature(req.signature);
  const action = req.action;
  if (sig === null || typeof action !== 'object' || action === null || Array.isArray(action)) return [];
  if (!Number.isSafeInteger(req.nonce) || req.nonce < 0) return [];
  if (req.expiresAfter !== null && (!Number.isSafeInteger(req.expiresAfter) || req.expiresAfter < 0)) return [];
  const a = action as Record<string, unknown>;
  if (isUserSignedType(a.type)) {
    if (!cfg.chains.includes(a.hyperliquidChain as 'Mainnet')) return [];
    const digest = userSignedDigest(a);
    return digest === null ? [] : [{ digest, sig }];
  }
  let hash: Uint8Array;
  try {
    hash = l1ActionHash(action, req.nonce, req.vaultAddress, req.expiresAfter);
  } catch {
    return [];
  }
  return cfg.chains.map((chain) => ({ digest: agentDigest(L1_SEPARATOR, SOURCE[chain], hash), sig }));
}

/** The distinct addresses, in order, of recoveries (nulls dropped). */
export function distinctAddresses(addresses: readonly (Address | null)[]): Address[] {
  const found: Address[] = [];
  for (const a of addresses) if (a !== null && !found.includes(a)) found.push(a);
  return found;
}

/**
 * The addresses a dialect request's signature recovers to under the chains the genesis allows,
 * distinct, in the genesis's order; [] when none (malformed, or signed for a chain not allowed).
 */
export function hyperliquidCandidates(cfg: HyperliquidAuth | null | undefined, req: HyperliquidSignedFields): Address[] {
  return distinctAddresses(hyperliquidDigests(cfg, req).map((i) => recoverAddress(i.digest, i.sig)));
}

/** What a client author needs to fix a dialect signer the node does not know. */
export function hyperliquidSigningHint(cfg: HyperliquidAuth | null | undefined): string {
  const chains = cfg?.chains.join(' or ') ?? 'none';
  return `Hyperliquid signing (accepted chains: ${chains}): L1 actions as the phantom agent of domain {name: "Exchange", chainId: 1337}; user-signed actions under "HyperliquidSignTransaction"`;
}
