// The history indexer: turns committed blocks into the records `/v4` and `/stats` serve. Blocks
// are taken in order; what needs the state at that block (open interest, book snapshots) is
// sampled when the block is handed over, the rest is derived on a writer loop that batches many
// blocks into one atomic store write, so commit pays only for the hand-over.
import { formatScaled, parseScaled } from '../../primitives/index.ts';
import { views, type ExchangeEvent, type ExchangeState, type FillRecord, type Market } from '../../exchange/index.ts';
import type {
  BookSnapshotRow, CandleRow, CoinDailyRow, DailyStatsRow, FundingRow, LiquidationRow, OpenInterestRow, StatsTotals, TradeRow, TransferRow,
} from '../../rpc/index.ts';
import { CANDLE_INTERVALS } from '../candles.ts';
import type { CoinHourRow, HistoryBatch, HistoryStore } from './store.ts';

export const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const EIGHT_HOURS_MS = 8 * HOUR_MS;
/** Open interest is sampled at the first block of each minute, books at the first of each 5 minutes. */
const OI_SAMPLE_MS = 60_000;
export const BOOK_SNAPSHOT_MS = 300_000;
/** Levels a side in a book snapshot. */
export const BOOK_SNAPSHOT_DEPTH = 100;
/** Row ids: height * 2^20 + position among the block's rows of one set. */
const ID_STRIDE = 1_048_576;
/** USD amounts are summed exactly at this scale (prices and sizes have at most 8 decimals each). */
const USD_SCALE = 16;

export const RETENTION = { books: 90 * DAY_MS, openInterest: 365 * DAY_MS } as const;

/** A committed block as the indexer takes it, with the state samples it needs. */
export interface IndexedBlock {
  readonly height: number;
  readonly time: number;
  /** Time of the block before it (the genesis time for the first). */
  readonly prevTime: number;
  readonly events: readonly ExchangeEvent[];
  readonly openInterest: readonly { coin: string; openInterest: string; markPx: string }[];
  readonly books: readonly { coin: string; bids: BookSnapshotRow['bids']; asks: BookSnapshotRow['asks'] }[];
  /** Decimals of the markets the block's events name. */
  readonly markets: ReadonlyMap<string, { pxDecimals: number; szDecimals: number }>;
}

/** Takes what an indexed block needs from the state right after the block executed. */
export function sampleBlock(state: ExchangeState, height: number, time: number, prevTime: number, events: readonly ExchangeEvent[]): IndexedBlock {
  const openInterest: IndexedBlock['openInterest'][number][] = [];
  if (Math.floor(time / OI_SAMPLE_MS) !== Math.floor(prevTime / OI_SAMPLE_MS) || height === 1) {
    for (const m of state.perps) {
      let oi = 0;
      for (const pos of m.holders.positions()) if (pos.szi > 0) oi += pos.szi;
      openInterest.push({ coin: m.name, openInterest: formatScaled(oi, m.szDecimals), markPx: formatScaled(state.markPx(m), m.pxDecimals) });
    }
  }
  const books: IndexedBlock['books'][number][] = [];
  if (Math.floor(time / BOOK_SNAPSHOT_MS) !== Math.floor(prevTime / BOOK_SNAPSHOT_MS) || height === 1) {
    for (const m of state.markets) {
      books.push({ coin: m.name, bids: views.bookLevels(m, true, BOOK_SNAPSHOT_DEPTH), asks: views.bookLevels(m, false, BOOK_SNAPSHOT_DEPTH) });
    }
  }
  const markets = new Map<string, { pxDecimals: number; szDecimals: number }>();
  const note = (m: Market | undefined) => {
    if (m !== undefined && !markets.has(m.name)) markets.set(m.name, { pxDecimals: m.pxDecimals, szDecimals: m.szDecimals });
  };
  for (const e of events) if (e.kind === 'fill') note(state.marketsByName.get(e.fill.coin));
  return { height, time, prevTime, events, openInterest, books, markets };
}

