// Staking of the native token (Hyperliquid's model): `cDeposit` moves spot tokens to the staking
// balance, `tokenDelegate` delegates it to a validator or takes it back (not before the
// delegation's lock ends), `cWithdraw` moves it back to spot after the unbonding delay
// (pending withdrawals, paid at the end of the first block at or after their release time).
// `registerValidator` links an operator account to an ed25519 consensus key, proven by a
// signature of that key. At the end of every epoch boundary block the active validator set is
// recomputed from the delegated stake; it applies from the next height (docs/consensus.md).
// Amounts are token units of 10^-8; power is whole tokens (integers), so every node derives the
// same set.
import { canonicalize, utf8, verifyEd25519, type Address } from '../primitives/index.ts';
import type { Account } from './account.ts';
import type { CDepositAction, CWithdrawAction, RegisterValidatorAction, TokenDelegateAction } from './actions.ts';
import { TOKEN_DECIMALS, type ExchangeConfig, type OracleValidator, type StakingConfig } from './config.ts';
import { exchangeError, type ExchangeError } from './errors.ts';
import type { ExchangeState } from './state.ts';

/** One whole token in units; power is stake in whole tokens. */
export const STAKE_UNIT = 10n ** BigInt(TOKEN_DECIMALS);
/** Owner of the genesis stake of validators without an operator: no key signs for it, so that stake stays. */
export const GENESIS_DELEGATOR: Address = '0x0000000000000000000000000000000000000000';
/** Pending `cWithdraw`s one account may have at once (bounds the queue per account). */
export const MAX_PENDING_WITHDRAWALS = 5;
/** Registered validators at most (bounds the epoch's work). */
export const MAX_REGISTERED_VALIDATORS = 1000;
/** The total voting power stays below 2^51 (consensus ValidatorSet's bound): each validator's is capped. */
const MAX_TOTAL_POWER = 2 ** 51 - 1;

export interface Delegation {
  amount: bigint;
  /** Block time (ms) before which it cannot be undelegated. */
  lockedUntil: number;
}

export interface PendingStakeWithdrawal {
  readonly user: Address;
  readonly amount: bigint;
  /** Paid to the spot balance at the end of the first block at or after this time. */
  readonly releaseTime: number;
}

export interface StakedValidator {
  /** Hex ed25519 consensus public key (64 hex digits): the validator's identity everywhere. */
  readonly pubKey: string;
  /** The account that registered it; null for a genesis validator without one. */
  readonly operator: Address | null;
  readonly name: string;
  readonly bridgeSigner?: Address;
  /** Sum of the delegations to it (derived, kept up to date). */
  stake: bigint;
}

export class StakingState {
  /** Undelegated staking balances (Hyperliquid's `undelegated`). */
  readonly balances = new Map<Address, bigint>();
  /** Delegator -> validator key -> delegation. */
  readonly delegations = new Map<Address, Map<string, Delegation>>();
  /** `cWithdraw`s waiting for their release time, in request order (release times never decrease). */
  readonly pending: PendingStakeWithdrawal[] = [];
  /** Registered validators, genesis ones first, then in registration order. */
  readonly validators = new Map<string, StakedValidator>();
  readonly byOperator = new Map<Address, string>();
  /** The validator set in force for the next block (and for the current one while it executes). */
  active: readonly OracleValidator[];

  constructor(config: ExchangeConfig) {
    this.active = config.clearinghouse.validators;
    const operators = config.staking?.genesisOperators ?? {};
    for (const v of config.clearinghouse.validators) {
      const operator = operators[v.pubKey] ?? null;
      // The genesis stake: `power` whole tokens, delegated by the operator (or by no one).
      const stake = BigInt(v.power) * STAKE_UNIT;
      const staked = config.staking !== undefined;
      this.validators.set(v.pubKey, { pubKey: v.pubKey, operator, name: '', ...(v.bridgeSigner === undefined ? {} : { bridgeSigner: v.bridgeSigner }), stake: staked ? 0n : stake });
      if (operator !== null) this.byOperator.set(operator, v.pubKey);
      if (staked) addDelegation(this, operator ?? GENESIS_DELEGATOR, v.pubKey, stake, 0);
    }
  }

  balance(user: Address): bigint {
    return this.balances.get(user) ?? 0n;
  }

  setBalance(user: Address, v: bigint): void {
    if (v === 0n) this.balances.delete(user);
    else this.balances.set(user, v);
  }

  pendingOf(user: Address): PendingStakeWithdrawal[] {
    return this.pending.filter((p) => p.user === user);
  }
}

