// The exchange as the EVM's read precompiles see it (docs/evm.md, "Read precompiles").
//
// The live view is the live state, which during block execution is the state at the end of the
// block's exchange part (EVM transactions run after it): every EVM transaction of block H reads
// the same state on every node. Calls at an older block (eth_call, eth_estimateGas) read the
// window: for each of the last VIEW_WINDOW blocks executed since the node started, the figures
// of every market (oracle, mark and best bid/offer prices) and the listing counts as they were
// after the block. Account figures (positions, balances, margin, staking) are not kept per block:
// at an older block they, and anything past the window, fail the call with a message saying so.
import { createHash } from 'node:crypto';
import type { DelegationView, ExchangeView, ExchangeViews } from '../evm/index.ts';
import { USDC_TOKEN_INDEX, views, type Exchange, type ExchangeState, type StakingState } from '../exchange/index.ts';
import { normalizeAddress, parseScaled } from '../primitives/index.ts';

/** Blocks whose market figures are kept for calls at older blocks. */
export const VIEW_WINDOW = 256;

const ZERO_ADDRESS = `0x${'00'.repeat(20)}`;

/** A validator's address on the EVM: its operator account, or its CometBFT address (sha256 of the key, first 20 bytes). */
export function validatorAddress(v: { readonly pubKey: string; readonly operator: string | null }): string {
  return v.operator ?? `0x${createHash('sha256').update(Buffer.from(v.pubKey, 'hex')).digest('hex').slice(0, 40)}`;
}

/** The consensus key of the validator at an EVM address (operator or CometBFT address), if any. */
export function validatorAt(staking: StakingState, address: string): string | undefined {
  const byOperator = staking.byOperator.get(address);
  if (byOperator !== undefined) return byOperator;
  for (const v of staking.validators.values()) if (validatorAddress(v) === address) return v.pubKey;
  return undefined;
}

const usd = (text: string) => parseScaled(text, 8) ?? 0n;
const big = (n: number | undefined) => BigInt(n ?? 0);

/** Market figures of one block: per market [oracle, mark, bid, ask] (perps), [mark, bid, ask] (spot pairs). */
interface MarketFrame {
  readonly height: number;
  readonly perps: Float64Array;
  readonly spots: Float64Array;
  readonly tokens: number;
}

function liveView(exchange: Exchange): ExchangeView {
  const state = (): ExchangeState => exchange.state;
  const perp = (i: number) => state().perps[i];
  const account = (user: string) => state().accounts.get(normalizeAddress(user) ?? user);
  return {
    oraclePx: (i) => {
      const m = perp(i);
      return m === undefined ? null : BigInt(m.engine.oraclePx);
    },
    markPx: (i) => {
      const m = perp(i);
      return m === undefined ? null : BigInt(state().markPx(m));
    },
    position: (user, i) => {
      const m = perp(i);
      if (m === undefined) return null;
      const s = state();
      const acct = account(user);
      const p = acct?.positions.get(m.asset);
      if (acct === undefined || p === undefined) return { szi: 0n, entryNtl: 0n, leverage: acct === undefined ? Math.min(s.config.defaultLeverage, m.config.maxLeverage) : s.leverage(acct, m), isolated: m.config.onlyIsolated, isolatedRawUsd: 0n };
      const isolated = s.isIsolated(acct, m);
      const ntl = s.notional(m, s.markPx(m), Math.abs(p.szi));
      return { szi: BigInt(p.szi), entryNtl: p.entryNtl, leverage: s.leverage(acct, m), isolated, isolatedRawUsd: isolated ? p.margin + (p.szi > 0 ? -ntl : ntl) : 0n };
    },
    spotBalance: (user, token) => {
      if (state().spotToken(token) === undefined) return null;
      const acct = account(user);
      return { total: acct?.balance(token) ?? 0n, hold: acct?.held.get(token) ?? 0n };
    },
    withdrawable: (user) => usd(views.clearinghouseState(state(), normalizeAddress(user) ?? user).withdrawable),
    delegations: (user) => {
      const s = state().staking;
      const out: DelegationView[] = [];
      for (const [key, d] of s.delegations.get(normalizeAddress(user) ?? user) ?? []) {
        const v = s.validators.get(key);
        out.push({ validator: v === undefined ? ZERO_ADDRESS : validatorAddress(v), amount: d.amount, lockedUntil: BigInt(d.lockedUntil) });
      }
      return out.sort((a, b) => (a.validator < b.validator ? -1 : a.validator > b.validator ? 1 : 0));
    },
    delegatorSummary: (user) => {
      const s = state().staking;
      const u = normalizeAddress(user) ?? user;
      let delegated = 0n;
      for (const d of s.delegations.get(u)?.values() ?? []) delegated += d.amount;
      const pending = s.pendingOf(u);
      return { delegated, undelegated: s.balance(u), totalPendingWithdrawal: pending.reduce((n, p) => n + p.amount, 0n), nPendingWithdrawals: BigInt(pending.length) };
    },
    spotPx: (i) => {
      const m = state().spots[i];
      return m === undefined ? null : BigInt(state().markPx(m));
    },
    l1BlockNumber: () => BigInt(state().height),
    perpAssetInfo: (i) => {
      const m = perp(i);
      // One margin table per maximum leverage (Hyperliquid numbers its simple tables so).
      return m === undefined ? null : { coin: m.name, marginTableId: big(m.config.maxLeverage), szDecimals: big(m.szDecimals), maxLeverage: big(m.config.maxLeverage), onlyIsolated: m.config.onlyIsolated };
    },
    spotInfo: (i) => {
      const m = state().spots[i];
      return m === undefined ? null : { name: m.name, tokens: [BigInt(m.base.index), BigInt(m.quote.index)] as const };
    },
    tokenInfo: (i) => {
      const t = state().spotToken(i);
      if (t === undefined) return null;
      const spots = state().spots.filter((m) => m.base.index === i).map((m) => BigInt(m.pair.index));
      return {
        name: t.name, spots, deployerTradingFeeShare: 0n, deployer: t.deployer ?? ZERO_ADDRESS, evmContract: t.evmContract ?? ZERO_ADDRESS,
        szDecimals: big(t.szDecimals), weiDecimals: big(t.weiDecimals), evmExtraWeiDecimals: 0n,
      };
    },
    bbo: (asset) => {
      const m = state().market(asset);
      return m === undefined ? null : { bid: big(m.engine.bids.bestPx()), ask: big(m.engine.asks.bestPx()) };
    },
    accountMarginSummary: (dex, user) => {
      if (dex !== 0) return null;
      const c = views.clearinghouseState(state(), normalizeAddress(user) ?? user).marginSummary;
      return { accountValue: usd(c.accountValue), marginUsed: usd(c.totalMarginUsed), ntlPos: usd(c.totalNtlPos), rawUsd: usd(c.totalRawUsd) };
    },
    coreUserExists: (user) => account(user) !== undefined,
  };
}

