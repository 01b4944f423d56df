// What the REST server records per route, declared here and supplied by node/ (node/metrics.ts).
export interface RouteObserver {
  /** One answered request: its status line and the time from the complete request to the answer (ms). */
  done(status: string, ms: number): void;
}

export interface RouteMetrics {
  /** The observer of one route pattern (`/info`, `/v1/fills`, `/v1/orderbooks/perpetualMarket/:ticker`), taken once at startup. */
  route(pattern: string): RouteObserver;
}
