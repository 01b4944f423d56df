// rpc/: the API servers. It declares what it needs from the node (api.ts); node/ supplies it.
export type { NodeApi, ExchangeRequest, SubmitOutcome, SignedVerdict, MarketRules, OrderStatusAnswer, BlockSummary, BlockTxSummary } from './api.ts';
export { RestServer, type RestServerOptions, type StaticAssets } from './rest-server.ts';
export type { RouteMetrics, RouteObserver } from './route-metrics.ts';
export { TlsFront, proxyV2Header, clientIp, type TlsFrontOptions } from './tls-proxy.ts';
export { HttpError, httpErrorOf, STATUS_LINE, type ErrorKey } from './http-errors.ts';
export { WsServer, type WsServerOptions, type BlockFeed, type FeedBlock } from './ws-server.ts';
/** The WebSocket dialect's vocabulary (coin names, subscription checks, push shapes), for tests. */
export * as hyperliquidWsShapes from './hyperliquid/ws-shapes.ts';
export { RateLimiter } from './rate-limiter.ts';
export {
  Limits, RateLimitError, SPEC_RATE_LIMITS, DEVNET_RATE_LIMITS, RATE_LIMIT_PRESETS, RATE_LIMIT_SCOPES, rateLimitsFrom, infoWeight, infoExtraWeight, exchangeWeight,
  type Rate, type RateLimitConfig, type HistoricalTier, type HistoricalRequest,
} from './limits.ts';
export { HMAC_WINDOW_SECONDS, HMAC_HEADERS, hmacMessage, hmacSign, hmacMatches, checkHmacTimestamp, type HmacHeaders } from './hmac.ts';
export { authenticateApiKey, MAX_ACTIVE_KEYS_PER_ADDRESS, type ApiKeyStore, type ApiKeyRecord } from './api-keys.ts';
export { EthServer, type EthServerOptions, type EvmBlockFeed } from './eth/server.ts';
export type { EthBackend, DevnetBackend } from './eth/methods.ts';
export { RpcError } from './eth/errors.ts';
/** Names of every route and method, for tests that cover them all (the fuzzing campaign). */
export { INFO_TYPES } from './info.ts';
export { STATS_ROUTE_NAMES } from './stats.ts';
export { HISTORY_ROUTE_NAMES } from './history.ts';
export { ETH_METHOD_NAMES } from './eth/dispatch.ts';
export type {
  BookLevelRow, BookSnapshotRow, CandleRow, CoinDailyRow, Cursor, DailyStatsRow, FundingRow, HistoryReader, LiquidationRow,
  OpenInterestRow, RangeQuery, StatsTotals, TradeRow, TransferRow,
} from './history-api.ts';
export { svcActionOf, hyperliquidResponse, type Translation } from './hyperliquid/actions.ts';
export { handleHyperliquidInfo, HYPERLIQUID_INFO_TYPES } from './hyperliquid/info.ts';
export { aggregateSide } from './hyperliquid/l2-aggregate.ts';
export { hlTokenIndex, svcTokenIndex, hlSpotCoin, svcCoinOfHl, coinNames } from './hyperliquid/names.ts';
