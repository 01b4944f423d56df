// client/: the typed TypeScript client of the node's API (REST, WebSocket, /v1, /v4, /stats), with
// EIP-712 signing, nonces, retries and exact decimals. Depends on primitives/ only (docs/client.md).
export { SvcClient, DEVNET_URL, DEVNET_WS_URL, type SvcClientOptions, type OrderSpec } from './client.ts';
export { InfoClient } from './info.ts';
export { ExchangeClient, dataOf, type ExchangeClientOptions } from './exchange.ts';
export { V1Client, HistoryClient, StatsClient, hmacHeaders, type ApiKeyCredentials, type HistoryQuery } from './rest.ts';
export { WsClient, subscriptionKey, type WsClientOptions, type SocketFactory } from './ws.ts';
export { HttpTransport, type HttpOptions } from './http.ts';
export { NonceManager, type NonceSource, type NonceManagerOptions } from './nonce.ts';
export { DEFAULT_RETRY, NO_RETRY, retryDelay, withRetries, type RetryPolicy } from './retry.ts';
export { ApiError, ActionError, TransportError, type ErrorKey } from './errors.ts';
export {
  PrivateKeySigner, signRequest, requestDigest, actionConnectionId, literalConnectionId, exchangeDomain, CHAIN_ID, ZERO_ADDRESS,
  type Signer, type SigningOptions, type Binding,
} from './signing.ts';
export { MarketDirectory, marketsOf, SPOT_ASSET_OFFSET, type MarketInfo } from './markets.ts';
export { toUnits, fromUnits, toWire, roundPrice, addDecimal, mulDecimal, compareDecimal, type DecimalInput, type Rounding } from './decimal.ts';
export type * from './types.ts';
