// The exchange state machine: blocks of authenticated transactions in, results and events out.
// Pure and deterministic: time comes from the block, iteration orders are fixed, no floats in state.
import { formatScaled, type Address } from '../primitives/index.ts';
import { Account } from './account.ts';
import { isActionParseError, parseAction, type Action } from './actions.ts';
import { USD_DECIMALS, type ExchangeConfig } from './config.ts';
import { exchangeError, type ExchangeError } from './errors.ts';
import { newEventList, type ExchangeEvent } from './events.ts';
import { cancelOrders, cancelOrdersByCloid, placeOrders } from './order-actions.ts';
import { modifyOrder, modifyOrderStatus } from './modify.ts';
import { runScheduledCancels, scheduleCancel } from './schedule-cancel.ts';
import { approveBuilderFee } from './builder-fees.ts';
import type { TxContext } from './order-context.ts';
import { runTriggers } from './trigger-orders.ts';
import { runFunding } from './funding.ts';
import { runLiquidations } from './liquidation.ts';
import { applyOracle, refreshOracles, type OraclePrices } from './oracle.ts';
import { updateIsolatedMargin, updateLeverage } from './leverage.ts';
import { approveAgent, createSubAccount, subAccountTransfer, usdTransfer } from './accounts-actions.ts';
import { applyBridge, requestWithdrawal, type BridgeOutcome, type BridgeSubmission } from './bridge.ts';
import { useNonce, useOwnNonce } from './nonces.ts';
import { chargeRequests } from './rate-limit.ts';
import { advanceHours } from './day-stats.ts';
import { ExchangeState } from './state.ts';
import { spotSend } from './evm-link.ts';
import { deployPair, deployToken, type PairDeployed, type TokenDeployed } from './spot-deploy.ts';
import { cDeposit, cWithdraw, endStakingBlock, registerValidator, tokenDelegate } from './staking.ts';
import { registerReferrer, setReferrer } from './referral.ts';

/** A transaction whose signature the node has verified: `signer` is the recovered address. */
export interface ExchangeTx {
  /** 0x-prefixed hash of the transaction bytes; fills carry it. */
  readonly hash: string;
  readonly signer: Address;
  readonly nonce: number;
  readonly vaultAddress: Address | null;
  /** The action as it arrived on the wire; parsed here because blocks are untrusted input. */
  readonly action: unknown;
}

export type ActionResponse =
  | { type: 'order'; data: { statuses: unknown[] } }
  | { type: 'cancel'; data: { statuses: unknown[] } }
  | { type: 'default' }
  | { type: 'createSubAccount'; data: string }
  | { type: 'withdraw'; data: { withdrawalId: string; amount: string; fee: string; destination: string; status: 'pending' } }
  | { type: 'spotDeploy'; data: TokenDeployed | PairDeployed };

export type TxResult = { status: 'ok'; response: ActionResponse } | { status: 'err'; error: ExchangeError };

export interface TxOutcome {
  readonly result: TxResult;
  readonly events: readonly ExchangeEvent[];
}

export interface GenesisBalance {
  readonly address: Address;
  /** USD units (10^-8). */
  readonly usdc: bigint;
  /** Spot token balances other than USDC, in 10^-8 token units. */
  readonly tokens: readonly { readonly token: number; readonly amount: bigint }[];
}

export class Exchange {
  constructor(readonly state: ExchangeState) {}

  static fromGenesis(config: ExchangeConfig, balances: readonly GenesisBalance[], genesisTime: number): Exchange {
    const state = new ExchangeState(config);
    state.time = genesisTime;
    state.lastPremiumSample = genesisTime;
    for (const m of state.perps) m.engine.oraclePx = m.referencePx;
    for (const b of balances) {
      const acct = new Account(b.address, b.usdc);
      for (const t of b.tokens) acct.credit(t.token, t.amount);
      state.accounts.set(b.address, acct);
    }
    return new Exchange(state);
  }

  get height(): number {
    return this.state.height;
  }

  /** Starts block `height` at `time` ms. Heights advance by one; time never goes back. */
  beginBlock(height: number, time: number): void {
    if (height !== this.state.height + 1) throw new Error(`invariant: block ${height} after ${this.state.height}`);
    if (time < this.state.time) throw new Error(`invariant: block time ${time} before ${this.state.time}`);
    this.state.height = height;
    this.state.time = time;
    refreshOracles(this.state); // submissions that went stale with the new time stop counting
    advanceHours(this.state);
  }

