// The bridge's consensus side. Facts from other chains (a chain's bridge contract, a deposit, a
// withdrawal paid or past its deadline there) enter only as attestations of validators: each
// applies once, when validators holding more than 2/3 of the voting power attested the same
// content. Withdrawals are debited when requested and collect the validators' secp256k1
// signatures (EIP-712 `Withdrawal`, checked here against each validator's bridge signer) that
// the bridge contract pays out on; one that can no longer be paid (its deadline passed on the
// destination chain, unpaid) is refunded whole.
import {
  bytesToHex, canonicalize, concatBytes, domainSeparator, formatScaled, hexToBytes, isAddress, isHex, keccak256, normalizeAddress,
  parseScaled, recoverAddress, utf8, type Address,
} from '../primitives/index.ts';
import type { Account } from './account.ts';
import type { ExchangeEvent } from './events.ts';
import { USD_DECIMALS } from './config.ts';
import { exchangeError, type ExchangeError } from './errors.ts';
import { availableMargin } from './margin.ts';
import type { ExchangeState } from './state.ts';

/** USDC has 6 decimals on every chain the bridge serves; state keeps USD in 10^-8. */
export const BRIDGE_TOKEN_DECIMALS = 6;
const TOKEN_UNIT = 10n ** BigInt(USD_DECIMALS - BRIDGE_TOKEN_DECIMALS);
/** The spec's supported chains (Ethereum, Arbitrum One, Base, OP Mainnet); a mainnet genesis allows only these. */
export const MAINNET_BRIDGE_CHAINS: readonly number[] = [1, 42161, 8453, 10];
/** Attestations waiting for a quorum are dropped after this long (block time). */
export const VOTE_TTL_MS = 24 * 3_600_000;
/** Attestations one validator may have waiting for a quorum; more are refused. */
export const MAX_PENDING_VOTES = 10_000;
/** Final withdrawals stay readable in state this long (block time), then leave it. */
export const FINAL_WITHDRAWAL_RETENTION_MS = 7 * 86_400_000;
/** A bridge transaction counts within this long (ms) of the block time, either way. */
export const BRIDGE_TX_WINDOW_MS = 120_000;
/** Signers in a contract's validator set at most (a claim carrying a set stays small). */
export const MAX_SET_SIGNERS = 200;
/** Claims carrying a validator set (chain, setUpdated) one validator may have waiting for a quorum. */
export const MAX_PENDING_SET_VOTES = 16;
/** Items (claims and signatures) in one bridge system transaction at most. */
export const MAX_BRIDGE_ITEMS = 1000;

export type WithdrawalStatus = 'pending' | 'signed' | 'completed' | 'refunded';

export interface Withdrawal {
  /** The hash of the transaction that requested it (bytes32 on the bridge contract). */
  readonly withdrawalId: string;
  readonly user: Address;
  readonly destination: Address;
  readonly chainId: number;
  /** Net amount paid out, and the fee kept (USD units; the amount is whole token units). */
  readonly amount: bigint;
  readonly fee: bigint;
  /** Block time of the request, ms. */
  readonly time: number;
  /** Unix seconds: the contract pays it at a chain time up to this and never after. */
  readonly deadline: number;
  status: WithdrawalStatus;
  /** Validator public key -> its 65-byte signature (hex), in arrival order. */
  readonly signatures: Map<string, string>;
  /** The payout transaction on the destination chain, once completed. */
  txHash: string | null;
  /** Block time it became completed or refunded; 0 before. */
  finalTime: number;
}

/** The validator set a bridge contract holds: signers in ascending address order, their powers, and its update count. */
export interface ContractSet {
  readonly nonce: number;
  readonly signers: readonly Address[];
  readonly powers: readonly number[];
}