interface Candle {
  t: number;
  o: number;
  h: number;
  l: number;
  c: number;
  v: number;
  n: number;
  pxDecimals: number;
  szDecimals: number;
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
  volume: bigint;
  trades: number;
  openInterest: string;
  markPx: string;
  /** Sum of the day's hourly rates, scaled by 1e9 (rates are ppb). */
  fundingSum: bigint;
}

const usd = (v: bigint) => formatScaled(v, USD_SCALE);
const usdOf = (text: string) => parseScaled(text, USD_SCALE) ?? 0n;
const rate = (text: string) => parseScaled(text, 9) ?? 0n;

/** Progress of a rebuild, for a terminal progress bar. */
export type IndexProgress = (height: number, target: number) => void;

export class Indexer {
  private readonly queue: IndexedBlock[] = [];
  private running: Promise<void> | null = null;
  private failure: unknown = null;
  /** The last block handed over; blocks at or below it are ignored (replays after a restart). */
  private accepted = 0;
  private written = 0;
  private readonly candles = new Map<string, Candle>();
  private day: DayState | null = null;
  private readonly coinDays = new Map<string, CoinDayState>();
  private readonly coinHours = new Map<string, CoinHourRow>();
  /** Per coin: the 8-hour period of its last hourly rate, and the rates and payments summed in it. */
  private readonly fundingPeriods = new Map<string, { period: number; rate: bigint; premium: bigint; paid: bigint; lastId: number } | null>();
  private totals: { users: number; volume: bigint; deposits: bigint; withdrawals: bigint } = { users: 0, volume: 0n, deposits: 0n, withdrawals: 0n };
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

  /** Whether the writer failed (the node logs it; history stops growing, the chain goes on). */
  get failed(): unknown {
    return this.failure;
  }

