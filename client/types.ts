// Wire types of the node's API: the spec's fields, and the shapes docs/api.md records where the
// spec says "not shown". Prices, sizes and amounts are decimal strings; times are Unix ms.

export type Address = `0x${string}`;
/** A decimal string such as "3500.5" (no exponent). */
export type DecimalString = string;
export type Side = 'B' | 'A';
export type Tif = 'Gtc' | 'Ioc' | 'Alo';
export type Grouping = 'na' | 'normalTpsl' | 'positionTpsl';
export type CandleInterval = '1m' | '3m' | '5m' | '15m' | '30m' | '1h' | '2h' | '4h' | '8h' | '12h' | '1d' | '3d' | '1w';

// ---- /info responses -------------------------------------------------------------------------

export interface PerpAsset {
  name: string;
  szDecimals: number;
  maxLeverage: number;
  onlyIsolated: boolean;
}
export interface Meta {
  universe: PerpAsset[];
}
export interface SpotToken {
  name: string;
  szDecimals: number;
  weiDecimals: number;
  index: number;
  tokenId?: string;
  evmContract?: { address: string; evm_extra_wei_decimals: number } | null;
  deployer?: string | null;
}
export interface SpotPair {
  name: string;
  tokens: [number, number];
  index: number;
}
export interface SpotMeta {
  universe: SpotPair[];
  tokens: SpotToken[];
}
export interface PerpAssetCtx {
  funding: DecimalString;
  openInterest: DecimalString;
  prevDayPx: DecimalString;
  dayNtlVlm: DecimalString;
  premium: DecimalString | null;
  oraclePx: DecimalString;
  markPx: DecimalString;
  midPx: DecimalString | null;
  impactPxs: DecimalString[] | null;
  dayBaseVlm: DecimalString;
}
export interface SpotAssetCtx {
  coin: string;
  dayNtlVlm: DecimalString;
  dayBaseVlm: DecimalString;
  markPx: DecimalString;
  midPx: DecimalString | null;
  prevDayPx: DecimalString;
  circulatingSupply: DecimalString;
  totalSupply: DecimalString;
}
export type AllMids = Record<string, DecimalString>;
export interface L2Level {
  px: DecimalString;
  sz: DecimalString;
  n: number;
}
export interface L2Book {
  coin: string;
  levels: [L2Level[], L2Level[]];
  time: number;
}
export interface Candle {
  t: number;
  T: number;
  s: string;
  i: CandleInterval;
  o: DecimalString;
  c: DecimalString;
  h: DecimalString;
  l: DecimalString;
  v: DecimalString;
  n: number;
}
export interface FundingRate {
  coin: string;
  fundingRate: DecimalString;
  premium: DecimalString;
  time: number;
}
export interface UserFunding {
  delta: { type: 'funding'; coin: string; usdc: DecimalString; szi: DecimalString; fundingRate: DecimalString; nSamples: null };
  hash: string;
  time: number;
}
export interface Leverage {
  type: 'cross' | 'isolated';
  value: number;
  rawUsd?: DecimalString;
}
export interface Position {
  coin: string;
  szi: DecimalString;
  entryPx: DecimalString;
  leverage: Leverage;
  unrealizedPnl: DecimalString;
  marginUsed: DecimalString;
  positionValue?: DecimalString;
  returnOnEquity?: DecimalString;
  liquidationPx?: DecimalString | null;
  maxLeverage?: number;
  cumFunding?: { allTime: DecimalString; sinceOpen: DecimalString; sinceChange: DecimalString };
}
export interface MarginSummary {
  accountValue: DecimalString;
  totalMarginUsed: DecimalString;
  totalNtlPos: DecimalString;
  totalRawUsd: DecimalString;
}
export interface ClearinghouseState {
  assetPositions: { type: 'oneWay'; position: Position }[];
  crossMarginSummary: MarginSummary;
  marginSummary: MarginSummary;
  withdrawable: DecimalString;
  crossMaintenanceMarginUsed?: DecimalString;
  time?: number;
}
export interface SpotBalance {
  coin: string;
  token: number;
  hold: DecimalString;
  total: DecimalString;
  entryNtl: DecimalString;
}
export interface SpotClearinghouseState {
  balances: SpotBalance[];
}
export type OrderType = 'Limit' | 'Stop Market' | 'Stop Limit' | 'Take Profit Market' | 'Take Profit Limit';
export interface OpenOrder {
  coin: string;
  side: Side;
  limitPx: DecimalString;
  sz: DecimalString;
  oid: number;
  timestamp: number;
  origSz: DecimalString;
  cloid: string | null;
  reduceOnly: boolean;
  orderType: OrderType;
  tif: string | null;
  isTrigger: boolean;
  triggerCondition: string;
  triggerPx: DecimalString;
  isPositionTpsl: boolean;
  children: OpenOrder[];
}
export interface Fill {
  coin: string;
  px: DecimalString;
  sz: DecimalString;
  side: Side;
  time: number;
  startPosition: DecimalString;
  dir: string;
  closedPnl: DecimalString;
  hash: string;
  oid: number;
  crossed: boolean;
  fee: DecimalString;
  feeToken: string;
  tid: number;
  cloid?: string;
  builderFee?: DecimalString;
  twapId: null;
  liquidation?: { liquidatedUser: string; markPx: DecimalString; method: 'market' | 'backstop' | 'adl' };
}
export type OrderStatusName =
  | 'open' | 'filled' | 'canceled' | 'triggered' | 'rejected' | 'selfTradeCanceled' | 'reduceOnlyCanceled'
  | 'siblingFilledCanceled' | 'iocCancelRejected' | 'liquidatedCanceled' | 'scheduledCancel';
