import type { Address } from '../primitives/index.ts';
// Static market configuration, fixed by the genesis. Units: prices are integers of
// 10^-pxDecimals, sizes integers of lots (10^-szDecimals), USDC integers of 10^-USD_DECIMALS.

/** USDC amounts in state are bigint units of 10^-8 (the finest notional any market produces). */
export const USD_DECIMALS = 8;
/** Perp prices have at most 6 - szDecimals decimals; spot prices at most 8 - szDecimals. */
export const PERP_MAX_DECIMALS = 6;
export const SPOT_MAX_DECIMALS = 8;
/** Prices have at most 5 significant figures (integer prices are always allowed). */
export const MAX_SIG_FIGS = 5;
/** Perpetual assets are 0..9999; spot pair p trades as asset 10000 + p. */
export const SPOT_ASSET_OFFSET = 10000;
/** USDC is the first spot token. */
export const USDC_TOKEN_INDEX = 10000;

export interface PerpMarketConfig {
  readonly name: string;
  readonly szDecimals: number;
  readonly maxLeverage: number;
  readonly onlyIsolated: boolean;
  /** Reference (oracle) price in price units, used until the book and trades give one. */
  readonly referencePx: number;
  /** Minimum order size in lots. */
  readonly minSz: number;
}

export interface SpotTokenConfig {
  readonly name: string;
  readonly szDecimals: number;
  readonly weiDecimals: number;
  /** 10000, 10001, ... in listing order; USDC is 10000. */
  readonly index: number;
  /** Who deployed it with `spotDeploy` (absent for genesis tokens). */
  readonly deployer?: Address;
  /** The ERC-20 on the embedded EVM it is linked to (lowercase), if any (see `docs/evm.md`). */
  readonly evmContract?: Address;
}

export interface SpotPairConfig {
  readonly base: number;
  readonly quote: number;
  /** Pair index p from 0; orders use asset 10000 + p. */
  readonly index: number;
  /** Minimum order size in base lots. */
  readonly minSz: number;
  /** Reference price in price units (10^-spotPxDecimals(base)). */
  readonly referencePx: number;
}

/** Fee rates in parts per million of notional. */
export interface FeeSchedule {
  readonly perpTakerPpm: number;
  readonly perpMakerPpm: number;
  readonly spotTakerPpm: number;
  readonly spotMakerPpm: number;
}

export interface ExchangeConfig {
  readonly perps: readonly PerpMarketConfig[];
  readonly spotTokens: readonly SpotTokenConfig[];
  readonly spotPairs: readonly SpotPairConfig[];
  /** Cross leverage an account uses on a market until it sets its own. */
  readonly defaultLeverage: number;
  /** Open orders one account may hold on one market. */
  readonly maxOpenOrdersPerMarket: number;
  /** Nonces must lie within this many ms of the block time. */
  readonly nonceWindowMs: number;
  readonly fees: FeeSchedule;
  /** Perp limit prices may be at most this far from the oracle price, in basis points. */
  readonly priceBandBps: number;
  /** Triggered market orders execute as IOC at most this far through the mark, in basis points. */
  readonly triggerSlippageBps: number;
  readonly clearinghouse: ClearinghouseConfig;
  readonly bridge: BridgeConfig;
  /** Staking of the native token; absent: no staking actions, the genesis validators stay (see staking.ts). */
  readonly staking?: StakingConfig;
}

export interface BridgeConfig {
  /** This chain's id: the validators' withdrawal signatures name it. */
  readonly serviceChainId: number;
  /** A withdrawal not paid out this many seconds after its request is refunded (its deadline). */
  readonly withdrawalTimeoutSec: number;
  /** Chain ids validators may register a bridge on; null: any (local and test networks). */
  readonly chains: readonly number[] | null;
}

/**
 * Staking (docs/consensus.md, Staking): delegated stake of one spot token sets the validators'
 * voting power at epoch boundaries. Amounts are token units of 10^-8 (TOKEN_DECIMALS).
 */
export interface StakingConfig {
  /** The chain id registration proofs are bound to. */
  readonly chainId: number;
  /** The spot token staked (SVC, 10001 on the devnet). */
  readonly token: number;
  /** The set is recomputed at the end of every block whose height is a multiple of this; it applies from the next height. */
  readonly epochBlocks: number;
  /** Least stake (units) for a validator to be in the active set; at least one whole token. */
  readonly minStake: bigint;
  readonly maxValidators: number;
  /** A `cWithdraw` pays out to the spot balance this long (ms of block time) after it is requested. */
  readonly unbondingDelayMs: number;
  /** A delegation cannot be undelegated until this long (ms) after the last delegation to that validator. */
  readonly delegationLockMs: number;
  /** Operator accounts of genesis validators, by public key; a validator without one keeps its genesis stake. */
  readonly genesisOperators: Readonly<Record<string, Address>>;
}

/** A validator: publishes oracle prices, attests bridge events and signs withdrawals, with its voting power. */
export interface OracleValidator {
  /** Hex ed25519 public key. */
  readonly pubKey: string;
  readonly power: number;
  /** The secp256k1 address whose signatures the bridge contracts accept from this validator (lowercase). */
  readonly bridgeSigner?: Address;
}

export interface ClearinghouseConfig {
  readonly validators: readonly OracleValidator[];
  /** Oracle submissions older than this (ms, against the block time) no longer count. */
  readonly oracleStalenessMs: number;
  /** Funding is paid every interval (ms), at 1/8 of the 8-hour rate for an hour. */
  readonly fundingIntervalMs: number;
  /** The premium is sampled at most this often (ms). */
  readonly premiumSampleMs: number;
  /** Interest component per 8 hours, and the clamp around it, in parts per billion. */
  readonly interestPer8hPpb: number;
  readonly interestClampPpb: number;
  /** Funding rate cap per interval, ppb. */
  readonly fundingCapPpb: number;
  /** Notional (USD units) the impact prices are measured for. */
  readonly impactNotional: bigint;
  /** Maintenance margin as a fraction of the initial margin at maximum leverage, in bps (5000 = half). */
  readonly maintenanceBps: number;
  /** Liquidation market orders cross at most this far through the mark, bps. */
  readonly liquidationSlippageBps: number;
  /** The account that takes over what the book cannot absorb; its USDC is the insurance. */
  readonly backstop: Address;
  /** Smallest withdrawal, and the bridge fee taken from it (USD units). */
  readonly withdrawMinimum: bigint;
  readonly withdrawFee: bigint;
}

/** 10^-USD_DECIMALS units per token unit: every token balance is held in 10^-8 of the token. */
export const TOKEN_DECIMALS = USD_DECIMALS;

export function perpPxDecimals(m: Pick<PerpMarketConfig, 'szDecimals'>): number {
  return PERP_MAX_DECIMALS - m.szDecimals;
}

export function spotPxDecimals(base: Pick<SpotTokenConfig, 'szDecimals'>): number {
  return SPOT_MAX_DECIMALS - base.szDecimals;
}

export function pairName(tokens: readonly SpotTokenConfig[], pair: Pick<SpotPairConfig, 'base' | 'quote'>): string {
  const token = (index: number) => tokens[index - USDC_TOKEN_INDEX]?.name ?? `#${index}`;
  return `${token(pair.base)}-${token(pair.quote)}`;
}