export type BridgeClaim =
  | { readonly kind: 'chain'; readonly chainId: number; readonly contract: Address; readonly set: ContractSet }
  | { readonly kind: 'setUpdated'; readonly chainId: number; readonly set: ContractSet }
  | { readonly kind: 'deposit'; readonly chainId: number; readonly depositId: number; readonly user: Address; readonly amount: string; readonly txHash: string }
  | { readonly kind: 'withdrawalPaid'; readonly withdrawalId: string; readonly txHash: string }
  | { readonly kind: 'withdrawalExpired'; readonly withdrawalId: string };

export interface BridgeChain {
  readonly chainId: number;
  /** The bridge contract on that chain (lowercase). */
  readonly contract: Address;
  /** The validator set the contract holds, as validators last attested it. */
  set: ContractSet;
}

/** Signatures of validators over the update that gives a contract today's validator set. */
export interface SetUpdate {
  readonly target: ContractSet;
  /** Validator public key -> signature, in arrival order. */
  readonly signatures: Map<string, string>;
}

interface Vote {
  readonly claim: BridgeClaim;
  readonly voters: string[];
  readonly time: number;
}

/** Deposit ids credited on one chain: every id below `below`, and those in `above`. */
interface DepositIds {
  below: number;
  readonly above: Set<number>;
}

export class BridgeState {
  readonly chains = new Map<number, BridgeChain>();
  /** By id, in request order. */
  readonly withdrawals = new Map<string, Withdrawal>();
  /** Claim (canonical JSON) -> its attestations so far. */
  readonly votes = new Map<string, Vote>();
  readonly deposits = new Map<number, DepositIds>();
  /** Per chain: the validator-set update being signed (present while the contract's set differs from today's). */
  readonly setUpdates = new Map<number, SetUpdate>();
  /** USD units credited by deposits, paid out by completed withdrawals, and refunded. */
  deposited = 0n;
  paidOut = 0n;
  refunded = 0n;

  depositDone(chainId: number, depositId: number): boolean {
    const d = this.deposits.get(chainId);
    return d !== undefined && (depositId < d.below || d.above.has(depositId));
  }

  markDeposit(chainId: number, depositId: number): void {
    let d = this.deposits.get(chainId);
    if (d === undefined) this.deposits.set(chainId, (d = { below: 0, above: new Set() }));
    d.above.add(depositId);
    while (d.above.delete(d.below)) d.below++;
  }

  /** The chain a withdrawal goes to when the action names none: the lowest registered chain id. */
  defaultChain(): BridgeChain | undefined {
    let best: BridgeChain | undefined;
    for (const c of this.chains.values()) if (best === undefined || c.chainId < best.chainId) best = c;
    return best;
  }
}

// ---- the EIP-712 digest the bridge contract checks ----

const WITHDRAWAL_TYPE = keccak256(utf8('Withdrawal(uint64 serviceChainId,bytes32 id,address destination,uint256 amount,uint64 deadline)'));

function word(v: bigint): Uint8Array {
  return hexToBytes(`0x${v.toString(16).padStart(64, '0')}`);
}

/** Token units (6 decimals) of a USD amount that is a whole number of them. */
export function toTokenUnits(usd: bigint): bigint {
  return usd / TOKEN_UNIT;
}

/**
 * The digest validators sign for a withdrawal (EIP-712; domain `SvcBridge`/`1`, the destination
 * chain and its bridge contract), exactly as `SvcBridge.withdraw` rebuilds it.
 */
export function withdrawalDigest(serviceChainId: number, chain: Pick<BridgeChain, 'chainId' | 'contract'>, w: Pick<Withdrawal, 'withdrawalId' | 'destination' | 'amount' | 'deadline'>): Uint8Array {
  const separator = domainSeparator({ name: 'SvcBridge', version: '1', chainId: chain.chainId, verifyingContract: chain.contract });
  const struct = keccak256(concatBytes(
    WITHDRAWAL_TYPE, word(BigInt(serviceChainId)), hexToBytes(w.withdrawalId), word(BigInt(w.destination)), word(toTokenUnits(w.amount)), word(BigInt(w.deadline)),
  ));
  return keccak256(concatBytes(new Uint8Array([0x19, 0x01]), separator, struct));
}

