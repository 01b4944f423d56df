// The embedded history store: its own level database beside the chain's (`<data>/history`).
// Keys sort by market then time then id in fixed-width hex, so every newest-first page is one
// reverse range read. Candles are kept 256 to a value (one interval's consecutive slots): a
// month of 1-minute candles is 169 reads instead of 43,200.
import { Level } from 'level';
import type {
  BookSnapshotRow, CandleRow, CoinDailyRow, DailyStatsRow, FundingRow, LiquidationRow, OpenInterestRow, RangeQuery, StatsTotals,
  TradeRow, TransferRow,
} from '../../rpc/index.ts';
import { addDecimals, GROWING_STORE_OPTIONS, sublevelPrefix, writeBatch } from '../../primitives/index.ts';
import { CANDLE_INTERVALS } from '../candles.ts';
import { CANDLE_BUCKET_SLOTS, candleLine, candleOfLine, lineTime, takeCandleLines } from './candle-line.ts';
import { packTrades, unpackTrades } from './trade-pack.ts';
import type { CoinHourRow, HistoryBatch, HistoryStore } from './store.ts';


const hex = (n: number) => n.toString(16).padStart(14, '0');
/** The last key of a prefix's range: '~' sorts after every hex digit and '!'. */
const END = '~';

/**
 * The keys of `prefix`'s entries with start <= time <= end, below the cursor when there is one:
 * keys are `prefix + hex(time) + "!" + hex(id)`.
 */
function rangeKeys(prefix: string, q: RangeQuery): { gte: string; lt: string } {
  let lt = `${prefix}${hex(q.end)}!${END}`;
  if (q.before !== null) {
    const b = `${prefix}${hex(q.before.time)}!${hex(q.before.id)}`;
    if (b < lt) lt = b;
  }
  return { gte: `${prefix}${hex(Math.max(0, q.start))}`, lt };
}

interface Clearable {
  clear(range: { gte: string; lt: string }): Promise<void>;
  keys(range: { gt: string; limit: number }): { all(): Promise<string[]> };
}


const ZERO_TOTALS: StatsTotals = { users: 0, volume: '0', deposits: '0', withdrawals: '0' };

export class LevelHistoryStore implements HistoryStore {
  readonly writable = true;
  private readonly db: Level<string, unknown>;
  private readonly meta;
  private readonly tradeRows;
  private readonly candleBuckets;
  private readonly fundingRows;
  private readonly liqs;
  private readonly oi;
  private readonly books;
  private readonly xfers;
  private readonly daily;
  private readonly coinDaily;
  private readonly hourly;
  private readonly users;
  private readonly dayUsers;
  /** The bucket each (coin, interval) last wrote: candles change in their newest bucket. */
  private readonly openBuckets = new Map<string, { key: string; lines: string[] }>();

  constructor(readonly path: string) {
    this.db = new Level<string, unknown>(path, { ...GROWING_STORE_OPTIONS, valueEncoding: 'json' });
    const sub = <V>(name: string) => this.db.sublevel<string, V>(name, { valueEncoding: 'json' });
    this.meta = sub<unknown>('meta');
    // Up to PACK_ROWS trades of a market and block an entry (trade-pack.ts), keyed by the first's time and id.
    this.tradeRows = sub<unknown>('t');
    // A bucket is text: its candle lines (`t,o,h,l,c,v,n`) oldest first, joined by newlines.
    this.candleBuckets = this.db.sublevel<string, string>('c', { valueEncoding: 'utf8' });
    this.fundingRows = sub<FundingRow>('f');
    this.liqs = sub<LiquidationRow>('l');
    this.oi = sub<OpenInterestRow>('o');
    this.books = sub<BookSnapshotRow>('b');
    this.xfers = sub<TransferRow>('x');
    this.daily = sub<DailyStatsRow>('d');
    this.coinDaily = sub<CoinDailyRow>('cd');
    this.hourly = sub<CoinHourRow>('h');
    this.users = sub<number>('u');
    this.dayUsers = sub<number>('du');
  }

  open(): Promise<void> {
    return this.db.open();
  }

  close(): Promise<void> {
    return this.db.close();
  }

  async indexedHeight(): Promise<number> {
    return ((await this.meta.get('height')) as number | undefined) ?? 0;
  }

  async totals(): Promise<StatsTotals> {
    return ((await this.meta.get('totals')) as StatsTotals | undefined) ?? ZERO_TOTALS;
  }

