// The REST server on uWebSockets.js: /info, /exchange, /hyperliquid/info, /v1 (API keys included), /v4 and /stats.
// Bodies are bounded; every answer is JSON with the spec's status codes; no request can take the
// process down. Each route first takes from its rate limit (limits.ts).
import uWS from '@trufflesuite/uws-js-unofficial';
import type { NodeApi } from './api.ts';
import { UwsListener } from './uws-listener.ts';
import { handleExchange } from './exchange-endpoint.ts';
import { HttpError, STATUS_LINE } from './http-errors.ts';
import { handleInfo } from './info.ts';
import { handleHyperliquidInfo } from './hyperliquid/info.ts';
import { parseJsonBody } from './request-checks.ts';
import { spotOrderbook } from './v1.ts';
import { fills } from './v1/fills.ts';
import { perpOrderbook, perpetualMarkets } from './v1/markets.ts';
import { CANCEL_TYPES, ORDER_TYPES, restrictedExchange } from './v1/orders.ts';
import { subaccount } from './v1/subaccount.ts';
import { recentTrades } from './v1/trades.ts';
import { oneBlock, recentBlocks } from './v1/blocks.ts';
import { HISTORY_ROUTES } from './history.ts';
import { STATS_ROUTES } from './stats.ts';
import type { HistoryReader } from './history-api.ts';
import { RateLimitError, type Limits } from './limits.ts';
import { HMAC_HEADERS, type HmacHeaders } from './hmac.ts';
import { handleHyperliquidExchange, UnprocessableBody } from './hyperliquid/exchange.ts';
import { authenticateApiKey, createApiKey, listApiKeys, revokeApiKey, type ApiKeyStore } from './api-keys.ts';
import { stageEnd } from '../primitives/index.ts';
import { clientIp } from './tls-proxy.ts';
import type { RouteMetrics } from './route-metrics.ts';

export interface RestServerOptions {
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly maxBodyBytes: number;
  readonly log: (line: string) => void;
  /** Every rate limit of the API (limits.ts). */
  readonly limits: Limits;
  /** The node's API keys (`/v1/api-keys`). */
  readonly apiKeys: ApiKeyStore;
  /** Wall clock (ms): HMAC timestamps and key creation times. */
  readonly now: () => number;
  /** Behind TlsFront (tls-proxy.ts): the client's address comes from the PROXY header. */
  readonly behindProxy?: boolean;
  /** Request counts and latencies by route (node/metrics.ts); absent: none kept. */
  readonly metrics?: RouteMetrics;
  /** The explorer page's files (`/` and `/explorer/*`), supplied by node/; absent or null: none served. */
  readonly staticAssets?: StaticAssets | null;
}

/** Files served as they are: declared here, built by explorer/ and wired by node/. */
export interface StaticAssets {
  get(path: string): Promise<{ readonly type: string; readonly body: Uint8Array } | null>;
}

/**
 * `text`: a plain-text body instead of `body` as JSON (Hyperliquid's 422 for an undecodable
 * request); `file`: bytes of the given content type (the explorer page).
 */
type Reply = { status: string; body: unknown; headers?: Record<string, string>; text?: string; file?: { type: string; body: Uint8Array } };
/** A request as routes see it: body, path, path parameters, query, client address, HMAC headers. */
interface Request {
  readonly ip: string;
  readonly method: 'GET' | 'POST';
  readonly body: Buffer;
  /** The path without its query string. */
  readonly url: string;
  /** The path as sent with its raw query string (what HMAC signs). */
  readonly pathWithQuery: string;
  readonly params: readonly string[];
  readonly query: URLSearchParams;
  /** EX-API-KEY, EX-API-SIGN, EX-API-TIMESTAMP ('' when absent). */
  readonly hmac: HmacHeaders;
}
type Route = (req: Request) => Promise<Reply> | Reply;

const OK = '200 OK';

/** The query of a request without one (most): shared, read-only by convention (no route writes a query). */
const NO_QUERY = new URLSearchParams();

function decodePathParam(p: string): string {
  try {
    return decodeURIComponent(p);
  } catch {
    throw new HttpError('bad_request', `Malformed path parameter: ${p} is not valid percent-encoding`);
  }
}

