// Account actions only the main wallet may sign: approving or revoking agents (API wallets),
// moving USDC between accounts (withdrawals: bridge.ts).
import { bytesToHex, concatBytes, hexToBytes, keccak256, parseScaled, utf8, type Address } from '../primitives/index.ts';
import { Account } from './account.ts';
import type { ApproveAgentAction, CreateSubAccountAction, SubAccountTransferAction, UsdTransferAction } from './actions.ts';
import { USD_DECIMALS } from './config.ts';
import { exchangeError, type ExchangeError } from './errors.ts';
import { systemToken } from './evm-link.ts';
import { availableMargin } from './margin.ts';
import type { ExchangeState } from './state.ts';


/** Named agents an account may have, besides one unnamed. */
export const MAX_NAMED_AGENTS = 3;
const ZERO = '0x0000000000000000000000000000000000000000';

/** An approval's `valid_until` suffix may reach this far past the block time (Hyperliquid's 180 days). */
export const MAX_AGENT_VALIDITY_MS = 180 * 86_400_000;
const VALID_UNTIL = /^(.*) valid_until (\d{1,16})$/;

/**
 * Approves `agentAddress` under `agentName` ("" = the unnamed agent), replacing the agent that
 * had that name; the zero address revokes the agent under that name. A name ending in
 * ` valid_until <ms>` (Hyperliquid's form) approves the agent until that block time only; the
 * name is what precedes the suffix.
 */
export function approveAgent(state: ExchangeState, acct: Account, action: ApproveAgentAction, nonce: number): ExchangeError | null {
  if (action.nonce !== nonce) return exchangeError('INVALID_ACTION', 'approveAgent nonce must equal the request nonce');
  const suffix = VALID_UNTIL.exec(action.agentName);
  const name = suffix === null ? action.agentName : (suffix[1] as string);
  const validUntil = suffix === null ? undefined : Number(suffix[2]);
  if (validUntil !== undefined && (validUntil <= state.time || validUntil > state.time + MAX_AGENT_VALIDITY_MS)) {
    return exchangeError('INVALID_ACTION', `valid_until ${validUntil} must be after the block time and at most 180 days ahead`);
  }
  const list = state.agentsOf.get(acct.address) ?? [];
  const existing = list.find((a) => a.name === name);
  if (action.agentAddress === ZERO) {
    if (existing === undefined) return exchangeError('INVALID_ACTION', `no agent named "${name}" to revoke`);
    forgetAgent(state, existing.address);
    setAgents(state, acct.address, list.filter((a) => a !== existing));
    return null;
  }
  if (action.agentAddress === acct.address) return exchangeError('INVALID_ACTION', 'an account cannot be its own agent');
  const owner = state.agents.get(action.agentAddress);
  if (owner !== undefined && owner !== acct.address) return exchangeError('INVALID_ACTION', 'this agent already signs for another account');
  if (owner === acct.address && existing?.address !== action.agentAddress) {
    return exchangeError('INVALID_ACTION', 'this agent is already approved under another name');
  }
  if (existing === undefined && name !== '' && list.filter((a) => a.name !== '').length >= MAX_NAMED_AGENTS) {
    return exchangeError('INVALID_ACTION', `at most ${MAX_NAMED_AGENTS} named agents per account`);
  }
  if (existing !== undefined) forgetAgent(state, existing.address);
  state.agents.set(action.agentAddress, acct.address);
  if (validUntil !== undefined) state.agentExpiry.set(action.agentAddress, validUntil);
  const entry = validUntil === undefined ? { address: action.agentAddress, name } : { address: action.agentAddress, name, validUntil };
  setAgents(state, acct.address, [...list.filter((a) => a !== existing), entry]);
  return null;
}

function forgetAgent(state: ExchangeState, agent: Address): void {
  state.agents.delete(agent);
  state.agentExpiry.delete(agent);
}

function setAgents(state: ExchangeState, user: string, list: { address: string; name: string; validUntil?: number }[]): void {
  if (list.length === 0) state.agentsOf.delete(user);
  else state.agentsOf.set(user, list);
}

/** Moves USDC to another address at once and without fee; the destination is activated. */
export function usdTransfer(state: ExchangeState, acct: Account, action: UsdTransferAction): ExchangeError | null {
  const amount = parseScaled(action.amount, USD_DECIMALS);
  if (amount === null || amount <= 0n) return exchangeError('INVALID_ACTION', `amount ${action.amount} is not a positive USDC amount with at most ${USD_DECIMALS} decimals`);
  if (action.destination === acct.address) return exchangeError('INVALID_ACTION', 'the destination is the sender');
  // No key signs for a token's system address: USDC sent there could never move again.
  if (systemToken(action.destination) !== null) return exchangeError('INVALID_DESTINATION', `${action.destination} is a system address (linked tokens use spotSend)`);
  const free = availableMargin(state, acct);
  if (amount > free || amount > acct.usdc) return exchangeError('INSUFFICIENT_BALANCE');
  acct.usdc -= amount;
  state.activate(action.destination).usdc += amount;
  return null;
}

/** Sub-accounts one master may create. */
export const MAX_SUB_ACCOUNTS = 10;

/** A sub-account's address: keccak256("svc-subaccount" || master || name), last 20 bytes. */
export function subAccountAddress(master: Address, name: string): Address {
  return bytesToHex(keccak256(concatBytes(utf8('svc-subaccount'), hexToBytes(master), utf8(name))).subarray(12));
}

/** Creates a keyless sub-account the master (and its agents) trade with `vaultAddress`. */
export function createSubAccount(state: ExchangeState, master: Account, action: CreateSubAccountAction): Address | ExchangeError {
  if (state.masterOf.has(master.address)) return exchangeError('INVALID_ACTION', 'a sub-account cannot have sub-accounts');
  const list = state.subAccounts.get(master.address) ?? [];
  if (list.some((s) => s.name === action.name)) return exchangeError('INVALID_ACTION', `a sub-account named "${action.name}" exists`);
  if (list.length >= MAX_SUB_ACCOUNTS) return exchangeError('INVALID_ACTION', `at most ${MAX_SUB_ACCOUNTS} sub-accounts per account`);
  const address = subAccountAddress(master.address, action.name);
  if (state.accounts.has(address)) return exchangeError('INVALID_ACTION', 'that sub-account address is taken');
  state.accounts.set(address, new Account(address, 0n));
  state.subAccounts.set(master.address, [...list, { name: action.name, address }]);
  state.masterOf.set(address, master.address);
  return address;
}

/** Moves USDC between a master and one of its sub-accounts. */
export function subAccountTransfer(state: ExchangeState, master: Account, action: SubAccountTransferAction): ExchangeError | null {
  const sub = state.accounts.get(action.subAccountUser);
  if (sub === undefined || state.masterOf.get(action.subAccountUser) !== master.address) {
    return exchangeError('INVALID_ACTION', `${action.subAccountUser} is not a sub-account of ${master.address}`);
  }
  if (action.usd <= 0) return exchangeError('INVALID_ACTION', 'usd must be a positive amount of micro-USDC');
  const amount = BigInt(action.usd) * 10n ** BigInt(USD_DECIMALS - 6);
  const [from, to] = action.isDeposit ? [master, sub] : [sub, master];
  if (amount > availableMargin(state, from) || amount > from.usdc) return exchangeError('INSUFFICIENT_BALANCE');
  from.usdc -= amount;
  to.usdc += amount;
  return null;
}