export interface OrderStatusRecord {
  order: OpenOrder;
  status: OrderStatusName;
  statusTimestamp: number;
}
export type OrderStatusResponse = { status: 'order'; order: OrderStatusRecord } | { status: 'unknownOid' };
export interface DelegatorSummary {
  delegated: DecimalString;
  undelegated: DecimalString;
  totalPendingWithdrawal: DecimalString;
  nPendingWithdrawals: number;
}
export interface Delegation {
  validator: string;
  amount: DecimalString;
  lockedUntilTimestamp: number;
}
export interface ValidatorSummary {
  validator: string;
  signer: string | null;
  name: string;
  stake: DecimalString;
  power: number;
  isActive: boolean;
  isJailed: boolean;
  bridgeSigner: string | null;
}
export interface ExtraAgent {
  address: string;
  name: string;
  validUntil: number | null;
}
export interface SubAccount {
  name: string;
  subAccountUser: string;
  master: string;
  clearinghouseState: ClearinghouseState;
  spotState: SpotClearinghouseState;
}
export interface Withdrawal {
  withdrawalId: string;
  amount: DecimalString;
  fee: DecimalString;
  destination: string;
  status: 'pending' | 'signed' | 'completed' | 'refunded';
  [field: string]: unknown;
}
/** Shapes the spec leaves unshown and docs/api.md describes loosely: kept open. */
export type Loose = Record<string, unknown>;
export type PortfolioWindow = 'day' | 'week' | 'month' | 'allTime' | 'perpDay' | 'perpWeek' | 'perpMonth' | 'perpAllTime';
export type Portfolio = [PortfolioWindow, { accountValueHistory: [number, DecimalString][]; pnlHistory: [number, DecimalString][]; vlm: DecimalString }][];

