// GET /v1/perpetualMarkets and GET /v1/orderbooks/perpetualMarket/:ticker (dYdX v4 indexer shapes).
import type { NodeApi } from '../api.ts';
import { HttpError, badRequest } from '../http-errors.ts';
import { intParam } from './query.ts';

/** Perpetual order book depth: 100 levels per side by default (dYdX's), at most 500. */
export const PERP_DEPTH_DEFAULT = 100;
export const PERP_DEPTH_MAX = 500;
/** Markets per `/v1/perpetualMarkets` answer without `limit` (dYdX's default and maximum). */
export const MARKETS_LIMIT_MAX = 1000;

/** `{markets: {"BTC-USD": {...}}}`, in universe order; `ticker` (or its alias `market`) keeps one. */
export async function perpetualMarkets(api: NodeApi, query: URLSearchParams) {
  const ticker = query.get('ticker');
  const market = query.get('market');
  if (ticker !== null && market !== null) throw badRequest('Only one of ticker or market may be provided', { field: 'ticker' });
  const wanted = ticker ?? market;
  const limit = intParam(query, 'limit', 1, MARKETS_LIMIT_MAX, MARKETS_LIMIT_MAX);
  const all = await api.perpetualMarkets();
  const chosen = wanted === null ? all.slice(0, limit) : all.filter((m) => m.ticker === wanted || m.ticker === `${wanted}-USD`);
  if (wanted !== null && chosen.length === 0) throw new HttpError('not_found', `${wanted} not found in markets of type PERPETUAL`);
  const markets: Record<string, (typeof all)[number]> = {};
  for (const m of chosen) markets[m.ticker] = m;
  return { markets };
}

/** `{bids, asks}`: levels `{price, size}`, bids descending and asks ascending. */
export function perpOrderbook(api: NodeApi, ticker: string, query: URLSearchParams) {
  const depth = intParam(query, 'depth', 1, PERP_DEPTH_MAX, PERP_DEPTH_DEFAULT);
  const book = api.perpOrderbook(ticker, depth);
  if (book === null) throw new HttpError('not_found', `${ticker} not found in markets of type PERPETUAL`);
  return { bids: book.bids, asks: book.asks };
}
