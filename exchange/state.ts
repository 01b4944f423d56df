// The exchange's complete consensus state and the helpers every module shares.
import type { Address } from '../primitives/index.ts';
import { Account } from './account.ts';
import { BridgeState } from './bridge.ts';
import { SPOT_ASSET_OFFSET, USDC_TOKEN_INDEX, type ExchangeConfig, type OracleValidator, type SpotPairConfig, type SpotTokenConfig } from './config.ts';
import type { OrderBuilder } from './actions.ts';
import type { IdSource } from './engine/matching-engine.ts';
import type { EvmRelease } from './evm-link.ts';
import { buildPerps, buildSpot, buildSpots, type Market, type PerpMarket, type SpotMarket } from './markets.ts';
import { ReferralState } from './referral.ts';
import { StakingState } from './staking.ts';

/**
 * px * lots * ntlScale computed on numbers, exact when it is a safe integer; -1 when it is not
 * (then only bigints are exact). A double product above 2^53 - 1 rounds to at least 2^53, so the
 * bound check itself is exact.
 */
export function notionalNum(market: Market, px: number, lots: number): number {
  const a = px * lots;
  if (!(a <= Number.MAX_SAFE_INTEGER)) return -1;
  const n = a * market.ntlScaleNum;
  return n <= Number.MAX_SAFE_INTEGER ? n : -1;
}

export class ExchangeState {
  /** Order ids, trade ids and queue sequence numbers, exchange-wide. */
  readonly ids: IdSource = { nextOid: 1, nextTid: 1, nextSeq: 1 };
  readonly perps: PerpMarket[];
  readonly spots: SpotMarket[];
  /** Markets in asset order: perps, then spot pairs (deployed pairs are appended). */
  readonly markets: Market[];
  /** Spot tokens in index order (token 10000 + i): the genesis's, then those `spotDeploy` listed. */
  readonly spotTokens: SpotTokenConfig[];
  /** Token names in use (upper case), for `spotDeploy`'s uniqueness rule. */
  readonly tokenNames = new Set<string>();
  /** Fees paid for `spotDeploy` (tokens and pairs), USD units. */
  deployFees = 0n;
  /** Per linked token, the units (10^-8) sent to the EVM and not yet back: what backs the ERC-20s outside the system addresses. */
  readonly evmEscrow = new Map<number, bigint>();
  /**
   * ERC-20 releases waiting for an EVM part: those the block's transactions queue are taken by the
   * same block's; those actions sent from the EVM queue (after it) by the next block's, so they are
   * snapshotted.
   */
  readonly evmReleases: EvmRelease[] = [];
  /** By coin name: perp names ("BTC") and pair names ("SVC-USDC"). */
  readonly marketsByName = new Map<string, Market>();
  readonly accounts = new Map<Address, Account>();
  /** The highest nonces used per signer, ascending, at most NONCES_KEPT (see nonces.ts). */
  readonly nonces = new Map<Address, number[]>();
  /** Approved agent -> the account it signs for. */
  readonly agents = new Map<Address, Address>();
  /** Master -> its sub-accounts in creation order; sub-account -> master. */
  readonly subAccounts = new Map<Address, { name: string; address: Address }[]>();
  readonly masterOf = new Map<Address, Address>();
  /** Account -> its agents in approval order, with their names ("" = unnamed) and expiry (block ms) when approved with one. */
  readonly agentsOf = new Map<Address, { address: Address; name: string; validUntil?: number }[]>();
  /** Agents approved with an expiry (`valid_until`) -> the block time (ms) from which they no longer sign. Derived from `agentsOf`. */
  readonly agentExpiry = new Map<Address, number>();
  /** Referral codes and referred accounts (referral.ts). */
  readonly referrals = new ReferralState();
  /**
   * Builder fee approvals (`approveBuilderFee`): user -> builder -> the most it may charge, in
   * tenths of a basis point (never 0: a revoke deletes the entry).
   */
  readonly builderApprovals = new Map<Address, Map<Address, number>>();
  /** The builder of each resting order placed with one (fee > 0), by oid, until it leaves the book. */
  readonly orderBuilders = new Map<number, OrderBuilder>();
  /**
   * Dead man's switches (`scheduleCancel`): account -> the block time (ms) its open orders are all
   * cancelled at. Small: only accounts with a schedule set; endBlock reads it.
   */
  readonly scheduledCancels = new Map<Address, number>();
  /** The earliest time in `scheduledCancels` (Infinity: none), or null when it must be found again. Derived, not state. */
  scheduledCancelNext: number | null = null;
  /** Scheduled cancels that fired, per account: the UTC day (ms / 86,400,000) of the last and how many fired that day. */
  readonly scheduledCancelsFired = new Map<Address, { day: number; count: number }>();
  /** `normalTpsl` parent oid -> its TP/SL children, until the parent is done. */
  readonly tpslChildren = new Map<number, number[]>();
  /** Trading fees collected, USD units. */
  feesCollected = 0n;
  /** Spot fees collected in quote tokens other than USDC, by token (10^-8 units). */
  readonly tokenFees = new Map<number, bigint>();
  /** Bridge chains, withdrawals, and validators' attestations waiting for a quorum. */
  readonly bridge = new BridgeState();
  /** Bridge fees kept from withdrawals (returned with a refund), USD units. */
  bridgeFees = 0n;
  /** Funding rounding: payers pay rounded up, receivers get rounded down; the difference. */
  fundingDust = 0n;
  /** Start (ms) of the funding interval in progress (0 before the first block), and when the premium was last sampled. */
  fundingIntervalStart = 0;
  lastPremiumSample = 0;
  /**
   * The liquidation sweep's visiting order, kept between sweeps so that it is not sorted again
   * each second: accounts that held a perp position at the last sweep, by address, and those
   * that started holding one since (unsorted). Derived from the accounts; not part of the state.
   */
  sweepOrder: Account[] = [];
  newHolders: Account[] = [];
  /** Block time of the last liquidation sweep and the oracle prices it saw. */
  lastSweep = 0;
  lastSweepOracles = '';
  height = 0;
  /** Time of the current block, ms. */
  time = 0;
  /** Staking balances, delegations, registered validators and the active validator set (staking.ts). */
  readonly staking: StakingState;