  async write(b: HistoryBatch): Promise<void> {
    const candles = await this.candleWrites(b.candles);
    // Written as the sublevels' encodings store them: JSON text, and the buckets' text as is.
    await writeBatch(this.db as never, (batch) => {
      const put = (sublevel: object, key: string, value: unknown) => batch.put(
        sublevelPrefix(sublevel) + key,
        sublevel === this.candleBuckets ? (value as string) : JSON.stringify(value),
      );
      const tradesPrefix = sublevelPrefix(this.tradeRows);
      for (const p of packTrades(b.trades)) batch.put(`${tradesPrefix}${p.coin}!${hex(p.time)}!${hex(p.firstId)}`, p.text);
      for (const [key, lines] of candles) put(this.candleBuckets, key, lines.join('\n'));
      for (const f of b.funding) put(this.fundingRows, `${f.coin}!${f.interval}!${hex(f.time)}!${hex(f.id)}`, f);
      for (const l of b.liquidations) {
        put(this.liqs, `${l.coin}!${hex(l.time)}!${hex(l.id)}`, l);
        put(this.liqs, `*!${hex(l.time)}!${hex(l.id)}`, l);
      }
      for (const o of b.openInterest) put(this.oi, `${o.coin}!${hex(o.time)}!${hex(o.id)}`, o);
      for (const s of b.books) put(this.books, `${s.coin}!${hex(s.time)}!${hex(s.id)}`, s);
      for (const x of b.transfers) {
        const group = x.type === 'deposit' ? 'deposit' : 'withdraw';
        put(this.xfers, `${group}!${x.user}!${hex(x.time)}!${hex(x.id)}`, x);
        put(this.xfers, `${group}!*!${hex(x.time)}!${hex(x.id)}`, x);
      }
      for (const d of b.daily) put(this.daily, hex(d.day), d);
      for (const d of b.coinDaily) put(this.coinDaily, `${hex(d.day)}!${d.coin}`, d);
      for (const h of b.coinHourly) put(this.hourly, `${hex(h.hour)}!${h.coin}`, h);
      for (const u of b.newUsers) put(this.users, u.user, u.day);
      for (const u of b.dayUsers) put(this.dayUsers, `${hex(u.day)}!${u.user}`, 1);
      put(this.meta, 'totals', b.totals);
      put(this.meta, 'height', b.height);
    }, false);
  }

