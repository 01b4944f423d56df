// The portfolio indexer: account value and trading PnL of every account, sampled at most once per
// 15 minutes of block time (only accounts whose figures changed since their last sample), stored
// with the block, and served as Hyperliquid's `portfolio`: per window (day, week, month, all
// time; total and perps only) the account value and the PnL since the window began, plus the
// volume traded in it. The live figures close every series.
import { formatScaled } from '../primitives/index.ts';
import { USD_DECIMALS, views, type ExchangeState, type PortfolioFigures } from '../exchange/index.ts';

export const PORTFOLIO_SAMPLE_MS = 15 * 60_000;

/** One stored sample: [time, accountValue, pnl, perpAccountValue, perpPnl, cumVlm] (USD units as strings). */
export type PortfolioSample = [number, string, string, string, string, string];

export interface PortfolioRow {
  readonly user: string;
  readonly sample: PortfolioSample;
}

const DAY = 86_400_000;
export const PORTFOLIO_WINDOWS = [
  ['day', DAY],
  ['week', 7 * DAY],
  ['month', 30 * DAY],
  ['allTime', Number.POSITIVE_INFINITY],
] as const;

/** Points per window at most: samples are thinned to the last one per slot. */
const MAX_POINTS = 200;

function sampleOf(time: number, f: PortfolioFigures): PortfolioSample {
  return [time, f.accountValue.toString(), f.pnl.toString(), f.perpAccountValue.toString(), f.perpPnl.toString(), f.cumVlm.toString()];
}

export class PortfolioIndex {
  private lastBucket = -1;
  /** The figures each account was last sampled at (without the time), to skip unchanged ones. */
  private readonly last = new Map<string, string>();

  /** The rows to store with a block at `time`: none unless a new 15-minute bucket began. */
  sample(state: ExchangeState, time: number): PortfolioRow[] {
    const bucket = Math.floor(time / PORTFOLIO_SAMPLE_MS);
    if (bucket === this.lastBucket) return [];
    this.lastBucket = bucket;
    const rows: PortfolioRow[] = [];
    for (const user of state.accounts.keys()) {
      const f = views.portfolioFigures(state, user);
      if (f === null) continue;
      const sample = sampleOf(time, f);
      const figures = sample.slice(1).join(',');
      if (this.last.get(user) === figures) continue;
      this.last.set(user, figures);
      rows.push({ user, sample });
    }
    return rows;
  }
}

const usd = (v: bigint) => formatScaled(v, USD_DECIMALS);

interface WindowView {
  accountValueHistory: [number, string][];
  pnlHistory: [number, string][];
  vlm: string;
}

/**
 * The `portfolio` response from an account's stored samples (oldest first) and its live figures.
 * `perp`: the perps-only series. PnL and volume count from the last sample at or before the
 * window's start (the window's first sample when there is none).
 */
export function portfolioView(samples: readonly PortfolioSample[], live: PortfolioFigures, now: number): [string, WindowView][] {
  const all = [...samples, sampleOf(now, live)];
  const out: [string, WindowView][] = [];
  for (const perp of [false, true]) {
    const [vi, pi] = perp ? [3, 4] : [1, 2];
    for (const [name, span] of PORTFOLIO_WINDOWS) {
      const start = now - span;
      let base = all.find((s) => s[0] >= start) as PortfolioSample;
      for (const s of all) if (s[0] <= start) base = s;
      const inWindow = all.filter((s) => s[0] >= start);
      const slot = Number.isFinite(span) ? span / MAX_POINTS : Math.max(DAY, (now - (all[0] as PortfolioSample)[0]) / MAX_POINTS);
      const points: PortfolioSample[] = [];
      for (const s of inWindow) {
        const prev = points[points.length - 1];
        if (prev !== undefined && Math.floor(prev[0] / slot) === Math.floor(s[0] / slot) && s !== inWindow[inWindow.length - 1]) points[points.length - 1] = s;
        else points.push(s);
      }
      const basePnl = BigInt(base[pi] as string);
      out.push([
        perp ? `perp${name[0]!.toUpperCase()}${name.slice(1)}` : name,
        {
          accountValueHistory: points.map((s) => [s[0], usd(BigInt(s[vi] as string))]),
          pnlHistory: points.map((s) => [s[0], usd(BigInt(s[pi] as string) - basePnl)]),
          vlm: usd(live.cumVlm - BigInt(base[5])),
        },
      ]);
    }
  }
  return out;
}