/** The view of an older block from its market frame; account figures are refused. */
function frameView(live: ExchangeView, frame: MarketFrame): ExchangeView {
  const gone = (): never => {
    throw new AccountFiguresGone(`account figures of exchange block ${frame.height} are not kept (the node answers them at the head only); call at "latest"`);
  };
  const nPerps = frame.perps.length / 4;
  const nSpots = frame.spots.length / 3;
  const perpAt = (i: number, k: number) => (Number.isSafeInteger(i) && i >= 0 && i < nPerps ? BigInt(frame.perps[i * 4 + k] as number) : null);
  const spotAt = (i: number, k: number) => (Number.isSafeInteger(i) && i >= 0 && i < nSpots ? BigInt(frame.spots[i * 3 + k] as number) : null);
  return {
    oraclePx: (i) => perpAt(i, 0),
    markPx: (i) => perpAt(i, 1),
    spotPx: (i) => spotAt(i, 0),
    bbo: (asset) => {
      if (asset >= 10000) {
        const bid = spotAt(asset - 10000, 1);
        return bid === null ? null : { bid, ask: spotAt(asset - 10000, 2) as bigint };
      }
      const bid = perpAt(asset, 2);
      return bid === null ? null : { bid, ask: perpAt(asset, 3) as bigint };
    },
    l1BlockNumber: () => BigInt(frame.height),
    perpAssetInfo: (i) => (i < nPerps ? live.perpAssetInfo(i) : null),
    spotInfo: (i) => (i < nSpots ? live.spotInfo(i) : null),
    tokenInfo: (i) => {
      if (i < USDC_TOKEN_INDEX || i >= USDC_TOKEN_INDEX + frame.tokens) return null;
      const t = live.tokenInfo(i);
      return t === null ? null : { ...t, spots: t.spots.filter((p) => p < BigInt(nSpots)) };
    },
    position: (_u, i) => (i < nPerps ? gone() : null),
    spotBalance: (_u, t) => (t >= USDC_TOKEN_INDEX && t < USDC_TOKEN_INDEX + frame.tokens ? gone() : null),
    withdrawable: gone,
    delegations: gone,
    delegatorSummary: gone,
    accountMarginSummary: (dex) => (dex === 0 ? gone() : null),
    coreUserExists: gone,
  };
}

/** Thrown by a read the node cannot answer at the block asked: the call fails with its message. */
export class AccountFiguresGone extends Error {
  override readonly name = 'AccountFiguresGone';
}

/** The live view and the window of older blocks' market figures (record each block after it executes). */
export class ExchangeViewWindow implements ExchangeViews {
  private readonly live: ExchangeView;
  private readonly frames = new Map<number, MarketFrame>();
  /** The last block recorded: the head (the state may be past it while the next block executes). */
  private head = -1;

  constructor(
    private readonly exchange: Exchange,
    private readonly size = VIEW_WINDOW,
  ) {
    this.live = liveView(exchange);
  }

  /** Keeps the market figures after the block just executed (the state is at its end). */
  record(): void {
    const s = this.exchange.state;
    const perps = new Float64Array(s.perps.length * 4);
    s.perps.forEach((m, i) => {
      perps[i * 4] = m.engine.oraclePx;
      perps[i * 4 + 1] = s.markPx(m);
      perps[i * 4 + 2] = m.engine.bids.bestPx() ?? 0;
      perps[i * 4 + 3] = m.engine.asks.bestPx() ?? 0;
    });
    const spots = new Float64Array(s.spots.length * 3);
    s.spots.forEach((m, i) => {
      spots[i * 3] = s.markPx(m);
      spots[i * 3 + 1] = m.engine.bids.bestPx() ?? 0;
      spots[i * 3 + 2] = m.engine.asks.bestPx() ?? 0;
    });
    this.frames.set(s.height, { height: s.height, perps, spots, tokens: s.spotTokens.length });
    this.head = s.height;
    this.frames.delete(s.height - this.size);
  }

  at(height: number | null): ExchangeView | string {
    // Before the first block recorded after start-up, only the state's own height is known.
    // The live state is the head's (or, while the next block executes, that block's exchange
    // part's: what its EVM transactions read).
    const head = this.head < 0 ? this.exchange.state.height : this.head;
    if (height === null || height >= head) return this.live;
    const frame = this.frames.get(height);
    if (frame !== undefined) return frameView(this.live, frame);
    return `exchange state of block ${height} is not kept: the node keeps market figures for the last ${this.size} blocks it executed (head ${this.exchange.state.height})`;
  }
}