/** Every `/info` request type, its extra fields and its answer. */
export interface InfoTypes {
  meta: { req: object; res: Meta };
  spotMeta: { req: object; res: SpotMeta };
  metaAndAssetCtxs: { req: object; res: [Meta, PerpAssetCtx[]] };
  spotMetaAndAssetCtxs: { req: object; res: [SpotMeta, SpotAssetCtx[]] };
  allMids: { req: object; res: AllMids };
  l2Book: { req: { coin: string }; res: L2Book };
  candleSnapshot: { req: { req: { coin: string; interval: CandleInterval; startTime: number; endTime?: number } }; res: Candle[] };
  fundingHistory: { req: { coin: string; startTime: number; endTime?: number }; res: FundingRate[] };
  userFunding: { req: { user: string; startTime: number; endTime?: number }; res: UserFunding[] };
  clearinghouseState: { req: { user: string }; res: ClearinghouseState };
  spotClearinghouseState: { req: { user: string }; res: SpotClearinghouseState };
  openOrders: { req: { user: string }; res: OpenOrder[] };
  frontendOpenOrders: { req: { user: string }; res: OpenOrder[] };
  userFills: { req: { user: string }; res: Fill[] };
  userFillsByTime: { req: { user: string; startTime: number; endTime?: number; aggregateByTime?: boolean }; res: Fill[] };
  userFees: { req: { user: string }; res: Loose };
  orderStatus: { req: { user: string; oid: number | string }; res: OrderStatusResponse };
  userRateLimit: { req: { user: string }; res: Loose };
  portfolio: { req: { user: string }; res: Portfolio };
  subAccounts: { req: { user: string }; res: SubAccount[] };
  extraAgents: { req: { user: string }; res: ExtraAgent[] };
  referral: { req: { user: string }; res: Loose };
  delegatorSummary: { req: { user: string }; res: DelegatorSummary };
  delegations: { req: { user: string }; res: Delegation[] };
  validatorSummaries: { req: object; res: ValidatorSummary[] };
  withdrawals: { req: { user: string }; res: Withdrawal[] };
  bridge: { req: object; res: Loose };
}
export type InfoType = keyof InfoTypes;
export type InfoRequest<T extends InfoType = InfoType> = { type: T } & InfoTypes[T]['req'];

// ---- /exchange actions -----------------------------------------------------------------------

export type OrderTypeWire = { limit: { tif: Tif } } | { trigger: { isMarket: boolean; triggerPx: DecimalString; tpsl: 'tp' | 'sl' } };
/** The spec's order wire object. */
export interface OrderWire {
  a: number;
  b: boolean;
  p: DecimalString;
  s: DecimalString;
  r: boolean;
  t: OrderTypeWire;
  c?: string;
}
export interface OrderAction {
  type: 'order';
  orders: OrderWire[];
  grouping: Grouping;
  builder?: { b: string; f: number };
}
export interface CancelAction {
  type: 'cancel';
  cancels: { a: number; o: number }[];
}
export interface CancelByCloidAction {
  type: 'cancelByCloid';
  cancels: { asset: number; cloid: string }[];
}
export interface ModifyAction {
  type: 'modify';
  oid: number | string;
  order: OrderWire;
}
export interface BatchModifyAction {
  type: 'batchModify';
  modifies: { oid: number | string; order: OrderWire }[];
}
export interface UsdTransferAction {
  type: 'usdTransfer';
  destination: string;
  amount: DecimalString;
}
export interface WithdrawAction {
  type: 'withdraw';
  destination: string;
  amount: DecimalString;
  chainId?: number;
}
export interface UpdateLeverageAction {
  type: 'updateLeverage';
  asset: number;
  isCross: boolean;
  leverage: number;
}
export interface UpdateIsolatedMarginAction {
  type: 'updateIsolatedMargin';
  asset: number;
  isBuy: boolean;
  ntli: number;
}
export interface ApproveAgentAction {
  type: 'approveAgent';
  agentAddress: string;
  agentName: string;
  nonce: number;
}
export interface SpotDeployTokenAction {
  type: 'spotDeploy';
  deployType: 'token';
  tokenName: string;
  szDecimals: number;
  weiDecimals: number;
  initialSupply?: DecimalString;
  evmContract?: string;
}
export interface SpotDeployPairAction {
  type: 'spotDeploy';
  deployType: 'pair';
  baseToken: number;
  quoteToken: number;
  initialPrice?: DecimalString;
}
export interface SpotSendAction {
  type: 'spotSend';
  destination: string;
  token: string;
  amount: DecimalString;
}
export interface ScheduleCancelAction {
  type: 'scheduleCancel';
  time?: number;
}
export interface NoopAction {
  type: 'noop';
}
export interface ApproveBuilderFeeAction {
  type: 'approveBuilderFee';
  builder: string;
  maxFeeRate: string;
  nonce: number;
}
export interface CreateSubAccountAction {
  type: 'createSubAccount';
  name: string;
}
export interface SubAccountTransferAction {
  type: 'subAccountTransfer';
  subAccountUser: string;
  isDeposit: boolean;
  usd: number;
}
export interface CDepositAction {
  type: 'cDeposit';
  wei: number;
}
export interface CWithdrawAction {
  type: 'cWithdraw';
  wei: number;
}
export interface TokenDelegateAction {
  type: 'tokenDelegate';
  validator: string;
  wei: number;
  isUndelegate: boolean;
}
export interface RegisterReferrerAction {
  type: 'registerReferrer';
  code: string;
}
export interface SetReferrerAction {
  type: 'setReferrer';
  code: string;
}
export interface RegisterValidatorAction {
  type: 'registerValidator';
  pubKey: string;
  signature: string;
  bridgeSigner?: string | null;
  name?: string;
}

