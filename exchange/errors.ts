// Every rejection the state machine can give, with the spec's message. Rejections are values
// (returned in results), never exceptions; rpc/ maps codes to HTTP status in one table.

export type ExchangeErrorCode =
  | 'INSUFFICIENT_MARGIN'
  | 'ORDER_NOT_FOUND'
  | 'PRICE_OUT_OF_RANGE'
  | 'REDUCE_ONLY_VIOLATED'
  | 'SELF_TRADE_PREVENTED'
  | 'MAX_OPEN_ORDERS'
  | 'ACCOUNT_NOT_ACTIVATED'
  | 'AGENT_NOT_AUTHORIZED'
  | 'NONCE_TOO_OLD'
  | 'NONCE_IN_FUTURE'
  | 'NONCE_USED'
  | 'INVALID_SIZE'
  | 'INVALID_PRICE'
  | 'SIZE_BELOW_MINIMUM'
  | 'UNKNOWN_ASSET'
  | 'POST_ONLY_WOULD_CROSS'
  | 'IOC_NO_MATCH'
  | 'DUPLICATE_CLOID'
  | 'INVALID_ACTION'
  | 'INVALID_SIGNATURE'
  | 'INSUFFICIENT_SPOT_BALANCE'
  | 'INSUFFICIENT_BALANCE'
  | 'AMOUNT_BELOW_MINIMUM'
  | 'INVALID_DESTINATION'
  | 'BRIDGE_UNAVAILABLE'
  | 'RATE_LIMITED'
  | 'TOKEN_NAME_TAKEN'
  | 'UNKNOWN_TOKEN'
  | 'PAIR_EXISTS'
  | 'EVM_CONTRACT_LINKED'
  | 'INVALID_INITIAL_PRICE'
  | 'BUILDER_FEE_NOT_APPROVED'
  | 'SCHEDULED_CANCEL_TOO_EARLY'
  | 'SCHEDULED_CANCEL_LIMIT';

export interface ExchangeError {
  readonly code: ExchangeErrorCode;
  readonly message: string;
  /** Structured facts for HTTP error bodies (`details`). */
  readonly details?: Record<string, string | number>;
}

const MESSAGES: Record<ExchangeErrorCode, string> = {
  INSUFFICIENT_MARGIN: 'Insufficient margin',
  ORDER_NOT_FOUND: 'Order not found',
  PRICE_OUT_OF_RANGE: 'Price out of range',
  REDUCE_ONLY_VIOLATED: 'Reduce only violated',
  SELF_TRADE_PREVENTED: 'Self-trade prevented',
  MAX_OPEN_ORDERS: 'Max open orders exceeded',
  ACCOUNT_NOT_ACTIVATED: 'Account not activated',
  AGENT_NOT_AUTHORIZED: 'Agent not authorized',
  NONCE_TOO_OLD: 'Nonce too old',
  NONCE_IN_FUTURE: 'Nonce too far in the future',
  NONCE_USED: 'Nonce already used',
  INVALID_SIZE: 'Invalid size',
  INVALID_PRICE: 'Invalid price',
  SIZE_BELOW_MINIMUM: 'Size below market minimum',
  UNKNOWN_ASSET: 'Unknown asset',
  POST_ONLY_WOULD_CROSS: 'Post only order would have immediately matched',
  IOC_NO_MATCH: 'Order could not immediately match against any resting orders',
  DUPLICATE_CLOID: 'Client order id already used by an open order',
  INVALID_ACTION: 'Invalid action',
  INVALID_SIGNATURE: 'Invalid signature',
  INSUFFICIENT_SPOT_BALANCE: 'Insufficient spot balance',
  INSUFFICIENT_BALANCE: 'Insufficient balance',
  AMOUNT_BELOW_MINIMUM: 'Amount below minimum',
  INVALID_DESTINATION: 'Invalid destination',
  BRIDGE_UNAVAILABLE: 'Bridge temporarily unavailable',
  RATE_LIMITED: 'Request budget exceeded',
  TOKEN_NAME_TAKEN: 'Token name already taken',
  UNKNOWN_TOKEN: 'Unknown token',
  PAIR_EXISTS: 'Pair already exists',
  EVM_CONTRACT_LINKED: 'EVM contract already linked to another token',
  INVALID_INITIAL_PRICE: 'Invalid initial price',
  // Hyperliquid's messages, word for word.
  BUILDER_FEE_NOT_APPROVED: 'Builder fee has not been approved.',
  SCHEDULED_CANCEL_TOO_EARLY: 'Scheduled cancel time must be at least 5 seconds in the future',
  SCHEDULED_CANCEL_LIMIT: 'Too many scheduled cancels today',
};

/** An error with the spec's message, optionally followed by specifics ("Invalid size: 0.1 ..."). */
export function exchangeError(
  code: ExchangeErrorCode,
  specifics?: string,
  details?: Record<string, string | number>,
): ExchangeError {
  const base = MESSAGES[code];
  const message = specifics === undefined ? base : `${base}: ${specifics}`;
  return details === undefined ? { code, message } : { code, message, details };
}
