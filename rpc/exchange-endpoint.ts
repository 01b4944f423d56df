// POST /exchange: shape checks, then the node's verdict, mapped onto the spec's envelopes.
import type { ExchangeRequest, NodeApi } from './api.ts';
import { HttpError, httpErrorOf } from './http-errors.ts';
import { checkMinimumSizes, parseExchangeRequest } from './request-checks.ts';
import { RateLimitError } from './limits.ts';

export type ExchangeEnvelope =
  | { status: 'ok'; response: unknown }
  | { status: 'err'; response: string };

/**
 * Answers with the envelope, or throws the HTTP error (400/401/403/429/503) the outcome calls for.
 * `origin`: the connection the request came on, when known (NodeApi.submit).
 */
export function handleExchange(api: NodeApi, body: Record<string, unknown>, origin?: object): Promise<ExchangeEnvelope> {
  // Not async itself: an async frame keeps its parameters and locals until it resumes, and the
  // parsed action (checked here, parsed again at execution) would live, and be promoted by V8,
  // until the block commits. Only the request waits.
  let req: ExchangeRequest;
  try {
    const parsed = parseExchangeRequest(body);
    checkMinimumSizes(api, parsed.action);
    req = parsed.req;
  } catch (err) {
    return Promise.reject(err);
  }
  return answer(api, req, origin);
}

async function answer(api: NodeApi, req: ExchangeRequest, origin: object | undefined): Promise<ExchangeEnvelope> {
  const outcome = await api.submit(req, origin);
  switch (outcome.kind) {
    case 'unavailable':
      throw new HttpError('service_unavailable', outcome.message);
    case 'limited':
      throw new RateLimitError(outcome.message, outcome.retryAfter);
    case 'rejected':
      // A bridge this node cannot reach is a business answer (the spec's bridge errors), not a bad request.
      if (outcome.error.code === 'BRIDGE_UNAVAILABLE') return { status: 'err', response: outcome.error.message };
      throw httpErrorOf(outcome.error) ?? new HttpError('bad_request', outcome.error.message, outcome.error.details);
    case 'executed': {
      const r = outcome.result;
      if (r.status === 'ok') return { status: 'ok', response: r.response };
      const http = httpErrorOf(r.error);
      if (http !== null) throw http;
      return { status: 'err', response: r.error.message };
    }
  }
}
