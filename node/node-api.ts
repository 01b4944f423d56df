// The node's answers to rpc/: committed state from exchange/, history from the store.
import { SPOT_DEPLOY_FEE, TOKEN_DECIMALS, USD_DECIMALS, indexerViews, maxBuilderFee, referral, views, withdrawalView, type Exchange, type FillRecord } from '../exchange/index.ts';
import { formatScaled, parseScaled } from '../primitives/index.ts';
import type { BlockSummary, BlockTxSummary, ExchangeRequest, HistoryReader, MarketRules, NodeApi, SignedVerdict, SubmitOutcome } from '../rpc/index.ts';
import { headerHash, txHash } from '../consensus/index.ts';
import type { Chain } from './chain.ts';
import type { ChainStore, StoredBlock } from './storage.ts';
import { decodeRequest, isEvmTx } from './tx-codec.ts';
import { CANDLE_INTERVALS, type CandleBook } from './candles.ts';
import { portfolioView } from './portfolio.ts';

/** Fills kept reachable per user by `userFills`. */
const USER_FILLS_LIMIT = 2000;
/** Candles per `candleSnapshot` response (Hyperliquid serves the 5000 most recent). */
const CANDLE_LIMIT = 5000;
/** Records per time-range response (Hyperliquid's limit): page with the last time + 1. */
const TIME_RANGE_LIMIT = 500;
/** Most recent fills `userFillsByTime` looks through, as on Hyperliquid. */
const USER_FILLS_REACH = 10_000;

const HOUR = 3_600_000;

/** Taker (`userCross`) and maker (`userAdd`) notional per UTC day, newest day first. */
function dailyVolume(fills: readonly FillRecord[]): { date: string; userCross: string; userAdd: string }[] {
  const days = new Map<string, { cross: bigint; add: bigint; scale: number }>();
  const SCALE = 16; // px and sz have at most 8 decimals each
  for (const f of fills) {
    const date = new Date(f.time).toISOString().slice(0, 10);
    const px = parseScaled(f.px, 8) ?? 0n;
    const sz = parseScaled(f.sz, 8) ?? 0n;
    const day = days.get(date) ?? { cross: 0n, add: 0n, scale: SCALE };
    if (f.crossed) day.cross += px * sz;
    else day.add += px * sz;
    days.set(date, day);
  }
  return [...days.entries()]
    .sort(([a], [b]) => (a < b ? 1 : -1))
    .map(([date, d]) => ({ date, userCross: formatScaled(d.cross, d.scale), userAdd: formatScaled(d.add, d.scale) }));
}

/** A stored block as `/v1/blocks` shows it: header fields and what each transaction is. */
function blockSummary(b: StoredBlock): BlockSummary {
  const txs = b.txs.map((tx, i): BlockTxSummary => {
    const bytes = Buffer.from(tx.buffer, tx.byteOffset, tx.length);
    const hash = txHash(bytes);
    if (isEvmTx(bytes)) return { hash, kind: 'evm', type: 'evm', signer: null, vaultAddress: null };
    let parsed: Record<string, unknown> | null = null;
    try {
      parsed = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
    } catch {
      // malformed: shown as an action of unknown type
    }
    const system = parsed?.system as { type?: unknown } | undefined;
    if (system !== undefined) return { hash, kind: 'system', type: String(system.type ?? 'system'), signer: null, vaultAddress: null };
    const req = decodeRequest(bytes);
    const type = (req?.action as { type?: unknown } | undefined)?.type;
    const signer = b.signers[i];
    return { hash, kind: 'action', type: typeof type === 'string' ? type : 'unknown', signer: signer === undefined || signer === '' ? null : signer, vaultAddress: req?.vaultAddress ?? null };
  });
  return { height: b.header.height, time: b.header.time, hash: headerHash(b.header), proposer: b.header.proposer, txs };
}

