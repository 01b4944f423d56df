// HMAC-SHA256 request signing of API keys (the spec's Authentication, DESIGN.md):
//   message   = timestamp + METHOD + path + body
//   signature = base64(HMAC-SHA256(secret, message))
// with the header's timestamp text verbatim (Unix seconds), the method in upper case, the path as
// sent including its query string (`/v1/api-keys/0xabc?x=1`, no host), and the raw body bytes
// (empty for GET). The key of the HMAC is the secret string's UTF-8 bytes, exactly as issued.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { HttpError } from './http-errors.ts';

/** The timestamp may be this many seconds from the node clock, either way. */
export const HMAC_WINDOW_SECONDS = 30;

/** The three headers (lower case, as uWS reads them). */
export const HMAC_HEADERS = { key: 'ex-api-key', sign: 'ex-api-sign', timestamp: 'ex-api-timestamp' } as const;

/** The HMAC headers of a request; absent ones are empty strings. */
export interface HmacHeaders {
  readonly key: string;
  readonly sign: string;
  readonly timestamp: string;
}

export const NO_HMAC_HEADERS: HmacHeaders = { key: '', sign: '', timestamp: '' };

/** Whether a request carries any of the three headers (then it means to authenticate). */
export const hasHmacHeaders = (h: HmacHeaders): boolean => h.key !== '' || h.sign !== '' || h.timestamp !== '';

/** The signed message: timestamp + METHOD + path with query + raw body. */
export function hmacMessage(timestamp: string, method: string, pathWithQuery: string, body: Uint8Array | string = ''): Buffer {
  const head = Buffer.from(`${timestamp}${method.toUpperCase()}${pathWithQuery}`, 'utf8');
  return Buffer.concat([head, typeof body === 'string' ? Buffer.from(body, 'utf8') : body]);
}

/** base64(HMAC-SHA256(secret, message)). */
export function hmacSign(secret: string, message: Uint8Array | string): string {
  return createHmac('sha256', secret).update(message).digest('base64');
}

const BASE64_RE = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Whether `provided` (base64 with or without padding) is the message's HMAC under the secret;
 * compared in constant time.
 */
export function hmacMatches(secret: string, message: Uint8Array | string, provided: string): boolean {
  if (!BASE64_RE.test(provided)) return false;
  const got = Buffer.from(provided, 'base64');
  const want = createHmac('sha256', secret).update(message).digest();
  return got.length === want.length && timingSafeEqual(got, want);
}

const TIMESTAMP_RE = /^\d{1,12}(\.\d{1,9})?$/;

/**
 * Refuses a timestamp more than 30 seconds from the node clock (either way), or one that is not
 * Unix seconds: 401 with `details {server_time, provided}` (seconds).
 */
export function checkHmacTimestamp(header: string, nowMs: number): void {
  const serverTime = Math.floor(nowMs / 1000);
  if (!TIMESTAMP_RE.test(header)) {
    throw new HttpError('unauthorized', 'Invalid EX-API-TIMESTAMP: expected Unix time in seconds', { server_time: serverTime, provided: header });
  }
  const provided = Number(header);
  if (Math.abs(nowMs / 1000 - provided) > HMAC_WINDOW_SECONDS) {
    throw new HttpError(
      'unauthorized',
      `Request timestamp outside the ${HMAC_WINDOW_SECONDS}-second validity window: EX-API-TIMESTAMP must be within ${HMAC_WINDOW_SECONDS} seconds of the server time`,
      { server_time: serverTime, provided },
    );
  }
}
