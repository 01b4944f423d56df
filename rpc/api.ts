// What rpc/ needs from the node, declared here and supplied by node/ (rpc never imports node/).
import type {
  ExchangeError, WithdrawalView, FillRecord, FundingRateRecord, FundingRecord, OrderStatus, OrderView, PerpetualMarketView, ReferralView, TxResult, views,
} from '../exchange/index.ts';
import type { Address } from '../primitives/index.ts';
import type { HistoryReader } from './history-api.ts';

/** A signed `/exchange` request after its shape was checked. */
export interface ExchangeRequest {
  readonly action: unknown;
  readonly nonce: number;
  readonly signature: unknown;
  readonly vaultAddress: Address | null;
  /** Set for a request of the Hyperliquid dialect: signed under Hyperliquid's schemes, its action in Hyperliquid's vocabulary. */
  readonly dialect?: 'hyperliquid';
  /** The dialect's `expiresAfter` (ms; refused in a block after it); null or absent when unset. */
  readonly expiresAfter?: number | null;
}

export type SubmitOutcome =
  /** Executed in a committed block; the result is final. */
  | { readonly kind: 'executed'; readonly result: TxResult }
  /** Refused before entering a block (signature, agent, nonce). */
  | { readonly kind: 'rejected'; readonly error: ExchangeError }
  /** The node cannot take it now (mempool full, shutting down). */
  | { readonly kind: 'unavailable'; readonly message: string }
  /** Refused by the signer's `/exchange` rate limit before entering the mempool. */
  | { readonly kind: 'limited'; readonly retryAfter: number; readonly message: string };

/** A signed request checked without entering a block (POST /v1/api-keys). */
export type SignedVerdict =
  | { readonly kind: 'ok'; readonly signer: Address }
  | { readonly kind: 'rejected'; readonly error: ExchangeError };

export interface MarketRules {
  readonly name: string;
  readonly szDecimals: number;
  /** Minimum order size as a decimal string. */
  readonly minSz: string;
}

export interface OrderStatusAnswer {
  readonly order: OrderView;
  readonly status: OrderStatus;
  readonly statusTimestamp: number;
}