export class RestServer {
  private readonly app: uWS.TemplatedApp;
  private readonly listener: UwsListener;

  constructor(
    private readonly api: NodeApi,
    private readonly opts: RestServerOptions,
  ) {
    this.app = uWS.App();
    this.listener = new UwsListener(this.app);
    const { limits } = opts;
    this.post('/info', async (r) => {
      let body: Record<string, unknown>;
      try {
        body = parseJsonBody(r.body);
      } catch (err) {
        limits.info(r.ip, {}); // a malformed request costs what an unknown type does
        throw err;
      }
      limits.info(r.ip, body);
      const answer = await handleInfo(api, body);
      limits.infoAnswered(r.ip, body.type, answer);
      return { status: OK, body: answer };
    });
    // Hyperliquid's dialect: a body it cannot read as a request is its 422 in plain text.
    this.post('/hyperliquid/info', async (r) => {
      let body: Record<string, unknown>;
      try {
        body = parseJsonBody(r.body);
      } catch {
        limits.info(r.ip, {});
        throw new UnprocessableBody('not a JSON object');
      }
      limits.info(r.ip, body);
      try {
        const answer = await handleHyperliquidInfo(api, body);
        limits.infoAnswered(r.ip, body.type, answer);
        return { status: OK, body: answer };
      } catch (err) {
        // An unknown type or a missing or malformed field: Hyperliquid's server cannot deserialize it.
        if (err instanceof HttpError && err.key === 'bad_request') throw new UnprocessableBody(err.message);
        throw err;
      }
    });
    this.post('/exchange', async (r) => {
      let body: Record<string, unknown>;
      try {
        body = parseJsonBody(r.body);
      } catch (err) {
        limits.exchangeIp(r.ip);
        throw err;
      }
      limits.exchangeIp(r.ip, body.action);
      return { status: OK, body: await handleExchange(api, body) };
    });
    // The Hyperliquid dialect: its clients take `http://HOST:PORT/hyperliquid` as their base URL.
    this.post('/hyperliquid/exchange', async (r) => {
      let body: Record<string, unknown>;
      try {
        body = parseJsonBody(r.body);
      } catch {
        limits.exchangeIp(r.ip);
        throw new UnprocessableBody('not a JSON object');
      }
      limits.exchangeIp(r.ip, body.action);
      return { status: OK, body: await handleHyperliquidExchange(api, body) };
    });
    // `/v1`: one budget per IP for every resource.
    const v1 = (route: Route): Route => (r) => {
      limits.v1(r.ip);
      return route(r);
    };
    this.post('/v1/orders', v1(async (r) => ({ status: OK, body: await restrictedExchange(api, parseJsonBody(r.body), '/v1/orders', ORDER_TYPES) })));
    this.post('/v1/orders/cancel', v1(async (r) => ({ status: OK, body: await restrictedExchange(api, parseJsonBody(r.body), '/v1/orders/cancel', CANCEL_TYPES) })));
    this.get('/v1/perpetualMarkets', v1(async (r) => ({ status: OK, body: await perpetualMarkets(api, r.query) })));
    this.get('/v1/orderbooks/perpetualMarket/:ticker', v1((r) => ({ status: OK, body: perpOrderbook(api, r.params[0] ?? '', r.query) })));
    this.get('/v1/addresses/:address/subaccountNumber/:n', v1((r) => ({ status: OK, body: subaccount(api, r.params[0] ?? '', r.params[1] ?? '') })));
    this.get('/v1/fills', v1(async (r) => ({ status: OK, body: await fills(api, r.query) })));
    this.get('/v1/trades/perpetualMarket/:ticker', v1(async (r) => ({ status: OK, body: await recentTrades(api, this.history(), r.params[0] ?? '', r.query) })));
    this.get('/v1/spot/markets', v1(() => ({ status: OK, body: { markets: api.spotMarkets() } })));
    this.get('/v1/spot/orderbook/:pair', v1((r) => ({ status: OK, body: spotOrderbook(api, r.params[0] ?? '', r.query) })));
    this.get('/v1/blocks', v1(async (r) => ({ status: OK, body: await recentBlocks(api, r.query) })));
    this.get('/v1/blocks/:height', v1(async (r) => ({ status: OK, body: await oneBlock(api, r.params[0] ?? '') })));
    this.get('/v1/health', v1(() => this.health()));
    this.get('/v1/height', v1(() => {
      const h = api.head();
      return { status: OK, body: { height: String(h.height), time: new Date(h.time).toISOString() } };
    }));
    const keys = opts.apiKeys;
    this.post('/v1/api-keys', v1(async (r) => ({ status: OK, body: await createApiKey(api, keys, parseJsonBody(r.body), opts.now()) })));
    this.get('/v1/api-keys/:address', v1((r) => {
      const caller = authenticateApiKey(keys, r, opts.now());
      return { status: OK, body: listApiKeys(keys, caller, r.params[0] ?? '') };
    }));
    this.post('/v1/api-keys/:api_key/revoke', v1(async (r) => {
      const caller = authenticateApiKey(keys, r, opts.now());
      return { status: OK, body: await revokeApiKey(keys, caller, r.params[0] ?? '', opts.now()) };
    }));
    for (const [name, route] of Object.entries(STATS_ROUTES)) {
      this.get(`/stats/${name}`, async (r) => {
        limits.stats(r.ip);
        return { status: OK, body: await route(api, this.history(), r.query) };
      });
    }
    for (const [name, route] of Object.entries(HISTORY_ROUTES)) {
      this.get(`/v4/${name}`, async (r) => {
        limits.historical(r);
        return { status: OK, body: await route(api, this.history(), r.query) };
      });
    }
    const assets = opts.staticAssets ?? null;
    if (assets !== null) {
      const page: Route = async (r) => {
        const file = await assets.get(r.url);
        if (file === null) throw new HttpError('not_found', `Unknown endpoint: GET ${r.url}`);
        return { status: OK, body: null, file, headers: { 'Cache-Control': 'no-cache' } };
      };
      this.get('/', page);
      this.get('/explorer/*', page);
    }
    this.app.options('/*', (res) => {
      res.cork(() => {
        res.writeStatus('204 No Content');
        this.corsHeaders(res);
        res.writeHeader('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
        res.writeHeader('Access-Control-Allow-Headers', 'Content-Type, EX-API-KEY, EX-API-SIGN, EX-API-TIMESTAMP');
        res.end();
      });
    });
    this.app.any('/*', (res, req) => {
      const what = `${req.getMethod().toUpperCase()} ${req.getUrl()}`;
      this.send(res, { status: STATUS_LINE.not_found, body: new HttpError('not_found', `Unknown endpoint: ${what}`).body() });
    });
  }

  listen(): Promise<number> {
    return this.listener.listen(this.opts.host, this.opts.port);
  }

  /** Graceful shutdown, first step: no new connections; requests in progress are still answered. */
  stopListening(): void {
    this.listener.stopListening();
  }

  close(): void {
    this.listener.close();
  }

  /** The history, or 503 on a node that keeps none. */
  private history(): HistoryReader {
    if (this.api.history === null) throw new HttpError('service_unavailable', 'This node keeps no history (it was started with --no-history)');
    return this.api.history;
  }

  private async health(): Promise<Reply> {
    const h = this.api.head();
    const indexed = this.api.history === null ? null : String(await this.api.history.indexedHeight());
    const body = { status: this.api.healthy() ? 'ok' : 'unavailable', height: String(h.height), time: new Date(h.time).toISOString(), indexed_height: indexed };
    return { status: this.api.healthy() ? OK : STATUS_LINE.service_unavailable, body };
  }

  /** What a request's route needs that uWS gives only during the handler's synchronous part. */
  private static head(method: 'GET' | 'POST', nParams: number, res: uWS.HttpResponse, req: uWS.HttpRequest, behindProxy: boolean): Omit<Request, 'body'> {
    const url = req.getUrl();
    const rawQuery = req.getQuery() ?? '';
    // Kept as sent: decoded inside run(), where a malformed escape (`%E0%A4%A`) is a 400.
    const params = Array.from({ length: nParams }, (_, i) => req.getParameter(i) ?? '');
    return {
      ip: clientIp(res, behindProxy),
      method,
      url,
      pathWithQuery: rawQuery === '' ? url : `${url}?${rawQuery}`,
      params,
      query: rawQuery === '' ? NO_QUERY : new URLSearchParams(rawQuery),
      hmac: { key: req.getHeader(HMAC_HEADERS.key), sign: req.getHeader(HMAC_HEADERS.sign), timestamp: req.getHeader(HMAC_HEADERS.timestamp) },
    };
  }

  private get(path: string, route: Route): void {
    const nParams = path.split('/').filter((p) => p.startsWith(':')).length;
    const observer = this.opts.metrics?.route(path);
    this.app.get(path, (res, req) => {
      const head = RestServer.head('GET', nParams, res, req, this.opts.behindProxy === true);
      let aborted = false;
      res.onAborted(() => (aborted = true));
      const t0 = performance.now();
      void this.run(route, { ...head, body: Buffer.alloc(0) }).then((reply) => {
        if (!aborted) this.send(res, reply);
        observer?.done(reply.status, performance.now() - t0);
      });
      stageEnd('requests', t0);
    });
  }

  private post(path: string, route: Route): void {
    const nParams = path.split('/').filter((p) => p.startsWith(':')).length;
    const observer = this.opts.metrics?.route(path);
    this.app.post(path, (res, req) => {
      const head = RestServer.head('POST', nParams, res, req, this.opts.behindProxy === true);
      let aborted = false;
      res.onAborted(() => (aborted = true));
      const chunks: Buffer[] = [];
      let size = 0;
      let tooLarge = false;
      res.onData((chunk, isLast) => {
        size += chunk.byteLength;
        if (size > this.opts.maxBodyBytes) tooLarge = true;
        // uWS reuses the chunk's memory after the callback: copy it.
        else chunks.push(Buffer.from(Buffer.from(chunk)));
        if (!isLast) return;
        const t0 = performance.now();
        const reply = tooLarge
          ? Promise.resolve({ status: STATUS_LINE.bad_request, body: new HttpError('bad_request', `Request body larger than ${this.opts.maxBodyBytes} bytes`).body() })
          : this.run(route, { ...head, body: Buffer.concat(chunks) });
        void reply.then((r) => {
          if (!aborted) this.send(res, r);
          observer?.done(r.status, performance.now() - t0);
        });
        stageEnd('requests', t0);
      });
    });
  }

  /** Runs a route; an HttpError becomes its status and body, anything else a logged 500. */
  private async run(route: Route, req: Request): Promise<Reply> {
    try {
      return await route(req.params.length === 0 ? req : { ...req, params: req.params.map(decodePathParam) });
    } catch (err) {
      if (err instanceof RateLimitError) return { status: STATUS_LINE[err.key], body: err.body(), headers: { 'Retry-After': String(err.retryAfter) } };
      if (err instanceof HttpError) return { status: STATUS_LINE[err.key], body: err.body() };
      if (err instanceof UnprocessableBody) return { status: '422 Unprocessable Entity', body: null, text: err.message };
      this.opts.log(`internal error on ${req.url}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      return { status: STATUS_LINE.internal_error, body: new HttpError('internal_error', 'Internal server error').body() };
    }
  }

  private corsHeaders(res: uWS.HttpResponse): void {
    res.writeHeader('Access-Control-Allow-Origin', '*');
  }

  private send(res: uWS.HttpResponse, reply: Reply): void {
    const t0 = performance.now();
    const json = reply.file?.body ?? reply.text ?? JSON.stringify(reply.body);
    const type = reply.file?.type ?? (reply.text === undefined ? 'application/json' : 'text/plain; charset=utf-8');
    res.cork(() => {
      res.writeStatus(reply.status);
      res.writeHeader('Content-Type', type);
      for (const [k, v] of Object.entries(reply.headers ?? {})) res.writeHeader(k, v);
      this.corsHeaders(res);
      res.end(json);
    });
    stageEnd('answers', t0);
  }
}
