// Client errors: the node's HTTP error body, a refused action, a connection that failed.

/** The spec's machine codes of HTTP errors. */
export type ErrorKey =
  | 'bad_request' | 'unauthorized' | 'forbidden' | 'not_found' | 'rate_limit_exceeded' | 'internal_error' | 'service_unavailable';

/** A non-200 answer: `{error, message, details?}` with its status. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly key: ErrorKey | string,
    message: string,
    readonly details: Record<string, unknown> | undefined,
    /** Seconds, from a 429's `retry_after` or `Retry-After`. */
    readonly retryAfter: number | undefined,
  ) {
    super(message);
  }
}

/** `/exchange` answered `{status: "err", response: <message>}`: the action was refused. */
export class ActionError extends Error {
  override readonly name = 'ActionError';
}

/** The node could not be reached, or a WebSocket closed before a post was answered. */
export class TransportError extends Error {
  override readonly name = 'TransportError';
}