  private async run(): Promise<void> {
    try {
      while (this.queue.length > 0 && this.failure === null) {
        const blocks = this.queue.splice(0, this.opts.maxBlocksPerBatch ?? 1000);
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

  /** Derives one batch from consecutive blocks. */
  private async build(blocks: readonly IndexedBlock[]): Promise<HistoryBatch> {
    const trades: TradeRow[] = [];
    const funding: FundingRow[] = [];
    const liquidations: LiquidationRow[] = [];
    const openInterest: OpenInterestRow[] = [];
    const books: BookSnapshotRow[] = [];
    const transfers: TransferRow[] = [];
    const changedCandles = new Map<string, Candle & { coin: string; interval: string }>();
    const daily = new Map<number, DailyStatsRow>();
    const coinDaily = new Map<string, CoinDailyRow>();
    const coinHourly = new Map<string, CoinHourRow>();
    const newUsers: { user: string; day: number }[] = [];
    const dayUsers: { user: string; day: number }[] = [];
    const userChecks: string[] = [];

    for (const b of blocks) {
      const day = await this.dayOf(b.time, daily, coinDaily);
      const base = b.height * ID_STRIDE;
      let tradeIdx = 0;
      let fundIdx = 0;
      let liqIdx = 0;
      let xferIdx = 0;
      const makers = new Map<number, string>();
      const paid = new Map<string, bigint>();
      const seeUser = (user: string) => {
        if (day.users.has(user)) return;
        day.users.add(user);
        dayUsers.push({ user, day: day.day });
        userChecks.push(user);
      };
      for (const e of b.events) {
        if (e.kind === 'funding' && e.funding.usdc.startsWith('-')) {
          paid.set(e.funding.coin, (paid.get(e.funding.coin) ?? 0n) - usdOf(e.funding.usdc));
        }
      }
      for (const e of b.events) {
        switch (e.kind) {
          case 'fill': {
            const f = e.fill;
            if (!f.crossed) {
              makers.set(f.tid, e.user);
              continue;
            }
            const maker = makers.get(f.tid) ?? '';
            const buyer = f.side === 'B' ? e.user : maker;
            const seller = f.side === 'B' ? maker : e.user;
            trades.push({
              id: base + tradeIdx++, coin: f.coin, time: f.time, height: b.height, tid: f.tid, px: f.px, sz: f.sz, side: f.side, hash: f.hash,
              buyer, seller, liquidation: f.liquidation !== undefined,
            });
            const dec = b.markets.get(f.coin);
            if (dec === undefined) continue;
            const notional = this.trade(f, dec, changedCandles, b.time);
            day.volume += notional;
            day.trades++;
            this.totals.volume += notional;
            const cd = this.coinDay(day.day, f.coin);
            cd.volume += notional;
            cd.trades++;
            coinDaily.set(`${day.day}|${f.coin}`, this.coinDayRow(day.day, f.coin, cd));
            const hr = await this.coinHour(f.coin, Math.floor(f.time / HOUR_MS) * HOUR_MS);
            const hour = { hour: hr.hour, coin: f.coin, volume: usd(usdOf(hr.volume) + notional), trades: hr.trades + 1 };
            this.coinHours.set(f.coin, hour);
            coinHourly.set(`${hour.hour}|${f.coin}`, hour);
            seeUser(buyer);
            seeUser(seller);
            break;
          }
          case 'fundingRate': {
            const r = e.rate;
            const row: FundingRow = {
              id: base + fundIdx++, coin: r.coin, interval: '1h', time: r.time, height: b.height, fundingRate: r.fundingRate, premium: r.premium,
              paid: usd(paid.get(r.coin) ?? 0n),
            };
            funding.push(row);
            const eight = await this.eightHours(row, base + fundIdx++);
            if (eight !== null) funding.push(eight);
            const cd = this.coinDay(day.day, r.coin);
            cd.fundingSum += rate(r.fundingRate);
            coinDaily.set(`${day.day}|${r.coin}`, this.coinDayRow(day.day, r.coin, cd));
            break;
          }
          case 'liquidation': {
            const l = e.liquidation;
            for (const p of l.liquidatedPositions) {
              liquidations.push({
                id: base + liqIdx++, coin: p.coin, time: l.time, height: b.height, user: l.user, szi: p.szi, leverageType: l.leverageType, method: l.method,
                accountValue: l.accountValue, maintenanceMargin: l.maintenanceMargin, deficit: l.deficit,
              });
            }
            break;
          }
          case 'ledger': {
            const x = e.ledger;
            const d = x.delta;
            transfers.push({
              id: base + xferIdx++, user: e.user, type: d.type, time: x.time, height: b.height, usdc: d.usdc, fee: d.type === 'withdraw' ? d.fee : '0',
              chainId: d.chainId, hash: x.hash,
            });
            const amount = usdOf(d.usdc);
            if (d.type === 'deposit') {
              day.deposits += amount;
              this.totals.deposits += amount;
              seeUser(e.user);
            } else {
              // A refund gives back what its withdrawal took (the fee included); withdrawals are counted net of refunds.
              const delta = d.type === 'withdraw' ? amount : -amount;
              day.withdrawals += delta;
              this.totals.withdrawals += delta;
            }
            break;
          }
          default:
            break;
        }
      }
      let oiIdx = 0;
      for (const s of b.openInterest) {
        openInterest.push({ id: base + oiIdx++, coin: s.coin, time: b.time, height: b.height, openInterest: s.openInterest, markPx: s.markPx });
        const cd = this.coinDay(day.day, s.coin);
        cd.openInterest = s.openInterest;
        cd.markPx = s.markPx;
        coinDaily.set(`${day.day}|${s.coin}`, this.coinDayRow(day.day, s.coin, cd));
      }
      let bookIdx = 0;
      for (const s of b.books) books.push({ id: base + bookIdx++, coin: s.coin, time: b.time, height: b.height, bids: s.bids, asks: s.asks });
      daily.set(day.day, this.dayRow(day));
    }

    // First-time addresses: those the store has not seen, in the order they appeared.
    if (userChecks.length > 0) {
      const known = await this.store.knownUsers(userChecks);
      const seen = new Set<string>();
      for (const { user, day } of dayUsers) {
        if (known.has(user) || seen.has(user)) continue;
        seen.add(user);
        newUsers.push({ user, day });
        this.totals.users++;
        const d = this.day !== null && this.day.day === day ? this.day : null;
        if (d !== null) d.newUsers++;
        const row = daily.get(day);
        if (row !== undefined) daily.set(day, { ...row, newUsers: row.newUsers + 1 });
      }
    }
    const candles: CandleRow[] = [...changedCandles.values()].map((c) => ({
      t: c.t, T: c.t + (CANDLE_INTERVALS[c.interval] as number) - 1, s: c.coin, i: c.interval,
      o: formatScaled(c.o, c.pxDecimals), h: formatScaled(c.h, c.pxDecimals), l: formatScaled(c.l, c.pxDecimals), c: formatScaled(c.c, c.pxDecimals),
      v: formatScaled(c.v, c.szDecimals), n: c.n,
    }));
    const totals: StatsTotals = { users: this.totals.users, volume: usd(this.totals.volume), deposits: usd(this.totals.deposits), withdrawals: usd(this.totals.withdrawals) };
    return {
      height: (blocks[blocks.length - 1] as IndexedBlock).height,
      trades, candles, funding, liquidations, openInterest, books, transfers,
      daily: [...daily.values()], coinDaily: [...coinDaily.values()], coinHourly: [...coinHourly.values()],
      newUsers, dayUsers, totals,
    };
  }

  /** Folds a taker fill into every interval's candle; returns its notional at USD_SCALE. */
  private trade(f: FillRecord, dec: { pxDecimals: number; szDecimals: number }, changed: Map<string, Candle & { coin: string; interval: string }>, _blockTime: number): bigint {
    const pxUnits = parseScaled(f.px, dec.pxDecimals) ?? 0n;
    const szUnits = parseScaled(f.sz, dec.szDecimals) ?? 0n;
    const px = Number(pxUnits);
    const sz = Number(szUnits);
    for (const [interval, ms] of Object.entries(CANDLE_INTERVALS)) {
      const key = `${f.coin}|${interval}`;
      const t = Math.floor(f.time / ms) * ms;
      let c = this.candles.get(key);
      if (c === undefined || c.t !== t) {
        c = { t, o: px, h: px, l: px, c: px, v: 0, n: 0, pxDecimals: dec.pxDecimals, szDecimals: dec.szDecimals };
        this.candles.set(key, c);
      }
      if (px > c.h) c.h = px;
      if (px < c.l) c.l = px;
      c.c = px;
      c.v += sz;
      c.n += 1;
      // Keyed by open time too: a batch may close candles and open new ones of the same interval.
      changed.set(`${key}|${t}`, Object.assign(c, { coin: f.coin, interval }));
    }
    return pxUnits * szUnits * 10n ** BigInt(USD_SCALE - dec.pxDecimals - dec.szDecimals);
  }

  /** Continues the candles in progress from the store (after a restart), once per coin. */
  async seedCandles(coins: readonly string[], decimals: (coin: string) => { pxDecimals: number; szDecimals: number } | undefined): Promise<void> {
    for (const coin of coins) {
      const dec = decimals(coin);
      if (dec === undefined) continue;
      for (const interval of Object.keys(CANDLE_INTERVALS)) {
        const last = await this.store.lastCandle(coin, interval);
        if (last === null) continue;
        const n = (s: string, d: number) => Number(parseScaled(s, d) ?? 0n);
        this.candles.set(`${coin}|${interval}`, {
          t: last.t, o: n(last.o, dec.pxDecimals), h: n(last.h, dec.pxDecimals), l: n(last.l, dec.pxDecimals), c: n(last.c, dec.pxDecimals),
          v: n(last.v, dec.szDecimals), n: last.n, pxDecimals: dec.pxDecimals, szDecimals: dec.szDecimals,
        });
      }
    }
  }

  /** The day state of `time`, loaded from the store when the day changes (a restart inside a day continues it). */
  private async dayOf(time: number, daily: Map<number, DailyStatsRow>, coinDaily: Map<string, CoinDailyRow>): Promise<DayState> {
    const day = Math.floor(time / DAY_MS) * DAY_MS;
    if (this.day?.day === day) return this.day;
    const stored = daily.get(day) ?? (await this.store.dailyStats(day, day))[0];
    const users = new Set(await this.store.usersOfDay(day));
    this.day = {
      day, users, volume: usdOf(stored?.volume ?? '0'), trades: stored?.trades ?? 0, newUsers: stored?.newUsers ?? 0,
      deposits: usdOf(stored?.deposits ?? '0'), withdrawals: usdOf(stored?.withdrawals ?? '0'),
    };
    this.coinDays.clear();
    for (const r of [...(await this.store.coinDailyStats(day, day)), ...[...coinDaily.values()].filter((r) => r.day === day)]) {
      this.coinDays.set(r.coin, { volume: usdOf(r.volume), trades: r.trades, openInterest: r.openInterest, markPx: r.markPx, fundingSum: rate(r.fundingSum) });
    }
    return this.day;
  }

  private coinDay(day: number, coin: string): CoinDayState {
    let cd = this.coinDays.get(coin);
    if (cd === undefined) {
      // A new day starts from the previous day's last open interest and mark price.
      cd = { volume: 0n, trades: 0, openInterest: '0', markPx: '0', fundingSum: 0n };
      this.coinDays.set(coin, cd);
      void day;
    }
    return cd;
  }

  private coinDayRow(day: number, coin: string, cd: CoinDayState): CoinDailyRow {
    return { day, coin, volume: usd(cd.volume), trades: cd.trades, openInterest: cd.openInterest, markPx: cd.markPx, fundingSum: formatScaled(cd.fundingSum, 9) };
  }

  private dayRow(d: DayState): DailyStatsRow {
    return { day: d.day, volume: usd(d.volume), trades: d.trades, users: d.users.size, newUsers: d.newUsers, deposits: usd(d.deposits), withdrawals: usd(d.withdrawals) };
  }

  private async coinHour(coin: string, hour: number): Promise<CoinHourRow> {
    const cur = this.coinHours.get(coin);
    if (cur?.hour === hour) return cur;
    const row = (await this.store.coinHour(coin, hour)) ?? { hour, coin, volume: '0', trades: 0 };
    this.coinHours.set(coin, row);
    return row;
  }

  /**
   * Adds an hourly rate to its 8-hour period; when it opens a new period, returns the previous
   * period's snapshot (the sum of its hourly rates and payments, at the period's start).
   */
  private async eightHours(row: FundingRow, id: number): Promise<FundingRow | null> {
    const period = Math.floor(row.time / EIGHT_HOURS_MS) * EIGHT_HOURS_MS;
    let cur = this.fundingPeriods.get(row.coin);
    if (cur === undefined) {
      // After a restart: the period's hourly rates so far come from the store.
      const earlier = await this.store.funding(row.coin, '1h', { start: period, end: row.time, before: { time: row.time, id: row.id }, limit: 16 });
      cur = earlier.length === 0 ? null : {
        period, lastId: (earlier[0] as FundingRow).id,
        rate: earlier.reduce((s, r) => s + rate(r.fundingRate), 0n), premium: earlier.reduce((s, r) => s + rate(r.premium), 0n), paid: earlier.reduce((s, r) => s + usdOf(r.paid), 0n),
      };
    }
    let out: FundingRow | null = null;
    if (cur !== null && cur.period !== period) {
      out = {
        id, coin: row.coin, interval: '8h', time: cur.period, height: row.height, fundingRate: formatScaled(cur.rate, 9), premium: formatScaled(cur.premium, 9), paid: usd(cur.paid),
      };
      cur = null;
    }
    cur ??= { period, rate: 0n, premium: 0n, paid: 0n, lastId: row.id };
    cur.rate += rate(row.fundingRate);
    cur.premium += rate(row.premium);
    cur.paid += usdOf(row.paid);
    cur.lastId = row.id;
    this.fundingPeriods.set(row.coin, cur);
    return out;
  }
}