export function makeNodeApi(deps: {
  candles: CandleBook;
  exchange: Exchange;
  chain: Chain;
  store: ChainStore;
  submit: (req: ExchangeRequest, origin?: object) => Promise<SubmitOutcome>;
  verifySigned: (req: ExchangeRequest) => Promise<SignedVerdict>;
  /** Staking units from which an address is in the staker tier (genesis `api.stakerTierStake`). */
  stakerTierStake: bigint;
  healthy: () => boolean;
  history: HistoryReader | null;
  /** The relayer's watchers, when this node runs one. */
  bridgeStatus?: () => { chainId: number | null; up: boolean; scanned: number; error: string }[];
}): NodeApi {
  const { exchange, chain, store } = deps;
  const state = exchange.state;
  const baseVolume = (coin: string) => deps.candles.dayBaseVolume(coin, state.time);
  return {
    submit: deps.submit,
    verifySigned: deps.verifySigned,
    isStaker: (user) => views.stakeOf(state, user) >= deps.stakerTierStake,
    healthy: deps.healthy,
    history: deps.history,
    coinOf(market) {
      const m = views.marketByCoin(state, market) ?? (market.endsWith('-USD') ? state.marketsByName.get(market.slice(0, -4)) : undefined);
      return m === undefined || (m.name !== market && m.kind !== 'perp' && !market.startsWith('@')) ? null : m.name;
    },
    isPerp: (coin) => state.marketsByName.get(coin)?.kind === 'perp',
    marketRules(asset: number): MarketRules | null {
      const m = state.market(asset);
      return m === undefined ? null : { name: m.name, szDecimals: m.szDecimals, minSz: formatScaled(m.minSz, m.szDecimals) };
    },
    meta: () => views.meta(state),
    metaAndAssetCtxs: () => views.metaAndAssetCtxs(state, baseVolume),
    async fundingHistory(coin, start, end) {
      const m = state.marketsByName.get(coin);
      return m === undefined || m.kind !== 'perp' ? null : store.fundingHistory(coin, start, end, TIME_RANGE_LIMIT);
    },
    userFunding: (user, start, end) => store.userFunding(user, start, end, TIME_RANGE_LIMIT),
    async candleSnapshot(coin, interval, start, end) {
      if (state.marketsByName.get(coin) === undefined || CANDLE_INTERVALS[interval] === undefined) return null;
      return (await store.candleRange(coin, interval, start, end, CANDLE_LIMIT)).map((c) => deps.candles.view(c));
    },
    spotMeta: () => views.spotMeta(state),
    spotMetaAndAssetCtxs: () => views.spotMetaAndAssetCtxs(state, baseVolume),
    allMids: () => views.allMids(state),
    l2Book: (coin, depth) => views.l2Book(state, coin, depth),
    activeAssetData(user, coin) {
      const m = state.marketsByName.get(coin);
      return m === undefined || m.kind !== 'perp' ? null : views.activeAssetData(state, user, m);
    },
    userRole: (user) => views.userRole(state, user),
    maxBuilderFee: (user, builder) => maxBuilderFee(state, user, builder),
    approvedBuilders: (user) => views.approvedBuilders(state, user),
    tokenSupplies: () => views.tokenSupplies(state).map((v) => formatScaled(v, TOKEN_DECIMALS)),
    spotDeployFee: () => formatScaled(SPOT_DEPLOY_FEE, USD_DECIMALS),
    clearinghouseState: (user) => views.clearinghouseState(state, user),
    spotClearinghouseState: (user) => views.spotClearinghouseState(state, user),
    async portfolio(user) {
      const live = views.portfolioFigures(state, user);
      return live === null ? [] : portfolioView(await store.portfolioSamples(user), live, state.time);
    },
    async userFees(user) {
      const fills = await store.userFills(user, USER_FILLS_LIMIT);
      return { dailyUserVlm: dailyVolume(fills), ...views.feeSchedule(state) };
    },
    spotMarkets: () => views.spotMarkets(state),
    extraAgents: (user) => views.extraAgents(state, user),
    subAccounts: (user) => views.subAccounts(state, user),
    userRateLimit: (user) => views.userRateLimit(state, user),
    delegatorSummary: (user) => views.delegatorSummary(state, user),
    delegations: (user) => views.delegations(state, user),
    evmActions: (user) => chain.evmActions.of(user),
    validatorSummaries: () => views.validatorSummaries(state),
    spotOrderbook(pair, depth) {
      const m = views.marketByCoin(state, pair);
      if (m === undefined || m.kind !== 'spot') return null;
      const side = (isBuy: boolean) => views.bookLevels(m, isBuy, depth).map((l) => ({ price: l.px, size: l.sz }));
      return { bids: side(true), asks: side(false), time: state.time };
    },
    async perpetualMarkets() {
      // The same 24 clock hours as the volume ring of state: this hour and the 23 before it.
      const since = (Math.floor(state.time / HOUR) - 23) * HOUR;
      return Promise.all(indexerViews.perpetualMarkets(state).map(async (m) => {
        const coin = state.perps[m.assetIndex]?.name ?? '';
        const candles = await store.candleRange(coin, '1h', since, Number.MAX_SAFE_INTEGER, 24);
        return { ...m, trades24H: candles.reduce((n, c) => n + c.n, 0) };
      }));
    },
    perpOrderbook(ticker, depth) {
      const m = indexerViews.perpByTicker(state, ticker);
      if (m === undefined) return null;
      const side = (isBuy: boolean) => views.bookLevels(m, isBuy, depth).map((l) => ({ price: l.px, size: l.sz }));
      return { bids: side(true), asks: side(false) };
    },
    hasAccount: (user) => state.accounts.has(user),
    referral: (user) => referral(state, user),
    openOrders: (user) => views.openOrders(state, user),
    userFills: (user) => store.userFills(user, USER_FILLS_LIMIT),
    userFillsByTime: (user, start, end) => store.userFillsBetween(user, start, end, USER_FILLS_LIMIT, USER_FILLS_REACH),
    async orderStatus(user, oid) {
      const record = (await store.orderStatus(user, oid)) ?? null;
      // A resting order's size changes with every partial fill: answer it from live state.
      const live = views.openOrder(state, user, oid);
      if (live === null) return record;
      return { order: live, status: 'open', statusTimestamp: record?.statusTimestamp ?? live.timestamp };
    },
    withdrawals: (user) => [...state.bridge.withdrawals.values()].filter((w) => w.user === user).map((w) => withdrawalView(state, w)),
    bridge() {
      const usd = (v: bigint) => formatScaled(v, USD_DECIMALS);
      const { withdrawMinimum, withdrawFee } = state.config.clearinghouse;
      return {
        chains: [...state.bridge.chains.values()].sort((a, b) => a.chainId - b.chainId).map((c) => ({ chainId: c.chainId, contract: c.contract, status: 'Active' as const, validatorSet: c.set })),
        defaultChainId: state.bridge.defaultChain()?.chainId ?? null,
        withdrawalMinimum: usd(withdrawMinimum),
        withdrawalFee: usd(withdrawFee),
        withdrawalTimeout: state.config.bridge.withdrawalTimeoutSec,
        watched: (deps.bridgeStatus?.() ?? []).map(({ chainId, up, scanned, error }) => ({ chainId, up, scanned, error })),
        totals: { deposited: usd(state.bridge.deposited), paidOut: usd(state.bridge.paidOut), refunded: usd(state.bridge.refunded) },
      };
    },
    async blocks(from, count) {
      const out: BlockSummary[] = [];
      for (let h = from; h >= 1 && out.length < count; h--) {
        const b = await store.block(h);
        if (b !== undefined) out.push(blockSummary(b));
      }
      return out;
    },
    head() {
      const h = chain.storedHead;
      return { height: h.height, time: h.time, hash: h.hash };
    },
  };
}
