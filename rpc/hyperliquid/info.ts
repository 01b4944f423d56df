// TEMP: replaced at merge
// The Hyperliquid dialect's `/info` handler (written on another branch); here it delegates to the spec's.
import type { NodeApi } from '../api.ts';
import { handleInfo } from '../info.ts';

export async function handleHyperliquidInfo(api: NodeApi, body: Record<string, unknown>): Promise<unknown> {
  return handleInfo(api, body);
}