  constructor(readonly config: ExchangeConfig) {
    this.staking = new StakingState(config);
    this.perps = buildPerps(config, this.ids);
    this.spots = buildSpots(config, this.ids);
    this.markets = [...this.perps, ...this.spots];
    this.spotTokens = [...config.spotTokens];
    for (const t of this.spotTokens) this.tokenNames.add(t.name);
    for (const m of this.markets) this.marketsByName.set(m.name, m);
  }

  /** The account at `address`, activated (created empty) when it has none: receiving funds activates an address. */
  activate(address: Address): Account {
    let acct = this.accounts.get(address);
    if (acct === undefined) this.accounts.set(address, (acct = new Account(address, 0n)));
    return acct;
  }

  /** A spot token by index (10000 = USDC), or undefined when none is listed there. */
  spotToken(index: number): SpotTokenConfig | undefined {
    return Number.isSafeInteger(index) && index >= USDC_TOKEN_INDEX ? this.spotTokens[index - USDC_TOKEN_INDEX] : undefined;
  }

  /** Lists a token (its index must be the next one). */
  listToken(token: SpotTokenConfig): void {
    if (token.index !== USDC_TOKEN_INDEX + this.spotTokens.length) throw new Error(`invariant: token ${token.index} listed as #${this.spotTokens.length}`);
    this.spotTokens.push(token);
    this.tokenNames.add(token.name);
  }

  /** Opens a spot market for the pair (its index must be the next one); it trades at once. */
  listPair(pair: SpotPairConfig): SpotMarket {
    if (pair.index !== this.spots.length) throw new Error(`invariant: pair ${pair.index} listed as #${this.spots.length}`);
    const m = buildSpot(this.config, this.spotTokens, pair, this.ids);
    this.spots.push(m);
    this.markets.push(m);
    this.marketsByName.set(m.name, m);
    return m;
  }

  /**
   * The validators of the current block with their voting power: oracle medians, bridge
   * attestations and withdrawal signatures weigh by it. Every reader goes through here. Between
   * blocks it is the set of the next height (consensus reads it there); it changes only at the
   * end of an epoch boundary block (staking.ts).
   */
  validators(): readonly OracleValidator[] {
    return this.staking.active;
  }

  market(asset: number): Market | undefined {
    return asset >= SPOT_ASSET_OFFSET ? this.spots[asset - SPOT_ASSET_OFFSET] : this.perps[asset];
  }


  notional(market: Market, px: number, lots: number): bigint {
    const n = notionalNum(market, px, lots);
    return n >= 0 ? BigInt(n) : BigInt(px) * BigInt(lots) * market.ntlScale;
  }

  /**
   * Mark price in price units: the median of the oracle, the book mid (rounded down) and the
   * last trade when all three exist, else the oracle. The median keeps one account's quotes from
   * moving the mark on a thin book. (The clearinghouse issue brings moving oracle prices.)
   */
  markPx(market: Market): number {
    const oracle = market.engine.oraclePx;
    const bid = market.engine.bids.bestPx();
    const ask = market.engine.asks.bestPx();
    if (bid === undefined || ask === undefined || market.lastPx === 0) return oracle;
    const mid = Math.floor((bid + ask) / 2);
    const last = market.lastPx;
    return Math.max(Math.min(oracle, mid), Math.min(Math.max(oracle, mid), last));
  }

  /**
   * Whether `signer` may act for `owner`: it is the owner, the owner's agent, the owner's master
   * (sub-accounts have no keys), or an agent of that master.
   */
  mayActFor(signer: Address, owner: Address): boolean {
    if (signer === owner) return true;
    const agentOf = this.agentOf(signer);
    if (agentOf === owner) return true;
    const master = this.masterOf.get(owner);
    return master !== undefined && (signer === master || agentOf === master);
  }

  /** The account an agent signs for, or undefined when it is none (or its approval expired). */
  agentOf(agent: Address): Address | undefined {
    const owner = this.agents.get(agent);
    if (owner === undefined || this.agentExpiry.size === 0) return owner;
    const until = this.agentExpiry.get(agent);
    return until !== undefined && this.time >= until ? undefined : owner;
  }

  /** Whether the account's position and orders on this market use isolated margin. */
  isIsolated(acct: Account, market: PerpMarket): boolean {
    // Most accounts never chose isolated margin: the size check skips the set's hash lookup.
    return market.config.onlyIsolated || (acct.anyIsolated && acct.isolated.has(market.asset));
  }

  /** The leverage an isolated fill funds its margin at, or null for cross. */
  isolatedLeverage(acct: Account, market: PerpMarket): number | null {
    return this.isIsolated(acct, market) ? this.leverage(acct, market) : null;
  }

  leverage(acct: Account, market: PerpMarket): number {
    const chosen = acct.anyLeverage ? acct.leverage.get(market.asset) : undefined;
    return chosen ?? Math.min(this.config.defaultLeverage, market.config.maxLeverage);
  }
}