const VALIDATOR_SET_TYPE = keccak256(utf8('ValidatorSet(uint64 serviceChainId,uint64 nonce,bytes32 signersHash,bytes32 powersHash)'));

/** The digest validators sign to move a contract to `set` (`SvcBridge.updateValidatorSet`). */
export function validatorSetDigest(serviceChainId: number, chain: Pick<BridgeChain, 'chainId' | 'contract'>, set: ContractSet): Uint8Array {
  const separator = domainSeparator({ name: 'SvcBridge', version: '1', chainId: chain.chainId, verifyingContract: chain.contract });
  const signersHash = keccak256(concatBytes(...set.signers.map((a) => word(BigInt(a)))));
  const powersHash = keccak256(concatBytes(...set.powers.map((p) => word(BigInt(p)))));
  const struct = keccak256(concatBytes(VALIDATOR_SET_TYPE, word(BigInt(serviceChainId)), word(BigInt(set.nonce)), signersHash, powersHash));
  return keccak256(concatBytes(new Uint8Array([0x19, 0x01]), separator, struct));
}

/**
 * The set a chain's contract should hold after `set`: today's validators with a bridge signer,
 * in ascending signer order; null when the contract holds it already.
 */
export function wantedSet(state: ExchangeState, chain: BridgeChain): ContractSet | null {
  const seen = new Set<Address>();
  const list = state.validators().filter((v) => v.bridgeSigner !== undefined && !seen.has(v.bridgeSigner) && seen.add(v.bridgeSigner))
    .map((v) => ({ signer: v.bridgeSigner as Address, power: v.power }))
    .sort((a, b) => (BigInt(a.signer) < BigInt(b.signer) ? -1 : 1));
  const same = list.length === chain.set.signers.length && list.every((x, i) => x.signer === chain.set.signers[i] && x.power === chain.set.powers[i]);
  if (same || list.length === 0) return null;
  return { nonce: chain.set.nonce + 1, signers: list.map((x) => x.signer), powers: list.map((x) => x.power) };
}

/** Whether the signers of `signatures` hold more than 2/3 of the power of `set`, by the contract's count. */
export function contractQuorum(state: ExchangeState, set: ContractSet, signatures: ReadonlyMap<string, string>): boolean {
  const signerOf = new Map(state.validators().map((v) => [v.pubKey, v.bridgeSigner]));
  let signed = 0;
  let total = 0;
  const signedBy = new Set([...signatures.keys()].map((k) => signerOf.get(k)));
  set.signers.forEach((s, i) => {
    total += set.powers[i] as number;
    if (signedBy.has(s)) signed += set.powers[i] as number;
  });
  return total > 0 && signed * 3 > total * 2;
}

const HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

/** The signer of a 65-byte r || s || v signature (v 27 or 28, low s), or null. */
export function signatureSigner(digest: Uint8Array, signature: string): Address | null {
  if (!isHex(signature, 65)) return null;
  const bytes = hexToBytes(signature);
  const v = bytes[64] as number;
  if (v !== 27 && v !== 28) return null;
  const r = BigInt(bytesToHex(bytes.subarray(0, 32)));
  const s = BigInt(bytesToHex(bytes.subarray(32, 64)));
  if (s > HALF_N) return null;
  return recoverAddress(digest, { r, s, recovery: v - 27 });
}

// ---- quorum arithmetic ----

function signedPower(state: ExchangeState, keys: Iterable<string>): { signed: number; total: number } {
  const set = new Set(keys);
  let signed = 0;
  let total = 0;
  for (const v of state.validators()) {
    total += v.power;
    if (set.has(v.pubKey)) signed += v.power;
  }
  return { signed, total };
}

