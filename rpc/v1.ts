// RESTful `/v1` resources beyond health and height.
import type { NodeApi } from './api.ts';
import { HttpError, badRequest } from './http-errors.ts';

/** Spot order book depth: 20 levels per side by default (the spec), at most 500. */
export const SPOT_DEPTH_DEFAULT = 20;
export const SPOT_DEPTH_MAX = 500;

export function spotOrderbook(api: NodeApi, pair: string, query: URLSearchParams) {
  const raw = query.get('depth');
  let depth = SPOT_DEPTH_DEFAULT;
  if (raw !== null) {
    depth = Number(raw);
    if (!/^\d+$/.test(raw) || depth < 1 || depth > SPOT_DEPTH_MAX) {
      throw badRequest(`Invalid parameter depth: expected an integer from 1 to ${SPOT_DEPTH_MAX}`, { field: 'depth' });
    }
  }
  const book = api.spotOrderbook(pair, depth);
  if (book === null) throw new HttpError('not_found', `Unknown spot pair: ${pair}`);
  return { pair, timestamp: new Date(book.time).toISOString(), bids: book.bids, asks: book.asks };
}
