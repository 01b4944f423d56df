// GET /v1/trades/perpetualMarket/:ticker: a market's recent trades from the history, newest
// first, in dYdX's TradeResponseObject shape ({trades: [...]}).
import type { NodeApi } from '../api.ts';
import type { HistoryReader } from '../history-api.ts';
import { HttpError } from '../http-errors.ts';
import { intParam } from './query.ts';

export const V1_TRADES_LIMIT_DEFAULT = 100;
export const V1_TRADES_LIMIT_MAX = 1000;

export async function recentTrades(api: NodeApi, history: HistoryReader, ticker: string, query: URLSearchParams) {
  const coin = api.coinOf(ticker);
  if (coin === null || !api.isPerp(coin)) throw new HttpError('not_found', `Unknown perpetual market: ${ticker}`);
  const limit = intParam(query, 'limit', 1, V1_TRADES_LIMIT_MAX, V1_TRADES_LIMIT_DEFAULT);
  const rows = await history.trades(coin, { start: 0, end: Number.MAX_SAFE_INTEGER, before: null, limit });
  return {
    trades: rows.map((t) => ({
      id: String(t.tid),
      side: t.side === 'B' ? 'BUY' : 'SELL',
      size: t.sz,
      price: t.px,
      type: t.liquidation ? 'LIQUIDATED' : 'LIMIT',
      createdAt: new Date(t.time).toISOString(),
      createdAtHeight: String(t.height),
    })),
  };
}
