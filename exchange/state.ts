// The exchange's complete consensus state and the read helpers every module shares.
import type { Address } from '../primitives/index.ts';
import type { Account } from './account.ts';
import { OrderBook, type RestingOrder } from './book.ts';
import { USD_DECIMALS, perpPxDecimals, type ExchangeConfig, type PerpMarketConfig } from './config.ts';

export interface PerpMarket {
  readonly asset: number;
  readonly config: PerpMarketConfig;
  readonly pxDecimals: number;
  /** Multiplier from px units * lots to USD units: 10^(USD_DECIMALS - pxDecimals - szDecimals). */
  readonly ntlScale: bigint;
  readonly book: OrderBook;
  /** Price of the last trade, in price units; 0 before the first. */
  lastPx: number;
}

export class ExchangeState {
  readonly markets: PerpMarket[];
  readonly marketsByName = new Map<string, PerpMarket>();
  readonly accounts = new Map<Address, Account>();
  /** Every resting order by oid. */
  readonly orders = new Map<number, RestingOrder>();
  /** Nonces used per signer, pruned once they fall out of the window. */
  readonly nonces = new Map<Address, Set<number>>();
  /** Approved agent -> the account it signs for. */
  readonly agents = new Map<Address, Address>();
  nextOid = 1;
  nextTid = 1;
  height = 0;
  /** Time of the current block, ms. */
  time = 0;

  constructor(readonly config: ExchangeConfig) {
    this.markets = config.perps.map((m, asset) => {
      const pxDecimals = perpPxDecimals(m);
      const market: PerpMarket = {
        asset,
        config: m,
        pxDecimals,
        ntlScale: 10n ** BigInt(USD_DECIMALS - pxDecimals - m.szDecimals),
        book: new OrderBook(),
        lastPx: 0,
      };
      this.marketsByName.set(m.name, market);
      return market;
    });
  }

  notional(market: PerpMarket, px: number, lots: number): bigint {
    return BigInt(px) * BigInt(lots) * market.ntlScale;
  }

  /**
   * Mark price in price units: the book mid when both sides exist, else the last trade, else
   * the genesis reference price. (The clearinghouse replaces this with oracle-based marks.)
   */
  markPx(market: PerpMarket): number {
    const bid = market.book.bestBid();
    const ask = market.book.bestAsk();
    if (bid !== undefined && ask !== undefined) return Math.floor((bid + ask) / 2);
    return market.lastPx > 0 ? market.lastPx : market.config.referencePx;
  }

  leverage(acct: Account, market: PerpMarket): number {
    return acct.leverage.get(market.asset) ?? Math.min(this.config.defaultLeverage, market.config.maxLeverage);
  }
}
