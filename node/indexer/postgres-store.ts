// The history store on PostgreSQL (`--indexer-db postgres://...`): real tables with typed
// columns (node/indexer/migrations/), answering every query exactly as the level store does.
//
// One writer per database: `open()` takes a session advisory lock on a dedicated connection and
// writes go through that connection; a store that finds the lock held only reads, so several
// nodes' REST servers can serve one database. Each batch is one transaction of bulk statements
// (one `INSERT ... SELECT FROM unnest(...)` per table), the watermark in the same transaction.
// Rows with ids are inserted `ON CONFLICT DO NOTHING` and candles and aggregates upserted whole,
// so writing a batch again changes nothing.
//
// Decimals are `numeric` (no typmod) and read back as text: PostgreSQL keeps the digits a numeric
// was written with, so a canonical decimal ("0.5", "-12.034", "0.50") comes back as the same
// string. Text that would not ("+1", ".5", "1e3", "007", "-0") is refused on write rather than
// silently rewritten. int8 columns come back as numbers (times, ids, heights, counts: all safe
// integers).
import type pg from 'pg';
import type {
  BookLevelRow, BookSnapshotRow, CandleRow, CoinDailyRow, DailyStatsRow, FundingRow, LiquidationRow, OpenInterestRow, RangeQuery,
  StatsTotals, TradeRow, TransferRow,
} from '../../rpc/index.ts';
import { addDecimals } from '../../primitives/index.ts';
import { CANDLE_INTERVALS } from '../candles.ts';
import { CANDLE_BUCKET_SLOTS, candleOfLine, takeCandleLines } from './candle-line.ts';
import { migrate } from './pg-migrate.ts';
import type { CoinHourRow, HistoryBatch, HistoryStore } from './store.ts';

/** pg_try_advisory_lock key of the one writer ('svc-hist' as 8 bytes). */
export const WRITER_LOCK = 0x7376632d68697374n;

const ZERO_TOTALS: StatsTotals = { users: 0, volume: '0', deposits: '0', withdrawals: '0' };
const INT8_OID = 20;
/** Candle slots joined into one result row. */

/** int8 as a JS number (every int8 this store holds is a safe integer); everything else as pg does. */
const types = (driver: typeof pg) => ({
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary' ? Number : driver.types.getTypeParser(oid, format ?? 'text')) as typeof pg.types.getTypeParser,
});

/** A decimal that `numeric` gives back unchanged: optional '-', no leading zeros, no exponent, not negative zero. */
const CANONICAL = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;
const NEGATIVE_ZERO = /^-0(?:\.0+)?$/;

function decimals(table: string, column: string, values: readonly string[]): string[] {
  for (const v of values) {
    if (typeof v !== 'string' || !CANONICAL.test(v) || NEGATIVE_ZERO.test(v)) {
      throw new Error(`history store: ${table}.${column} is not a canonical decimal: ${JSON.stringify(v)}`);
    }
  }
  return values as string[];
}

/** Clamps a bound to what a bigint parameter takes (the level store's bounds are integers). */
const bigintParam = (n: number, round: (x: number) => number): number =>
  Number.isNaN(n) ? 0 : Math.max(-Number.MAX_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, round(n)));

/**
 * The level store's limit: an integer >= 0 caps the rows; anything else (negative, fractional,
 * NaN, Infinity) means no limit, as level iterators read `limit`. Null is SQL's LIMIT ALL.
 */
const rangeLimit = (limit: number): number | null => (Number.isInteger(limit) && limit >= 0 ? limit : null);

/** The last of each key wins (a batch may change a candle or an aggregate more than once). */
function lastByKey<T>(rows: readonly T[], key: (r: T) => string): T[] {
  if (rows.length < 2) return rows as T[];
  const m = new Map<string, T>();
  for (const r of rows) {
    const k = key(r);
    m.delete(k);
    m.set(k, r);
  }
  return [...m.values()];
}

interface Where {
  /** SQL conditions on the partition, with $1.. placeholders. */
  readonly sql: string;
  readonly params: readonly unknown[];
}

