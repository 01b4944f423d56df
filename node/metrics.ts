// The node's Prometheus metrics and their HTTP endpoint (`--metrics-port`; docs/operations.md).
// Hot paths only add to preallocated series (a request: one counter, one histogram bucket); state
// the node already keeps (height, peers, mempool, connections, RSS) is read when scraped.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { METRICS_CONTENT_TYPE, MetricsRegistry, type Counter, type Histogram } from '../primitives/index.ts';
import type { RouteMetrics, RouteObserver } from '../rpc/index.ts';

export const SVC_VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** Node state read at scrape time. */
export interface MetricSources {
  height(): number;
  /** Time of the head block (ms). */
  headTime(): number;
  /** The BFT round of the height being decided (0 on a single validator). */
  round(): number;
  peers(): number;
  /** Height the peers have decided (BFT), or our own when none is ahead. */
  syncTarget(): number;
  mempool(): number;
  wsConnections(): number;
  recoveryQueue(): number;
  /** The node's key is in the current validator set. */
  validator(): boolean;
}

export interface NodeIdentity {
  readonly chainId: number;
  readonly network: string;
  readonly validatorKey: string;
  readonly genesisHash: string;
}

/** Seconds between a block's time and its commit being durable: 5 ms to 30 s. */
const COMMIT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 30] as const;
const TIMEOUT_STEPS = ['propose', 'prevote', 'precommit'] as const;
/** A peer this many heights ahead means the node is catching up. */
const SYNC_GAP = 2;

class RouteSeries implements RouteObserver {
  /** By status line ('200 OK'): the lines are constants, so the lookup allocates nothing. */
  private readonly byStatus = new Map<string, Counter>();

  constructor(
    private readonly route: string,
    private readonly counters: ReturnType<MetricsRegistry['counter']>,
    private readonly latency: Histogram,
  ) {}

  done(status: string, ms: number): void {
    let c = this.byStatus.get(status);
    if (c === undefined) {
      c = this.counters.child({ route: this.route, code: status.slice(0, 3) });
      this.byStatus.set(status, c);
    }
    c.value += 1;
    this.latency.observe(ms / 1000);
  }
}

export class NodeMetrics implements RouteMetrics {
  readonly registry = new MetricsRegistry();
  private readonly requests = this.registry.counter('svc_http_requests_total', 'REST requests answered, by route pattern and status code.');
  private readonly requestSeconds = this.registry.histogram('svc_http_request_duration_seconds', 'REST request time from the complete request to the answer, by route pattern.');
  private readonly commitSeconds: Histogram;
  private readonly blockTxs: Counter;
  private readonly timeouts = new Map<string, Counter>();
  private readonly loop: IntervalHistogram = monitorEventLoopDelay({ resolution: 10 });
  private sources: MetricSources | null = null;

  constructor(readonly identity: NodeIdentity) {
    const r = this.registry;
    r.gauge('svc_info', 'Constant 1, labelled with the node version, chain and validator key.', () => [[{
      version: SVC_VERSION, node: process.version, chain_id: String(identity.chainId), network: identity.network, validator_key: identity.validatorKey,
    }, 1]]);
    r.gauge('svc_block_height', 'Height of the last committed block.', () => this.sources?.height() ?? 0);
    r.gauge('svc_block_time_seconds', 'Time of the last committed block (Unix seconds).', () => (this.sources?.headTime() ?? 0) / 1000);
    this.commitSeconds = r.histogram('svc_block_commit_seconds', 'Time from a block\'s timestamp to its commit being durable on this node.', COMMIT_BUCKETS).child();
    this.blockTxs = r.counter('svc_block_txs_total', 'Transactions in committed blocks.').child();
    r.gauge('svc_consensus_round', 'BFT round of the height being decided (0: decided in the first round).', () => this.sources?.round() ?? 0);
    const timeouts = r.counter('svc_consensus_timeouts_total', 'BFT round timeouts that elapsed at the current height, by step.');
    for (const step of TIMEOUT_STEPS) this.timeouts.set(step, timeouts.child({ step }));
    r.gauge('svc_peers', 'Connected consensus peers.', () => this.sources?.peers() ?? 0);
    r.gauge('svc_sync_target_height', 'Height the best peer has decided (our own height when none is ahead).', () => this.sources?.syncTarget() ?? 0);
    r.gauge('svc_syncing', '1 while catching up with peers more than a couple of blocks ahead.', () => (this.syncing() ? 1 : 0));
    r.gauge('svc_validator', '1 if this node\'s key is in the current validator set.', () => (this.sources?.validator() === true ? 1 : 0));
    r.gauge('svc_mempool_size', 'Transactions waiting in the mempool.', () => this.sources?.mempool() ?? 0);
    r.gauge('svc_ws_connections', 'Open WebSocket connections (the /ws port).', () => this.sources?.wsConnections() ?? 0);
    r.gauge('svc_recovery_queue', 'Signature recoveries waiting or in flight on the signer worker pool.', () => this.sources?.recoveryQueue() ?? 0);
    r.gauge('svc_eventloop_lag_seconds', 'Event-loop delay since the previous scrape (perf_hooks monitorEventLoopDelay), by quantile.', () => [
      [{ quantile: '0.5' }, this.loop.percentile(50) / 1e9],
      [{ quantile: '0.99' }, this.loop.percentile(99) / 1e9],
      [{ quantile: '1' }, this.loop.max / 1e9],
    ]);
    r.gauge('process_resident_memory_bytes', 'Resident set size of the node process.', () => process.memoryUsage.rss());
    r.gauge('process_heap_used_bytes', 'V8 heap in use.', () => process.memoryUsage().heapUsed);
    r.gauge('process_uptime_seconds', 'Seconds since the process started.', () => process.uptime());
    this.loop.enable();
  }