  /** The buckets the changed candles land in, each read once (or taken from the open bucket) and merged. */
  private async candleWrites(candles: readonly CandleRow[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    for (const c of candles) {
      const ms = CANDLE_INTERVALS[c.i] as number;
      const span = ms * CANDLE_BUCKET_SLOTS;
      const key = `${c.s}!${c.i}!${hex(Math.floor(c.t / span) * span)}`;
      let bucket = out.get(key);
      if (bucket === undefined) {
        const open = this.openBuckets.get(`${c.s}!${c.i}`);
        if (open?.key === key) bucket = open.lines;
        else {
          const stored = (await this.candleBuckets.get(key)) as string | undefined;
          bucket = stored === undefined || stored === '' ? [] : stored.split('\n');
        }
        out.set(key, bucket);
        this.openBuckets.set(`${c.s}!${c.i}`, { key, lines: bucket });
      }
      const line = candleLine(c);
      // Candles arrive in time order: a change is to the last slot or a new last slot.
      const last = bucket[bucket.length - 1];
      const lastT = last === undefined ? -1 : lineTime(last);
      if (lastT === c.t) bucket[bucket.length - 1] = line;
      else if (lastT < c.t) bucket.push(line);
      else {
        const i = bucket.findIndex((x) => lineTime(x) >= c.t);
        if (lineTime(bucket[i] as string) === c.t) bucket[i] = line;
        else bucket.splice(i, 0, line);
      }
    }
    return out;
  }

  async prune(cutoff: { books: number; openInterest: number }): Promise<void> {
    for (const [sub, before] of [[this.books, cutoff.books], [this.oi, cutoff.openInterest]] as const) {
      // Keys start with the coin: clear each coin's range below the cutoff.
      const s = sub as unknown as Clearable;
      for (const coin of await this.coinsOf(s)) await s.clear({ gte: `${coin}!`, lt: `${coin}!${hex(before)}` });
    }
  }

  /** The coins a sublevel keyed `coin!...` holds: one seek per coin. */
  private async coinsOf(sub: Clearable): Promise<string[]> {
    const coins: string[] = [];
    let from = '';
    for (;;) {
      const keys = await sub.keys({ gt: from, limit: 1 }).all();
      const k = keys[0];
      if (k === undefined) return coins;
      const coin = k.slice(0, k.indexOf('!'));
      coins.push(coin);
      from = `${coin}!${END}`;
    }
  }

  async knownUsers(users: readonly string[]): Promise<Set<string>> {
    const found = await this.users.getMany([...users]);
    return new Set(users.filter((_, i) => found[i] !== undefined));
  }

  async usersOfDay(day: number): Promise<string[]> {
    const prefix = `${hex(day)}!`;
    return (await this.dayUsers.keys({ gt: prefix, lt: `${prefix}${END}` }).all()).map((k) => k.slice(prefix.length));
  }

  async lastCandle(coin: string, interval: string): Promise<CandleRow | null> {
    const line = (await this.candles(coin, interval, { start: 0, end: Number.MAX_SAFE_INTEGER, before: null, limit: 1 }))[0];
    return line === undefined ? null : candleOfLine(line, coin, interval);
  }

  async coinHour(coin: string, hour: number): Promise<CoinHourRow | null> {
    return ((await this.hourly.get(`${hex(hour)}!${coin}`)) as CoinHourRow | undefined) ?? null;
  }

  /** Newest first within `prefix`, by (time, id). */
  private async range<T>(sub: { values(o: object): { all(): Promise<unknown[]> } }, prefix: string, q: RangeQuery): Promise<T[]> {
    return (await sub.values({ ...rangeKeys(prefix, q), reverse: true, limit: q.limit }).all()) as T[];
  }

  /** As `range`, over entries of several trades: an entry holding the cursor's trade is read from the row before it. */
  async trades(coin: string, q: RangeQuery): Promise<TradeRow[]> {
    if (q.limit === 0) return [];
    const before = q.before;
    const out: TradeRow[] = [];
    const limit = Number.isInteger(q.limit) && q.limit >= 0 ? q.limit : Infinity; // as LevelDB's iterators read a limit
    const it = this.tradeRows.values({ ...rangeKeys(`${coin}!`, q), reverse: true });
    try {
      for (;;) {
        // An entry holds at least one row: the rows still wanted bound the entries to read.
        const entries = await it.nextv(Math.min(1000, limit - out.length));
        if (entries.length === 0) break;
        for (const entry of entries) {
          const rows = unpackTrades(coin, entry);
          for (let i = rows.length - 1; i >= 0; i--) {
            const r = rows[i] as TradeRow;
            if (before !== null && (r.time > before.time || (r.time === before.time && r.id >= before.id))) continue;
            out.push(r);
            if (out.length >= limit) return out;
          }
        }
      }
    } finally {
      await it.close();
    }
    return out;
  }

  funding(coin: string, interval: '1h' | '8h', q: RangeQuery): Promise<FundingRow[]> {
    return this.range<FundingRow>(this.fundingRows, `${coin}!${interval}!`, q);
  }

  liquidations(coin: string | null, q: RangeQuery): Promise<LiquidationRow[]> {
    return this.range<LiquidationRow>(this.liqs, `${coin ?? '*'}!`, q);
  }

  openInterest(coin: string, q: RangeQuery): Promise<OpenInterestRow[]> {
    return this.range<OpenInterestRow>(this.oi, `${coin}!`, q);
  }

  bookSnapshots(coin: string, q: RangeQuery): Promise<BookSnapshotRow[]> {
    return this.range<BookSnapshotRow>(this.books, `${coin}!`, q);
  }

  transfers(type: 'deposit' | 'withdraw', user: string | null, q: RangeQuery): Promise<TransferRow[]> {
    return this.range<TransferRow>(this.xfers, `${type}!${user ?? '*'}!`, q);
  }

  async candles(coin: string, interval: string, q: RangeQuery): Promise<string[]> {
    const ms = CANDLE_INTERVALS[interval];
    if (ms === undefined || q.limit <= 0) return [];
    // Candles opening at or before `top`, at or after `q.start`.
    const top = Math.min(q.end, q.before === null ? Number.MAX_SAFE_INTEGER : q.before.time - 1);
    if (top < q.start) return [];
    const span = ms * CANDLE_BUCKET_SLOTS;
    const prefix = `${coin}!${interval}!`;
    const out: string[] = [];
    const it = this.candleBuckets.values({ gte: `${prefix}${hex(Math.floor(Math.max(0, q.start) / span) * span)}`, lte: `${prefix}${hex(Math.floor(top / span) * span)}`, reverse: true });
    try {
      for (;;) {
        const buckets = await it.nextv(16);
        if (buckets.length === 0) break;
        for (const bucket of buckets) if (takeCandleLines(bucket, q.start, top, q.limit, out)) return out;
      }
    } finally {
      await it.close();
    }
    return out;
  }

  dailyStats(start: number, end: number): Promise<DailyStatsRow[]> {
    return this.daily.values({ gte: hex(Math.max(0, start)), lte: hex(end) }).all();
  }

  coinDailyStats(start: number, end: number): Promise<CoinDailyRow[]> {
    return this.coinDaily.values({ gte: hex(Math.max(0, start)), lte: `${hex(end)}!${END}` }).all();
  }

  async volumeSince(since: number): Promise<Map<string, { volume: string; trades: number }>> {
    const hour = Math.floor(since / 3_600_000) * 3_600_000;
    const out = new Map<string, { volume: string; trades: number }>();
    for (const h of await this.hourly.values({ gte: hex(hour) }).all()) {
      const acc = out.get(h.coin);
      out.set(h.coin, acc === undefined ? { volume: h.volume, trades: h.trades } : { volume: addDecimals(acc.volume, h.volume), trades: acc.trades + h.trades });
    }
    return out;
  }
}
