// Every rate limit of the API in one place (docs/api.md, Rate limits): token buckets
// (rate-limiter.ts) per scope, configured per node. A refusal is HTTP 429
// `{error: "rate_limit_exceeded", message, retry_after}` with a `Retry-After` header (RateLimitError).
//
// Routes call the scope they belong to before doing any work:
//   limits.stats(ip)                     /stats/*          per IP
//   limits.info(ip, body) + infoAnswered /info (HTTP, WS)  per IP, Hyperliquid's request weights
//   limits.historical(req) -> tier       /v4/*             per IP (free) or per API key (HMAC headers)
//   limits.exchangeIp(ip, action)        /exchange (HTTP, WS), before the signer is recovered
//   limits.exchangeSigner(address, action) /exchange, after recovery (node admission calls it)
//   limits.v1(ip)                        /v1/*             per IP
// WebSocket connections and subscriptions are counted by ws-server.ts with `config`'s numbers.
import type { Address } from '../primitives/index.ts';
import { authenticateApiKey, type ApiKeyStore } from './api-keys.ts';
import { HttpError } from './http-errors.ts';
import { hasHmacHeaders, type HmacHeaders } from './hmac.ts';
import { RateLimiter } from './rate-limiter.ts';

/** A token bucket: refilled at `perMinute`, holding at most `burst`. `perMinute` 0: no limit. */
export interface Rate {
  readonly perMinute: number;
  readonly burst: number;
}

export interface RateLimitConfig {
  /** `/stats/*`, per IP. */
  readonly stats: Rate;
  /** `/info` request weight (HTTP and WebSocket posts), per IP. */
  readonly info: Rate;
  /** `/v4/*` without an API key, per IP. */
  readonly historicalFree: Rate;
  /** `/v4/*` with a valid API key, per key. */
  readonly historicalAuthenticated: Rate;
  /** `/v4/*` with a valid API key whose address stakes at least the genesis's staker-tier stake, per key. */
  readonly historicalStaker: Rate;
  /** `/exchange` requests (HTTP and WebSocket posts) per IP, counted before the signer is recovered. */
  readonly exchangeIp: Rate;
  /** `/exchange` requests per recovered signer address. */
  readonly exchangeSigner: Rate;
  /** `/v1/*` requests, per IP. */
  readonly v1: Rate;
  /** Open WebSocket connections per IP. */
  readonly wsConnectionsPerIp: number;
  /** Subscriptions per WebSocket connection. */
  readonly wsSubscriptionsPerConnection: number;
  /** Subscriptions of all the connections of one IP. */
  readonly wsSubscriptionsPerIp: number;
}

/** The spec's limits, and this node's choices where the spec leaves them open (docs/api.md). */
export const SPEC_RATE_LIMITS: RateLimitConfig = {
  stats: { perMinute: 100, burst: 100 },
  info: { perMinute: 1200, burst: 1200 },
  historicalFree: { perMinute: 60, burst: 10 },
  historicalAuthenticated: { perMinute: 300, burst: 50 },
  historicalStaker: { perMinute: 1000, burst: 100 },
  exchangeIp: { perMinute: 12_000, burst: 2000 },
  exchangeSigner: { perMinute: 6000, burst: 1000 },
  v1: { perMinute: 1200, burst: 200 },
  wsConnectionsPerIp: 100,
  wsSubscriptionsPerConnection: 1000,
  wsSubscriptionsPerIp: 10_000,
};

const OFF: Rate = { perMinute: 0, burst: 0 };

/**
 * `svc devnet` (and `svc testnet` homes): local development, where scripts poll and benchmarks
 * stream thousands of actions a second from one machine. Request limits are off; the WebSocket
 * connection and subscription bounds stay (they bound memory).
 */
export const DEVNET_RATE_LIMITS: RateLimitConfig = {
  ...SPEC_RATE_LIMITS,
  stats: OFF,
  info: OFF,
  historicalFree: OFF,
  historicalAuthenticated: OFF,
  historicalStaker: OFF,
  exchangeIp: OFF,
  exchangeSigner: OFF,
  v1: OFF,
};

export const RATE_LIMIT_PRESETS: Record<string, RateLimitConfig> = { spec: SPEC_RATE_LIMITS, devnet: DEVNET_RATE_LIMITS };

type RateScope = { [K in keyof RateLimitConfig]: RateLimitConfig[K] extends Rate ? K : never }[keyof RateLimitConfig];
type CountScope = Exclude<keyof RateLimitConfig, RateScope>;

/** Scope names of `--rate-limit` and config.json, and the field each sets. */
export const RATE_LIMIT_SCOPES: Record<string, keyof RateLimitConfig> = {
  stats: 'stats',
  info: 'info',
  'historical-free': 'historicalFree',
  'historical-authenticated': 'historicalAuthenticated',
  'historical-staker': 'historicalStaker',
  'exchange-ip': 'exchangeIp',
  'exchange-signer': 'exchangeSigner',
  v1: 'v1',
  'ws-connections-per-ip': 'wsConnectionsPerIp',
  'ws-subscriptions-per-connection': 'wsSubscriptionsPerConnection',
  'ws-subscriptions-per-ip': 'wsSubscriptionsPerIp',
};