function isQuorum(state: ExchangeState, keys: Iterable<string>): boolean {
  const { signed, total } = signedPower(state, keys);
  return total > 0 && signed * 3 > total * 2;
}

// ---- the withdraw action ----

export interface WithdrawRequest {
  readonly destination: string;
  readonly amount: string;
  readonly chainId: number | null;
}

/**
 * Takes `amount` (the bridge fee included) from the account's free collateral into a pending
 * withdrawal to `destination` on the named chain (else the default one); the id is the
 * transaction hash.
 */
export function requestWithdrawal(state: ExchangeState, acct: Account, req: WithdrawRequest, hash: string): Withdrawal | ExchangeError {
  const destination = normalizeAddress(req.destination);
  if (destination === null || destination === '0x0000000000000000000000000000000000000000') return exchangeError('INVALID_DESTINATION');
  const amount = parseScaled(req.amount, BRIDGE_TOKEN_DECIMALS);
  if (amount === null || amount <= 0n) {
    return exchangeError('INVALID_ACTION', `amount ${req.amount} is not a positive USDC amount with at most ${BRIDGE_TOKEN_DECIMALS} decimals`);
  }
  const usd = amount * TOKEN_UNIT;
  const chain = req.chainId === null ? state.bridge.defaultChain() : state.bridge.chains.get(req.chainId);
  if (chain === undefined) {
    if (req.chainId === null || state.bridge.chains.size === 0) return exchangeError('BRIDGE_UNAVAILABLE', 'no bridge chain is registered');
    return exchangeError('INVALID_ACTION', `chain ${req.chainId} has no bridge (chains: ${[...state.bridge.chains.keys()].sort((a, b) => a - b).join(', ')})`);
  }
  const { withdrawMinimum, withdrawFee } = state.config.clearinghouse;
  if (usd < withdrawMinimum) return exchangeError('AMOUNT_BELOW_MINIMUM', `withdrawals start at ${formatScaled(withdrawMinimum, USD_DECIMALS)} USDC`);
  if (usd > availableMargin(state, acct) || usd > acct.usdc) return exchangeError('INSUFFICIENT_BALANCE');
  if (state.bridge.withdrawals.has(hash)) return exchangeError('INVALID_ACTION', 'this withdrawal exists');
  const w: Withdrawal = {
    withdrawalId: hash, user: acct.address, destination, chainId: chain.chainId, amount: usd - withdrawFee, fee: withdrawFee,
    time: state.time, deadline: Math.floor(state.time / 1000) + state.config.bridge.withdrawalTimeoutSec,
    status: 'pending', signatures: new Map(), txHash: null, finalTime: 0,
  };
  acct.usdc -= usd;
  state.bridgeFees += withdrawFee;
  state.bridge.withdrawals.set(hash, w);
  return w;
}

// ---- validators' bridge transactions ----

export interface WithdrawalSignature {
  readonly withdrawalId: string;
  readonly signature: string;
}

/** One validator's bridge system transaction (its ed25519 signature checked by the node). */
export interface BridgeSubmission {
  readonly validator: string;
  /** The validator's clock when it sent it (ms): refused outside BRIDGE_TX_WINDOW_MS of the block time, so old ones cannot be replayed. */
  readonly time: number;
  readonly claims: readonly unknown[];
  readonly signatures: readonly unknown[];
}

/** What a submission did, item by item: applied (a quorum reached, or a signature kept), noted, or refused and why. */
export interface BridgeOutcome {
  readonly applied: number;
  readonly noted: number;
  readonly refused: string[];
}

const UINT_RE = /^(0|[1-9][0-9]{0,76})$/;