export type ExchangeAction =
  | OrderAction | CancelAction | CancelByCloidAction | ModifyAction | BatchModifyAction | UsdTransferAction | WithdrawAction
  | UpdateLeverageAction | UpdateIsolatedMarginAction | ApproveAgentAction | SpotDeployTokenAction | SpotDeployPairAction
  | SpotSendAction | ScheduleCancelAction | NoopAction | ApproveBuilderFeeAction | CreateSubAccountAction
  | SubAccountTransferAction | CDepositAction | CWithdrawAction | TokenDelegateAction | RegisterReferrerAction
  | SetReferrerAction | RegisterValidatorAction;

/** The actions a WebSocket post may carry (the spec's list; spotDeploy is not among them). */
export type WsExchangeAction = Exclude<ExchangeAction, SpotDeployTokenAction | SpotDeployPairAction>;

export interface Signature {
  r: string;
  s: string;
  v: number;
}
export interface SignedRequest<A extends ExchangeAction = ExchangeAction> {
  action: A;
  nonce: number;
  signature: Signature;
  vaultAddress: string | null;
}

/** One element of `statuses` of an order (or batchModify) response. */
export type OrderStatus =
  | { resting: { oid: number; cloid?: string } }
  | { filled: { totalSz: DecimalString; avgPx: DecimalString; oid: number; cloid?: string } }
  | { error: string };
export type CancelStatus = 'success' | { error: string };
export interface WithdrawResult {
  withdrawalId: string;
  amount: DecimalString;
  fee: DecimalString;
  destination: string;
  status: 'pending';
}
export interface TokenDeployResult {
  tokenIndex: number;
  tokenName: string;
  deployer: string;
}
export interface PairDeployResult {
  pairIndex: number;
  pairName: string;
  baseToken: number;
  quoteToken: number;
}
export type ExchangeResponse<D = unknown> =
  | { status: 'ok'; response: { type: string; data?: D } }
  | { status: 'err'; response: string };

// ---- WebSocket -------------------------------------------------------------------------------

export type Subscription =
  | { type: 'allMids' }
  | { type: 'l2Book'; coin: string }
  | { type: 'bbo'; coin: string }
  | { type: 'trades'; coin: string }
  | { type: 'candle'; coin: string; interval: CandleInterval }
  | { type: 'activeAssetCtx'; coin: string }
  | { type: 'orderUpdates'; user: string }
  | { type: 'userFills'; user: string }
  | { type: 'userEvents'; user: string }
  | { type: 'userFundings'; user: string }
  | { type: 'notification'; user: string };