const COUNT_SCOPES = new Set<keyof RateLimitConfig>(['wsConnectionsPerIp', 'wsSubscriptionsPerConnection', 'wsSubscriptionsPerIp']);
const MAX_RATE = 100_000_000;

/**
 * A configuration from a preset (`spec` or `devnet`) and overrides by scope name: a rate is
 * `"<per minute>"` (burst the same) or `"<per minute>/<burst>"`, `0` turning the scope off; a
 * WebSocket bound is a count. Throws an Error naming the bad entry.
 */
export function rateLimitsFrom(preset: string, overrides: Readonly<Record<string, string | number>> = {}): RateLimitConfig {
  const base = Object.hasOwn(RATE_LIMIT_PRESETS, preset) ? RATE_LIMIT_PRESETS[preset] : undefined;
  if (base === undefined) throw new Error(`unknown rate-limit preset "${preset}" (one of: ${Object.keys(RATE_LIMIT_PRESETS).join(', ')})`);
  const out: Record<string, Rate | number> = { ...base };
  for (const [scope, raw] of Object.entries(overrides)) {
    const field = Object.hasOwn(RATE_LIMIT_SCOPES, scope) ? RATE_LIMIT_SCOPES[scope] : undefined;
    if (field === undefined) throw new Error(`unknown rate-limit scope "${scope}" (one of: ${Object.keys(RATE_LIMIT_SCOPES).join(', ')})`);
    const text = String(raw);
    if (COUNT_SCOPES.has(field)) {
      if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 1_000_000) throw new Error(`rate limit ${scope} must be a count from 1 to 1000000, got "${text}"`);
      out[field as CountScope] = Number(text);
      continue;
    }
    const m = /^(\d+)(?:\/(\d+))?$/.exec(text);
    const perMinute = Number(m?.[1]);
    const burst = m?.[2] === undefined ? perMinute : Number(m[2]);
    if (m === null || perMinute > MAX_RATE || burst > MAX_RATE || (perMinute > 0 && burst < 1)) {
      throw new Error(`rate limit ${scope} must be "<requests per minute>" or "<requests per minute>/<burst>" (0 = no limit), got "${text}"`);
    }
    out[field as RateScope] = { perMinute, burst };
  }
  return out as unknown as RateLimitConfig;
}

/** A 429 with `retry_after` (seconds) in the body and the `Retry-After` header. */
export class RateLimitError extends HttpError {
  constructor(
    message: string,
    readonly retryAfter: number,
  ) {
    super('rate_limit_exceeded', message);
  }

  override body(): { error: 'rate_limit_exceeded'; message: string; retry_after: number } {
    return { error: 'rate_limit_exceeded', message: this.message, retry_after: this.retryAfter };
  }
}

/**
 * `/info` request weights, as Hyperliquid's: 2 for the cheap reads, 60 for `userRole`, 20 for
 * every other type (unknown ones included: they still cost a parse).
 */
const LIGHT_INFO = new Set(['l2Book', 'allMids', 'clearinghouseState', 'orderStatus', 'spotClearinghouseState', 'exchangeStatus']);
export const INFO_WEIGHT_DEFAULT = 20;

export function infoWeight(type: unknown): number {
  if (typeof type === 'string' && LIGHT_INFO.has(type)) return 2;
  if (type === 'userRole') return 60;
  return INFO_WEIGHT_DEFAULT;
}

/** Types whose answers are lists: one more unit of weight per this many items returned (Hyperliquid's rule). */
const PER_ITEMS: Record<string, number> = {
  userFills: 20, userFillsByTime: 20, fundingHistory: 20, userFunding: 20, candleSnapshot: 60,
};

/** The weight an answer adds after the fact: 1 per 20 items of the list types (per 60 candles). */
export function infoExtraWeight(type: unknown, answer: unknown): number {
  if (typeof type !== 'string' || !Object.hasOwn(PER_ITEMS, type) || !Array.isArray(answer)) return 0;
  return Math.floor(answer.length / (PER_ITEMS[type] as number));
}

/** Orders or cancels per extra unit of an `/exchange` request's weight (Hyperliquid's 1 + floor(n / 40)). */
export const EXCHANGE_BATCH_PER_WEIGHT = 40;

/** An `/exchange` request's weight: 1, plus 1 per 40 orders, modifies or cancels of a batch. */
export function exchangeWeight(action: unknown): number {
  if (typeof action !== 'object' || action === null) return 1;
  const a = action as { orders?: unknown; cancels?: unknown; modifies?: unknown };
  const n = Array.isArray(a.orders) ? a.orders.length : Array.isArray(a.cancels) ? a.cancels.length : Array.isArray(a.modifies) ? a.modifies.length : 0;
  return 1 + Math.floor(n / EXCHANGE_BATCH_PER_WEIGHT);
}

export type HistoricalTier = 'free' | 'authenticated' | 'staker';

