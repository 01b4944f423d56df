// The node's answers to rpc/: committed state from exchange/, history from the store.
import { views, type Exchange, SPOT_ASSET_OFFSET } from '../exchange/index.ts';
import { formatScaled } from '../primitives/index.ts';
import type { ExchangeRequest, MarketRules, NodeApi, SubmitOutcome } from '../rpc/index.ts';
import type { Chain } from './chain.ts';
import type { ChainStore } from './storage.ts';

/** Fills kept reachable per user by `userFills`. */
const USER_FILLS_LIMIT = 2000;

export function makeNodeApi(deps: {
  exchange: Exchange;
  chain: Chain;
  store: ChainStore;
  submit: (req: ExchangeRequest) => Promise<SubmitOutcome>;
  healthy: () => boolean;
}): NodeApi {
  const { exchange, chain, store } = deps;
  const state = exchange.state;
  return {
    submit: deps.submit,
    healthy: deps.healthy,
    marketRules(asset: number): MarketRules | null {
      const perp = state.config.perps[asset];
      if (perp !== undefined) return { name: perp.name, szDecimals: perp.szDecimals, minSz: formatScaled(perp.minSz, perp.szDecimals) };
      const pair = state.config.spotPairs.find((p) => p.index === asset - SPOT_ASSET_OFFSET);
      const base = state.config.spotTokens.find((t) => t.index === pair?.base);
      if (pair === undefined || base === undefined) return null;
      return { name: views.coinOf(state, asset) ?? '', szDecimals: base.szDecimals, minSz: formatScaled(pair.minSz, base.szDecimals) };
    },
    meta: () => views.meta(state),
    spotMeta: () => views.spotMeta(state),
    allMids: () => views.allMids(state),
    l2Book: (coin) => views.l2Book(state, coin),
    clearinghouseState: (user) => views.clearinghouseState(state, user),
    openOrders: (user) => views.openOrders(state, user),
    userFills: (user) => store.userFills(user, USER_FILLS_LIMIT),
    async orderStatus(user, oid) {
      const record = (await store.orderStatus(user, oid)) ?? null;
      // A resting order's size changes with every partial fill: answer it from live state.
      const live = views.openOrder(state, user, oid);
      if (live === null) return record;
      return { order: live, status: 'open', statusTimestamp: record?.statusTimestamp ?? live.timestamp };
    },
    head() {
      const h = chain.storedHead;
      return { height: h.height, time: h.time, hash: h.hash };
    },
  };
}
