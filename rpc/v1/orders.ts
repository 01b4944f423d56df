// POST /v1/orders and POST /v1/orders/cancel: `/exchange` requests (same body, signature, checks
// and answers) restricted to placing or cancelling orders.
import type { NodeApi } from '../api.ts';
import { handleExchange, type ExchangeEnvelope } from '../exchange-endpoint.ts';
import { badRequest } from '../http-errors.ts';

export const ORDER_TYPES = ['order'] as const;
export const CANCEL_TYPES = ['cancel', 'cancelByCloid'] as const;

/** Refuses an action of another type (400), then answers as `/exchange` does. */
export function restrictedExchange(api: NodeApi, body: Record<string, unknown>, path: string, types: readonly string[]): Promise<ExchangeEnvelope> {
  const action = body.action;
  if (typeof action === 'object' && action !== null && !Array.isArray(action)) {
    const type = (action as Record<string, unknown>).type;
    if (typeof type === 'string' && !types.includes(type)) {
      throw badRequest(`Invalid field action.type: ${path} takes ${types.join(' or ')} actions, not ${type}`, { field: 'action.type' });
    }
  }
  return handleExchange(api, body);
}