/** Signers in strictly ascending order, each with a positive safe-integer power; at most 1000. */
function parseSet(v: unknown): ContractSet | string {
  if (typeof v !== 'object' || v === null) return 'set {nonce, signers, powers}';
  const { nonce, signers, powers } = v as Record<string, unknown>;
  if (typeof nonce !== 'number' || !Number.isSafeInteger(nonce) || nonce < 0) return 'set.nonce';
  if (!Array.isArray(signers) || !Array.isArray(powers) || signers.length === 0 || signers.length !== powers.length || signers.length > MAX_SET_SIGNERS) {
    return `set.signers and set.powers: 1 to ${MAX_SET_SIGNERS} of each`;
  }
  let last = -1n;
  for (const s of signers) {
    if (!isAddress(s) || BigInt(s) <= last) return 'set.signers: ascending addresses';
    last = BigInt(s);
  }
  if (!powers.every((p) => typeof p === 'number' && Number.isSafeInteger(p) && p > 0)) return 'set.powers: positive integers';
  return { nonce, signers: signers.map((s: string) => s.toLowerCase()), powers: [...powers] as number[] };
}

/** A claim from untrusted JSON, normalized; a string says what is wrong. */
export function parseClaim(v: unknown): BridgeClaim | string {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'a claim is an object';
  const c = v as Record<string, unknown>;
  const chainIdOk = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x > 0;
  const txOk = (x: unknown): x is string => isHex(x, 32);
  switch (c.kind) {
    case 'chain': {
      if (!chainIdOk(c.chainId) || !isAddress(c.contract)) return 'chain claim: chainId and contract';
      const set = parseSet(c.set);
      if (typeof set === 'string') return `chain claim: ${set}`;
      return { kind: 'chain', chainId: c.chainId, contract: c.contract.toLowerCase(), set };
    }
    case 'setUpdated': {
      if (!chainIdOk(c.chainId)) return 'setUpdated claim: chainId';
      const set = parseSet(c.set);
      if (typeof set === 'string') return `setUpdated claim: ${set}`;
      return { kind: 'setUpdated', chainId: c.chainId, set };
    }
    case 'deposit':
      if (!chainIdOk(c.chainId) || typeof c.depositId !== 'number' || !Number.isSafeInteger(c.depositId) || c.depositId < 0) return 'deposit claim: chainId and depositId';
      if (!isAddress(c.user) || typeof c.amount !== 'string' || !UINT_RE.test(c.amount) || !txOk(c.txHash)) return 'deposit claim: user, amount and txHash';
      return { kind: 'deposit', chainId: c.chainId, depositId: c.depositId, user: c.user.toLowerCase(), amount: c.amount, txHash: c.txHash.toLowerCase() };
    case 'withdrawalPaid':
      if (!txOk(c.withdrawalId) || !txOk(c.txHash)) return 'withdrawalPaid claim: withdrawalId and txHash';
      return { kind: 'withdrawalPaid', withdrawalId: c.withdrawalId.toLowerCase(), txHash: c.txHash.toLowerCase() };
    case 'withdrawalExpired':
      if (!txOk(c.withdrawalId)) return 'withdrawalExpired claim: withdrawalId';
      return { kind: 'withdrawalExpired', withdrawalId: c.withdrawalId.toLowerCase() };
    default:
      return `unknown claim kind ${String(c.kind)}`;
  }
}

/** Null when the claim can still apply; else why it cannot (already applied counts as done, not an error). */
function claimState(state: ExchangeState, c: BridgeClaim): 'open' | 'done' | string {
  const b = state.bridge;
  switch (c.kind) {
    case 'chain': {
      if (b.chains.has(c.chainId)) return 'done';
      const allowed = state.config.bridge.chains;
      return allowed === null || allowed.includes(c.chainId) ? 'open' : `chain ${c.chainId} is not a supported bridge chain`;
    }
    case 'setUpdated': {
      const chain = b.chains.get(c.chainId);
      if (chain === undefined) return `chain ${c.chainId} has no bridge`;
      if (c.set.nonce <= chain.set.nonce) return 'done';
      return c.set.nonce === chain.set.nonce + 1 ? 'open' : `validator set ${c.set.nonce} is not the next one (${chain.set.nonce + 1}) of chain ${c.chainId}`;
    }
    case 'deposit':
      if (!b.chains.has(c.chainId)) return `chain ${c.chainId} has no bridge`;
      if (b.depositDone(c.chainId, c.depositId)) return 'done';
      return BigInt(c.amount) > 0n ? 'open' : 'a deposit of zero';
    case 'withdrawalPaid':
    case 'withdrawalExpired': {
      const w = b.withdrawals.get(c.withdrawalId);
      if (w === undefined) return `no withdrawal ${c.withdrawalId}`;
      return w.status === 'pending' || w.status === 'signed' ? 'open' : 'done';
    }
  }
}