export interface Trade {
  coin: string;
  side: Side;
  px: DecimalString;
  sz: DecimalString;
  hash: string;
  time: number;
  tid: number;
  users: [string, string];
}
/** What each subscription pushes (docs/websocket.md). */
export interface SubscriptionData {
  allMids: { mids: AllMids };
  l2Book: L2Book;
  bbo: { coin: string; time: number; bbo: [L2Level | null, L2Level | null] };
  trades: Trade[];
  candle: Candle;
  activeAssetCtx: { coin: string; ctx: PerpAssetCtx | SpotAssetCtx };
  orderUpdates: OrderStatusRecord[];
  userFills: { isSnapshot?: boolean; user: string; fills: Fill[] };
  userEvents: { fills?: Fill[]; funding?: Loose } & Loose;
  userFundings: { user: string; fundings: Loose[] };
  notification: { notification: string };
}

// ---- /v1, /v4, /stats ------------------------------------------------------------------------

export interface V1Height {
  height: string;
  time: string;
}
export interface V1Health extends V1Height {
  status: 'ok' | 'unavailable';
  indexed_height: string | null;
}
export interface V1BookLevel {
  price: DecimalString;
  size: DecimalString;
}
export interface V1PerpetualMarket {
  clobPairId: string;
  ticker: string;
  status: string;
  oraclePrice: DecimalString;
  priceChange24H: DecimalString;
  volume24H: DecimalString;
  trades24H: number;
  nextFundingRate: DecimalString;
  initialMarginFraction: DecimalString;
  maintenanceMarginFraction: DecimalString;
  openInterest: DecimalString;
  tickSize: DecimalString;
  stepSize: DecimalString;
  marketType: 'CROSS' | 'ISOLATED';
  assetIndex: number;
  szDecimals: number;
  maxLeverage: number;
  minOrderSize: DecimalString;
}
export interface V1SpotMarket {
  pair: string;
  base_asset: string;
  quote_asset: string;
  price_decimals: number;
  size_decimals: number;
  min_order_size: DecimalString;
  tick_size: DecimalString;
  status: string;
}
export interface V1SpotOrderbook {
  pair: string;
  timestamp: string;
  bids: V1BookLevel[];
  asks: V1BookLevel[];
}
export interface V1Fill {
  id: string;
  side: 'BUY' | 'SELL';
  liquidity: 'TAKER' | 'MAKER';
  type: string;
  market: string;
  marketType: 'PERPETUAL' | 'SPOT';
  price: DecimalString;
  size: DecimalString;
  fee: DecimalString;
  feeToken: string;
  createdAt: string;
  orderId: string;
  clientId?: string;
  subaccountNumber: number;
  hash: string;
}
export interface ApiKeyCreated {
  api_key: string;
  secret: string;
  address: string;
  name: string;
  created_at: string;
}
export interface ApiKeyEntry {
  api_key: string;
  address: string;
  name: string;
  created_at: string;
  revoked: boolean;
  revoked_at: string | null;
}
export interface BlockSummary {
  height: number;
  time: number;
  hash: string;
  /** The proposer's ed25519 consensus key. */
  proposer: string;
  txs: { hash: string; kind: 'action' | 'system' | 'evm'; type: string; signer: string | null; vaultAddress: string | null }[];
}
export interface HistoryPage<T = Loose> {
  data: T[];
  pagination: { next_cursor: string | null; has_more: boolean };
}
export interface HistoryTrade {
  id: number;
  coin: string;
  time: number;
  height: number;
  tid: number;
  px: DecimalString;
  sz: DecimalString;
  side: Side;
  hash: string;
  buyer: string;
  seller: string;
  liquidation: boolean;
}
export type StatsRoute =
  | 'total_users' | 'total_usd_volume' | 'total_deposits' | 'total_withdrawals' | 'cumulative_usd_volume' | 'daily_usd_volume'
  | 'open_interest' | 'funding_rate' | 'daily_unique_users' | 'cumulative_users' | 'asset_ctxs';
