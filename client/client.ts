// One object for a trader: reads, signed actions by coin name, history, statistics, WebSocket.
import { ActionError } from './errors.ts';
import { ExchangeClient } from './exchange.ts';
import { HttpTransport } from './http.ts';
import { InfoClient } from './info.ts';
import { MarketDirectory, type MarketInfo } from './markets.ts';
import { NonceManager, type NonceSource } from './nonce.ts';
import { HistoryClient, StatsClient, V1Client, type ApiKeyCredentials } from './rest.ts';
import type { RetryPolicy } from './retry.ts';
import { addDecimal, mulDecimal, roundPrice, toWire, type DecimalInput } from './decimal.ts';
import { PrivateKeySigner, type Binding, type Signer } from './signing.ts';
import type { CancelStatus, OrderStatus, OrderWire, Tif } from './types.ts';
import { WsClient, type WsClientOptions } from './ws.ts';

/** The local devnet's REST and WebSocket addresses (`svc devnet`, `npm start`). */
export const DEVNET_URL = 'http://127.0.0.1:4001';
export const DEVNET_WS_URL = 'ws://127.0.0.1:4000/ws';

export interface SvcClientOptions {
  /** REST base URL (default the local devnet). */
  readonly url?: string;
  /**
   * WebSocket URL. Default: the port the node names at `/explorer/config.json`, else 4000, on
   * the REST host, path /ws.
   */
  readonly wsUrl?: string;
  /** A private key (hex) or any Signer; without one the client only reads. */
  readonly privateKey?: string;
  readonly signer?: Signer;
  /** The main address an agent key signs for. */
  readonly vaultAddress?: string | null;
  /** A nonce source shared with other clients of this process, or a file that survives restarts. */
  readonly nonces?: NonceSource;
  readonly nonceFile?: string;
  readonly binding?: Binding;
  readonly source?: 'a' | 'b';
  readonly chainId?: number;
  readonly retry?: Partial<RetryPolicy>;
  readonly apiKey?: ApiKeyCredentials;
  readonly ws?: Omit<WsClientOptions, 'url'>;
}

export interface OrderSpec {
  /** "BTC" (perpetual) or "SVC-USDC" (spot pair). */
  readonly coin: string;
  readonly side: 'buy' | 'sell';
  readonly size: DecimalInput;
  /** Limit price; absent: a market order (Ioc at the mid ± `slippage`). */
  readonly price?: DecimalInput;
  readonly tif?: Tif;
  readonly reduceOnly?: boolean;
  /** 16-byte hex client order id. */
  readonly cloid?: string;
  /** Market orders: how far past the mid the Ioc may fill, as a fraction string (default "0.05"). */
  readonly slippage?: string;
}

export class SvcClient {
  readonly http: HttpTransport;
  readonly info: InfoClient;
  readonly v1: V1Client;
  readonly history: HistoryClient;
  readonly stats: StatsClient;
  readonly markets: MarketDirectory;
  readonly nonces: NonceSource;
  private readonly exchangeClient: ExchangeClient | null;
  private wsClient: WsClient | null = null;

  constructor(private readonly opts: SvcClientOptions = {}) {
    this.http = new HttpTransport({ url: opts.url ?? DEVNET_URL, retry: opts.retry });
    this.info = new InfoClient(this.http);
    this.v1 = new V1Client(this.http);
    this.history = new HistoryClient(this.http, opts.apiKey ?? null);
    this.stats = new StatsClient(this.http);
    this.markets = new MarketDirectory(this.info);
    this.nonces = opts.nonces ?? new NonceManager({ file: opts.nonceFile });
    const signer = opts.signer ?? (opts.privateKey === undefined ? undefined : new PrivateKeySigner(opts.privateKey));
    this.exchangeClient = signer === undefined ? null : new ExchangeClient(this.http, { ...opts, signer, nonces: this.nonces, vaultAddress: opts.vaultAddress ?? null });
  }

  /** Signed actions; throws when the client was made without a key. */
  get exchange(): ExchangeClient {
    if (this.exchangeClient === null) throw new TypeError('this client has no signer: pass privateKey or signer');
    return this.exchangeClient;
  }

  /** The account the client trades for (the vault when an agent signs), lowercase. */
  get address(): string {
    return this.exchange.account;
  }

  /** The WebSocket, opened on first use. */
  get ws(): WsClient {
    this.wsClient ??= new WsClient({ ...this.opts.ws, url: this.opts.wsUrl ?? (() => discoverWsUrl(this.http)) });
    return this.wsClient;
  }

  /** The order wire object of a spec: asset index, exact price and size strings. */
  async orderWire(spec: OrderSpec): Promise<OrderWire> {
    const m = await this.markets.get(spec.coin);
    const isBuy = spec.side === 'buy';
    const price = spec.price === undefined ? await this.marketPrice(m, isBuy, spec.slippage ?? '0.05') : toWire(spec.price);
    const tif: Tif = spec.price === undefined ? 'Ioc' : (spec.tif ?? 'Gtc');
    const wire: OrderWire = { a: m.asset, b: isBuy, p: price, s: toWire(spec.size), r: spec.reduceOnly ?? false, t: { limit: { tif } } };
    if (spec.cloid !== undefined) wire.c = spec.cloid.toLowerCase();
    return wire;
  }

  /** Places one order; its status (`resting`, `filled` or `error`). */
  async placeOrder(spec: OrderSpec): Promise<OrderStatus> {
    const [status] = await this.exchange.order([await this.orderWire(spec)]);
    return status as OrderStatus;
  }

  /** Changes a resting order to the new spec (keeps its oid). */
  async modifyOrder(oid: number | string, spec: OrderSpec): Promise<void> {
    await this.exchange.modify(oid, await this.orderWire(spec));
  }

  async cancelOrder(coin: string, oid: number): Promise<CancelStatus> {
    const m = await this.markets.get(coin);
    const [status] = await this.exchange.cancel([{ a: m.asset, o: oid }]);
    return status as CancelStatus;
  }

  /** Sets leverage on a perpetual by name. */
  async setLeverage(coin: string, leverage: number, isCross = true): Promise<void> {
    const m = await this.markets.get(coin);
    await this.exchange.updateLeverage(m.asset, leverage, isCross);
  }

  close(): void {
    this.wsClient?.close();
  }

  /** The mid moved by the slippage against the taker, rounded outward to a valid price. */
  private async marketPrice(m: MarketInfo, isBuy: boolean, slippage: string): Promise<string> {
    const mid = (await this.info.allMids())[m.coin];
    if (mid === undefined) throw new ActionError(`no price for ${m.coin}: give a limit price`);
    const factor = isBuy ? addDecimal('1', slippage) : addDecimal('1', `-${toWire(slippage)}`);
    return roundPrice(mulDecimal(mid, factor), m.priceDecimals, isBuy ? 'ceil' : 'floor');
  }
}

/** The node's WebSocket: the port its explorer config names, else the default 4000; same host. */
async function discoverWsUrl(http: HttpTransport): Promise<string> {
  const u = new URL(http.url);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  u.pathname = '/ws';
  try {
    const { wsPort } = await http.once<{ wsPort: number | null }>('GET', '/explorer/config.json', undefined);
    u.port = String(wsPort ?? 4000);
  } catch {
    u.port = '4000'; // a node without the explorer: the default port
  }
  return u.toString();
}