  execute(tx: ExchangeTx): TxOutcome {
    const events = newEventList();
    const result = this.run(tx, events);
    return { result, events };
  }

  /**
   * Ends the block: scheduled cancels the block time has reached cancel their accounts' orders,
   * trigger orders the mark price has reached fire (market, then oid order), funding is sampled
   * and paid when due, and accounts under maintenance margin are liquidated.
   */
  endBlock(): readonly ExchangeEvent[] {
    const events: ExchangeEvent[] = [];
    const ctx: TxContext = { state: this.state, hash: '', time: this.state.time, events };
    runScheduledCancels(ctx);
    runTriggers(ctx);
    runFunding(ctx);
    runLiquidations(ctx);
    endStakingBlock(this.state);
    return events;
  }

  /**
   * An action sent from the EVM (the write system contract, run by node/evm-actions.ts): `user`
   * (the contract's `msg.sender`) acts as its own main wallet, with no signature and no nonce of
   * its own (`nonce` is the block time, which actions that carry one must repeat). Everything
   * else is `execute`'s: the account must be activated, then the same parsing, request budget,
   * checks, fees and error messages as an action signed on /exchange.
   */
  executeFromEvm(tx: { readonly hash: string; readonly user: Address; readonly action: unknown }): TxOutcome {
    const events = newEventList();
    const fail = (error: ExchangeError): TxOutcome => ({ result: { status: 'err', error }, events });
    const acct = this.state.accounts.get(tx.user);
    if (acct === undefined) return fail(exchangeError('ACCOUNT_NOT_ACTIVATED'));
    const action = parseAction(tx.action);
    if (isActionParseError(action)) return fail(exchangeError('INVALID_ACTION', action.message));
    const overBudget = chargeRequests(acct, action);
    if (overBudget !== null) return fail(overBudget);
    const ctx: TxContext = { state: this.state, hash: tx.hash, time: this.state.time, events };
    const signed: ExchangeTx = { hash: tx.hash, signer: tx.user, nonce: this.state.time, vaultAddress: null, action: tx.action };
    return { result: this.dispatch(ctx, signed, acct, action), events };
  }

  /** A validator's oracle prices (its signature checked by the node). */
  submitOracle(prices: OraclePrices): TxResult {
    const error = applyOracle(this.state, prices);
    return error === null ? { status: 'ok', response: { type: 'default' } } : { status: 'err', error };
  }

  /** A validator's bridge attestations and withdrawal signatures (its signature checked by the node). */
  submitBridge(sub: BridgeSubmission): { result: TxResult; outcome: BridgeOutcome | null; events: ExchangeEvent[] } {
    const events: ExchangeEvent[] = [];
    const outcome = applyBridge(this.state, sub, events);
    if ('code' in outcome) return { result: { status: 'err', error: outcome }, outcome: null, events };
    return { result: { status: 'ok', response: { type: 'default' } }, outcome, events };
  }

  /** The account a transaction acts for, after the agent and activation checks. */
  private actor(tx: ExchangeTx): Account | ExchangeError {
    const { state } = this;
    const owner = tx.vaultAddress ?? tx.signer;
    if (!state.mayActFor(tx.signer, owner)) return exchangeError('AGENT_NOT_AUTHORIZED');
    return state.accounts.get(owner) ?? exchangeError('ACCOUNT_NOT_ACTIVATED');
  }

  /** Checks the nonce against the block time and marks it used (`acct`: the account acted for). */
  private useNonce(signer: Address, nonce: number, acct: Account): ExchangeError | null {
    const { state } = this;
    const window = state.config.nonceWindowMs;
    if (!Number.isSafeInteger(nonce) || nonce < state.time - window) return exchangeError('NONCE_TOO_OLD');
    if (nonce > state.time + window) return exchangeError('NONCE_IN_FUTURE');
    return signer === acct.address ? useOwnNonce(state.nonces, acct, nonce) : useNonce(state.nonces, signer, nonce);
  }

