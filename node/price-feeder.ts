// Price feeders give a validator the oracle prices it publishes. The devnet has no outside price
// source, so its feeder moves each perpetual's oracle a fifth of the way toward the market's
// own price (book mid, else last trade) every tick: a lone devnet follows its traders without
// letting one quote jump the oracle.
import { formatScaled } from '../primitives/index.ts';
import type { Exchange } from '../exchange/index.ts';

export interface PriceFeeder {
  /** Coin -> price (decimal string) to publish now, or null to publish nothing. */
  prices(exchange: Exchange): Record<string, string> | null;
}

export class DevnetPriceFeeder implements PriceFeeder {
  constructor(private readonly stepPercent = 20) {}

  prices(exchange: Exchange): Record<string, string> {
    const out: Record<string, string> = {};
    for (const m of exchange.state.perps) {
      const oracle = m.engine.oraclePx;
      const bid = m.engine.bids.bestPx();
      const ask = m.engine.asks.bestPx();
      const target = bid !== undefined && ask !== undefined ? Math.floor((bid + ask) / 2) : m.lastPx > 0 ? m.lastPx : oracle;
      const next = oracle + Math.trunc(((target - oracle) * this.stepPercent) / 100);
      out[m.name] = formatScaled(next > 0 ? next : oracle, m.pxDecimals);
    }
    return out;
  }
}
