// The one table from error kinds to the spec's HTTP status, error key and body.
import type { ExchangeError, ExchangeErrorCode } from '../exchange/index.ts';

export type ErrorKey =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'rate_limit_exceeded'
  | 'internal_error'
  | 'service_unavailable';

export const STATUS_LINE: Record<ErrorKey, string> = {
  bad_request: '400 Bad Request',
  unauthorized: '401 Unauthorized',
  forbidden: '403 Forbidden',
  not_found: '404 Not Found',
  rate_limit_exceeded: '429 Too Many Requests',
  internal_error: '500 Internal Server Error',
  service_unavailable: '503 Service Unavailable',
};

export type Details = Record<string, string | number>;

/** An HTTP-level failure: `{error, message, details?}` with the key's status. */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  constructor(
    readonly key: ErrorKey,
    message: string,
    readonly details?: Details,
  ) {
    super(message);
  }

  body(): { error: ErrorKey; message: string; details?: Details } {
    return this.details === undefined
      ? { error: this.key, message: this.message }
      : { error: this.key, message: this.message, details: this.details };
  }
}

export const badRequest = (message: string, details?: Details) => new HttpError('bad_request', message, details);

/** Exchange errors that are authentication failures, answered at the HTTP level. */
const AUTH_ERRORS: Partial<Record<ExchangeErrorCode, ErrorKey>> = {
  INVALID_SIGNATURE: 'unauthorized',
  ACCOUNT_NOT_ACTIVATED: 'unauthorized',
  NONCE_TOO_OLD: 'unauthorized',
  NONCE_IN_FUTURE: 'unauthorized',
  NONCE_USED: 'unauthorized',
  AGENT_NOT_AUTHORIZED: 'forbidden',
  SIZE_BELOW_MINIMUM: 'bad_request',
};

/** The HTTP error for an exchange error, or null when it is a business error (200, status err). */
export function httpErrorOf(e: ExchangeError): HttpError | null {
  const key = AUTH_ERRORS[e.code];
  return key === undefined ? null : new HttpError(key, e.message, e.details);
}