  private run(tx: ExchangeTx, events: ExchangeEvent[]): TxResult {
    const acct = this.actor(tx);
    if ('code' in acct) return { status: 'err', error: acct };
    const nonceError = this.useNonce(tx.signer, tx.nonce, acct);
    if (nonceError !== null) return { status: 'err', error: nonceError };
    const action = parseAction(tx.action);
    if (isActionParseError(action)) return { status: 'err', error: exchangeError('INVALID_ACTION', action.message) };
    const overBudget = chargeRequests(acct, action);
    if (overBudget !== null) return { status: 'err', error: overBudget };
    const ctx: TxContext = { state: this.state, hash: tx.hash, time: this.state.time, events };
    return this.dispatch(ctx, tx, acct, action);
  }

  /** `ctx` keeps one shape everywhere (hot paths read it); the signer and nonce come from `tx`. */
  private dispatch(ctx: TxContext, tx: ExchangeTx, acct: Account, action: Action): TxResult {
    switch (action.type) {
      case 'order':
        return { status: 'ok', response: { type: 'order', data: { statuses: placeOrders(ctx, acct, action) } } };
      case 'cancel':
        return { status: 'ok', response: { type: 'cancel', data: { statuses: cancelOrders(ctx, acct, action) } } };
      case 'cancelByCloid':
        return { status: 'ok', response: { type: 'cancel', data: { statuses: cancelOrdersByCloid(ctx, acct, action) } } };
      case 'modify': {
        const error = modifyOrder(ctx, acct, action);
        return error === null ? { status: 'ok', response: { type: 'default' } } : { status: 'err', error };
      }
      case 'batchModify': {
        const statuses = action.modifies.map((m) => {
          const out = modifyOrderStatus(ctx, acct, m);
          return 'code' in out ? { error: out.message } : out;
        });
        return { status: 'ok', response: { type: 'order', data: { statuses } } };
      }
      case 'noop':
        return { status: 'ok', response: { type: 'default' } };
      case 'scheduleCancel': {
        // A trading action: agents may set it.
        const error = scheduleCancel(ctx, acct, action);
        return error === null ? { status: 'ok', response: { type: 'default' } } : { status: 'err', error };
      }
      case 'approveBuilderFee': {
        // Like approveAgent: what others may take from the account is the main wallet's choice.
        if (tx.signer !== acct.address) return { status: 'err', error: exchangeError('AGENT_NOT_AUTHORIZED', 'only the main wallet may sign this action') };
        const error = approveBuilderFee(this.state, acct, action, tx.nonce);
        return error === null ? { status: 'ok', response: { type: 'default' } } : { status: 'err', error };
      }
      case 'approveAgent':
      case 'usdTransfer':
      case 'subAccountTransfer': {
        // Only the main wallet moves funds or names agents: never an agent, never for a sub-account.
        if (tx.signer !== acct.address) return { status: 'err', error: exchangeError('AGENT_NOT_AUTHORIZED', 'only the main wallet may sign this action') };
        const error =
          action.type === 'approveAgent' ? approveAgent(this.state, acct, action, tx.nonce)
          : action.type === 'usdTransfer' ? usdTransfer(this.state, acct, action)
          : subAccountTransfer(this.state, acct, action);
        return error === null ? { status: 'ok', response: { type: 'default' } } : { status: 'err', error };
      }
      case 'withdraw': {
        if (tx.signer !== acct.address) return { status: 'err', error: exchangeError('AGENT_NOT_AUTHORIZED', 'only the main wallet may sign this action') };
        const w = requestWithdrawal(this.state, acct, action, ctx.hash);
        if ('code' in w) return { status: 'err', error: w };
        const usd = (v: bigint) => formatScaled(v, USD_DECIMALS);
        const delta = { type: 'withdraw' as const, usdc: usd(w.amount), fee: usd(w.fee), withdrawalId: w.withdrawalId, chainId: w.chainId };
        ctx.events.push({ kind: 'ledger', user: acct.address, ledger: { time: ctx.time, hash: ctx.hash, delta } });
        return { status: 'ok', response: { type: 'withdraw', data: { withdrawalId: w.withdrawalId, amount: usd(w.amount), fee: usd(w.fee), destination: w.destination, status: 'pending' } } };
      }
      case 'createSubAccount': {
        if (tx.signer !== acct.address) return { status: 'err', error: exchangeError('AGENT_NOT_AUTHORIZED', 'only the main wallet may sign this action') };
        const created = createSubAccount(this.state, acct, action);
        return typeof created === 'string' ? { status: 'ok', response: { type: 'createSubAccount', data: created } } : { status: 'err', error: created };
      }
      case 'spotSend': {
        if (tx.signer !== acct.address) return { status: 'err', error: exchangeError('AGENT_NOT_AUTHORIZED', 'only the main wallet may sign this action') };
        const error = spotSend(this.state, acct, action);
        return error === null ? { status: 'ok', response: { type: 'default' } } : { status: 'err', error };
      }
      case 'spotDeploy': {
        // The deployer pays the fee: the main wallet only, as for every action that moves funds.
        if (tx.signer !== acct.address) return { status: 'err', error: exchangeError('AGENT_NOT_AUTHORIZED', 'only the main wallet may sign this action') };
        const done = action.deployType === 'token' ? deployToken(this.state, acct, action) : deployPair(this.state, acct, action);
        return 'code' in done ? { status: 'err', error: done } : { status: 'ok', response: { type: 'spotDeploy', data: done } };
      }
      case 'cDeposit':
      case 'cWithdraw':
      case 'tokenDelegate':
      case 'registerValidator': {
        // Stake moves only by the main wallet's own signature, like USDC.
        if (tx.signer !== acct.address) return { status: 'err', error: exchangeError('AGENT_NOT_AUTHORIZED', 'only the main wallet may sign this action') };
        const error =
          action.type === 'cDeposit' ? cDeposit(this.state, acct, action)
          : action.type === 'cWithdraw' ? cWithdraw(this.state, acct, action)
          : action.type === 'tokenDelegate' ? tokenDelegate(this.state, acct, action)
          : registerValidator(this.state, acct, action);
        return error === null ? { status: 'ok', response: { type: 'default' } } : { status: 'err', error };
      }
      case 'registerReferrer':
      case 'setReferrer': {
        // The account's own choice, like its funds: never an agent's.
        if (tx.signer !== acct.address) return { status: 'err', error: exchangeError('AGENT_NOT_AUTHORIZED', 'only the main wallet may sign this action') };
        const error = action.type === 'registerReferrer' ? registerReferrer(this.state, acct, action) : setReferrer(this.state, acct, action);
        return error === null ? { status: 'ok', response: { type: 'default' } } : { status: 'err', error };
      }
      case 'updateLeverage':
      case 'updateIsolatedMargin': {
        const error = action.type === 'updateLeverage' ? updateLeverage(ctx, acct, action) : updateIsolatedMargin(ctx, acct, action);
        return error === null ? { status: 'ok', response: { type: 'default' } } : { status: 'err', error };
      }
    }
  }
}