function applyClaim(state: ExchangeState, c: BridgeClaim, events: ExchangeEvent[]): void {
  const b = state.bridge;
  switch (c.kind) {
    case 'chain':
      b.chains.set(c.chainId, { chainId: c.chainId, contract: c.contract, set: c.set });
      return;
    case 'setUpdated': {
      (b.chains.get(c.chainId) as BridgeChain).set = c.set;
      const pending = b.setUpdates.get(c.chainId);
      if (pending !== undefined && pending.target.nonce <= c.set.nonce) b.setUpdates.delete(c.chainId);
      return;
    }
    case 'deposit': {
      const usd = BigInt(c.amount) * TOKEN_UNIT;
      state.activate(c.user).usdc += usd;
      b.deposited += usd;
      b.markDeposit(c.chainId, c.depositId);
      events.push({ kind: 'ledger', user: c.user, ledger: { time: state.time, hash: c.txHash, delta: { type: 'deposit', usdc: formatScaled(usd, USD_DECIMALS), chainId: c.chainId } } });
      return;
    }
    case 'withdrawalPaid': {
      const w = b.withdrawals.get(c.withdrawalId) as Withdrawal;
      w.status = 'completed';
      w.txHash = c.txHash;
      w.finalTime = state.time;
      b.paidOut += w.amount;
      return;
    }
    case 'withdrawalExpired': {
      const w = b.withdrawals.get(c.withdrawalId) as Withdrawal;
      // Refunded whole: the amount and the fee.
      const acct = state.accounts.get(w.user) as Account;
      acct.usdc += w.amount + w.fee;
      state.bridgeFees -= w.fee;
      b.refunded += w.amount + w.fee;
      w.status = 'refunded';
      w.finalTime = state.time;
      const delta = { type: 'withdrawRefund' as const, usdc: formatScaled(w.amount + w.fee, USD_DECIMALS), withdrawalId: w.withdrawalId, chainId: w.chainId };
      events.push({ kind: 'ledger', user: w.user, ledger: { time: state.time, hash: w.withdrawalId, delta } });
      return;
    }
  }
}

/** Attestations of `validator` waiting for a quorum: all of them, and those carrying a validator set. */
function pendingVotesOf(state: ExchangeState, validator: string): { all: number; sets: number } {
  let all = 0;
  let sets = 0;
  for (const v of state.bridge.votes.values()) {
    if (!v.voters.includes(validator)) continue;
    all++;
    if (v.claim.kind === 'chain' || v.claim.kind === 'setUpdated') sets++;
  }
  return { all, sets };
}

/** Drops stale votes and old final withdrawals. */
function prune(state: ExchangeState): void {
  const b = state.bridge;
  for (const [key, v] of b.votes) if (v.time < state.time - VOTE_TTL_MS) b.votes.delete(key);
  for (const [id, w] of b.withdrawals) {
    if (w.finalTime !== 0 && w.finalTime < state.time - FINAL_WITHDRAWAL_RETENTION_MS) b.withdrawals.delete(id);
  }
}