export interface NodeApi {
  /**
   * `origin`: the client connection the request came on, when the server knows one (a WebSocket);
   * the node may guess that connection's last signer to recover faster. It never changes the answer.
   */
  submit(req: ExchangeRequest, origin?: object): Promise<SubmitOutcome>;
  /** The indexed history (`/v4`, `/stats`); null on a node that keeps none. */
  readonly history: HistoryReader | null;
  /** The coin a market parameter names: "BTC-USD" or "BTC" for a perpetual, a spot pair's name or "@<pair>"; null when none. */
  coinOf(market: string): string | null;
  isPerp(coin: string): boolean;
  /**
   * The signature check of `submit` (signer or approved agent of `vaultAddress`, nonce within the
   * window and not used on `/exchange`), for node-local actions that never enter a block.
   */
  verifySigned(req: ExchangeRequest): Promise<SignedVerdict>;
  /** Whether the address stakes (delegated + undelegated) at least the genesis's staker-tier stake. */
  isStaker(user: Address): boolean;
  /** Perp or spot market rules by asset index, for stateless pre-checks. */
  marketRules(asset: number): MarketRules | null;
  meta(): ReturnType<typeof views.meta>;
  metaAndAssetCtxs(): ReturnType<typeof views.metaAndAssetCtxs>;
  /** A perpetual's funding rates with start <= time < end, oldest first, at most 500; null for an unknown coin. */
  fundingHistory(coin: string, start: number, end: number): Promise<FundingRateRecord[] | null>;
  /** Candles opening in [start, end], oldest first, at most 5000; null for an unknown coin or interval. */
  candleSnapshot(coin: string, interval: string, start: number, end: number): Promise<unknown[] | null>;
  /** The user's funding payments with start <= time < end, oldest first, at most 500. */
  userFunding(user: Address, start: number, end: number): Promise<FundingRecord[]>;
  spotMeta(): ReturnType<typeof views.spotMeta>;
  spotMetaAndAssetCtxs(): ReturnType<typeof views.spotMetaAndAssetCtxs>;
  allMids(): Record<string, string>;
  /** `depth` levels a side (default 20, Hyperliquid's). */
  l2Book(coin: string, depth?: number): ReturnType<typeof views.l2Book>;
  /** Hyperliquid's `activeAssetData` figures on a perpetual by coin; null for an unknown or spot coin. */
  activeAssetData(user: Address, coin: string): ReturnType<typeof views.activeAssetData> | null;
  userRole(user: Address): ReturnType<typeof views.userRole>;
  /** The builder fee `user` approved for `builder`, tenths of a basis point; 0 when none. */
  maxBuilderFee(user: Address, builder: Address): number;
  approvedBuilders(user: Address): Address[];
  /** Each spot token's total supply (10^-8 units formatted), in token index order. */
  tokenSupplies(): string[];
  /** The fee of a `spotDeploy` of a token (USDC decimal string). */
  spotDeployFee(): string;
  clearinghouseState(user: Address): ReturnType<typeof views.clearinghouseState>;
  spotClearinghouseState(user: Address): ReturnType<typeof views.spotClearinghouseState>;
  userFees(user: Address): Promise<unknown>;
  /** Hyperliquid's `portfolio`: account value and PnL history per window; [] for an unknown account. */
  portfolio(user: Address): Promise<unknown>;
  spotMarkets(): ReturnType<typeof views.spotMarkets>;
  extraAgents(user: Address): ReturnType<typeof views.extraAgents>;
  subAccounts(user: Address): ReturnType<typeof views.subAccounts>;
  userRateLimit(user: Address): ReturnType<typeof views.userRateLimit>;
  delegatorSummary(user: Address): ReturnType<typeof views.delegatorSummary>;
  delegations(user: Address): ReturnType<typeof views.delegations>;
  /** The user's most recent actions sent from the EVM's write system contract, oldest first (docs/evm.md). */
  evmActions(user: Address): readonly unknown[];
  validatorSummaries(): ReturnType<typeof views.validatorSummaries>;
  /** Levels per side of a spot pair by name, or null for an unknown pair. */
  spotOrderbook(pair: string, depth: number): { bids: { price: string; size: string }[]; asks: { price: string; size: string }[]; time: number } | null;
  /** Perpetuals in universe order, dYdX's market fields; `trades24H` counts the trades of the last 24 clock hours. */
  perpetualMarkets(): Promise<(PerpetualMarketView & { trades24H: number })[]>;
  /** Levels per side of a perpetual by ticker (`BTC-USD`) or coin (`BTC`), or null for an unknown one. */
  perpOrderbook(ticker: string, depth: number): { bids: BookLevel[]; asks: BookLevel[] } | null;
  /** Whether the address is an account in state (funded, traded or transferred to at some point). */
  hasAccount(user: Address): boolean;
  /** Hyperliquid's `referral` answer for any address. */
  referral(user: Address): ReferralView;
  openOrders(user: Address): OrderView[];
  /** The 2000 most recent fills, newest first. */
  userFills(user: Address): Promise<FillRecord[]>;
  /** Fills with start <= time < end, oldest first, at most 2000, among the 10000 most recent. */
  userFillsByTime(user: Address, start: number, end: number): Promise<FillRecord[]>;
  orderStatus(user: Address, oid: number): Promise<OrderStatusAnswer | null>;
  /**
   * Up to `count` committed blocks at or below `from`, newest first, with their transactions
   * summarized (`/v1/blocks`, the explorer page).
   */
  blocks(from: number, count: number): Promise<BlockSummary[]>;
  /** Committed head for `/v1/height` and `/v1/health`. */
  head(): { height: number; time: number; hash: string };
  /** True while the node produces or follows blocks. */
  healthy(): boolean;
  /** The user's withdrawals still in state (pending, signed, and final ones for a week), oldest first. */
  withdrawals(user: Address): WithdrawalView[];
  /** The bridge: registered chains, and this node's view of each chain it watches. */
  bridge(): BridgeInfo;
}

export interface BlockTxSummary {
  readonly hash: string;
  /** An exchange action, a validator's system transaction, or an EVM transaction. */
  readonly kind: 'action' | 'system' | 'evm';
  /** The action's `type` (order, cancel, …), the system transaction's (oracle, bridge), or `evm`. */
  readonly type: string;
  /** The recovered signer of an action (an agent signs for its vault); null otherwise. */
  readonly signer: string | null;
  readonly vaultAddress: string | null;
}

export interface BlockSummary {
  readonly height: number;
  readonly time: number;
  readonly hash: string;
  readonly proposer: string;
  readonly txs: readonly BlockTxSummary[];
}

export interface BookLevel {
  readonly price: string;
  readonly size: string;
}

export interface BridgeInfo {
  /** Chains with a registered bridge contract, by chain id; `status` is the spec's `Active`. */
  readonly chains: { chainId: number; contract: string; status: 'Active'; validatorSet: { nonce: number; signers: readonly string[]; powers: readonly number[] } }[];
  /** The chain a withdrawal without `chainId` goes to; null when none is registered. */
  readonly defaultChainId: number | null;
  readonly withdrawalMinimum: string;
  readonly withdrawalFee: string;
  /** Seconds from a withdrawal's request to its deadline. */
  readonly withdrawalTimeout: number;
  /** The chains this node watches (validators and full nodes with a bridge configured). */
  readonly watched: { chainId: number | null; up: boolean; scanned: number; error: string }[];
  /** Deposits credited, withdrawals paid out and refunds, USDC. */
  readonly totals: { deposited: string; paidOut: string; refunded: string };
}