/** Adds to a delegation (creating it), without touching the balance; the validator's stake follows. */
export function addDelegation(s: StakingState, user: Address, validator: string, amount: bigint, lockedUntil: number): void {
  let mine = s.delegations.get(user);
  if (mine === undefined) s.delegations.set(user, (mine = new Map()));
  const d = mine.get(validator);
  if (d === undefined) mine.set(validator, { amount, lockedUntil });
  else {
    d.amount += amount;
    d.lockedUntil = Math.max(d.lockedUntil, lockedUntil);
  }
  (s.validators.get(validator) as StakedValidator).stake += amount;
}

function stakingConfig(state: ExchangeState): StakingConfig | ExchangeError {
  return state.config.staking ?? exchangeError('INVALID_ACTION', 'staking is not enabled on this chain');
}

/** Wei as an amount: a positive integer of token units. */
function amountOf(wei: number): bigint | ExchangeError {
  return wei > 0 ? BigInt(wei) : exchangeError('INVALID_ACTION', 'wei must be a positive integer');
}

/** Spot tokens to the staking balance (Hyperliquid's `cDeposit`). */
export function cDeposit(state: ExchangeState, acct: Account, action: CDepositAction): ExchangeError | null {
  const cfg = stakingConfig(state);
  if ('code' in cfg) return cfg;
  const amount = amountOf(action.wei);
  if (typeof amount !== 'bigint') return amount;
  if (acct.free(cfg.token) < amount) return exchangeError('INSUFFICIENT_SPOT_BALANCE');
  acct.credit(cfg.token, -amount);
  state.staking.setBalance(acct.address, state.staking.balance(acct.address) + amount);
  return null;
}

/** Staking balance to a pending withdrawal, paid to spot after the unbonding delay (Hyperliquid's `cWithdraw`). */
export function cWithdraw(state: ExchangeState, acct: Account, action: CWithdrawAction): ExchangeError | null {
  const cfg = stakingConfig(state);
  if ('code' in cfg) return cfg;
  const amount = amountOf(action.wei);
  if (typeof amount !== 'bigint') return amount;
  const s = state.staking;
  const balance = s.balance(acct.address);
  if (amount > balance) return exchangeError('INSUFFICIENT_BALANCE', 'the undelegated staking balance is smaller');
  if (s.pendingOf(acct.address).length >= MAX_PENDING_WITHDRAWALS) {
    return exchangeError('INVALID_ACTION', `at most ${MAX_PENDING_WITHDRAWALS} pending staking withdrawals at once`);
  }
  s.setBalance(acct.address, balance - amount);
  s.pending.push({ user: acct.address, amount, releaseTime: state.time + cfg.unbondingDelayMs });
  return null;
}

/** Delegates undelegated stake to a registered validator, or takes a delegation back (Hyperliquid's `tokenDelegate`). */
export function tokenDelegate(state: ExchangeState, acct: Account, action: TokenDelegateAction): ExchangeError | null {
  const cfg = stakingConfig(state);
  if ('code' in cfg) return cfg;
  const amount = amountOf(action.wei);
  if (typeof amount !== 'bigint') return amount;
  const s = state.staking;
  const v = s.validators.get(action.validator);
  if (v === undefined) return exchangeError('INVALID_ACTION', `unknown validator ${action.validator}`);
  const user = acct.address;
  const balance = s.balance(user);
  if (!action.isUndelegate) {
    if (amount > balance) return exchangeError('INSUFFICIENT_BALANCE', 'the undelegated staking balance is smaller');
    s.setBalance(user, balance - amount);
    addDelegation(s, user, v.pubKey, amount, state.time + cfg.delegationLockMs);
    return null;
  }
  const mine = s.delegations.get(user);
  const d = mine?.get(v.pubKey);
  if (mine === undefined || d === undefined || d.amount < amount) return exchangeError('INSUFFICIENT_BALANCE', 'the delegation to this validator is smaller');
  if (state.time < d.lockedUntil) return exchangeError('INVALID_ACTION', `the delegation is locked until ${d.lockedUntil}`);
  d.amount -= amount;
  if (d.amount === 0n) mine.delete(v.pubKey);
  if (mine.size === 0) s.delegations.delete(user);
  v.stake -= amount;
  s.setBalance(user, balance + amount);
  return null;
}

/** The bytes a validator key signs to prove it belongs to `operator` on chain `chainId`. */
export function registrationBytes(chainId: number, operator: Address, pubKey: string): Uint8Array {
  return utf8(canonicalize({ chainId, operator, pubKey, type: 'registerValidator' }));
}

