// exchange/: the deterministic state machine (markets, books, matching, margin, actions).
export * from './config.ts';
export * from './errors.ts';
export { systemAddress, systemToken, takeReleases, linkedContracts, creditFromEvm, refundRelease, unitsOfWei, type EvmRelease, type LinkOutcome } from './evm-link.ts';
export type { SpotSendAction } from './actions.ts';
export type { SpotDeployAction, SpotDeployTokenAction, SpotDeployPairAction } from './actions.ts';
export { SPOT_DEPLOY_FEE, DEPLOYED_PAIR_MIN_LOTS, type TokenDeployed, type PairDeployed } from './spot-deploy.ts';
export type {
  Action, OrderAction, CancelAction, CancelByCloidAction, ModifyAction, BatchModifyAction, NoopAction, ScheduleCancelAction, ApproveBuilderFeeAction,
  OrderBuilder, OrderRequest, Tif, Grouping, ActionParseError,
} from './actions.ts';
export { parseAction, isActionParseError, parseFeeRate, PLANNED_ACTIONS, MAX_BATCH, MAX_PERP_BUILDER_FEE, MAX_SPOT_BUILDER_FEE } from './actions.ts';
export { maxBuilderFee, builderFeeOf } from './builder-fees.ts';
export { SCHEDULE_CANCEL_MIN_DELAY_MS, SCHEDULED_CANCELS_PER_DAY, firedToday } from './schedule-cancel.ts';
export type { FillRecord, OrderView, OrderStatus, ExchangeEvent, Side, FundingRecord, FundingRateRecord, LiquidationRecord, LedgerRecord } from './events.ts';
export { newEventList } from './events.ts';
export type { OraclePrices } from './oracle.ts';
export { LIQUIDATION_HASH, sweepOrder, bankruptcyPxExact, bankruptcyPxNum } from './liquidation.ts';
export type { Market, PerpMarket, SpotMarket } from './markets.ts';
export { Exchange, knownSigner, knownHyperliquidSigner, hyperliquidVault, type ExchangeTx, type TxResult, type TxOutcome, type ActionResponse, type GenesisBalance } from './exchange.ts';
export { snapshotState, restoreExchange, stateHash } from './snapshot.ts';
export * as views from './views.ts';
export * as indexerViews from './indexer-views.ts';
export type { PerpetualMarketView } from './indexer-views.ts';
export { referral, REFERRER_MIN_VOLUME, type ReferralView } from './referral.ts';
export type { PortfolioFigures } from './views.ts';
export type { ExchangeState } from './state.ts';
export { parsePrice, parseSize, isExchangeError } from './order-rules.ts';
export {
  signerCandidates, recoverSigner, signerDigest, allowedBindings, signingHint, exchangeDomain, actionConnectionId, literalConnectionId,
  parseSignature, type AuthConfig, type Binding, type SignatureWire, type SignerCandidate, type SignedFields,
} from './auth.ts';
export {
  hyperliquidCandidates, hyperliquidDigests, distinctAddresses, hyperliquidSigningHint, isUserSignedType, userSignedNonceField, l1ActionHash, userSignedDigest,
  type HyperliquidAuth, type HyperliquidSignedFields,
} from './hyperliquid-auth.ts';
export { submitLimit, type LimitSpec, type LimitOutcome } from './limit-orders.ts';
export type { TxContext } from './order-context.ts';
export { MatchingEngine, Fill, type EngineRules, type IdSource } from './engine/matching-engine.ts';
export { BookOrder, TIF_GTC, TIF_IOC, TIF_ALO, TIF_NAMES, type TifCode } from './engine/book-order.ts';
export { NumMap } from './engine/num-map.ts';
export { nonceRefusal, NONCES_KEPT } from './nonces.ts';
export { availableMargin, freeMarginCovers, marginFigures, crossMaintenanceNum, maintenanceNum, maintenanceOf } from './margin.ts';
export { Account, Position, initialMarginNum } from './account.ts';
export {
  BridgeState, withdrawalDigest, validatorSetDigest, wantedSet, contractQuorum, type ContractSet, type SetUpdate, signatureSigner, withdrawalView, orderedSignatures, claimKey, parseClaim, toTokenUnits,
  BRIDGE_TOKEN_DECIMALS, BRIDGE_TX_WINDOW_MS, MAINNET_BRIDGE_CHAINS, MAX_BRIDGE_ITEMS,
  type BridgeClaim, type BridgeChain, type BridgeOutcome, type BridgeSubmission, type Withdrawal, type WithdrawalStatus, type WithdrawalView,
} from './bridge.ts';
export {
  registrationBytes, stakedTotal, selectValidators, powerOf, STAKE_UNIT, GENESIS_DELEGATOR, MAX_PENDING_WITHDRAWALS,
  type StakingState, type StakedValidator, type Delegation, type PendingStakeWithdrawal,
} from './staking.ts';
