// The history indexer: turns committed blocks (indexed-block.ts) into the records `/v4` and
// `/stats` serve. Blocks are taken in height order; a writer loop derives one batch from all the
// blocks queued and writes it atomically with the new watermark. Sums are kept as scaled
// integers and formatted once per batch.
import { addDecimals, formatScaled, parseScaled, scanUnits } from '../../primitives/index.ts';
import type {
  BookSnapshotRow, CandleRow, CoinDailyRow, FundingRow, LiquidationRow, OpenInterestRow, StatsTotals, TradeRow, TransferRow,
} from '../../rpc/index.ts';
import { CANDLE_INTERVALS } from '../candles.ts';
import type { IndexedBlock } from './indexed-block.ts';
import type { CoinHourRow, HistoryBatch, HistoryStore } from './store.ts';

export const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const EIGHT_HOURS_MS = 8 * HOUR_MS;
/** Row ids: height * 2^20 + position among the block's rows of one set. */
const ID_STRIDE = 1_048_576;
/** USD amounts are summed exactly at this scale (prices and sizes have at most 8 decimals each). */
const USD_SCALE = 16;
const INTERVALS = Object.entries(CANDLE_INTERVALS);

export const RETENTION = { books: 90 * DAY_MS, openInterest: 365 * DAY_MS } as const;

interface Candle {
  readonly coin: string;
  readonly interval: string;
  readonly t: number;
  o: number;
  h: number;
  l: number;
  c: number;
  v: number;
  n: number;
  readonly pxDecimals: number;
  readonly szDecimals: number;
}

interface DayState {
  readonly day: number;
  volume: bigint;
  trades: number;
  newUsers: number;
  deposits: bigint;
  withdrawals: bigint;
  readonly users: Set<string>;
}

interface CoinDayState {
  readonly day: number;
  readonly coin: string;
  volume: bigint;
  trades: number;
  openInterest: string;
  markPx: string;
  /** Sum of the day's hourly rates, ppb. */
  fundingSum: bigint;
}

interface CoinHourState {
  readonly hour: number;
  readonly coin: string;
  volume: bigint;
  trades: number;
}

interface FundingPeriod {
  readonly period: number;
  rate: bigint;
  premium: bigint;
  paid: bigint;
  hours: number;
}

const usd = (v: bigint) => formatScaled(v, USD_SCALE);
const usdOf = (text: string) => parseScaled(text, USD_SCALE) ?? 0n;
const ppb = (text: string) => parseScaled(text, 9) ?? 0n;

/** Progress of a rebuild, for a terminal progress bar. */
export type IndexProgress = (height: number, target: number) => void;

export class Indexer {
  private readonly queue: IndexedBlock[] = [];
  private running: Promise<void> | null = null;
  private failure: unknown = null;
  /** The last block handed over; blocks at or below it are ignored (replays after a restart). */
  private accepted = 0;
  private written = 0;
  /** Per coin, the candle in progress of each interval (CANDLE_INTERVALS order). */
  private readonly candles = new Map<string, (Candle | undefined)[]>();
  private readonly decimals = new Map<string, { pxDecimals: number; szDecimals: number }>();
  private day: DayState | null = null;
  private readonly coinDays = new Map<string, CoinDayState>();
  private readonly coinHours = new Map<string, CoinHourState>();
  /** Per coin: the 8-hour period of its last hourly rate and the sums in it; null: none yet. */
  private readonly fundingPeriods = new Map<string, FundingPeriod | null>();
  private totals = { users: 0, volume: 0n, deposits: 0n, withdrawals: 0n };
  private lastPrune = 0;
  private readonly waiters: { height: number; resolve: () => void; reject: (e: unknown) => void }[] = [];

  constructor(
    readonly store: HistoryStore,
    private readonly opts: { readonly log: (line: string) => void; readonly maxBlocksPerBatch?: number },
  ) {}

