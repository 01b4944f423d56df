// JSON-RPC errors as wallets and libraries expect them: the standard codes for malformed
// requests, -32000 with geth's wording for rejected transactions, 3 with the revert data.
export class RpcError extends Error {
  override readonly name = 'RpcError';
  constructor(readonly code: number, message: string, readonly data?: string) {
    super(message);
  }
}

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
/** geth's code for rejected transactions and failed calls that are not reverts. */
export const SERVER_ERROR = -32000;
export const LIMIT_EXCEEDED = -32005;
/** EIP-1474 / geth: execution reverted, with the revert bytes in `data`. */
export const EXECUTION_REVERTED = 3;

export function invalidParams(message: string): RpcError {
  return new RpcError(INVALID_PARAMS, message);
}

const ERROR_SELECTOR = '08c379a0';
const PANIC_SELECTOR = '4e487b71';

/** geth's message for a revert: the Error(string) reason or the Panic code when the data carries one. */
export function revertMessage(data: Uint8Array): string {
  const hex = Buffer.from(data).toString('hex');
  if (hex.startsWith(ERROR_SELECTOR) && hex.length >= 8 + 128) {
    const len = Number.parseInt(hex.slice(8 + 64, 8 + 128), 16);
    const text = Buffer.from(hex.slice(8 + 128, 8 + 128 + len * 2), 'hex').toString('utf8');
    return `execution reverted: ${text}`;
  }
  if (hex.startsWith(PANIC_SELECTOR) && hex.length === 8 + 64) {
    return `execution reverted: panic: 0x${BigInt(`0x${hex.slice(8)}`).toString(16)}`;
  }
  return 'execution reverted';
}