/** A validator's signature over the update that moves chain `chainId`'s contract to today's set. */
function applySetSignature(state: ExchangeState, validator: { pubKey: string; bridgeSigner?: Address }, chainId: unknown, nonce: unknown, signature: unknown): string | 'noted' {
  const chain = typeof chainId === 'number' ? state.bridge.chains.get(chainId) : undefined;
  if (chain === undefined) return `chain ${String(chainId)} has no bridge`;
  const target = wantedSet(state, chain);
  if (target === null) return 'noted'; // the contract holds today's set
  if (nonce !== target.nonce) return `validator set update ${String(nonce)} is not the next one (${target.nonce}) of chain ${chain.chainId}`;
  if (validator.bridgeSigner === undefined) return `validator ${validator.pubKey} has no bridge signer`;
  if (typeof signature !== 'string' || signatureSigner(validatorSetDigest(state.config.bridge.serviceChainId, chain, target), signature) !== validator.bridgeSigner) {
    return `the signature is not ${validator.bridgeSigner}'s over the validator set update ${target.nonce} of chain ${chain.chainId}`;
  }
  let update = state.bridge.setUpdates.get(chain.chainId);
  if (update === undefined || canonicalize(update.target) !== canonicalize(target)) {
    state.bridge.setUpdates.set(chain.chainId, (update = { target, signatures: new Map() }));
  }
  update.signatures.set(validator.pubKey, signature.toLowerCase());
  return 'noted';
}

function applySignature(state: ExchangeState, validator: { pubKey: string; bridgeSigner?: Address }, raw: unknown): string | 'applied' | 'noted' {
  if (typeof raw !== 'object' || raw === null) return 'a signature item is an object';
  const { withdrawalId, signature, chainId, nonce } = raw as Record<string, unknown>;
  if (withdrawalId === undefined && chainId !== undefined) return applySetSignature(state, validator, chainId, nonce, signature);
  if (!isHex(withdrawalId, 32) || typeof signature !== 'string') return 'a signature item has withdrawalId and signature';
  const w = state.bridge.withdrawals.get(withdrawalId.toLowerCase());
  if (w === undefined) return `no withdrawal ${withdrawalId}`;
  if (w.status !== 'pending' && w.status !== 'signed') return 'noted'; // final already: nothing to add
  if (Math.floor(state.time / 1000) > w.deadline) return `withdrawal ${w.withdrawalId} is past its deadline`;
  if (validator.bridgeSigner === undefined) return `validator ${validator.pubKey} has no bridge signer`;
  const chain = state.bridge.chains.get(w.chainId) as BridgeChain;
  const signer = signatureSigner(withdrawalDigest(state.config.bridge.serviceChainId, chain, w), signature);
  if (signer !== validator.bridgeSigner) return `the signature is not ${validator.bridgeSigner}'s over withdrawal ${w.withdrawalId}`;
  w.signatures.set(validator.pubKey, signature.toLowerCase());
  if (w.status === 'pending' && isQuorum(state, w.signatures.keys())) {
    w.status = 'signed';
    return 'applied';
  }
  return 'noted';
}

/**
 * Applies one validator's attestations and withdrawal signatures. Refused whole when the
 * validator is unknown or the transaction is malformed; item by item otherwise (an item that
 * cannot apply is skipped and named in the outcome).
 */
