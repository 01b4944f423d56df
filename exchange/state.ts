// The exchange's complete consensus state and the helpers every module shares.
import type { Address } from '../primitives/index.ts';
import type { Account } from './account.ts';
import { SPOT_ASSET_OFFSET, type ExchangeConfig, type OracleValidator } from './config.ts';
import type { IdSource } from './engine/matching-engine.ts';
import { buildPerps, buildSpots, type Market, type PerpMarket, type SpotMarket } from './markets.ts';
import { StakingState } from './staking.ts';

/** A withdrawal debited from its account, waiting for the bridge (`pending`). */
export interface Withdrawal {
  /** The hash of the transaction that requested it. */
  readonly withdrawalId: string;
  readonly user: Address;
  readonly destination: Address;
  /** Net amount paid out, and the fee kept (USD units). */
  readonly amount: bigint;
  readonly fee: bigint;
  readonly time: number;
}

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
  /** Markets in asset order: perps, then spot pairs. */
  readonly markets: readonly Market[];
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
  /** Account -> its agents in approval order, with their names ("" = unnamed). */
  readonly agentsOf = new Map<Address, { address: Address; name: string }[]>();
  /** `normalTpsl` parent oid -> its TP/SL children, until the parent is done. */
  readonly tpslChildren = new Map<number, number[]>();
  /** Trading fees collected, USD units. */
  feesCollected = 0n;
  /** Spot fees collected in quote tokens other than USDC, by token (10^-8 units). */
  readonly tokenFees = new Map<number, bigint>();
  /** Withdrawals taken from accounts and not yet paid out by a bridge, in request order. */
  readonly withdrawals: Withdrawal[] = [];
  /** Bridge fees kept from withdrawals, USD units. */
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
    for (const m of this.markets) this.marketsByName.set(m.name, m);
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
    const agentOf = this.agents.get(signer);
    if (agentOf === owner) return true;
    const master = this.masterOf.get(owner);
    return master !== undefined && (signer === master || agentOf === master);
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