  /** Connects the gauges to the running node. */
  attach(sources: MetricSources): void {
    this.sources = sources;
  }

  route(pattern: string): RouteObserver {
    return new RouteSeries(pattern, this.requests, this.requestSeconds.child({ route: pattern }));
  }

  /** A block became durable at `now` (ms). */
  blockCommitted(blockTime: number, txs: number, now: number): void {
    this.commitSeconds.observe(Math.max(0, now - blockTime) / 1000);
    this.blockTxs.value += txs;
  }

  timeout(step: string): void {
    const c = this.timeouts.get(step);
    if (c !== undefined) c.value += 1;
  }

  syncing(): boolean {
    const s = this.sources;
    return s !== null && s.syncTarget() - s.height() > SYNC_GAP;
  }

  /** The text exposition; the event-loop window restarts. */
  expose(): string {
    const text = this.registry.expose();
    this.loop.reset();
    return text;
  }

  /** What `svc status` prints. */
  status(): NodeStatus {
    const s = this.sources;
    return {
      version: SVC_VERSION,
      nodeVersion: process.version,
      chainId: this.identity.chainId,
      network: this.identity.network,
      genesisHash: this.identity.genesisHash,
      validatorKey: this.identity.validatorKey,
      validator: s?.validator() ?? false,
      height: s?.height() ?? 0,
      headTime: new Date(s?.headTime() ?? 0).toISOString(),
      peers: s?.peers() ?? 0,
      syncing: this.syncing(),
      syncTarget: s?.syncTarget() ?? 0,
      mempool: s?.mempool() ?? 0,
      uptimeSeconds: Math.round(process.uptime()),
    };
  }

  close(): void {
    this.loop.disable();
  }
}

export interface NodeStatus {
  readonly version: string;
  readonly nodeVersion: string;
  readonly chainId: number;
  readonly network: string;
  readonly genesisHash: string;
  readonly validatorKey: string;
  readonly validator: boolean;
  readonly height: number;
  readonly headTime: string;
  readonly peers: number;
  readonly syncing: boolean;
  readonly syncTarget: number;
  readonly mempool: number;
  readonly uptimeSeconds: number;
}

/** GET /metrics (Prometheus) and GET /status (JSON, for `svc status`) on their own port. */
export class MetricsServer {
  private readonly server: Server;

  constructor(private readonly metrics: NodeMetrics) {
    this.server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { Allow: 'GET' }).end();
      } else if (path === '/metrics') {
        res.writeHead(200, { 'Content-Type': METRICS_CONTENT_TYPE }).end(this.metrics.expose());
      } else if (path === '/status') {
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(this.metrics.status()));
      } else {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('GET /metrics or /status\n');
      }
    });
    this.server.keepAliveTimeout = 65_000; // longer than Prometheus' scrape interval
  }

  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        const a = this.server.address();
        resolve(typeof a === 'object' && a !== null ? a.port : port);
      });
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
