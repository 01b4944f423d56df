// The PostgreSQL history store answers every query exactly as the level store does: the same
// random batches (replayable: SEED=...) go into both, then every reader method is asked the same
// random questions. Also: a batch written twice changes nothing, pruning, one writer and many
// readers on one database, migrations applied once.
import { rm } from 'node:fs/promises';
import { isDeepStrictEqual } from 'node:util';
import pg from 'pg';
import t, { type Test } from 'tap';
import { addDecimals, formatScaled } from '../../primitives/index.ts';
import {
  HISTORY_MIGRATIONS, LevelHistoryStore, migrate, PostgresHistoryStore, type CoinHourRow, type HistoryBatch, type HistoryStore,
} from '../../node/index.ts';
import type {
  BookSnapshotRow, CandleRow, CoinDailyRow, DailyStatsRow, FundingRow, LiquidationRow, OpenInterestRow, RangeQuery, StatsTotals,
  TradeRow, TransferRow,
} from '../../rpc/index.ts';
import { mulberry32 } from '../support/exchange.ts';
import { tempDir } from '../support/node.ts';
import { startPostgres } from '../support/postgres.ts';
import { replaySeed } from '../support/seed.ts';

const MIN = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const T0 = 1_767_225_600_000 - 7 * MIN; // a few minutes before a midnight
const COINS = ['BTC', 'ETH', 'SOL', 'kPEPE'];
const INTERVALS: Record<string, number> = { '1m': MIN, '5m': 5 * MIN, '1h': HOUR, '8h': 8 * HOUR, '1d': DAY, '1w': 7 * DAY };

