// The history store, level and PostgreSQL side by side: each filled with HISTORY_BENCH_TRADES
// trades (default 10,000,000, four coins, one every 250 ms of block time round-robin) and a
// month of 1-minute candles for one coin, then timed on
//   (a) a page of 1,000 trades of one coin before a random cursor (newest first, keyset),
//   (b) a month of 1-minute candles (43,200),
//   (c) writes of batches shaped like 20,000 fills/s: 10,000 trades a second of block time with
//       the candles (4 coins x 13 intervals) and aggregates they change, one batch a second.
// Level is filled through its own write (batches of 50,000 trades); PostgreSQL with one
// INSERT ... SELECT FROM generate_series per million rows and the trade indexes built after, as
// a bulk load would. PostgreSQL runs durable (fsync, synchronous commit) in a temp dir; its CPU
// is read from /proc/<pid>/stat of the postmaster and its children.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Worker } from 'node:worker_threads';
import { INDEXER_THREAD_LIMITS, LevelHistoryStore, PostgresHistoryStore, type HistoryBatch, type HistoryStore } from '../node/index.ts';
import type { CandleRow, TradeRow } from '../rpc/index.ts';
import { formatScaled } from '../primitives/index.ts';
import { startPostgres, type TestPostgres } from '../test/support/postgres.ts';

const TRADES = Number(process.env.HISTORY_BENCH_TRADES ?? 10_000_000);
const COINS = ['BTC', 'ETH', 'SOL', 'HYPE'];
const T0 = 1_767_225_600_000;
const STEP = 250;
const MONTH = 43_200;
const PAGE_RUNS = 300;
const CANDLE_RUNS = 40;
const WRITE_BATCHES = 30;
const FILLS_PER_S = 20_000;
const INTERVALS: Record<string, number> = {
  '1m': 60_000, '3m': 180_000, '5m': 300_000, '15m': 900_000, '30m': 1_800_000, '1h': 3_600_000, '2h': 7_200_000, '4h': 14_400_000,
  '8h': 28_800_000, '12h': 43_200_000, '1d': 86_400_000, '3d': 259_200_000, '1w': 604_800_000,
};
const TOTALS = { users: 5000, volume: '123456789.5', deposits: '1000000', withdrawals: '0' };

/** xorshift32: fast replayable hex for hashes and addresses. */
function hexSource(seed: number): (chars: number) => string {
  let x = seed >>> 0 || 1;
  return (chars) => {
    let s = '0x';
    while (s.length < chars + 2) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      s += (x >>> 0).toString(16).padStart(8, '0');
    }
    return s.slice(0, chars + 2);
  };
}

const ADDRS = (() => {
  const hex = hexSource(7);
  return Array.from({ length: 5000 }, () => hex(40));
})();

function trade(i: number, hex: (n: number) => string): TradeRow {
  return {
    id: i + 1, coin: COINS[i % COINS.length] as string, time: T0 + i * STEP, height: Math.floor(i / 20) + 1, tid: i + 1,
    px: formatScaled(970_000 + ((i * 7919) % 20_000), 1), sz: formatScaled(1 + ((i * 31) % 5_000_000), 4), side: i % 2 === 0 ? 'B' : 'A',
    hash: hex(64), buyer: ADDRS[i % 5000] as string, seller: ADDRS[(i * 7) % 5000] as string, liquidation: i % 100 === 0,
  };
}

const EMPTY: Omit<HistoryBatch, 'height'> = {
  trades: [], candles: [], funding: [], liquidations: [], openInterest: [], books: [], transfers: [], daily: [], coinDaily: [],
  coinHourly: [], newUsers: [], dayUsers: [], totals: TOTALS,
};

function monthOfCandles(): CandleRow[] {
  return Array.from({ length: MONTH }, (_, k) => {
    const t = T0 + k * 60_000;
    const o = 970_000 + ((k * 37) % 5000);
    return {
      t, T: t + 59_999, s: 'BTC', i: '1m', o: formatScaled(o, 1), h: formatScaled(o + 150, 1), l: formatScaled(o - 120, 1), c: formatScaled(o + 5, 1),
      v: formatScaled(100_000 + k * 13, 4), n: 100 + (k % 50),
    };
  });
}

