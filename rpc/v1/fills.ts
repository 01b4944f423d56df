// GET /v1/fills (dYdX v4 indexer's FillResponseObject), newest first, from the fills the node stores.
import type { FillRecord } from '../../exchange/index.ts';
import type { Address } from '../../primitives/index.ts';
import type { NodeApi } from '../api.ts';
import { badRequest } from '../http-errors.ts';
import { addressText, intParam, oneOf } from './query.ts';
import { subaccountAddress, subaccountNumber } from './subaccount.ts';

/** Fills per answer: dYdX's default and maximum. They are taken from the user's 2000 most recent. */
export const FILLS_LIMIT_MAX = 1000;

const MARKET_TYPES = ['PERPETUAL', 'SPOT'] as const;
type MarketType = (typeof MARKET_TYPES)[number];

export async function fills(api: NodeApi, query: URLSearchParams) {
  const address = addressText(query.get('address'), 'address');
  const n = subaccountNumber(query.get('subaccountNumber') ?? '0');
  const limit = intParam(query, 'limit', 1, FILLS_LIMIT_MAX, FILLS_LIMIT_MAX);
  const marketType = oneOf(query, 'marketType', MARKET_TYPES);
  const perps = new Set(api.meta().universe.map((u) => u.name));
  const coin = marketCoin(api, perps, query.get('market'));
  const user = subaccountAddress(api, address, n);
  const typeOf = (f: FillRecord): MarketType => (perps.has(f.coin) ? 'PERPETUAL' : 'SPOT');
  const found = (await api.userFills(user)).filter((f) => (coin === null || f.coin === coin) && (marketType === null || typeOf(f) === marketType));
  return { fills: found.slice(0, limit).map((f) => fillView(f, user, n, typeOf(f))) };
}

/** The coin of `market`: a perpetual's ticker (`BTC-USD`) or coin (`BTC`), or a spot pair (`SVC-USDC`). */
function marketCoin(api: NodeApi, perps: ReadonlySet<string>, market: string | null): string | null {
  if (market === null) return null;
  const coin = market.endsWith('-USD') ? market.slice(0, -4) : market;
  if (perps.has(coin)) return coin;
  if (api.spotMeta().universe.some((u) => u.name === market)) return market;
  throw badRequest(`Invalid parameter market: ${market} is not a perpetual (BTC-USD) or spot pair (SVC-USDC)`, { field: 'market' });
}

function fillType(f: FillRecord, user: Address): string {
  const l = f.liquidation;
  if (l === undefined) return 'LIMIT';
  const own = l.liquidatedUser === user;
  if (l.method === 'adl') return own ? 'DELEVERAGED' : 'OFFSETTING';
  return own ? 'LIQUIDATED' : 'LIQUIDATION';
}

function fillView(f: FillRecord, user: Address, n: number, marketType: MarketType) {
  return {
    // A trade id names both of its fills; the side tells them apart.
    id: `${f.tid}-${f.side}`,
    side: f.side === 'B' ? 'BUY' : 'SELL',
    liquidity: f.crossed ? 'TAKER' : 'MAKER',
    type: fillType(f, user),
    market: marketType === 'PERPETUAL' ? `${f.coin}-USD` : f.coin,
    marketType,
    price: f.px,
    size: f.sz,
    fee: f.fee,
    feeToken: f.feeToken,
    createdAt: new Date(f.time).toISOString(),
    orderId: String(f.oid),
    ...(f.cloid === undefined ? {} : { clientId: f.cloid }),
    subaccountNumber: n,
    hash: f.hash,
  };
}
