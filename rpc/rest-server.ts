// The REST server on uWebSockets.js: /info, /exchange and /v1. Bodies are bounded; every answer
// is JSON with the spec's status codes; no request can take the process down.
import uWS from '@trufflesuite/uws-js-unofficial';
import type { NodeApi } from './api.ts';
import type { HistoryReader } from './history-api.ts';
import { UwsListener } from './uws-listener.ts';
import { handleExchange } from './exchange-endpoint.ts';
import { HttpError, STATUS_LINE } from './http-errors.ts';
import { handleInfo } from './info.ts';
import { parseJsonBody } from './request-checks.ts';
import { spotOrderbook } from './v1.ts';
import { fills } from './v1/fills.ts';
import { perpOrderbook, perpetualMarkets } from './v1/markets.ts';
import { CANCEL_TYPES, ORDER_TYPES, restrictedExchange } from './v1/orders.ts';
import { subaccount } from './v1/subaccount.ts';
import { recentTrades } from './v1/trades.ts';
import { RateLimiter } from './rate-limiter.ts';
import { HISTORY_ROUTES } from './history.ts';
import { STATS_ROUTES } from './stats.ts';

export interface RestServerOptions {
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly maxBodyBytes: number;
  readonly log: (line: string) => void;
  /** `/info` requests per minute per IP (the spec: 1,200). */
  readonly infoPerMinute: number;
}

type Reply = { status: string; body: unknown; headers?: Record<string, string> };
/** A request as routes see it: body, path, path parameters, query, client address. */
interface Request {
  readonly ip: string;
  readonly body: Buffer;
  readonly url: string;
  readonly params: readonly string[];
  readonly query: URLSearchParams;
}
type Route = (req: Request) => Promise<Reply> | Reply;