/** One second of block time at 10,000 trades/s, from trade `first` on, with what it changes. */
function liveBatch(first: number, hex: (n: number) => string, height: number): HistoryBatch {
  const trades: TradeRow[] = [];
  const perS = FILLS_PER_S / 2;
  const t0 = T0 + first * STEP;
  for (let k = 0; k < perS; k++) trades.push({ ...trade(first + k, hex), time: t0 + Math.floor((k * 1000) / perS), height });
  const candles: CandleRow[] = [];
  for (const coin of COINS) {
    for (const [i, ms] of Object.entries(INTERVALS)) {
      const t = Math.floor(t0 / ms) * ms;
      candles.push({ t, T: t + ms - 1, s: coin, i, o: '97000.5', h: '97100', l: '96900.1', c: '97050', v: formatScaled(height * 1000, 4), n: height * 2500 });
    }
  }
  const day = Math.floor(t0 / 86_400_000) * 86_400_000;
  const hour = Math.floor(t0 / 3_600_000) * 3_600_000;
  return {
    ...EMPTY, height, trades, candles,
    daily: [{ day, volume: formatScaled(height * 97_000, 1), trades: height * 10_000, users: 4000, newUsers: 10, deposits: '0', withdrawals: '0' }],
    coinDaily: COINS.map((coin) => ({ day, coin, volume: formatScaled(height * 24_000, 1), trades: height * 2500, openInterest: '1234.5', markPx: '97050', fundingSum: '0.0001' })),
    coinHourly: COINS.map((coin) => ({ hour, coin, volume: formatScaled(height * 24_000, 1), trades: height * 2500 })),
    dayUsers: Array.from({ length: 20 }, (_, k) => ({ user: ADDRS[(height * 20 + k) % 5000] as string, day })),
  };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number;
};

