// The eth_* JSON-RPC server on one port: HTTP POST (single and batch, CORS) and WebSocket (the
// same methods plus eth_subscribe / eth_unsubscribe for newHeads and logs).
import uWS from '@trufflesuite/uws-js-unofficial';
import type { Block } from '@ethereumjs/block';
import type { StoredEvmBlock } from '../../evm/index.ts';
import { UwsListener } from '../uws-listener.ts';
import { handleText, type ExtraMethods } from './dispatch.ts';
import { RpcError, SERVER_ERROR, invalidParams } from './errors.ts';
import { FilterRegistry, type LogFilter } from './filters.ts';
import { blockJson, txJson } from './format.ts';
import { blockLogs, parseLogFilter, type EthBackend, type MethodContext } from './methods.ts';

export interface EvmBlockFeed {
  onEvmBlock(listener: (block: Block, stored: StoredEvmBlock) => void): () => void;
}

export interface EthServerOptions {
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly maxBodyBytes: number;
  readonly log: (line: string) => void;
  /** Bytes a WebSocket may have unsent before it is closed as too slow. */
  readonly maxBackpressure: number;
  readonly now: () => number;
}

type Subscription = { kind: 'newHeads' } | { kind: 'logs'; filter: LogFilter } | { kind: 'newPendingTransactions'; full: boolean };

interface Conn {
  readonly subs: Map<string, Subscription>;
}

/** Subscriptions one WebSocket may hold. */
const MAX_SUBSCRIPTIONS = 100;

export class EthServer {
  private readonly app: uWS.TemplatedApp;
  private readonly listener: UwsListener;
  private readonly ctx: MethodContext;
  private readonly sockets = new Set<uWS.WebSocket<Conn>>();
  private readonly unsubscribeFeed: () => void;
  private readonly unsubscribePending: () => void;
  /** Pending-transaction subscriptions open over all sockets (admission pushes only when there are some). */
  private pendingSubs = 0;
  private subSeq = 0;