type Rng = () => number;
const int = (r: Rng, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
/** A canonical decimal with up to `d` decimals, negative when `signed` says so half the time. */
const dec = (r: Rng, max: number, d: number, signed = false) => formatScaled((signed && r() < 0.5 ? -1 : 1) * int(r, 0, max), d);
const hex = (r: Rng, bytes: number) => `0x${Array.from({ length: bytes }, () => int(r, 0, 255).toString(16).padStart(2, '0')).join('')}`;

/** Random but consistent history: ids and times increase, candles and aggregates are updated whole. */
function history(r: Rng, batches: number): HistoryBatch[] {
  const users = Array.from({ length: 12 }, () => hex(r, 20));
  const ids = { trade: 1, funding: 1, liq: 1, oi: 1, book: 1, xfer: 1 };
  let time = T0;
  let height = 1;
  const candles = new Map<string, CandleRow>();
  const daily = new Map<number, DailyStatsRow>();
  const coinDaily = new Map<string, CoinDailyRow>();
  const hourly = new Map<string, CoinHourRow>();
  const seen = new Set<string>();
  const seenOn = new Set<string>();
  let totals: StatsTotals = { users: 0, volume: '0', deposits: '0', withdrawals: '0' };
  const out: HistoryBatch[] = [];
  for (let b = 0; b < batches; b++) {
    const from = time;
    time += pick(r, [0, 1000, 20_000, MIN, 7 * MIN, 40 * MIN, 3 * HOUR]);
    height += int(r, 1, 4);
    const trades: TradeRow[] = [];
    const changed: CandleRow[] = [];
    const newUsers: { user: string; day: number }[] = [];
    const dayUsers: { user: string; day: number }[] = [];
    const touch = (user: string, t: number) => {
      const day = Math.floor(t / DAY) * DAY;
      if (!seen.has(user)) {
        seen.add(user);
        newUsers.push({ user, day });
        totals = { ...totals, users: totals.users + 1 };
      }
      if (!seenOn.has(`${day}|${user}`)) {
        seenOn.add(`${day}|${user}`);
        dayUsers.push({ user, day });
      }
    };
    let tt = from;
    for (let i = int(r, 0, 25); i > 0; i--) {
      tt = Math.min(time, tt + pick(r, [0, 0, 7, 1500, 30_000]));
      const coin = pick(r, COINS);
      const [buyer, seller] = [pick(r, users), pick(r, users)];
      const tr: TradeRow = {
        id: ids.trade++, coin, time: tt, height, tid: int(r, 1, 2 ** 40), px: dec(r, 5_000_000, 2), sz: dec(r, 100_000, 4),
        side: r() < 0.5 ? 'B' : 'A', hash: hex(r, 32), buyer: buyer as string, seller: seller as string, liquidation: r() < 0.1,
      };
      trades.push(tr);
      touch(tr.buyer, tt);
      touch(tr.seller, tt);
      const notional = formatScaled(BigInt(Math.round(Number(tr.px) * 100)) * BigInt(Math.round(Number(tr.sz) * 10_000)), 6);
      for (const [iv, ms] of Object.entries(INTERVALS)) {
        const ct = Math.floor(tt / ms) * ms;
        const k = `${coin}|${iv}`;
        const c = candles.get(k);
        const px = tr.px;
        const next: CandleRow = c === undefined || c.t !== ct
          ? { t: ct, T: ct + ms - 1, s: coin, i: iv, o: px, h: px, l: px, c: px, v: tr.sz, n: 1 }
          : {
            ...c, h: Number(px) > Number(c.h) ? px : c.h, l: Number(px) < Number(c.l) ? px : c.l, c: px, v: addDecimals(c.v, tr.sz), n: c.n + 1,
          };
        candles.set(k, next);
        changed.push(next); // a candle changed twice in a batch is listed twice: the last wins
      }
      const day = Math.floor(tt / DAY) * DAY;
      const d = daily.get(day) ?? { day, volume: '0', trades: 0, users: 0, newUsers: 0, deposits: '0', withdrawals: '0' };
      daily.set(day, { ...d, volume: addDecimals(d.volume, notional), trades: d.trades + 1, users: d.users + int(r, 0, 1), newUsers: d.newUsers + int(r, 0, 1) });
      const cd = coinDaily.get(`${day}|${coin}`) ?? { day, coin, volume: '0', trades: 0, openInterest: '0', markPx: '0', fundingSum: '0' };
      coinDaily.set(`${day}|${coin}`, { ...cd, volume: addDecimals(cd.volume, notional), trades: cd.trades + 1, openInterest: dec(r, 10 ** 7, 3), markPx: tr.px });
      const hour = Math.floor(tt / HOUR) * HOUR;
      const h = hourly.get(`${hour}|${coin}`) ?? { hour, coin, volume: '0', trades: 0 };
      hourly.set(`${hour}|${coin}`, { ...h, volume: addDecimals(h.volume, notional), trades: h.trades + 1 });
      totals = { ...totals, volume: addDecimals(totals.volume, notional) };
    }
    const funding: FundingRow[] = [];
    for (let hr = Math.floor(from / HOUR) + 1; hr <= Math.floor(time / HOUR); hr++) {
      for (const coin of COINS) {
        const rate = dec(r, 10_000, 8, true);
        funding.push({ id: ids.funding++, coin, interval: '1h', time: hr * HOUR, height, fundingRate: rate, premium: dec(r, 10_000, 8, true), paid: dec(r, 10 ** 9, 6) });
        if (hr % 8 === 0) funding.push({ id: ids.funding++, coin, interval: '8h', time: hr * HOUR, height, fundingRate: dec(r, 80_000, 8, true), premium: dec(r, 10_000, 8, true), paid: dec(r, 10 ** 10, 6) });
      }
    }
    const liquidations: LiquidationRow[] = Array.from({ length: r() < 0.3 ? int(r, 1, 3) : 0 }, () => ({
      id: ids.liq++, coin: pick(r, COINS), time, height, user: pick(r, users), szi: dec(r, 10 ** 6, 4, true), leverageType: r() < 0.5 ? 'cross' : 'isolated',
      method: r() < 0.8 ? 'market' : 'backstop', accountValue: dec(r, 10 ** 9, 6, true), maintenanceMargin: dec(r, 10 ** 8, 6), deficit: dec(r, 10 ** 6, 6),
    }));
    const openInterest: OpenInterestRow[] = COINS.filter(() => r() < 0.4).map((coin) => ({
      id: ids.oi++, coin, time, height, openInterest: dec(r, 10 ** 8, 4), markPx: dec(r, 5_000_000, 2),
    }));
    const books: BookSnapshotRow[] = COINS.filter(() => r() < 0.2).map((coin) => {
      const side = () => Array.from({ length: int(r, 0, 4) }, () => ({ px: dec(r, 5_000_000, 2), sz: dec(r, 10 ** 6, 4), n: int(r, 1, 9) }));
      return { id: ids.book++, coin, time, height, bids: side(), asks: side() };
    });
    const transfers: TransferRow[] = Array.from({ length: r() < 0.4 ? int(r, 1, 3) : 0 }, () => {
      const type = pick(r, ['deposit', 'withdraw', 'withdrawRefund'] as const);
      const x: TransferRow = { id: ids.xfer++, user: pick(r, users), type, time, height, usdc: dec(r, 10 ** 11, 6), fee: type === 'deposit' ? '0' : '1', chainId: pick(r, [1, 42161]), hash: hex(r, 32) };
      if (type === 'deposit') {
        touch(x.user, time);
        totals = { ...totals, deposits: addDecimals(totals.deposits, x.usdc) };
      } else if (type === 'withdraw') totals = { ...totals, withdrawals: addDecimals(totals.withdrawals, x.usdc) };
      return x;
    });
    const dayNow = Math.floor(time / DAY) * DAY;
    const batchDaily = [...daily.values()].filter((d) => d.day >= Math.floor(from / DAY) * DAY);
    if (r() < 0.5) batchDaily.push({ ...(daily.get(dayNow) ?? { day: dayNow, volume: '0', trades: 0, users: 0, newUsers: 0, deposits: '0', withdrawals: '0' }), deposits: totals.deposits });
    for (const d of batchDaily) daily.set(d.day, d);
    out.push({
      height, trades, candles: changed, funding, liquidations, openInterest, books, transfers,
      daily: batchDaily,
      coinDaily: [...coinDaily.values()].filter((d) => d.day >= Math.floor(from / DAY) * DAY),
      coinHourly: [...hourly.values()].filter((h) => h.hour >= Math.floor(from / HOUR) * HOUR),
      newUsers, dayUsers, totals,
    });
  }
  return out;
}

/** Every reader question, random windows and limits, cursors from rows the store returned. */
async function questions(r: Rng, batches: readonly HistoryBatch[], count: number): Promise<((s: HistoryStore) => Promise<unknown>)[]> {
  const last = batches.reduce((m, b) => Math.max(m, ...b.trades.map((x) => x.time), ...b.transfers.map((x) => x.time)), T0);
  const qs: ((s: HistoryStore) => Promise<unknown>)[] = [];
  const time = () => pick(r, [0, T0 - HOUR, T0 + int(r, 0, last - T0), T0 + int(r, 0, last - T0), last + HOUR]);
  const window = (): RangeQuery => {
    const a = time();
    const b = pick(r, [time(), time(), Number.MAX_SAFE_INTEGER, last]);
    return { start: Math.min(a, b), end: Math.max(a, b), before: null, limit: pick(r, [0, 1, 3, 10, 100, 1000, -1]) };
  };
  /** Asks `read`, then again from cursors inside its answer: a row's own (time, id) and a page's end. */
  const paged = <T extends { time: number; id: number }>(read: (s: HistoryStore, q: RangeQuery) => Promise<T[]>) => {
    const q = window();
    qs.push((s) => read(s, q));
    // Drawn now: every store gets the same question.
    const [u, otherwise] = [r(), { time: time(), id: int(r, 0, 400) }];
    qs.push(async (s) => {
      const all = await read(s, { ...q, limit: 10_000 });
      const row = all[Math.floor(u * all.length)] ?? otherwise;
      const pages: T[][] = [];
      let before: { time: number; id: number } | null = { time: row.time, id: row.id };
      for (let i = 0; i < 5 && before !== null; i++) {
        const page: T[] = await read(s, { ...q, before, limit: 4 });
        pages.push(page);
        const end: T | undefined = page[page.length - 1];
        before = end === undefined ? null : { time: end.time, id: end.id };
      }
      return pages;
    });
  };
  for (let i = 0; i < count; i++) {
    const coin = pick(r, [...COINS, 'DOGE']);
    switch (i % 12) {
      case 0: paged((s, q) => s.trades(coin, q)); break;
      case 1: {
        const iv = pick(r, [...Object.keys(INTERVALS), '2m']);
        const q = window();
        qs.push((s) => s.candles(coin, iv, q));
        const [u, otherwise, id, limit] = [r(), time(), int(r, 0, 9), pick(r, [1, 5, 2.5, 1000])];
        qs.push(async (s) => {
          const all = await s.candles(coin, iv, { ...q, limit: 10_000 });
          const c = all[Math.floor(u * all.length)];
          return s.candles(coin, iv, { ...q, before: { time: (c === undefined ? otherwise : Number(c.slice(0, c.indexOf(',')))), id }, limit });
        });
        qs.push((s) => s.lastCandle(coin, iv));
        break;
      }
      case 2: { const iv = pick(r, ['1h', '8h'] as const); paged((s, q) => s.funding(coin, iv, q)); break; }
      case 3: { const c = r() < 0.5 ? null : coin; paged((s, q) => s.liquidations(c, q)); break; }
      case 4: paged((s, q) => s.openInterest(coin, q)); break;
      case 5: paged((s, q) => s.bookSnapshots(coin, q)); break;
      case 6: {
        const type = pick(r, ['deposit', 'withdraw'] as const);
        const user = r() < 0.4 ? null : pick(r, batches.flatMap((b) => b.transfers.map((x) => x.user)).concat('0xnobody'));
        paged((s, q) => s.transfers(type, user, q));
        break;
      }
      case 7: { const q = window(); qs.push((s) => s.dailyStats(q.start, q.end), (s) => s.coinDailyStats(q.start, q.end)); break; }
      case 8: { const since = time(); qs.push((s) => s.volumeSince(since)); break; }
      case 9: {
        const users = [...new Set(batches.flatMap((b) => b.newUsers.map((u) => u.user)))];
        const ask = [...users.filter(() => r() < 0.3), '0xnobody', ...users.filter(() => r() < 0.1)];
        const day = Math.floor(time() / DAY) * DAY;
        qs.push((s) => s.knownUsers(ask), (s) => s.usersOfDay(day));
        break;
      }
      case 10: { const hour = Math.floor(time() / HOUR) * HOUR; qs.push((s) => s.coinHour(coin, hour)); break; }
      default: qs.push((s) => s.totals(), (s) => s.indexedHeight());
    }
  }
  return qs;
}

/** The stores' answers to every question, side by side. */
async function compare(t: Test, r: Rng, batches: readonly HistoryBatch[], stores: readonly HistoryStore[], count: number, what: string) {
  const qs = await questions(r, batches, count);
  const t0 = performance.now();
  let differ = 0;
  for (const [i, q] of qs.entries()) {
    const want = await q(stores[0] as HistoryStore);
    for (const s of stores.slice(1)) {
      const got = await q(s);
      if (isDeepStrictEqual(got, want)) {
        if (JSON.stringify(got) !== JSON.stringify(want) && !(want instanceof Map) && !(want instanceof Set)) {
          t.fail(`${what}: question ${i}: same values, different JSON (key order)`);
          differ++;
        }
      } else {
        t.same(got, want, `${what}: question ${i}`);
        differ++;
      }
    }
    if (differ > 5) break;
  }
  t.equal(differ, 0, `${what}: ${qs.length} questions, the same answers`);
  t.comment(`${what}: ${qs.length} questions in ${(performance.now() - t0).toFixed(0)} ms`);
}

const db = await startPostgres();
t.teardown(() => db.stop());

async function freshDatabase(name: string): Promise<string> {
  const c = new pg.Client(db.url);
  await c.connect();
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  return db.url.replace(/\/postgres$/, `/${name}`);
}

async function levelStore(t: Test): Promise<LevelHistoryStore> {
  const dir = await tempDir('svc-history-');
  const s = new LevelHistoryStore(dir);
  await s.open();
  t.teardown(async () => {
    await s.close();
    await rm(dir, { recursive: true, force: true });
  });
  return s;
}

async function pgStore(t: Test, url: string): Promise<PostgresHistoryStore> {
  const s = new PostgresHistoryStore(url);
  await s.open();
  t.teardown(() => s.close());
  return s;
}

t.test('the PostgreSQL store answers every query as the level store does', async (t) => {
  const seed = replaySeed(t, 20261125);
  const r = mulberry32(seed);
  const batches = history(r, 400);
  t.comment(`${batches.length} batches, ${batches.reduce((n, b) => n + b.trades.length, 0)} trades`);
  const level = await levelStore(t);
  const postgres = await pgStore(t, await freshDatabase('equivalence'));
  t.ok(postgres.writable, 'the first store on a database writes');
  t.same(await postgres.totals(), await level.totals(), 'empty: zero totals');
  t.equal(await postgres.indexedHeight(), 0);
  await compare(t, r, batches, [level, postgres], 30, 'empty');
  for (const [i, b] of batches.entries()) {
    await level.write(b);
    await postgres.write(b);
    if (i === 150) await compare(t, r, batches.slice(0, 151), [level, postgres], 120, 'after 150 batches');
  }
  await compare(t, r, batches, [level, postgres], 400, 'after all batches');

  // The last batches once more: nothing changes.
  for (const b of batches.slice(-3)) await postgres.write(b);
  await compare(t, r, batches, [level, postgres], 120, 'last batches written again');
  const counts = async () => (await postgres.trades('BTC', { start: 0, end: Number.MAX_SAFE_INTEGER, before: null, limit: -1 })).length;
  t.equal(await counts(), batches.flatMap((b) => b.trades).filter((x) => x.coin === 'BTC').length, 'no trade twice');

  // Pruning: book snapshots and open interest before the cutoffs go, in both.
  const mid = batches[200]?.books[0]?.time ?? T0 + DAY;
  const cut = { books: mid, openInterest: mid - HOUR };
  await level.prune(cut);
  await postgres.prune(cut);
  const everything: RangeQuery = { start: 0, end: Number.MAX_SAFE_INTEGER, before: null, limit: -1 };
  for (const coin of COINS) {
    const books = await postgres.bookSnapshots(coin, everything);
    t.ok(books.every((b) => b.time >= cut.books), `${coin}: no snapshot before the cutoff`);
    t.same(books, await level.bookSnapshots(coin, everything));
    t.same(await postgres.openInterest(coin, everything), await level.openInterest(coin, everything));
  }
  await compare(t, r, batches, [level, postgres], 80, 'after pruning');
});

t.test('a decimal numeric would rewrite is refused, and the batch is not written', async (t) => {
  const s = await pgStore(t, await freshDatabase('refused'));
  const b = history(mulberry32(7), 3)[2] as HistoryBatch;
  const trade = b.trades[0] ?? { id: 1, coin: 'BTC', time: T0, height: 1, tid: 1, px: '1', sz: '1', side: 'B', hash: '0x', buyer: '0x1', seller: '0x2', liquidation: false };
  for (const px of ['1.50e2', '+1', '.5', '007', '-0', '-0.00', ' 1', 'NaN']) {
    await t.rejects(s.write({ ...b, trades: [{ ...trade, px }] }), /not a canonical decimal/, px);
  }
  t.equal(await s.indexedHeight(), 0, 'nothing written');
  await s.write({ ...b, trades: [{ ...trade, px: '0.50' }, { ...trade, id: trade.id + 1_000_000, px: '-12.0340', sz: '100' }] });
  const got = await s.trades(trade.coin, { start: 0, end: Number.MAX_SAFE_INTEGER, before: null, limit: 10 });
  t.same(got.map((x) => [x.px, x.sz]).sort(), [['-12.0340', '100'], ['0.50', trade.sz]].sort(), 'numeric keeps the digits it was given');
});

t.test('one writer per database; the others read the same answers', async (t) => {
  const url = await freshDatabase('readers');
  const r = mulberry32(99);
  const batches = history(r, 120);
  const [a, b] = await Promise.all([new PostgresHistoryStore(url), new PostgresHistoryStore(url)].map(async (s) => {
    await s.open();
    return s;
  })) as [PostgresHistoryStore, PostgresHistoryStore];
  t.teardown(async () => {
    await a.close();
    await b.close();
  });
  t.equal([a, b].filter((s) => s.writable).length, 1, 'opened together: exactly one writes');
  const [writer, reader] = a.writable ? [a, b] : [b, a];
  // Not awaited one by one: the writes queue, each its own transaction, in order.
  await Promise.all(batches.map((batch) => writer.write(batch)));
  await t.rejects(reader.write(batches[0] as HistoryBatch), /read-only/, 'the reader refuses to write');
  await t.rejects(reader.prune({ books: 0, openInterest: 0 }), /read-only/, 'and to prune');
  const level = await levelStore(t);
  for (const batch of batches) await level.write(batch);
  await compare(t, r, batches, [level, writer, reader], 160, 'writer and reader');

  const c = new pg.Client(url);
  await c.connect();
  t.same((await c.query('SELECT name FROM schema_migrations ORDER BY name')).rows, [{ name: '001_history.sql' }, { name: '002_candle_buckets.sql' }], 'two stores opened at once: each migration applied once');
  t.same(await migrate(c, HISTORY_MIGRATIONS), [], 'and again: nothing to apply');
  await c.end();

  await writer.close();
  const next = await pgStore(t, url);
  t.ok(next.writable, 'the writer gone, the next store to open writes');
  t.notOk(reader.writable, 'a store opened read-only stays read-only');
  t.equal(await next.indexedHeight(), batches[batches.length - 1]?.height);

  // The writer's connection dies: it stops writing, and the lock is free for the next store.
  const admin = new pg.Client(url);
  await admin.connect();
  const holders = await admin.query<{ pid: number }>("SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())");
  t.equal(holders.rows.length, 1, 'one advisory lock held: the writer\'s');
  await admin.query('SELECT pg_terminate_backend($1)', [holders.rows[0]?.pid]);
  await admin.end();
  await t.rejects(next.write(batches[0] as HistoryBatch), 'a writer whose connection died does not write');
  t.notOk(next.writable);
  t.ok((await next.indexedHeight()) > 0, 'it still reads (through its pool)');
  const after = await pgStore(t, url);
  t.ok(after.writable, 'the lock went with the connection: the next store writes');
});

t.test('a PostgreSQL that cannot start is an error, not a skipped test', async (t) => {
  await t.rejects(startPostgres({ settings: { shared_buffers: 'lots' } }), /PostgreSQL could not start[\s\S]*invalid value for parameter "shared_buffers"/);
});
