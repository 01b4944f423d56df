// Spot tokens linked to ERC-20 contracts on the embedded EVM (docs/evm.md, "Linked tokens"). Each
// token has a system address: 0x20, zeros, then the token index big-endian (token 10002 ->
// 0x2000000000000000000000000000000000002712). `spotSend` of a linked token to its system address
// moves the amount from the sender into the token's EVM escrow on the exchange and queues a
// release: node/ has the ERC-20 transfer it from the system address to the sender in the EVM part
// of the same block. An ERC-20 transfer to the system address on the EVM is credited back out of
// the escrow after that EVM block. Exchange supply never changes: balances + fees + escrow.
import { parseScaled, type Address } from '../primitives/index.ts';
import type { Account } from './account.ts';
import type { SpotSendAction } from './actions.ts';
import { TOKEN_DECIMALS, USDC_TOKEN_INDEX, type SpotTokenConfig } from './config.ts';
import { exchangeError, type ExchangeError } from './errors.ts';
import type { ExchangeState } from './state.ts';

const SYSTEM_RE = /^0x20[0-9a-f]{38}$/;

/** The system address of a token index. */
export function systemAddress(token: number): Address {
  return `0x20${token.toString(16).padStart(38, '0')}`;
}

/** The token index a system address stands for, or null when the address is not one. */
export function systemToken(address: string): number | null {
  const a = address.toLowerCase();
  if (!SYSTEM_RE.test(a)) return null;
  const n = Number.parseInt(a.slice(4), 16);
  return Number.isSafeInteger(n) ? n : null;
}

/** A queued ERC-20 transfer from a token's system address (the exchange has already taken the amount). */
export interface EvmRelease {
  readonly token: number;
  /** The linked ERC-20 (lowercase). */
  readonly contract: Address;
  readonly system: Address;
  readonly to: Address;
  /** 10^-8 token units on the exchange, and the same amount in the ERC-20's units (10^-weiDecimals). */
  readonly units: bigint;
  readonly wei: bigint;
}

/** `units` (10^-8 of the token) in the ERC-20's units (10^-weiDecimals), or null when the ERC-20 cannot carry that amount. */
function weiOf(token: SpotTokenConfig, units: bigint): bigint | null {
  const shift = token.weiDecimals - TOKEN_DECIMALS;
  if (shift >= 0) return units * 10n ** BigInt(shift);
  const per = 10n ** BigInt(-shift);
  return units % per === 0n ? units / per : null;
}

/** Exchange units of an ERC-20 amount, rounded down (what the ERC-20 carries below 10^-8 is not credited). */
export function unitsOfWei(token: SpotTokenConfig, wei: bigint): bigint {
  const shift = token.weiDecimals - TOKEN_DECIMALS;
  return shift >= 0 ? wei / 10n ** BigInt(shift) : wei * 10n ** BigInt(-shift);
}

/** The token `spotSend` names: its name, or Hyperliquid's `NAME:0x<id>` form (the id is not checked). */
function tokenByName(state: ExchangeState, text: string): SpotTokenConfig | undefined {
  const name = text.split(':', 1)[0] as string;
  return state.tokenNames.has(name) ? state.spotTokens.find((t) => t.name === name) : undefined;
}

/**
 * Sends a spot token (not USDC: `usdTransfer` moves that) from the account's free balance: to
 * another address, which becomes an account; or, for a linked token, to its system address, which
 * releases the amount on the EVM to the sender's own address.
 */