/**
 * Picks the recovered signer the state knows: with a vault, an approved agent of it (or the vault
 * itself); without, an activated account. Null when none qualifies.
 */
export function knownSigner(exchange: Exchange, candidates: Iterable<{ address: Address }>, vault: Address | null): Address | null {
  const { state } = exchange;
  for (const c of candidates) {
    if (vault === null ? state.accounts.has(c.address) : state.mayActFor(c.address, vault)) {
      return c.address;
    }
  }
  return null;
}

/**
 * The Hyperliquid dialect's signer among the recovered addresses: without a vault, an activated
 * account or an approved agent of one (Hyperliquid's agents sign for their user without naming
 * it); with one, an address that may act for the vault (a sub-account's master or its agent).
 */
export function knownHyperliquidSigner(exchange: Exchange, candidates: Iterable<Address>, vault: Address | null): Address | null {
  const { state } = exchange;
  for (const address of candidates) {
    if (vault !== null ? state.mayActFor(address, vault) : state.accounts.has(address) || state.agentOf(address) !== undefined) return address;
  }
  return null;
}

/** The account a dialect transaction acts for, as the `vaultAddress` the state machine takes: an agent's user when no vault is named. */
export function hyperliquidVault(exchange: Exchange, signer: Address, vault: Address | null): Address | null {
  if (vault !== null) return vault;
  const { state } = exchange;
  return state.accounts.has(signer) ? null : state.agentOf(signer) ?? null;
}
