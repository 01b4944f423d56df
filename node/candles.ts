// Candles (OHLCV) built from trades as blocks commit, for `candleSnapshot` and the `candle`
// stream. Each taker fill is one trade. Candles open at multiples of their interval since the
// epoch (UTC). The candle in progress per coin and interval is kept in memory and written with
// its block, so a restart picks up where the store left off.
import { formatScaled, parseScaled, scanUnits } from '../primitives/index.ts';
import type { Exchange, FillRecord } from '../exchange/index.ts';

export const CANDLE_INTERVALS: Readonly<Record<string, number>> = {
  '1m': 60_000, '3m': 180_000, '5m': 300_000, '15m': 900_000, '30m': 1_800_000,
  '1h': 3_600_000, '2h': 7_200_000, '4h': 14_400_000, '8h': 28_800_000, '12h': 43_200_000,
  '1d': 86_400_000, '3d': 259_200_000, '1w': 604_800_000,
};

/** A candle as stored: prices in price units, volume in lots. */
export interface StoredCandle {
  readonly coin: string;
  readonly interval: string;
  readonly t: number;
  o: number;
  h: number;
  l: number;
  c: number;
  v: number;
  n: number;
}

/** Hyperliquid's candle shape. */
export interface CandleView {
  t: number;
  T: number;
  s: string;
  i: string;
  o: string;
  c: string;
  h: string;
  l: string;
  v: string;
  n: number;
}

const HOUR = 3_600_000;

/** Consecutive trades of one coin at one time: first, highest, lowest and last price, lots, count. */
interface TradeRun {
  readonly coin: string;
  readonly time: number;
  readonly o: number;
  h: number;
  l: number;
  c: number;
  v: number;
  n: number;
}

/** A fill's decimal text in 10^-decimals units: the scan without regular expressions or bigints, else the general parse. */
function units(text: string, decimals: number): number {
  const n = scanUnits(text, decimals);
  return n >= 0 ? n : Number(parseScaled(text, decimals) ?? 0n);
}

/** The intervals in `CANDLE_INTERVALS`' order, walked per fill without allocating. */
const INTERVALS: readonly (readonly [string, number])[] = Object.entries(CANDLE_INTERVALS);
const INTERVAL_INDEX = new Map(INTERVALS.map(([interval], i) => [interval, i]));

export class CandleBook {
  /** Per coin, the candle in progress of each interval (by its index in `INTERVALS`). */
  private readonly current = new Map<string, (StoredCandle | undefined)[]>();
  /** Per coin, the hourly candles of the last 24 clock hours (for `dayBaseVlm`), oldest first. */
  private readonly hours = new Map<string, StoredCandle[]>();

  constructor(private readonly exchange: Exchange) {}

  /** Seeds the candles in progress (from the store at start-up). */
  seed(candles: Iterable<StoredCandle>): void {
    for (const c of candles) {
      const i = INTERVAL_INDEX.get(c.interval);
      if (i === undefined) continue;
      this.coinCandles(c.coin)[i] = c;
      if (c.interval === '1h') this.keepHour(c);
    }
  }

  /** Seeds the hourly candles before the one in progress (from the store at start-up). */
  seedHours(candles: Iterable<StoredCandle>): void {
    for (const c of candles) this.keepHour(c);
  }

  /** Base volume (lots) of the 24 clock hours up to `now`: this hour and the 23 before it, as state's notional ring. */
  dayBaseVolume(coin: string, now: number): number {
    const since = (Math.floor(now / HOUR) - 23) * HOUR;
    let v = 0;
    for (const c of this.hours.get(coin) ?? []) if (c.t >= since) v += c.v;
    return v;
  }

  private keepHour(c: StoredCandle): void {
    const list = this.hours.get(c.coin) ?? [];
    if (list.some((h) => h.t === c.t)) return;
    list.push(c);
    list.sort((a, b) => a.t - b.t);
    while (list.length > 24) list.shift();
    this.hours.set(c.coin, list);
  }

  private coinCandles(coin: string): (StoredCandle | undefined)[] {
    let candles = this.current.get(coin);
    if (candles === undefined) this.current.set(coin, (candles = new Array<StoredCandle | undefined>(INTERVALS.length).fill(undefined)));
    return candles;
  }

  /**
   * Folds a block's taker fills into the candles; returns the candles it changed. Consecutive
   * trades of one coin at one time (a block's fills share its time) touch the same candles, so
   * they are folded into each of the thirteen once, as a run: the same candles as trade by trade.
   */
  apply(fills: readonly FillRecord[]): StoredCandle[] {
    const changed = new Set<StoredCandle>();
    let run: TradeRun | null = null;
    for (const f of fills) {
      if (!f.crossed) continue;
      const m = this.exchange.state.marketsByName.get(f.coin);
      if (m === undefined) continue;
      const px = units(f.px, m.pxDecimals);
      const sz = units(f.sz, m.szDecimals);
      if (run !== null && run.coin === f.coin && run.time === f.time) {
        if (px > run.h) run.h = px;
        if (px < run.l) run.l = px;
        run.c = px;
        run.v += sz;
        run.n += 1;
        continue;
      }
      if (run !== null) this.fold(run, changed);
      run = { coin: f.coin, time: f.time, o: px, h: px, l: px, c: px, v: sz, n: 1 };
    }
    if (run !== null) this.fold(run, changed);
    return [...changed].map((c) => ({ ...c }));
  }

  /** A run's trades into the candle in progress of each interval (a new one opens at the run's first price). */
  private fold(run: TradeRun, changed: Set<StoredCandle>): void {
    const candles = this.coinCandles(run.coin);
    for (let i = 0; i < INTERVALS.length; i++) {
      const [interval, ms] = INTERVALS[i] as readonly [string, number];
      const t = Math.floor(run.time / ms) * ms;
      let c = candles[i];
      if (c === undefined || c.t !== t) {
        c = { coin: run.coin, interval, t, o: run.o, h: run.o, l: run.o, c: run.o, v: 0, n: 0 };
        candles[i] = c;
        if (interval === '1h') this.keepHour(c);
      }
      c.h = Math.max(c.h, run.h);
      c.l = Math.min(c.l, run.l);
      c.c = run.c;
      c.v += run.v;
      c.n += run.n;
      changed.add(c);
    }
  }

  view(c: StoredCandle): CandleView {
    const m = this.exchange.state.marketsByName.get(c.coin);
    const px = (v: number) => formatScaled(v, m?.pxDecimals ?? 0);
    return {
      t: c.t,
      T: c.t + (CANDLE_INTERVALS[c.interval] as number) - 1,
      s: c.coin,
      i: c.interval,
      o: px(c.o),
      c: px(c.c),
      h: px(c.h),
      l: px(c.l),
      v: formatScaled(c.v, m?.szDecimals ?? 0),
      n: c.n,
    };
  }
}