export function spotSend(state: ExchangeState, acct: Account, action: SpotSendAction): ExchangeError | null {
  const token = tokenByName(state, action.token);
  if (token === undefined) return exchangeError('UNKNOWN_TOKEN', `${action.token} is not a registered token name`);
  if (token.index === USDC_TOKEN_INDEX) return exchangeError('INVALID_ACTION', 'spotSend moves spot tokens; USDC moves with usdTransfer');
  const lots = parseScaled(action.amount, token.szDecimals);
  if (lots === null || lots <= 0n) return exchangeError('INVALID_ACTION', `amount ${action.amount} is not a positive ${token.name} amount with at most ${token.szDecimals} decimals`);
  const units = lots * 10n ** BigInt(TOKEN_DECIMALS - token.szDecimals);
  if (action.destination === acct.address) return exchangeError('INVALID_ACTION', 'the destination is the sender');
  const systemOf = systemToken(action.destination);
  if (systemOf !== null) return release(state, acct, token, systemOf, units);
  if (units > acct.free(token.index)) return exchangeError('INSUFFICIENT_SPOT_BALANCE', `${token.name} free balance is below ${action.amount}`);
  acct.credit(token.index, -units);
  state.activate(action.destination).credit(token.index, units);
  return null;
}

function release(state: ExchangeState, acct: Account, token: SpotTokenConfig, systemOf: number, units: bigint): ExchangeError | null {
  if (systemOf !== token.index) return exchangeError('INVALID_DESTINATION', `${systemAddress(systemOf)} is the system address of token ${systemOf}, not of ${token.name} (${systemAddress(token.index)})`);
  if (token.evmContract === undefined) return exchangeError('INVALID_DESTINATION', `${token.name} is not linked to an EVM contract`);
  const wei = weiOf(token, units);
  if (wei === null) return exchangeError('INVALID_ACTION', `the amount is finer than ${token.name}'s ${token.weiDecimals} decimals on the EVM`);
  if (units > acct.free(token.index)) return exchangeError('INSUFFICIENT_SPOT_BALANCE', `${token.name} free balance is too low`);
  acct.credit(token.index, -units);
  state.evmEscrow.set(token.index, (state.evmEscrow.get(token.index) ?? 0n) + units);
  state.evmReleases.push({ token: token.index, contract: token.evmContract, system: systemAddress(token.index), to: acct.address, units, wei });
  return null;
}

/** The releases queued by the block's transactions, handed to the EVM part (and forgotten here). */
export function takeReleases(state: ExchangeState): EvmRelease[] {
  return state.evmReleases.splice(0);
}

/** The linked contracts the EVM part watches for transfers to their system addresses: contract -> system address. */
export function linkedContracts(state: ExchangeState): Map<Address, Address> {
  const out = new Map<Address, Address>();
  for (const t of state.spotTokens) if (t.evmContract !== undefined) out.set(t.evmContract, systemAddress(t.index));
  return out;
}

/** What one EVM-side event did on the exchange. */
export type LinkOutcome = 'credited' | 'refunded' | 'uncredited';

/**
 * An ERC-20 transfer of `wei` to the system address of the token linked to `contract`, seen in
 * the EVM part of the block: `from` is credited out of the escrow. More than the escrow holds
 * (tokens that never left the exchange) is not credited: it stays with the system address.
 */
export function creditFromEvm(state: ExchangeState, contract: Address, from: Address, wei: bigint): LinkOutcome {
  const token = state.spotTokens.find((t) => t.evmContract === contract);
  if (token === undefined) return 'uncredited';
  const units = unitsOfWei(token, wei);
  const escrow = state.evmEscrow.get(token.index) ?? 0n;
  if (units <= 0n || units > escrow) return 'uncredited';
  moveOut(state, token.index, from, units, escrow);
  return 'credited';
}

/** A release whose ERC-20 transfer failed on the EVM: the amount goes back to the sender. */
export function refundRelease(state: ExchangeState, r: EvmRelease): LinkOutcome {
  moveOut(state, r.token, r.to, r.units, state.evmEscrow.get(r.token) ?? 0n);
  return 'refunded';
}

function moveOut(state: ExchangeState, token: number, to: Address, units: bigint, escrow: bigint): void {
  if (units > escrow) throw new Error(`invariant: escrow of ${token} is ${escrow}, below ${units}`);
  if (escrow === units) state.evmEscrow.delete(token);
  else state.evmEscrow.set(token, escrow - units);
  state.activate(to).credit(token, units);
}
