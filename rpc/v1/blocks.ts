// `GET /v1/blocks?limit=&before=` and `GET /v1/blocks/:height`: committed blocks and a summary of
// their transactions (ours; dYdX's indexer has no block resource). Heights as numbers here, as
// the explorer page reads them.
import type { NodeApi } from '../api.ts';
import { HttpError } from '../http-errors.ts';
import { intParam, intText } from './query.ts';

export const BLOCKS_LIMIT_MAX = 100;

export async function recentBlocks(api: NodeApi, query: URLSearchParams): Promise<unknown> {
  const head = api.head().height;
  const limit = intParam(query, 'limit', 1, BLOCKS_LIMIT_MAX, 20);
  const before = intParam(query, 'before', 1, Number.MAX_SAFE_INTEGER, head + 1);
  return { height: head, blocks: await api.blocks(Math.min(before - 1, head), limit) };
}

export async function oneBlock(api: NodeApi, height: string): Promise<unknown> {
  const h = intText(height, 'height', 1, Number.MAX_SAFE_INTEGER);
  const [block] = h > api.head().height ? [] : await api.blocks(h, 1);
  if (block === undefined || block.height !== h) throw new HttpError('not_found', `No block at height ${h} (the head is ${api.head().height})`);
  return { block };
}
