// JSON over HTTP with the spec's error body and retry table. Uses the global fetch (Node 20+).
import { ApiError, TransportError } from './errors.ts';
import { DEFAULT_RETRY, withRetries, type RetryPolicy } from './retry.ts';

export interface HttpOptions {
  /** REST base URL, e.g. http://127.0.0.1:4001 (no trailing slash needed). */
  readonly url: string;
  readonly retry?: Partial<RetryPolicy>;
  /** Per-request timeout in ms (default 30 s). */
  readonly timeoutMs?: number;
}

export class HttpTransport {
  readonly url: string;
  readonly retry: RetryPolicy;
  private readonly timeoutMs: number;

  constructor(opts: HttpOptions) {
    this.url = opts.url.replace(/\/+$/, '');
    this.retry = { ...DEFAULT_RETRY, ...opts.retry };
    this.timeoutMs = opts.timeoutMs ?? 30_000;
  }

  /** POSTs a JSON body; the same bytes are resent on a retry (a signed request keeps its nonce). */
  post<T>(path: string, body: unknown, headers: Record<string, string> = {}): Promise<T> {
    const text = JSON.stringify(body);
    return withRetries(this.retry, () => this.once<T>('POST', path, text, headers));
  }

  get<T>(path: string, query: Record<string, string | number | boolean | undefined> = {}, headers: Record<string, string> = {}): Promise<T> {
    return withRetries(this.retry, () => this.once<T>('GET', path + queryString(query), undefined, headers));
  }

  /** One request, no retry: the answer's JSON, or an ApiError / TransportError. */
  async once<T>(method: 'GET' | 'POST', pathWithQuery: string, body: string | undefined, headers: Record<string, string> = {}): Promise<T> {
    let res: Response;
    try {
      res = await fetch(this.url + pathWithQuery, {
        method,
        headers: body === undefined ? headers : { 'Content-Type': 'application/json', ...headers },
        body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      throw new TransportError(`cannot reach ${this.url}: ${causeOf(err)}`);
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (res.status === 200) {
      if (json === undefined) throw new ApiError(200, 'bad_response', `${method} ${pathWithQuery}: not JSON: ${text.slice(0, 200)}`, undefined, undefined);
      return json as T;
    }
    const b = (typeof json === 'object' && json !== null ? json : {}) as Record<string, unknown>;
    const header = Number(res.headers.get('retry-after'));
    const retryAfter = typeof b.retry_after === 'number' ? b.retry_after : Number.isFinite(header) && res.headers.has('retry-after') ? header : undefined;
    throw new ApiError(
      res.status,
      typeof b.error === 'string' ? b.error : `http_${res.status}`,
      typeof b.message === 'string' ? b.message : text.slice(0, 200) || res.statusText,
      typeof b.details === 'object' && b.details !== null ? (b.details as Record<string, unknown>) : undefined,
      retryAfter,
    );
  }
}

export function queryString(query: Record<string, string | number | boolean | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) q.set(k, String(v));
  const s = q.toString();
  return s === '' ? '' : `?${s}`;
}

function causeOf(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return cause?.code ?? cause?.message ?? err.message;
  }
  return String(err);
}
