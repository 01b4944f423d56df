// POST /info: one typed method per request type of the spec and of docs/api.md.
import type { HttpTransport } from './http.ts';
import type { CandleInterval, InfoRequest, InfoType, InfoTypes } from './types.ts';

export class InfoClient {
  constructor(readonly http: HttpTransport) {}

  /** Any info request, typed by its `type`. */
  request<T extends InfoType>(req: InfoRequest<T>): Promise<InfoTypes[T]['res']> {
    return this.http.post<InfoTypes[T]['res']>('/info', req);
  }

  meta() { return this.request({ type: 'meta' }); }
  spotMeta() { return this.request({ type: 'spotMeta' }); }
  metaAndAssetCtxs() { return this.request({ type: 'metaAndAssetCtxs' }); }
  spotMetaAndAssetCtxs() { return this.request({ type: 'spotMetaAndAssetCtxs' }); }
  allMids() { return this.request({ type: 'allMids' }); }
  l2Book(coin: string) { return this.request({ type: 'l2Book', coin }); }
  candleSnapshot(coin: string, interval: CandleInterval, startTime: number, endTime?: number) {
    return this.request({ type: 'candleSnapshot', req: { coin, interval, startTime, endTime } });
  }
  fundingHistory(coin: string, startTime: number, endTime?: number) { return this.request({ type: 'fundingHistory', coin, startTime, endTime }); }
  userFunding(user: string, startTime: number, endTime?: number) { return this.request({ type: 'userFunding', user, startTime, endTime }); }
  clearinghouseState(user: string) { return this.request({ type: 'clearinghouseState', user }); }
  spotClearinghouseState(user: string) { return this.request({ type: 'spotClearinghouseState', user }); }
  openOrders(user: string) { return this.request({ type: 'openOrders', user }); }
  frontendOpenOrders(user: string) { return this.request({ type: 'frontendOpenOrders', user }); }
  userFills(user: string) { return this.request({ type: 'userFills', user }); }
  userFillsByTime(user: string, startTime: number, endTime?: number, aggregateByTime?: boolean) {
    return this.request({ type: 'userFillsByTime', user, startTime, endTime, aggregateByTime });
  }
  userFees(user: string) { return this.request({ type: 'userFees', user }); }
  /** `oid` an order id, or a `0x…` client order id of an open order. */
  orderStatus(user: string, oid: number | string) { return this.request({ type: 'orderStatus', user, oid }); }
  userRateLimit(user: string) { return this.request({ type: 'userRateLimit', user }); }
  portfolio(user: string) { return this.request({ type: 'portfolio', user }); }
  subAccounts(user: string) { return this.request({ type: 'subAccounts', user }); }
  extraAgents(user: string) { return this.request({ type: 'extraAgents', user }); }
  referral(user: string) { return this.request({ type: 'referral', user }); }
  delegatorSummary(user: string) { return this.request({ type: 'delegatorSummary', user }); }
  delegations(user: string) { return this.request({ type: 'delegations', user }); }
  validatorSummaries() { return this.request({ type: 'validatorSummaries' }); }
  withdrawals(user: string) { return this.request({ type: 'withdrawals', user }); }
  bridge() { return this.request({ type: 'bridge' }); }
}