export function applyBridge(state: ExchangeState, sub: BridgeSubmission, events: ExchangeEvent[]): BridgeOutcome | ExchangeError {
  const validator = state.validators().find((v) => v.pubKey === sub.validator);
  if (validator === undefined) return exchangeError('INVALID_ACTION', `unknown validator ${sub.validator}`);
  if (!Number.isSafeInteger(sub.time) || Math.abs(sub.time - state.time) > BRIDGE_TX_WINDOW_MS) {
    return exchangeError('INVALID_ACTION', `bridge transaction stamped ${sub.time}, more than ${BRIDGE_TX_WINDOW_MS} ms from the block time ${state.time}`);
  }
  if (!Array.isArray(sub.claims) || !Array.isArray(sub.signatures) || sub.claims.length + sub.signatures.length > MAX_BRIDGE_ITEMS) {
    return exchangeError('INVALID_ACTION', `a bridge transaction has claims and signatures, at most ${MAX_BRIDGE_ITEMS} items`);
  }
  prune(state);
  const outcome = { applied: 0, noted: 0, refused: [] as string[] };
  let pending: { all: number; sets: number } | null = null;
  for (const raw of sub.claims) {
    const claim = parseClaim(raw);
    if (typeof claim === 'string') {
      outcome.refused.push(claim);
      continue;
    }
    const open = claimState(state, claim);
    if (open === 'done') {
      outcome.noted++;
      continue;
    }
    if (open !== 'open') {
      outcome.refused.push(open);
      continue;
    }
    const key = canonicalize(claim);
    let vote = state.bridge.votes.get(key);
    if (vote === undefined) {
      pending ??= pendingVotesOf(state, validator.pubKey);
      const carriesSet = claim.kind === 'chain' || claim.kind === 'setUpdated';
      if (pending.all >= MAX_PENDING_VOTES || (carriesSet && pending.sets >= MAX_PENDING_SET_VOTES)) {
        outcome.refused.push(`validator ${validator.pubKey} has too many attestations waiting`);
        continue;
      }
      pending.all++;
      if (carriesSet) pending.sets++;
      vote = { claim, voters: [], time: state.time };
      state.bridge.votes.set(key, vote);
    }
    if (!vote.voters.includes(validator.pubKey)) vote.voters.push(validator.pubKey);
    if (isQuorum(state, vote.voters)) {
      applyClaim(state, claim, events);
      state.bridge.votes.delete(key);
      outcome.applied++;
    } else outcome.noted++;
  }
  for (const raw of sub.signatures) {
    const r = applySignature(state, validator, raw);
    if (r === 'applied') outcome.applied++;
    else if (r === 'noted') outcome.noted++;
    else outcome.refused.push(r);
  }
  return outcome;
}

/** The key a claim's votes are kept under (the relayer asks whether it voted already). */
export function claimKey(claim: BridgeClaim): string {
  return canonicalize(claim);
}

/** The JSON shape of a withdrawal for `/info` and the relayer. */
export interface WithdrawalView {
  withdrawalId: string;
  user: string;
  destination: string;
  chainId: number;
  amount: string;
  fee: string;
  time: number;
  deadline: number;
  status: WithdrawalStatus;
  /** The bridge contract the signatures are for. */
  contract: string;
  /** Signatures in ascending order of their signers' addresses, as `SvcBridge.withdraw` takes them. */
  signatures: { signer: string; signature: string }[];
  txHash: string | null;
}

/**
 * Validators' signatures (by public key) with their bridge signers, in ascending signer order as
 * `SvcBridge` takes them; those of validators no longer in the set (no known signer) are left out.
 */
export function orderedSignatures(state: ExchangeState, signatures: ReadonlyMap<string, string>): { signer: string; signature: string }[] {
  const signers = new Map(state.validators().map((v) => [v.pubKey, v.bridgeSigner]));
  return [...signatures.entries()]
    .map(([key, signature]) => ({ signer: signers.get(key) ?? '', signature }))
    .filter((s) => s.signer !== '')
    .sort((a, b) => (BigInt(a.signer) < BigInt(b.signer) ? -1 : 1));
}

export function withdrawalView(state: ExchangeState, w: Withdrawal): WithdrawalView {
  const signatures = orderedSignatures(state, w.signatures);
  return {
    withdrawalId: w.withdrawalId, user: w.user, destination: w.destination, chainId: w.chainId,
    amount: formatScaled(w.amount, USD_DECIMALS), fee: formatScaled(w.fee, USD_DECIMALS), time: w.time, deadline: w.deadline,
    status: w.status, contract: state.bridge.chains.get(w.chainId)?.contract ?? '', signatures, txHash: w.txHash,
  };
}