/** utime + stime of a process and its children (the server's backends), ms. */
async function serverCpuMs(pid: number): Promise<number> {
  const tick = 100; // USER_HZ
  let total = 0;
  for (const d of await readdir('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    const stat = await readFile(`/proc/${d}/stat`, 'utf8').catch(() => '');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields after the name: state(0) ppid(1) ... utime(11) stime(12)
    if (Number(d) === pid || Number(f[1]) === pid) total += ((Number(f[11]) + Number(f[12])) * 1000) / tick;
  }
  return total;
}

interface Figures {
  fill: string;
  'page p50 ms': string;
  'page p99 ms': string;
  'candles p50 ms': string;
  'candles p99 ms': string;
  /** This process's CPU per month of candles (all its threads: level's reads and GC too). */
  'candles client CPU ms': string;
  'write trades/s': string;
  'batch p50 ms': string;
  'client CPU ms/1k trades': string;
  'server CPU ms/1k trades': string;
}

async function measure(store: HistoryStore, fillSeconds: number, server: TestPostgres | null): Promise<Figures> {
  const pages: number[] = [];
  let rows = 0;
  for (let k = 0; k < PAGE_RUNS; k++) {
    const i = 4 * Math.floor(Math.random() * (TRADES / 4)); // a BTC trade
    const t0 = performance.now();
    const page = await store.trades('BTC', { start: 0, end: Number.MAX_SAFE_INTEGER, before: { time: T0 + i * STEP, id: i + 1 }, limit: 1000 });
    pages.push(performance.now() - t0);
    rows += page.length;
  }
  const month = { start: T0, end: T0 + MONTH * 60_000 - 1, before: null, limit: 100_000 };
  const candles: number[] = [];
  const candleCpu0 = process.cpuUsage();
  for (let k = 0; k < CANDLE_RUNS; k++) {
    const t0 = performance.now();
    const got = await store.candles('BTC', '1m', month);
    candles.push(performance.now() - t0);
    if (got.length !== MONTH) throw new Error(`candles: ${got.length}`);
  }
  const candleCpu = process.cpuUsage(candleCpu0);
  const hex = hexSource(99);
  const batches = Array.from({ length: WRITE_BATCHES }, (_, k) => liveBatch(TRADES + k * (FILLS_PER_S / 2), hex, 1_000_000 + k));
  const cpu0 = process.cpuUsage();
  const srv0 = server === null ? 0 : await serverCpuMs(server.pid);
  const lat: number[] = [];
  const w0 = performance.now();
  for (const b of batches) {
    const t0 = performance.now();
    await store.write(b);
    lat.push(performance.now() - t0);
  }
  const wall = performance.now() - w0;
  const cpu = process.cpuUsage(cpu0);
  const srv = server === null ? NaN : (await serverCpuMs(server.pid)) - srv0;
  const written = WRITE_BATCHES * (FILLS_PER_S / 2);
  return {
    fill: `${fillSeconds.toFixed(0)} s`,
    'page p50 ms': pct(pages, 50).toFixed(2),
    'page p99 ms': pct(pages, 99).toFixed(2),
    'candles p50 ms': pct(candles, 50).toFixed(1),
    'candles p99 ms': pct(candles, 99).toFixed(1),
    'candles client CPU ms': ((candleCpu.user + candleCpu.system) / 1000 / CANDLE_RUNS).toFixed(1),
    'write trades/s': ((written / wall) * 1000).toFixed(0),
    'batch p50 ms': pct(lat, 50).toFixed(1),
    'client CPU ms/1k trades': (((cpu.user + cpu.system) / 1000 / written) * 1000).toFixed(1),
    'server CPU ms/1k trades': Number.isNaN(srv) ? '-' : ((srv / written) * 1000).toFixed(1),
    ...(rows !== PAGE_RUNS * 1000 ? { note: `${rows} rows in ${PAGE_RUNS} pages` } : {}),
  } as Figures;
}

async function level(): Promise<Figures> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-history-bench-'));
  const store = new LevelHistoryStore(dir);
  await store.open();
  try {
    const t0 = performance.now();
    const hex = hexSource(1);
    const BATCH = 50_000;
    for (let i = 0; i < TRADES; i += BATCH) {
      const trades = Array.from({ length: Math.min(BATCH, TRADES - i) }, (_, k) => trade(i + k, hex));
      await store.write({ ...EMPTY, height: i + 1, trades });
      if ((i / BATCH) % 20 === 19) console.log(`  level: ${i + BATCH} trades, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    }
    const candles = monthOfCandles();
    for (let i = 0; i < candles.length; i += 10_000) await store.write({ ...EMPTY, height: TRADES, candles: candles.slice(i, i + 10_000) });
    return await measure(store, (performance.now() - t0) / 1000, null);
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function postgres(): Promise<Figures> {
  const server = await startPostgres({ durable: true, settings: { shared_buffers: '512MB', max_wal_size: '4GB' } });
  const store = new PostgresHistoryStore(server.url);
  try {
    await store.open();
    const t0 = performance.now();
    const c = new pg.Client(server.url);
    await c.connect();
    await c.query('ALTER TABLE trades DROP CONSTRAINT trades_pkey');
    await c.query('DROP INDEX trades_coin_time');
    const CHUNK = 1_000_000;
    for (let i = 0; i < TRADES; i += CHUNK) {
      await c.query(`INSERT INTO trades (id, coin, time, height, tid, px, sz, side, hash, buyer, seller, liquidation)
        SELECT i + 1, (ARRAY['BTC', 'ETH', 'SOL', 'HYPE'])[i % 4 + 1], ${T0} + i * ${STEP}, i / 20 + 1, i + 1,
          trim_scale((970000 + (i * 7919) % 20000) / 10.0), trim_scale((1 + (i * 31) % 5000000) / 10000.0), CASE WHEN i % 2 = 0 THEN 'B' ELSE 'A' END,
          '0x' || md5(i::text) || md5((-i)::text), '0x' || left(md5((i % 5000)::text) || md5((i % 5000)::text), 40),
          '0x' || left(md5(((i * 7) % 5000)::text) || md5(((i * 7) % 5000)::text), 40), i % 100 = 0
        FROM generate_series(${i}::bigint, ${Math.min(TRADES, i + CHUNK) - 1}::bigint) AS i`);
      console.log(`  postgres: ${Math.min(TRADES, i + CHUNK)} trades, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    }
    await c.query('ALTER TABLE trades ADD PRIMARY KEY (id)');
    await c.query('CREATE INDEX trades_coin_time ON trades (coin, time, id)');
    const candles = monthOfCandles();
    for (let i = 0; i < candles.length; i += 10_000) await store.write({ ...EMPTY, height: TRADES, candles: candles.slice(i, i + 10_000) });
    await c.query('VACUUM ANALYZE');
    const size = (await c.query<{ s: string }>("SELECT pg_size_pretty(pg_total_relation_size('trades')) AS s")).rows[0]?.s;
    console.log(`  postgres: trades table and indexes ${size}`);
    await c.end();
    return await measure(store, (performance.now() - t0) / 1000, server);
  } finally {
    await store.close();
    await server.stop();
  }
}

/** On a thread with the indexer thread's heap limits (INDEXER_THREAD_LIMITS), as in the node. */
export async function benchHistoryStore(): Promise<void> {
  const worker = new Worker(new URL('./history-store-thread.js', import.meta.url), { resourceLimits: INDEXER_THREAD_LIMITS });
  await new Promise<void>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the bench thread exited ${code}`))));
  });
}

export async function runHistoryStoreBench(): Promise<void> {
  console.log(`${TRADES.toLocaleString('en-US')} trades (HISTORY_BENCH_TRADES), ${MONTH.toLocaleString('en-US')} 1m candles; ${PAGE_RUNS} pages, ${CANDLE_RUNS} candle months, ${WRITE_BATCHES} batches of ${FILLS_PER_S / 2} trades`);
  const only = process.env.HISTORY_BENCH_STORE;
  const out: Record<string, Figures> = {};
  if (only === undefined || only === 'postgres') out.postgres = await postgres();
  if (only === undefined || only === 'level') out.level = await level();
  console.table(out);
}