const OK = '200 OK';

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
    const infoLimiter = new RateLimiter(opts.infoPerMinute);
    this.post('/info', async (r) => {
      const wait = infoLimiter.take(r.ip);
      if (wait > 0) {
        const body = { error: 'rate_limit_exceeded', message: `Too many /info requests: at most ${opts.infoPerMinute} a minute per IP`, retry_after: wait };
        return { status: STATUS_LINE.rate_limit_exceeded, body, headers: { 'Retry-After': String(wait) } };
      }
      return { status: OK, body: await handleInfo(api, parseJsonBody(r.body)) };
    });
    this.post('/exchange', async (r) => ({ status: OK, body: await handleExchange(api, parseJsonBody(r.body)) }));
    this.post('/v1/orders', async (r) => ({ status: OK, body: await restrictedExchange(api, parseJsonBody(r.body), '/v1/orders', ORDER_TYPES) }));
    this.post('/v1/orders/cancel', async (r) => ({ status: OK, body: await restrictedExchange(api, parseJsonBody(r.body), '/v1/orders/cancel', CANCEL_TYPES) }));
    this.get('/v1/perpetualMarkets', async (r) => ({ status: OK, body: await perpetualMarkets(api, r.query) }));
    this.get('/v1/orderbooks/perpetualMarket/:ticker', (r) => ({ status: OK, body: perpOrderbook(api, r.params[0] ?? '', r.query) }));
    this.get('/v1/addresses/:address/subaccountNumber/:n', (r) => ({ status: OK, body: subaccount(api, r.params[0] ?? '', r.params[1] ?? '') }));
    this.get('/v1/fills', async (r) => ({ status: OK, body: await fills(api, r.query) }));
    this.get('/v1/trades/perpetualMarket/:ticker', async (r) => ({ status: OK, body: await recentTrades(api, this.history(), r.params[0] ?? '', r.query) }));
    this.get('/v1/spot/markets', () => ({ status: OK, body: { markets: api.spotMarkets() } }));
    this.get('/v1/spot/orderbook/:pair', (r) => ({ status: OK, body: spotOrderbook(api, r.params[0] ?? '', r.query) }));
    // The spec's statistics limit (100 a minute per IP) and the free historical tier (60 a minute).
    const statsLimiter = new RateLimiter(100);
    const historyLimiter = new RateLimiter(60);
    for (const [name, route] of Object.entries(STATS_ROUTES)) {
      this.get(`/stats/${name}`, async (r) => this.limited(statsLimiter, r.ip, 'statistics', 100) ?? { status: OK, body: await route(api, this.history(), r.query) });
    }
    for (const [name, route] of Object.entries(HISTORY_ROUTES)) {
      this.get(`/v4/${name}`, async (r) => this.limited(historyLimiter, r.ip, 'historical', 60) ?? { status: OK, body: await route(api, this.history(), r.query) });
    }
    this.get('/v1/health', () => this.health());
    this.get('/v1/height', () => {
      const h = api.head();
      return { status: OK, body: { height: String(h.height), time: new Date(h.time).toISOString() } };
    });
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

  close(): void {
    this.listener.close();
  }

  /** The history, or 503 on a node that keeps none. */
  private history(): HistoryReader {
    if (this.api.history === null) throw new HttpError('service_unavailable', 'This node keeps no history (it was started with --no-history)');
    return this.api.history;
  }

  /** The 429 answer when `ip` is over a limiter's budget, else null. */
  private limited(limiter: RateLimiter, ip: string, what: string, perMinute: number): Reply | null {
    const wait = limiter.take(ip);
    if (wait === 0) return null;
    const body = { error: 'rate_limit_exceeded', message: `Too many ${what} requests: at most ${perMinute} a minute per IP`, retry_after: wait };
    return { status: STATUS_LINE.rate_limit_exceeded, body, headers: { 'Retry-After': String(wait) } };
  }

  private async health(): Promise<Reply> {
    const h = this.api.head();
    const indexed = this.api.history === null ? null : String(await this.api.history.indexedHeight());
    const body = { status: this.api.healthy() ? 'ok' : 'unavailable', height: String(h.height), time: new Date(h.time).toISOString(), indexed_height: indexed };
    return { status: this.api.healthy() ? OK : STATUS_LINE.service_unavailable, body };
  }

  private get(path: string, route: Route): void {
    const nParams = path.split('/').filter((p) => p.startsWith(':')).length;
    this.app.get(path, (res, req) => {
      const url = req.getUrl();
      const query = new URLSearchParams(req.getQuery() ?? '');
      const raw = Array.from({ length: nParams }, (_, i) => req.getParameter(i) ?? '');
      let aborted = false;
      res.onAborted(() => (aborted = true));
      const ip = Buffer.from(res.getRemoteAddressAsText()).toString();
      // Decoded inside run(): a malformed escape (`%E0%A4%A`) throws, and a throw here aborts the process.
      const decoded: Route = (r) => route({ ...r, params: raw.map(decodePathParam) });
      void this.run(decoded, { ip, body: Buffer.alloc(0), url, params: raw, query }).then((reply) => {
        if (!aborted) this.send(res, reply);
      });
    });
  }

  private post(path: string, route: Route): void {
    this.app.post(path, (res, req) => {
      const url = req.getUrl();
      const ip = Buffer.from(res.getRemoteAddressAsText()).toString();
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
        const reply = tooLarge
          ? Promise.resolve({ status: STATUS_LINE.bad_request, body: new HttpError('bad_request', `Request body larger than ${this.opts.maxBodyBytes} bytes`).body() })
          : this.run(route, { ip, body: Buffer.concat(chunks), url, params: [], query: new URLSearchParams() });
        void reply.then((r) => {
          if (!aborted) this.send(res, r);
        });
      });
    });
  }

  /** Runs a route; an HttpError becomes its status and body, anything else a logged 500. */
  private async run(route: Route, req: Request): Promise<Reply> {
    try {
      return await route(req);
    } catch (err) {
      if (err instanceof HttpError) return { status: STATUS_LINE[err.key], body: err.body() };
      this.opts.log(`internal error on ${req.url}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      return { status: STATUS_LINE.internal_error, body: new HttpError('internal_error', 'Internal server error').body() };
    }
  }

  private corsHeaders(res: uWS.HttpResponse): void {
    res.writeHeader('Access-Control-Allow-Origin', '*');
  }

  private send(res: uWS.HttpResponse, reply: Reply): void {
    const json = JSON.stringify(reply.body);
    res.cork(() => {
      res.writeStatus(reply.status);
      res.writeHeader('Content-Type', 'application/json');
      for (const [k, v] of Object.entries(reply.headers ?? {})) res.writeHeader(k, v);
      this.corsHeaders(res);
      res.end(json);
    });
  }
}