/** A request as `historical` needs it. */
export interface HistoricalRequest {
  readonly ip: string;
  readonly method: string;
  /** The path as sent, with its query string. */
  readonly pathWithQuery: string;
  /** Raw body bytes (empty for GET). */
  readonly body?: Uint8Array;
  readonly hmac: HmacHeaders;
}

export interface LimitsDeps {
  readonly now?: () => number;
  /** The node's API keys; without them a request with HMAC headers is refused (401). */
  readonly apiKeys?: ApiKeyStore | null;
  readonly isStaker?: (address: Address) => boolean;
}

const minuteText = (r: Rate): string => `at most ${r.perMinute} a minute${r.burst !== r.perMinute ? `, burst ${r.burst}` : ''}`;

export class Limits {
  private readonly now: () => number;
  private readonly buckets: Record<RateScope, RateLimiter>;

  constructor(
    readonly config: RateLimitConfig,
    private readonly deps: LimitsDeps = {},
  ) {
    const now = deps.now ?? (() => Date.now());
    this.now = now;
    const make = (r: Rate) => new RateLimiter(r.perMinute, now, r.burst);
    this.buckets = {
      stats: make(config.stats),
      info: make(config.info),
      historicalFree: make(config.historicalFree),
      historicalAuthenticated: make(config.historicalAuthenticated),
      historicalStaker: make(config.historicalStaker),
      exchangeIp: make(config.exchangeIp),
      exchangeSigner: make(config.exchangeSigner),
      v1: make(config.v1),
    };
  }

  /** Seconds to wait before `key` may spend `weight` in `scope` (0: taken now). */
  wait(scope: RateScope, key: string, weight = 1): number {
    return this.buckets[scope].take(key, weight);
  }

  private enforce(scope: RateScope, key: string, what: string, per: string, weight = 1): void {
    const wait = this.wait(scope, key, weight);
    if (wait > 0) throw new RateLimitError(`Too many ${what}: ${minuteText(this.config[scope])} per ${per}; retry after ${wait} s`, wait);
  }

  /** `/stats/*`: throws RateLimitError beyond the IP's budget. */
  stats(ip: string): void {
    this.enforce('stats', ip, '/stats requests', 'IP');
  }

  /** `/info` (HTTP or WebSocket post): charges the request type's weight to the IP. */
  info(ip: string, body: Record<string, unknown>): void {
    const weight = infoWeight(body.type);
    const wait = this.wait('info', ip, weight);
    if (wait > 0) {
      const r = this.config.info;
      throw new RateLimitError(`Too many /info requests: at most ${r.perMinute} of weight a minute per IP (this type weighs ${weight}); retry after ${wait} s`, wait);
    }
  }

  /** After an `/info` answer: the extra weight of a long list. */
  infoAnswered(ip: string, type: unknown, answer: unknown): void {
    this.buckets.info.charge(ip, infoExtraWeight(type, answer));
  }

  /** `/exchange` before the signer is known; `action` as sent (its batch size sets the weight). */
  exchangeIp(ip: string, action?: unknown): void {
    this.enforce('exchangeIp', ip, '/exchange requests', 'IP', exchangeWeight(action));
  }

  /** `/exchange` per recovered signer: seconds to wait (0: go). Node admission calls it. */
  exchangeSigner(address: Address, action?: unknown): number {
    return this.wait('exchangeSigner', address, exchangeWeight(action));
  }

  /** The refusal message of `exchangeSigner`. */
  exchangeSignerMessage(wait: number): string {
    return `Too many /exchange requests: ${minuteText(this.config.exchangeSigner)} per signer address; retry after ${wait} s`;
  }

  /** `/v1/*`. */
  v1(ip: string): void {
    this.enforce('v1', ip, '/v1 requests', 'IP');
  }

  /**
   * `/v4/*`: the request's tier, after taking its token. Without HMAC headers the free tier, per
   * IP; with them the key must be valid (401 otherwise: a client that means to authenticate is
   * told, not silently downgraded), then the authenticated tier or, when the key's address
   * stakes enough, the staker tier, per key. Throws RateLimitError beyond the tier's budget.
   */
  historical(req: HistoricalRequest): HistoricalTier {
    if (!hasHmacHeaders(req.hmac)) {
      this.enforce('historicalFree', req.ip, 'historical requests (free tier; an API key lifts the limit)', 'IP');
      return 'free';
    }
    const store = this.deps.apiKeys;
    if (store === undefined || store === null) throw new HttpError('unauthorized', 'This node has no API keys');
    const key = authenticateApiKey(store, { method: req.method, pathWithQuery: req.pathWithQuery, body: req.body ?? new Uint8Array(0), hmac: req.hmac }, this.now());
    const staker = this.deps.isStaker?.(key.address) ?? false;
    if (staker) {
      this.enforce('historicalStaker', key.apiKey, 'historical requests (staker tier)', 'API key');
      return 'staker';
    }
    this.enforce('historicalAuthenticated', key.apiKey, 'historical requests (authenticated tier)', 'API key');
    return 'authenticated';
  }
}