  /** Reads the watermark and totals; blocks at or below the watermark are already indexed. */
  async open(): Promise<number> {
    this.written = this.accepted = await this.store.indexedHeight();
    const t = await this.store.totals();
    this.totals = { users: t.users, volume: usdOf(t.volume), deposits: usdOf(t.deposits), withdrawals: usdOf(t.withdrawals) };
    return this.written;
  }

  /** The last block written to the store. */
  get height(): number {
    return this.written;
  }

  /** Hands over a committed block (in height order); returns at once. */
  push(block: IndexedBlock): void {
    if (block.height <= this.accepted || !this.store.writable) return;
    if (this.failure !== null) return;
    if (block.height !== this.accepted + 1) throw new Error(`invariant: indexer given block ${block.height} after ${this.accepted}`);
    this.accepted = block.height;
    this.queue.push(block);
    this.running ??= this.run();
  }

  /** Resolves once every block handed over so far is written. */
  flushed(): Promise<void> {
    if (this.failure !== null) return Promise.reject(this.failure);
    if (this.written >= this.accepted) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ height: this.accepted, resolve, reject }));
  }

  private async run(): Promise<void> {
    try {
      while (this.queue.length > 0 && this.failure === null) {
        const blocks = this.queue.splice(0, this.opts.maxBlocksPerBatch ?? 500);
        const batch = await this.build(blocks);
        await this.store.write(batch);
        this.written = batch.height;
        const last = blocks[blocks.length - 1] as IndexedBlock;
        if (last.time - this.lastPrune > HOUR_MS) {
          this.lastPrune = last.time;
          await this.store.prune({ books: last.time - RETENTION.books, openInterest: last.time - RETENTION.openInterest });
        }
        for (let i = this.waiters.length - 1; i >= 0; i--) {
          const w = this.waiters[i] as (typeof this.waiters)[number];
          if (w.height <= this.written) {
            this.waiters.splice(i, 1);
            w.resolve();
          }
        }
      }
    } catch (err) {
      this.failure = err;
      this.opts.log(`history indexer stopped at height ${this.written}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      for (const w of this.waiters.splice(0)) w.reject(err);
    } finally {
      this.running = null;
    }
  }

  /** Continues the candles in progress from the store (after a restart). */
  async seedCandles(markets: readonly (readonly [string, number, number])[]): Promise<void> {
    for (const [coin, pxDecimals, szDecimals] of markets) {
      this.decimals.set(coin, { pxDecimals, szDecimals });
      const slots: (Candle | undefined)[] = [];
      for (const [interval] of INTERVALS) {
        const last = await this.store.lastCandle(coin, interval);
        const n = (s: string, d: number) => Number(parseScaled(s, d) ?? 0n);
        slots.push(last === null ? undefined : {
          coin, interval, t: last.t, o: n(last.o, pxDecimals), h: n(last.h, pxDecimals), l: n(last.l, pxDecimals), c: n(last.c, pxDecimals),
          v: n(last.v, szDecimals), n: last.n, pxDecimals, szDecimals,
        });
      }
      this.candles.set(coin, slots);
    }
  }

  /** Derives one batch from consecutive blocks. */
  private async build(blocks: readonly IndexedBlock[]): Promise<HistoryBatch> {
    const trades: TradeRow[] = [];
    const funding: FundingRow[] = [];
    const liquidations: LiquidationRow[] = [];
    const openInterest: OpenInterestRow[] = [];
    const books: BookSnapshotRow[] = [];
    const transfers: TransferRow[] = [];
    const changedCandles = new Set<Candle>();
    const daily = new Map<number, DayState>();
    const coinDaily = new Map<string, CoinDayState>();
    const coinHourly = new Map<string, CoinHourState>();
    const newUsers: { user: string; day: number }[] = [];
    const dayUsers: { user: string; day: number }[] = [];

    for (const b of blocks) {
      for (const [coin, pxDecimals, szDecimals] of b.markets) if (!this.decimals.has(coin)) this.decimals.set(coin, { pxDecimals, szDecimals });
      const day = await this.dayOf(b.time);
      daily.set(day.day, day);
      const base = b.height * ID_STRIDE;
      const seeUser = (user: string) => {
        if (user === '' || day.users.has(user)) return;
        day.users.add(user);
        dayUsers.push({ user, day: day.day });
      };
      for (let i = 0; i < b.trades.length; i++) {
        const [coin, px, sz, side, time, tid, h, bi, si, liq] = b.trades[i] as IndexedBlock['trades'][number];
        const hash = b.strings[h] as string;
        const buyer = b.strings[bi] as string;
        const seller = b.strings[si] as string;
        trades.push({ id: base + i, coin, time, height: b.height, tid, px, sz, side, hash, buyer, seller, liquidation: liq === 1 });
        seeUser(buyer);
        seeUser(seller);
        const dec = this.decimals.get(coin);
        if (dec === undefined) continue;
        const notional = this.candleTrade(coin, px, sz, time, dec, changedCandles);
        day.volume += notional;
        day.trades++;
        this.totals.volume += notional;
        const cd = this.coinDay(day.day, coin);
        cd.volume += notional;
        cd.trades++;
        coinDaily.set(`${day.day}|${coin}`, cd);
        // The hour in progress without a promise a trade; the store is read when the hour changes.
        const hour = Math.floor(time / HOUR_MS) * HOUR_MS;
        const current = this.coinHours.get(coin);
        const hr = current?.hour === hour ? current : await this.coinHour(coin, hour);
        hr.volume += notional;
        hr.trades++;
        coinHourly.set(`${hr.hour}|${coin}`, hr);
      }
      const paid = new Map(b.fundingPaid.map(([coin, list]) => [coin, usdOf(addDecimals(...list.split('+')))]));
      let fundIdx = 0;
      for (const r of b.fundingRates) {
        const row: FundingRow = {
          id: base + fundIdx++, coin: r.coin, interval: '1h', time: r.time, height: b.height, fundingRate: r.fundingRate, premium: r.premium,
          paid: usd(paid.get(r.coin) ?? 0n),
        };
        funding.push(row);
        const eight = await this.eightHours(row, paid.get(r.coin) ?? 0n, base + fundIdx++);
        if (eight !== null) funding.push(eight);
        const cd = this.coinDay(day.day, r.coin);
        cd.fundingSum += ppb(r.fundingRate);
        coinDaily.set(`${day.day}|${r.coin}`, cd);
      }
      let liqIdx = 0;
      for (const l of b.liquidations) {
        for (const p of l.liquidatedPositions) {
          liquidations.push({
            id: base + liqIdx++, coin: p.coin, time: l.time, height: b.height, user: l.user, szi: p.szi, leverageType: l.leverageType, method: l.method,
            accountValue: l.accountValue, maintenanceMargin: l.maintenanceMargin, deficit: l.deficit,
          });
        }
      }
      let xferIdx = 0;
      for (const { user, ledger: x } of b.ledger) {
        const d = x.delta;
        transfers.push({
          id: base + xferIdx++, user, type: d.type, time: x.time, height: b.height, usdc: d.usdc, fee: d.type === 'withdraw' ? d.fee : '0', chainId: d.chainId, hash: x.hash,
        });
        const amount = usdOf(d.usdc);
        if (d.type === 'deposit') {
          day.deposits += amount;
          this.totals.deposits += amount;
          seeUser(user);
        } else {
          // Withdrawals count what left the account (the fee included); a refund gives all of it back.
          const delta = d.type === 'withdraw' ? amount + usdOf(d.fee) : -amount;
          day.withdrawals += delta;
          this.totals.withdrawals += delta;
        }
      }
      let oiIdx = 0;
      for (const s of b.openInterest) {
        openInterest.push({ id: base + oiIdx++, coin: s.coin, time: b.time, height: b.height, openInterest: s.openInterest, markPx: s.markPx });
        const cd = this.coinDay(day.day, s.coin);
        cd.openInterest = s.openInterest;
        cd.markPx = s.markPx;
        coinDaily.set(`${day.day}|${s.coin}`, cd);
      }
      let bookIdx = 0;
      for (const s of b.books) books.push({ id: base + bookIdx++, coin: s.coin, time: b.time, height: b.height, bids: s.bids, asks: s.asks });
    }

    // First-time addresses: those the store has not seen, in the order they appeared.
    if (dayUsers.length > 0) {
      const known = await this.store.knownUsers(dayUsers.map((u) => u.user));
      const seen = new Set<string>();
      for (const { user, day } of dayUsers) {
        if (known.has(user) || seen.has(user)) continue;
        seen.add(user);
        newUsers.push({ user, day });
        this.totals.users++;
        const d = daily.get(day);
        if (d !== undefined) d.newUsers++;
      }
    }
    const candles: CandleRow[] = [];
    for (const c of changedCandles) {
      candles.push({
        t: c.t, T: c.t + (CANDLE_INTERVALS[c.interval] as number) - 1, s: c.coin, i: c.interval,
        o: formatScaled(c.o, c.pxDecimals), h: formatScaled(c.h, c.pxDecimals), l: formatScaled(c.l, c.pxDecimals), c: formatScaled(c.c, c.pxDecimals),
        v: formatScaled(c.v, c.szDecimals), n: c.n,
      });
    }
    const totals: StatsTotals = { users: this.totals.users, volume: usd(this.totals.volume), deposits: usd(this.totals.deposits), withdrawals: usd(this.totals.withdrawals) };
    return {
      height: (blocks[blocks.length - 1] as IndexedBlock).height,
      trades, candles, funding, liquidations, openInterest, books, transfers,
      daily: [...daily.values()].map((d) => ({ day: d.day, volume: usd(d.volume), trades: d.trades, users: d.users.size, newUsers: d.newUsers, deposits: usd(d.deposits), withdrawals: usd(d.withdrawals) })),
      coinDaily: [...coinDaily.values()].map((d): CoinDailyRow => ({
        day: d.day, coin: d.coin, volume: usd(d.volume), trades: d.trades, openInterest: d.openInterest, markPx: d.markPx, fundingSum: formatScaled(d.fundingSum, 9),
      })),
      coinHourly: [...coinHourly.values()].map((h): CoinHourRow => ({ hour: h.hour, coin: h.coin, volume: usd(h.volume), trades: h.trades })),
      newUsers, dayUsers, totals,
    };
  }

  /** Folds a trade into its coin's candle of every interval; returns its notional at USD_SCALE. */
  private candleTrade(coin: string, pxText: string, szText: string, time: number, dec: { pxDecimals: number; szDecimals: number }, changed: Set<Candle>): bigint {
    // The regex-free scan when the texts are plain decimals (every trade's), else the general parse.
    const pxScan = scanUnits(pxText, dec.pxDecimals);
    const szScan = scanUnits(szText, dec.szDecimals);
    const pxUnits = pxScan >= 0 ? BigInt(pxScan) : (parseScaled(pxText, dec.pxDecimals) ?? 0n);
    const szUnits = szScan >= 0 ? BigInt(szScan) : (parseScaled(szText, dec.szDecimals) ?? 0n);
    const px = pxScan >= 0 ? pxScan : Number(pxUnits);
    const sz = szScan >= 0 ? szScan : Number(szUnits);
    let slots = this.candles.get(coin);
    if (slots === undefined) this.candles.set(coin, (slots = []));
    for (let i = 0; i < INTERVALS.length; i++) {
      const [interval, ms] = INTERVALS[i] as [string, number];
      const t = time - (time % ms);
      let c = slots[i];
      if (c === undefined || c.t !== t) {
        // A new candle object: the one it replaces keeps its final values for this batch's write.
        c = { coin, interval, t, o: px, h: px, l: px, c: px, v: 0, n: 0, pxDecimals: dec.pxDecimals, szDecimals: dec.szDecimals };
        slots[i] = c;
      }
      if (px > c.h) c.h = px;
      if (px < c.l) c.l = px;
      c.c = px;
      c.v += sz;
      c.n += 1;
      changed.add(c);
    }
    return pxUnits * szUnits * 10n ** BigInt(USD_SCALE - dec.pxDecimals - dec.szDecimals);
  }

  /** The day state of `time`, loaded from the store when the day changes (a restart inside a day continues it). */
  private async dayOf(time: number): Promise<DayState> {
    const day = time - (time % DAY_MS);
    if (this.day?.day === day) return this.day;
    const stored = (await this.store.dailyStats(day, day))[0];
    this.day = {
      day, users: new Set(await this.store.usersOfDay(day)), volume: usdOf(stored?.volume ?? '0'), trades: stored?.trades ?? 0, newUsers: stored?.newUsers ?? 0,
      deposits: usdOf(stored?.deposits ?? '0'), withdrawals: usdOf(stored?.withdrawals ?? '0'),
    };
    // A new day's market rows start from the last open interest and mark seen.
    const carried = new Map([...this.coinDays.values()].map((c) => [c.coin, { openInterest: c.openInterest, markPx: c.markPx }]));
    this.coinDays.clear();
    for (const r of await this.store.coinDailyStats(day, day)) {
      this.coinDays.set(r.coin, { day, coin: r.coin, volume: usdOf(r.volume), trades: r.trades, openInterest: r.openInterest, markPx: r.markPx, fundingSum: ppb(r.fundingSum) });
    }
    for (const [coin, c] of carried) if (!this.coinDays.has(coin)) this.coinDays.set(coin, { day, coin, volume: 0n, trades: 0, fundingSum: 0n, ...c });
    return this.day;
  }

  private coinDay(day: number, coin: string): CoinDayState {
    let cd = this.coinDays.get(coin);
    if (cd === undefined) this.coinDays.set(coin, (cd = { day, coin, volume: 0n, trades: 0, openInterest: '0', markPx: '0', fundingSum: 0n }));
    return cd;
  }

  private async coinHour(coin: string, hour: number): Promise<CoinHourState> {
    const cur = this.coinHours.get(coin);
    if (cur?.hour === hour) return cur;
    const stored = await this.store.coinHour(coin, hour);
    const row = { hour, coin, volume: usdOf(stored?.volume ?? '0'), trades: stored?.trades ?? 0 };
    this.coinHours.set(coin, row);
    return row;
  }

  /**
   * Adds an hourly rate to its 8-hour period; when it opens a new period, returns the previous
   * period's snapshot: the sum of its hourly rates and payments, its average premium, at the
   * period's start.
   */
  private async eightHours(row: FundingRow, paid: bigint, id: number): Promise<FundingRow | null> {
    const period = row.time - (row.time % EIGHT_HOURS_MS);
    let cur = this.fundingPeriods.get(row.coin);
    if (cur === undefined) {
      // After a restart: the period's hourly rates so far come from the store.
      const earlier = await this.store.funding(row.coin, '1h', { start: period, end: row.time, before: { time: row.time, id: row.id }, limit: 16 });
      cur = earlier.length === 0 ? null : {
        period, hours: earlier.length,
        rate: earlier.reduce((s, r) => s + ppb(r.fundingRate), 0n), premium: earlier.reduce((s, r) => s + ppb(r.premium), 0n), paid: earlier.reduce((s, r) => s + usdOf(r.paid), 0n),
      };
    }
    let out: FundingRow | null = null;
    if (cur !== null && cur.period !== period) {
      out = {
        id, coin: row.coin, interval: '8h', time: cur.period, height: row.height, fundingRate: formatScaled(cur.rate, 9),
        premium: formatScaled(cur.premium / BigInt(cur.hours), 9), paid: usd(cur.paid),
      };
      cur = null;
    }
    cur ??= { period, rate: 0n, premium: 0n, paid: 0n, hours: 0 };
    cur.rate += ppb(row.fundingRate);
    cur.premium += ppb(row.premium);
    cur.paid += paid;
    cur.hours++;
    this.fundingPeriods.set(row.coin, cur);
    return out;
  }
}