  constructor(backend: EthBackend, feed: EvmBlockFeed, private readonly opts: EthServerOptions) {
    const filters = new FilterRegistry(opts.now, (block, stored, f) => blockLogs({ block, stored }, f));
    this.ctx = { backend, filters, impersonated: new Set() };
    this.app = uWS.App();
    this.listener = new UwsListener(this.app);
    this.app.options('/*', (res) => {
      res.cork(() => {
        res.writeStatus('204 No Content');
        this.cors(res);
        res.writeHeader('Access-Control-Allow-Methods', 'POST, GET, OPTIONS');
        res.writeHeader('Access-Control-Allow-Headers', 'Content-Type, Authorization');
        res.writeHeader('Access-Control-Max-Age', '86400');
        res.end();
      });
    });
    this.app.post('/*', (res) => this.onPost(res));
    this.app.ws<Conn>('/*', {
      idleTimeout: 120,
      maxPayloadLength: opts.maxBodyBytes,
      maxBackpressure: opts.maxBackpressure,
      upgrade: (res, req, context) => {
        res.upgrade<Conn>({ subs: new Map() }, req.getHeader('sec-websocket-key'), req.getHeader('sec-websocket-protocol'), req.getHeader('sec-websocket-extensions'), context);
      },
      open: (ws) => void this.sockets.add(ws),
      close: (ws) => {
        this.sockets.delete(ws);
        for (const sub of ws.getUserData().subs.values()) if (sub.kind === 'newPendingTransactions') this.pendingSubs -= 1;
      },
      message: (ws, message) => {
        const text = Buffer.from(message).toString('utf8');
        void handleText(text, this.ctx, this.wsMethods(ws), opts.log).then((out) => {
          if (out !== null && this.sockets.has(ws)) ws.send(out, false);
        });
      },
    });
    this.app.any('/*', (res) => {
      res.cork(() => {
        res.writeStatus('405 Method Not Allowed');
        this.cors(res);
        res.writeHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'JSON-RPC requests are POSTed (or sent over a WebSocket)' } }));
      });
    });
    this.unsubscribeFeed = feed.onEvmBlock((block, stored) => this.onBlock(block, stored));
    this.unsubscribePending = backend.onPendingTx?.((hash) => this.onPendingTx(hash)) ?? (() => {});
  }

  listen(): Promise<number> {
    return this.listener.listen(this.opts.host, this.opts.port);
  }

  close(): void {
    this.unsubscribeFeed();
    this.unsubscribePending();
    this.listener.close();
    this.sockets.clear();
  }

  private cors(res: uWS.HttpResponse): void {
    res.writeHeader('Access-Control-Allow-Origin', '*');
  }

  private onPost(res: uWS.HttpResponse): void {
    let aborted = false;
    res.onAborted(() => (aborted = true));
    const chunks: Buffer[] = [];
    let size = 0;
    res.onData((chunk, isLast) => {
      size += chunk.byteLength;
      if (size <= this.opts.maxBodyBytes) chunks.push(Buffer.from(Buffer.from(chunk)));
      if (!isLast) return;
      const answer = size > this.opts.maxBodyBytes
        ? Promise.resolve(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: `request body larger than ${this.opts.maxBodyBytes} bytes` } }))
        : handleText(Buffer.concat(chunks).toString('utf8'), this.ctx, {}, this.opts.log);
      void answer.then((out) => {
        if (aborted) return;
        res.cork(() => {
          res.writeStatus(out === null ? '204 No Content' : '200 OK');
          this.cors(res);
          res.writeHeader('Content-Type', 'application/json');
          res.end(out ?? '');
        });
      });
    });
  }

  private wsMethods(ws: uWS.WebSocket<Conn>): ExtraMethods {
    const subs = ws.getUserData().subs;
    return {
      eth_subscribe: (params) => {
        const kind = params[0];
        let sub: Subscription;
        if (kind === 'newHeads') sub = { kind: 'newHeads' };
        else if (kind === 'logs') sub = { kind: 'logs', filter: parseLogFilter(params[1] ?? {}, BigInt(this.ctx.backend.chain.readHeight), true) };
        else if (kind === 'newPendingTransactions') sub = { kind, full: params[1] === true };
        else throw invalidParams(`unsupported subscription type ${JSON.stringify(kind)} (newHeads, logs and newPendingTransactions are served)`);
        if (subs.size >= MAX_SUBSCRIPTIONS) throw new RpcError(SERVER_ERROR, `at most ${MAX_SUBSCRIPTIONS} subscriptions per connection`);
        this.subSeq += 1;
        const id = `0x${this.subSeq.toString(16).padStart(32, '0')}`;
        subs.set(id, sub);
        if (sub.kind === 'newPendingTransactions') this.pendingSubs += 1;
        return id;
      },
      eth_unsubscribe: (params) => {
        if (typeof params[0] !== 'string') throw invalidParams('subscription id expected');
        if (subs.get(params[0])?.kind === 'newPendingTransactions') this.pendingSubs -= 1;
        return subs.delete(params[0]);
      },
    };
  }

  /** A transaction entered the pool: its hash (or, with `true`, the transaction) to the pending subscriptions. */
  private onPendingTx(hash: string): void {
    this.ctx.filters.onPendingTx(hash);
    if (this.pendingSubs === 0) return;
    let full: unknown = null;
    for (const ws of this.sockets) {
      for (const [id, sub] of ws.getUserData().subs) {
        if (sub.kind !== 'newPendingTransactions') continue;
        if (sub.full && full === null) {
          const p = this.ctx.backend.pendingTx(hash);
          full = p === undefined ? hash : txJson(p.tx, p.sender, null);
        }
        this.push(ws, id, sub.full ? full : hash);
      }
    }
  }

  private onBlock(block: Block, stored: StoredEvmBlock): void {
    this.ctx.filters.onBlock(block, stored);
    if (this.sockets.size === 0) return;
    let head: Record<string, unknown> | null = null;
    for (const ws of this.sockets) {
      for (const [id, sub] of ws.getUserData().subs) {
        if (sub.kind === 'newPendingTransactions') continue;
        if (sub.kind === 'newHeads') {
          if (head === null) {
            const { transactions: _txs, uncles: _uncles, withdrawals: _w, totalDifficulty: _td, size: _size, ...header } = blockJson(block, stored, false);
            head = header;
          }
          this.push(ws, id, head);
        } else {
          const n = block.header.number;
          const f = sub.filter;
          if (!('blockHash' in f) && (n < f.from || n > f.to)) continue;
          for (const log of blockLogs({ block, stored }, f)) this.push(ws, id, log);
        }
      }
    }
  }

  private push(ws: uWS.WebSocket<Conn>, subscription: string, result: unknown): void {
    const text = JSON.stringify({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription, result } });
    if (ws.send(text, false) === 2 && ws.getBufferedAmount() > this.opts.maxBackpressure) ws.end(1008, 'too slow');
  }
}