export class PostgresHistoryStore implements HistoryStore {
  private pool: pg.Pool | null = null;
  /** The connection holding the writer lock, through which writes go; null when read-only. */
  private writer: pg.Client | null = null;
  private lost: Error | null = null;
  /** The writer's transactions, one after another (they share its connection). */
  private writes: Promise<unknown> = Promise.resolve();

  /** `poolSize`: connections for reads. */
  constructor(readonly url: string, private readonly opts: { poolSize?: number } = {}) {}

  get writable(): boolean {
    return this.writer !== null && this.lost === null;
  }

  async open(): Promise<void> {
    // `pg` loads here, not with the module: the node's public surface exports this store, and
    // every node process (nearly all with the level store) would load the driver at start.
    const { default: driver } = await import('pg');
    const parsers = types(driver);
    const pool = new driver.Pool({ connectionString: this.url, max: this.opts.poolSize ?? 4, types: parsers });
    pool.on('error', () => {}); // an idle client's connection dropped: the pool replaces it
    const client = new driver.Client({ connectionString: this.url, types: parsers });
    // The lock lives as long as this connection: once it errors or ends, this store no longer writes.
    client.on('error', (e) => {
      this.lost ??= e;
    });
    client.on('end', () => {
      this.lost ??= new Error('connection closed');
    });
    try {
      await client.connect();
      await migrate(client);
      const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [WRITER_LOCK.toString()]);
      if (rows[0]?.locked === true) this.writer = client;
      else await client.end();
      this.pool = pool;
    } catch (e) {
      await client.end().catch(() => {});
      await pool.end().catch(() => {});
      throw e;
    }
  }

  async close(): Promise<void> {
    const writer = this.writer;
    const pool = this.pool;
    this.writer = null;
    this.pool = null;
    await writer?.end().catch(() => {});
    await pool?.end();
  }

  private get db(): pg.Pool {
    if (this.pool === null) throw new Error('history store: not open');
    return this.pool;
  }

  private writerClient(): pg.Client {
    if (this.writer === null) throw new Error('history store: read-only (another process holds the writer lock on this database)');
    if (this.lost !== null) throw new Error(`history store: lost the writer connection (and its lock): ${this.lost.message}`);
    return this.writer;
  }

  async indexedHeight(): Promise<number> {
    const { rows } = await this.db.query<{ height: number }>({ name: 'h-height', text: 'SELECT height FROM meta' });
    return rows[0]?.height ?? 0;
  }

  async totals(): Promise<StatsTotals> {
    const { rows } = await this.db.query<StatsTotals>({ name: 'h-totals', text: 'SELECT users, volume, deposits, withdrawals FROM meta' });
    return rows[0] ?? ZERO_TOTALS;
  }

  async write(b: HistoryBatch): Promise<void> {
    this.writerClient();
    const statements = this.statements(b);
    await this.transaction(statements);
  }

  /**
   * Runs statements in one transaction on the writer's connection, after the transactions
   * already asked for: two writes not awaited one by one must not share a BEGIN.
   */
  private transaction(statements: readonly pg.QueryConfig[]): Promise<void> {
    const run = async () => {
      const c = this.writerClient();
      try {
        await c.query('BEGIN');
        for (const s of statements) await c.query(s);
        await c.query('COMMIT');
      } catch (e) {
        // The connection's 'end' may come after the failed query's answer: a fatal error, or a
        // ROLLBACK that fails too, means the connection (and with it the lock) is gone now.
        if ((e as { severity?: string }).severity === 'FATAL') this.lost ??= e as Error;
        await c.query('ROLLBACK').catch((r: Error) => {
          this.lost ??= r;
        });
        throw e;
      }
    };
    const done = this.writes.then(run, run);
    this.writes = done.catch(() => {});
    return done;
  }

  /** The batch's statements: validated and serialized before the transaction opens. */
  private statements(b: HistoryBatch): pg.QueryConfig[] {
    const out: pg.QueryConfig[] = [];
    const add = (name: string, text: string, values: unknown[]) => out.push({ name, text, values });
    const col = <T, V>(rows: readonly T[], f: (r: T) => V): V[] => rows.map(f);
    if (b.trades.length > 0) {
      const t = b.trades;
      add('w-trades', `INSERT INTO trades (id, coin, time, height, tid, px, sz, side, hash, buyer, seller, liquidation)
        SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[], $6::numeric[], $7::numeric[], $8::text[],
          $9::text[], $10::text[], $11::text[], $12::boolean[])
        ON CONFLICT DO NOTHING`, [
        col(t, (r) => r.id), col(t, (r) => r.coin), col(t, (r) => r.time), col(t, (r) => r.height), col(t, (r) => r.tid),
        decimals('trades', 'px', col(t, (r) => r.px)), decimals('trades', 'sz', col(t, (r) => r.sz)), col(t, (r) => r.side),
        col(t, (r) => r.hash), col(t, (r) => r.buyer), col(t, (r) => r.seller), col(t, (r) => r.liquidation),
      ]);
    }
    if (b.candles.length > 0) {
      const k = lastByKey(b.candles, (r) => `${r.s}\0${r.i}\0${r.t}`);
      add('w-candles', `INSERT INTO candles (coin, interval, t, o, h, l, c, v, n)
        SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::numeric[], $5::numeric[], $6::numeric[], $7::numeric[], $8::numeric[], $9::bigint[])
        ON CONFLICT (coin, interval, t) DO UPDATE SET o = EXCLUDED.o, h = EXCLUDED.h, l = EXCLUDED.l, c = EXCLUDED.c, v = EXCLUDED.v, n = EXCLUDED.n`, [
        col(k, (r) => r.s), col(k, (r) => r.i), col(k, (r) => r.t), decimals('candles', 'o', col(k, (r) => r.o)),
        decimals('candles', 'h', col(k, (r) => r.h)), decimals('candles', 'l', col(k, (r) => r.l)), decimals('candles', 'c', col(k, (r) => r.c)),
        decimals('candles', 'v', col(k, (r) => r.v)), col(k, (r) => r.n),
      ]);
      // The buckets those candles fall in, rebuilt from the table (after the upsert above).
      const buckets = new Map<string, { coin: string; interval: string; bucket: number; end: number }>();
      for (const c of k) {
        const span = (CANDLE_INTERVALS[c.i] as number) * CANDLE_BUCKET_SLOTS;
        const bucket = c.t - (c.t % span);
        buckets.set(`${c.s}\0${c.i}\0${bucket}`, { coin: c.s, interval: c.i, bucket, end: bucket + span });
      }
      const u = [...buckets.values()];
      add('w-candle-buckets', `INSERT INTO candle_buckets (coin, interval, bucket, lines)
        SELECT k.coin, k.interval, k.bucket,
          (SELECT string_agg(c.line, E'\\n' ORDER BY c.t) FROM candles c WHERE c.coin = k.coin AND c.interval = k.interval AND c.t >= k.bucket AND c.t < k.bucket_end)
        FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[]) AS k(coin, interval, bucket, bucket_end)
        ON CONFLICT (coin, interval, bucket) DO UPDATE SET lines = EXCLUDED.lines`, [
        col(u, (r) => r.coin), col(u, (r) => r.interval), col(u, (r) => r.bucket), col(u, (r) => r.end),
      ]);
    }
    if (b.funding.length > 0) {
      const f = b.funding;
      add('w-funding', `INSERT INTO funding (id, coin, interval, time, height, funding_rate, premium, paid)
        SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::numeric[], $7::numeric[], $8::numeric[])
        ON CONFLICT DO NOTHING`, [
        col(f, (r) => r.id), col(f, (r) => r.coin), col(f, (r) => r.interval), col(f, (r) => r.time), col(f, (r) => r.height),
        decimals('funding', 'funding_rate', col(f, (r) => r.fundingRate)), decimals('funding', 'premium', col(f, (r) => r.premium)),
        decimals('funding', 'paid', col(f, (r) => r.paid)),
      ]);
    }
    if (b.liquidations.length > 0) {
      const l = b.liquidations;
      add('w-liqs', `INSERT INTO liquidations (id, coin, time, height, address, szi, leverage_type, method, account_value, maintenance_margin, deficit)
        SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bigint[], $5::text[], $6::numeric[], $7::text[], $8::text[], $9::numeric[],
          $10::numeric[], $11::numeric[])
        ON CONFLICT DO NOTHING`, [
        col(l, (r) => r.id), col(l, (r) => r.coin), col(l, (r) => r.time), col(l, (r) => r.height), col(l, (r) => r.user),
        decimals('liquidations', 'szi', col(l, (r) => r.szi)), col(l, (r) => r.leverageType), col(l, (r) => r.method),
        decimals('liquidations', 'account_value', col(l, (r) => r.accountValue)),
        decimals('liquidations', 'maintenance_margin', col(l, (r) => r.maintenanceMargin)),
        decimals('liquidations', 'deficit', col(l, (r) => r.deficit)),
      ]);
    }
    if (b.openInterest.length > 0) {
      const o = b.openInterest;
      add('w-oi', `INSERT INTO open_interest (id, coin, time, height, open_interest, mark_px)
        SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bigint[], $5::numeric[], $6::numeric[])
        ON CONFLICT DO NOTHING`, [
        col(o, (r) => r.id), col(o, (r) => r.coin), col(o, (r) => r.time), col(o, (r) => r.height),
        decimals('open_interest', 'open_interest', col(o, (r) => r.openInterest)), decimals('open_interest', 'mark_px', col(o, (r) => r.markPx)),
      ]);
    }
    if (b.books.length > 0) {
      const s = b.books;
      const levels = (side: 'bids' | 'asks') => col(s, (r) => {
        for (const l of r[side]) decimals('book_snapshots', side, [l.px, l.sz]);
        return JSON.stringify(r[side].map((l) => ({ px: l.px, sz: l.sz, n: l.n })));
      });
      add('w-books', `INSERT INTO book_snapshots (id, coin, time, height, bids, asks)
        SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bigint[], $5::jsonb[], $6::jsonb[])
        ON CONFLICT DO NOTHING`, [
        col(s, (r) => r.id), col(s, (r) => r.coin), col(s, (r) => r.time), col(s, (r) => r.height), levels('bids'), levels('asks'),
      ]);
    }
    if (b.transfers.length > 0) {
      const x = b.transfers;
      add('w-xfers', `INSERT INTO transfers (id, address, type, time, height, usdc, fee, chain_id, hash)
        SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::numeric[], $7::numeric[], $8::bigint[], $9::text[])
        ON CONFLICT DO NOTHING`, [
        col(x, (r) => r.id), col(x, (r) => r.user), col(x, (r) => r.type), col(x, (r) => r.time), col(x, (r) => r.height),
        decimals('transfers', 'usdc', col(x, (r) => r.usdc)), decimals('transfers', 'fee', col(x, (r) => r.fee)), col(x, (r) => r.chainId),
        col(x, (r) => r.hash),
      ]);
    }
    if (b.daily.length > 0) {
      const d = lastByKey(b.daily, (r) => String(r.day));
      add('w-daily', `INSERT INTO daily_stats (day, volume, trades, users, new_users, deposits, withdrawals)
        SELECT * FROM unnest($1::bigint[], $2::numeric[], $3::bigint[], $4::bigint[], $5::bigint[], $6::numeric[], $7::numeric[])
        ON CONFLICT (day) DO UPDATE SET volume = EXCLUDED.volume, trades = EXCLUDED.trades, users = EXCLUDED.users,
          new_users = EXCLUDED.new_users, deposits = EXCLUDED.deposits, withdrawals = EXCLUDED.withdrawals`, [
        col(d, (r) => r.day), decimals('daily_stats', 'volume', col(d, (r) => r.volume)), col(d, (r) => r.trades), col(d, (r) => r.users),
        col(d, (r) => r.newUsers), decimals('daily_stats', 'deposits', col(d, (r) => r.deposits)),
        decimals('daily_stats', 'withdrawals', col(d, (r) => r.withdrawals)),
      ]);
    }
    if (b.coinDaily.length > 0) {
      const d = lastByKey(b.coinDaily, (r) => `${r.day}\0${r.coin}`);
      add('w-coin-daily', `INSERT INTO coin_daily_stats (day, coin, volume, trades, open_interest, mark_px, funding_sum)
        SELECT * FROM unnest($1::bigint[], $2::text[], $3::numeric[], $4::bigint[], $5::numeric[], $6::numeric[], $7::numeric[])
        ON CONFLICT (day, coin) DO UPDATE SET volume = EXCLUDED.volume, trades = EXCLUDED.trades, open_interest = EXCLUDED.open_interest,
          mark_px = EXCLUDED.mark_px, funding_sum = EXCLUDED.funding_sum`, [
        col(d, (r) => r.day), col(d, (r) => r.coin), decimals('coin_daily_stats', 'volume', col(d, (r) => r.volume)), col(d, (r) => r.trades),
        decimals('coin_daily_stats', 'open_interest', col(d, (r) => r.openInterest)), decimals('coin_daily_stats', 'mark_px', col(d, (r) => r.markPx)),
        decimals('coin_daily_stats', 'funding_sum', col(d, (r) => r.fundingSum)),
      ]);
    }
    if (b.coinHourly.length > 0) {
      const h = lastByKey(b.coinHourly, (r) => `${r.hour}\0${r.coin}`);
      add('w-coin-hourly', `INSERT INTO coin_hourly_stats (hour, coin, volume, trades)
        SELECT * FROM unnest($1::bigint[], $2::text[], $3::numeric[], $4::bigint[])
        ON CONFLICT (hour, coin) DO UPDATE SET volume = EXCLUDED.volume, trades = EXCLUDED.trades`, [
        col(h, (r) => r.hour), col(h, (r) => r.coin), decimals('coin_hourly_stats', 'volume', col(h, (r) => r.volume)), col(h, (r) => r.trades),
      ]);
    }
    if (b.newUsers.length > 0) {
      add('w-users', `INSERT INTO users (address, first_day) SELECT * FROM unnest($1::text[], $2::bigint[]) ON CONFLICT DO NOTHING`,
        [col(b.newUsers, (r) => r.user), col(b.newUsers, (r) => r.day)]);
    }
    if (b.dayUsers.length > 0) {
      add('w-day-users', `INSERT INTO day_users (day, address) SELECT * FROM unnest($1::bigint[], $2::text[]) ON CONFLICT DO NOTHING`,
        [col(b.dayUsers, (r) => r.day), col(b.dayUsers, (r) => r.user)]);
    }
    const t = b.totals;
    add('w-meta', `INSERT INTO meta (singleton, height, users, volume, deposits, withdrawals) VALUES (true, $1, $2, $3, $4, $5)
      ON CONFLICT (singleton) DO UPDATE SET height = EXCLUDED.height, users = EXCLUDED.users, volume = EXCLUDED.volume,
        deposits = EXCLUDED.deposits, withdrawals = EXCLUDED.withdrawals`, [
      b.height, t.users, ...decimals('meta', 'totals', [t.volume, t.deposits, t.withdrawals]),
    ]);
    return out;
  }

  async prune(cutoff: { books: number; openInterest: number }): Promise<void> {
    this.writerClient();
    await this.transaction([
      { text: 'DELETE FROM book_snapshots WHERE time < $1', values: [bigintParam(cutoff.books, Math.ceil)] },
      { text: 'DELETE FROM open_interest WHERE time < $1', values: [bigintParam(cutoff.openInterest, Math.ceil)] },
    ]);
  }

  async knownUsers(users: readonly string[]): Promise<Set<string>> {
    if (users.length === 0) return new Set();
    const { rows } = await this.db.query<{ address: string }>({ name: 'h-known', text: 'SELECT address FROM users WHERE address = ANY($1::text[])', values: [users] });
    const found = new Set(rows.map((r) => r.address));
    return new Set(users.filter((u) => found.has(u)));
  }

  async usersOfDay(day: number): Promise<string[]> {
    const { rows } = await this.db.query<{ address: string }>({
      name: 'h-day-users', text: 'SELECT address FROM day_users WHERE day = $1 ORDER BY address', values: [bigintParam(day, Math.floor)],
    });
    return rows.map((r) => r.address);
  }

  async lastCandle(coin: string, interval: string): Promise<CandleRow | null> {
    const line = (await this.candles(coin, interval, { start: 0, end: Number.MAX_SAFE_INTEGER, before: null, limit: 1 }))[0];
    return line === undefined ? null : candleOfLine(line, coin, interval);
  }

  async coinHour(coin: string, hour: number): Promise<CoinHourRow | null> {
    const { rows } = await this.db.query<CoinHourRow>({
      name: 'h-coin-hour', text: 'SELECT hour, coin, volume, trades FROM coin_hourly_stats WHERE hour = $1 AND coin = $2', values: [bigintParam(hour, Math.floor), coin],
    });
    return rows[0] ?? null;
  }

  /**
   * Newest first by (time, id) within a partition: start <= time <= end, (time, id) < before.
   * One backward scan of the table's (partition, time, id) index.
   */
  private async range<T extends pg.QueryResultRow>(name: string, select: string, table: string, where: Where, q: RangeQuery): Promise<T[]> {
    const limit = rangeLimit(q.limit);
    if (limit === 0) return [];
    const p = where.params.length;
    const params: unknown[] = [...where.params, bigintParam(Math.max(0, q.start), Math.ceil), bigintParam(q.end, Math.floor), limit];
    let text = `SELECT ${select} FROM ${table} WHERE ${where.sql} AND time >= $${p + 1} AND time <= $${p + 2}`;
    if (q.before !== null) {
      params.push(bigintParam(q.before.time, Math.floor), bigintParam(q.before.id, Math.floor));
      text += ` AND (time, id) < ($${p + 4}, $${p + 5})`;
      name += '-before';
    }
    text += ` ORDER BY time DESC, id DESC LIMIT $${p + 3}`;
    const { rows } = await this.db.query<T>({ name, text, values: params });
    return rows;
  }

  trades(coin: string, q: RangeQuery): Promise<TradeRow[]> {
    return this.range<TradeRow>('r-trades', 'id, coin, time, height, tid, px, sz, side, hash, buyer, seller, liquidation', 'trades',
      { sql: 'coin = $1', params: [coin] }, q);
  }

  funding(coin: string, interval: '1h' | '8h', q: RangeQuery): Promise<FundingRow[]> {
    return this.range<FundingRow>('r-funding', 'id, coin, interval, time, height, funding_rate AS "fundingRate", premium, paid', 'funding',
      { sql: 'coin = $1 AND interval = $2', params: [coin, interval] }, q);
  }

  liquidations(coin: string | null, q: RangeQuery): Promise<LiquidationRow[]> {
    const select = `id, coin, time, height, address AS "user", szi, leverage_type AS "leverageType", method, account_value AS "accountValue",
      maintenance_margin AS "maintenanceMargin", deficit`;
    return coin === null
      ? this.range<LiquidationRow>('r-liqs-all', select, 'liquidations', { sql: 'true', params: [] }, q)
      : this.range<LiquidationRow>('r-liqs', select, 'liquidations', { sql: 'coin = $1', params: [coin] }, q);
  }

  openInterest(coin: string, q: RangeQuery): Promise<OpenInterestRow[]> {
    return this.range<OpenInterestRow>('r-oi', 'id, coin, time, height, open_interest AS "openInterest", mark_px AS "markPx"', 'open_interest',
      { sql: 'coin = $1', params: [coin] }, q);
  }

  async bookSnapshots(coin: string, q: RangeQuery): Promise<BookSnapshotRow[]> {
    const rows = await this.range<BookSnapshotRow>('r-books', 'id, coin, time, height, bids, asks', 'book_snapshots', { sql: 'coin = $1', params: [coin] }, q);
    // jsonb keeps an object's keys in its own order: rebuild each level as the indexer wrote it.
    const levels = (ls: readonly BookLevelRow[]) => ls.map((l) => ({ px: l.px, sz: l.sz, n: l.n }));
    return rows.map((r) => ({ id: r.id, coin: r.coin, time: r.time, height: r.height, bids: levels(r.bids), asks: levels(r.asks) }));
  }

  transfers(type: 'deposit' | 'withdraw', user: string | null, q: RangeQuery): Promise<TransferRow[]> {
    const select = 'id, address AS "user", type, time, height, usdc, fee, chain_id AS "chainId", hash';
    return user === null
      ? this.range<TransferRow>('r-xfers-all', select, 'transfers', { sql: 'direction = $1', params: [type] }, q)
      : this.range<TransferRow>('r-xfers', select, 'transfers', { sql: 'direction = $1 AND address = $2', params: [type, user] }, q);
  }

  /** Newest first, from the bucket rows (256 candle lines each), cut in the node as the level store does. */
  async candles(coin: string, interval: string, q: RangeQuery): Promise<string[]> {
    const ms = CANDLE_INTERVALS[interval];
    if (ms === undefined || q.limit <= 0) return [];
    const top = Math.min(q.end, q.before === null ? Number.MAX_SAFE_INTEGER : q.before.time - 1);
    if (top < q.start) return [];
    const span = ms * CANDLE_BUCKET_SLOTS;
    const from = Math.max(0, Math.ceil(q.start));
    const { rows } = await this.db.query<{ lines: string }>({
      name: 'r-candle-buckets',
      text: 'SELECT lines FROM candle_buckets WHERE coin = $1 AND interval = $2 AND bucket >= $3 AND bucket <= $4 ORDER BY bucket DESC',
      values: [coin, interval, from - (from % span), bigintParam(top - (top % span), Math.floor)],
    });
    const out: string[] = [];
    for (const { lines } of rows) if (takeCandleLines(lines, q.start, top, q.limit, out)) break;
    return out;
  }

  async dailyStats(start: number, end: number): Promise<DailyStatsRow[]> {
    const { rows } = await this.db.query<DailyStatsRow>({
      name: 'r-daily',
      text: `SELECT day, volume, trades, users, new_users AS "newUsers", deposits, withdrawals FROM daily_stats
        WHERE day >= $1 AND day <= $2 ORDER BY day`,
      values: [bigintParam(Math.max(0, start), Math.ceil), bigintParam(end, Math.floor)],
    });
    return rows;
  }

  async coinDailyStats(start: number, end: number): Promise<CoinDailyRow[]> {
    const { rows } = await this.db.query<CoinDailyRow>({
      name: 'r-coin-daily',
      text: `SELECT day, coin, volume, trades, open_interest AS "openInterest", mark_px AS "markPx", funding_sum AS "fundingSum"
        FROM coin_daily_stats WHERE day >= $1 AND day <= $2 ORDER BY day, coin`,
      values: [bigintParam(Math.max(0, start), Math.ceil), bigintParam(end, Math.floor)],
    });
    return rows;
  }

  async volumeSince(since: number): Promise<Map<string, { volume: string; trades: number }>> {
    const hour = Math.floor(since / 3_600_000) * 3_600_000;
    const { rows } = await this.db.query<CoinHourRow>({
      name: 'r-volume-since', text: 'SELECT coin, volume, trades FROM coin_hourly_stats WHERE hour >= $1 ORDER BY hour, coin', values: [bigintParam(hour, Math.floor)],
    });
    // Summed here, in the level store's order, with its addition: the same strings.
    const out = new Map<string, { volume: string; trades: number }>();
    for (const h of rows) {
      const acc = out.get(h.coin);
      out.set(h.coin, acc === undefined ? { volume: h.volume, trades: h.trades } : { volume: addDecimals(acc.volume, h.volume), trades: acc.trades + h.trades });
    }
    return out;
  }
}