/** Links the signing account (the operator) to an ed25519 consensus key it proves it holds. */
export function registerValidator(state: ExchangeState, acct: Account, action: RegisterValidatorAction): ExchangeError | null {
  const cfg = stakingConfig(state);
  if ('code' in cfg) return cfg;
  const s = state.staking;
  if (s.validators.has(action.pubKey)) return exchangeError('INVALID_ACTION', 'this key is already a registered validator');
  if (s.byOperator.has(acct.address)) return exchangeError('INVALID_ACTION', 'this account already operates a validator');
  if (s.validators.size >= MAX_REGISTERED_VALIDATORS) return exchangeError('INVALID_ACTION', `at most ${MAX_REGISTERED_VALIDATORS} registered validators`);
  if (action.bridgeSigner !== null) {
    // A bridge signer is one validator's: another's address would let it pass off that validator's signatures as its own.
    if (action.bridgeSigner === '0x0000000000000000000000000000000000000000') return exchangeError('INVALID_ACTION', 'the bridge signer is the zero address');
    for (const v of s.validators.values()) if (v.bridgeSigner === action.bridgeSigner) return exchangeError('INVALID_ACTION', 'this bridge signer belongs to another validator');
  }
  if (!verifyEd25519(action.pubKey, registrationBytes(cfg.chainId, acct.address, action.pubKey), action.signature)) {
    return exchangeError('INVALID_SIGNATURE', 'the signature does not prove the consensus key');
  }
  s.validators.set(action.pubKey, {
    pubKey: action.pubKey, operator: acct.address, name: action.name, stake: 0n,
    ...(action.bridgeSigner === null ? {} : { bridgeSigner: action.bridgeSigner }),
  });
  s.byOperator.set(acct.address, action.pubKey);
  return null;
}

/** Voting power of a stake: whole tokens, capped so the total stays below 2^51. */
export function powerOf(stake: bigint, maxValidators: number): number {
  const cap = BigInt(Math.floor(MAX_TOTAL_POWER / maxValidators));
  const whole = stake / STAKE_UNIT;
  return Number(whole > cap ? cap : whole);
}

/**
 * The set the stake selects: validators with at least `minStake`, by stake (then key), at most
 * `maxValidators`, each with power = its whole tokens. Empty when none qualifies.
 */
export function selectValidators(s: StakingState, cfg: StakingConfig): OracleValidator[] {
  const eligible = [...s.validators.values()].filter((v) => v.stake >= cfg.minStake && v.stake >= STAKE_UNIT);
  eligible.sort((a, b) => (a.stake > b.stake ? -1 : a.stake < b.stake ? 1 : a.pubKey < b.pubKey ? -1 : a.pubKey > b.pubKey ? 1 : 0));
  return eligible.slice(0, cfg.maxValidators).map((v) => ({
    pubKey: v.pubKey, power: powerOf(v.stake, cfg.maxValidators), ...(v.bridgeSigner === undefined ? {} : { bridgeSigner: v.bridgeSigner }),
  }));
}

function sameSet(a: readonly OracleValidator[], b: readonly OracleValidator[]): boolean {
  if (a.length !== b.length) return false;
  const byKey = new Map(a.map((v) => [v.pubKey, v]));
  return b.every((v) => {
    const w = byKey.get(v.pubKey);
    return w !== undefined && w.power === v.power && w.bridgeSigner === v.bridgeSigner;
  });
}

/**
 * End of a block: pays matured withdrawals; at an epoch boundary (height a multiple of
 * `epochBlocks`) sets the validator set from the stake, for the blocks from the next height on.
 * An unchanged set keeps its order (proposer rotation); an empty selection keeps the old set.
 */
export function endStakingBlock(state: ExchangeState): void {
  const cfg = state.config.staking;
  if (cfg === undefined) return;
  const s = state.staking;
  let paid = 0;
  while (paid < s.pending.length && (s.pending[paid] as PendingStakeWithdrawal).releaseTime <= state.time) paid++;
  for (const p of s.pending.splice(0, paid)) state.activate(p.user).credit(cfg.token, p.amount);
  if (state.height % cfg.epochBlocks !== 0) return;
  const next = selectValidators(s, cfg);
  if (next.length > 0 && !sameSet(next, s.active)) s.active = next;
}

/** Every unit of the staked token the staking module holds: balances, delegations and pending withdrawals. */
export function stakedTotal(s: StakingState): bigint {
  let total = 0n;
  for (const v of s.balances.values()) total += v;
  for (const mine of s.delegations.values()) for (const d of mine.values()) total += d.amount;
  for (const p of s.pending) total += p.amount;
  return total;
}
