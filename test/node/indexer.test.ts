// The history indexer on synthetic blocks: the same chain gives the same history whether it is
// indexed a block at a time, in big batches, or across a restart; funding periods, liquidations,
// transfers, first-time users and retention.
import t from 'tap';
import { rm } from 'node:fs/promises';
import { Indexer, LevelHistoryStore, RETENTION, indexedBlock, type IndexedBlock } from '../../node/index.ts';
import type { ExchangeEvent, FillRecord } from '../../exchange/index.ts';
import type { HistoryReader, RangeQuery } from '../../rpc/index.ts';
import { tempDir } from '../support/node.ts';
import { replaySeed } from '../support/seed.ts';
import { mulberry32 } from '../support/exchange.ts';

const MARKETS = new Map([['BTC', { pxDecimals: 1, szDecimals: 4 }], ['ETH', { pxDecimals: 2, szDecimals: 3 }]]);
const MARKET_TUPLES = [...MARKETS].map(([coin, d]) => [coin, d.pxDecimals, d.szDecimals] as const);
const USERS = Array.from({ length: 12 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`);
const HOUR = 3_600_000;

function fill(coin: string, user: string, px: string, sz: string, side: 'B' | 'A', crossed: boolean, time: number, tid: number, liquidation = false): ExchangeEvent {
  const f: FillRecord = {
    coin, px, sz, side, time, startPosition: '0', dir: 'Open Long', closedPnl: '0', hash: `0x${tid.toString(16).padStart(64, '0')}`, oid: tid, crossed, fee: '0', feeToken: 'USDC', tid,
    ...(liquidation ? { liquidation: { liquidatedUser: user, markPx: px, method: 'market' as const } } : {}),
  };
  return { kind: 'fill', user, fill: f };
}

/** A chain of `n` blocks over a few days, with trades, hourly funding, liquidations, transfers and samples. */
function chain(seed: number, n: number, start = Date.UTC(2026, 0, 1, 22)): IndexedBlock[] & { events: ExchangeEvent[][] } {
  const allEvents: ExchangeEvent[][] = [];
  const rnd = mulberry32(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)] as T;
  const blocks: IndexedBlock[] = [];
  let time = start;
  let tid = 1;
  for (let h = 1; h <= n; h++) {
    const prevTime = time;
    time += Math.floor(rnd() * 240_000); // up to 4 minutes a block: several days in all
    const events: ExchangeEvent[] = [];
    for (let k = Math.floor(rnd() * 4); k > 0; k--) {
      const coin = pick(['BTC', 'ETH']);
      const px = coin === 'BTC' ? `${60000 + Math.floor(rnd() * 2000)}.${Math.floor(rnd() * 10)}` : `${3000 + Math.floor(rnd() * 100)}.${Math.floor(rnd() * 100)}`;
      const sz = (Math.floor(rnd() * 5000) / 1000 + 0.001).toFixed(3);
      const [maker, taker] = [pick(USERS), pick(USERS)];
      const side = rnd() < 0.5 ? 'B' : 'A';
      const liq = rnd() < 0.1;
      events.push(fill(coin, maker as string, px, sz, side === 'B' ? 'A' : 'B', false, time, tid));
      events.push(fill(coin, taker as string, px, sz, side, true, time, tid, liq));
      tid++;
    }
    if (Math.floor(time / HOUR) !== Math.floor(prevTime / HOUR)) {
      for (const coin of ['BTC', 'ETH']) {
        const payer = pick(USERS);
        events.push({ kind: 'funding', user: payer, funding: { time, coin, usdc: `-${(rnd() * 10).toFixed(6)}`, szi: '1', fundingRate: '0.0000125' } });
        events.push({ kind: 'fundingRate', rate: { coin, fundingRate: (rnd() / 1e4).toFixed(9), premium: (rnd() / 1e4).toFixed(9), time } });
      }
    }
    if (rnd() < 0.05) {
      const user = pick(USERS);
      events.push({ kind: 'liquidation', user, liquidation: { time, user, leverageType: 'cross', accountValue: '10', maintenanceMargin: '20', liquidatedPositions: [{ coin: 'BTC', szi: '0.5' }, { coin: 'ETH', szi: '-2' }], method: 'market', deficit: '0' } });
    }
    if (rnd() < 0.1) {
      const user = rnd() < 0.5 ? pick(USERS) : `0x${h.toString(16).padStart(40, 'f')}`;
      const r = rnd();
      const delta = r < 0.5 ? { type: 'deposit' as const, usdc: (rnd() * 1000).toFixed(6), chainId: 1 }
        : r < 0.8 ? { type: 'withdraw' as const, usdc: '10', fee: '1', withdrawalId: `0x${h.toString(16)}`, chainId: 1 }
        : { type: 'withdrawRefund' as const, usdc: '11', withdrawalId: `0x${h.toString(16)}`, chainId: 1 };
      events.push({ kind: 'ledger', user, ledger: { time, hash: `0x${h.toString(16)}`, delta } });
    }
    const minute = Math.floor(time / 60_000) !== Math.floor(prevTime / 60_000) || h === 1;
    const five = Math.floor(time / 300_000) !== Math.floor(prevTime / 300_000) || h === 1;
    blocks.push(indexedBlock(h, time, prevTime, events, {
      markets: MARKET_TUPLES,
      openInterest: minute ? [{ coin: 'BTC', openInterest: String(h), markPx: '60000' }, { coin: 'ETH', openInterest: '2.5', markPx: '3000.5' }] : [],
      books: five ? [{ coin: 'BTC', bids: [{ px: '59999', sz: '1', n: 1 }], asks: [{ px: '60001', sz: '2', n: 2 }] }] : [],
    }));
    allEvents.push(events);
  }
  return Object.assign(blocks, { events: allEvents });
}

async function openIndexer(t: { teardown(fn: () => unknown): void }, dir?: string, maxBlocksPerBatch?: number): Promise<{ indexer: Indexer; dir: string }> {
  const path = dir ?? (await tempDir('svc-history-'));
  if (dir === undefined) t.teardown(() => rm(path, { recursive: true, force: true }));
  const store = new LevelHistoryStore(path);
  await store.open();
  const indexer = new Indexer(store, { log: () => {}, ...(maxBlocksPerBatch !== undefined ? { maxBlocksPerBatch } : {}) });
  await indexer.open();
  await indexer.seedCandles(MARKET_TUPLES);
  return { indexer, dir: path };
}

async function index(indexer: Indexer, blocks: readonly IndexedBlock[]): Promise<void> {
  for (const b of blocks) indexer.push(b);
  await indexer.flushed();
}

const ALL: RangeQuery = { start: 0, end: Number.MAX_SAFE_INTEGER, before: null, limit: 1_000_000 };

/** Every answer a reader gives, for comparison. */
async function everything(r: HistoryReader) {
  const out: Record<string, unknown> = {};
  for (const coin of MARKETS.keys()) {
    out[`trades ${coin}`] = await r.trades(coin, ALL);
    for (const i of ['1m', '5m', '1h', '8h', '1d', '1w']) out[`candles ${coin} ${i}`] = await r.candles(coin, i, ALL);
    out[`funding ${coin} 1h`] = await r.funding(coin, '1h', ALL);
    out[`funding ${coin} 8h`] = await r.funding(coin, '8h', ALL);
    out[`liq ${coin}`] = await r.liquidations(coin, ALL);
    out[`oi ${coin}`] = await r.openInterest(coin, ALL);
    out[`books ${coin}`] = await r.bookSnapshots(coin, ALL);
  }
  out.liq = await r.liquidations(null, ALL);
  out.deposits = await r.transfers('deposit', null, ALL);
  out.withdrawals = await r.transfers('withdraw', null, ALL);
  out.daily = await r.dailyStats(0, Number.MAX_SAFE_INTEGER);
  out.coinDaily = await r.coinDailyStats(0, Number.MAX_SAFE_INTEGER);
  out.totals = await r.totals();
  out.volume = [...(await r.volumeSince(0))];
  out.height = await r.indexedHeight();
  return out;
}

t.test('the history does not depend on how blocks were batched or on restarts', async (t) => {
  const seed = replaySeed(t, 20261125);
  const blocks = chain(seed, 1500);
  const one = await openIndexer(t, undefined, 1);
  await index(one.indexer, blocks);
  const big = await openIndexer(t, undefined, 700);
  await index(big.indexer, blocks);
  const expected = await everything(one.indexer.store);
  t.same(await everything(big.indexer.store), expected, 'a block a batch and 700 a batch');

  // Interrupted twice, at points inside a day, an hour and an 8-hour period.
  const split = await openIndexer(t, undefined, 50);
  await index(split.indexer, blocks.slice(0, 437));
  await split.indexer.store.close();
  let again = await openIndexer(t, split.dir, 50);
  t.equal(again.indexer.height, 437);
  await index(again.indexer, blocks.slice(0, 1100)); // blocks at or below the watermark are skipped
  await again.indexer.store.close();
  again = await openIndexer(t, split.dir, 50);
  await index(again.indexer, blocks.slice(1100));
  t.same(await everything(again.indexer.store), expected, 'across two restarts');
  await again.indexer.store.close();
  await one.indexer.store.close();
  await big.indexer.store.close();
});

t.test('what the records say', async (t) => {
  const blocks = chain(7, 1200);
  const { indexer } = await openIndexer(t);
  await index(indexer, blocks);
  const r = indexer.store;
  const events = blocks.events.flatMap((list) => list.map((e) => ({ e })));
  const takers = events.filter(({ e }) => e.kind === 'fill' && e.fill.crossed);
  const trades = [...(await r.trades('BTC', ALL)), ...(await r.trades('ETH', ALL))];
  t.equal(trades.length, takers.length, 'one trade per taker fill');
  t.equal(trades.filter((x) => x.liquidation).length, takers.filter(({ e }) => e.kind === 'fill' && e.fill.liquidation !== undefined).length);

  // Keyset pages walk the whole set exactly once.
  const paged: unknown[] = [];
  let before = null;
  for (;;) {
    const page = await r.trades('BTC', { ...ALL, before, limit: 7 });
    paged.push(...page);
    if (page.length < 7) break;
    const last = page[page.length - 1] as { time: number; id: number };
    before = { time: last.time, id: last.id };
  }
  t.same(paged, await r.trades('BTC', ALL));

  // Every 8-hour snapshot sums the hourly rates paid in its period.
  const hourly = await r.funding('BTC', '1h', ALL);
  const eight = await r.funding('BTC', '8h', ALL);
  t.ok(eight.length >= 2, 'several periods');
  for (const s of eight) {
    const inPeriod = hourly.filter((h) => h.time >= s.time && h.time < s.time + 8 * HOUR);
    const sum = inPeriod.reduce((acc, h) => acc + BigInt(Math.round(Number(h.fundingRate) * 1e9)), 0n);
    t.equal(BigInt(Math.round(Number(s.fundingRate) * 1e9)), sum, `period ${new Date(s.time).toISOString()}`);
  }

  // A liquidation of two positions is two rows, one per market, and both in the all-markets set.
  const liqEvents = events.filter(({ e }) => e.kind === 'liquidation').length;
  t.equal((await r.liquidations(null, ALL)).length, liqEvents * 2);
  t.equal((await r.liquidations('ETH', ALL)).length, liqEvents);

  // Deposits and withdrawals: totals net of refunds; users counted once.
  const ledger = events.flatMap(({ e }) => (e.kind === 'ledger' ? [e] : []));
  const micro = (s: string) => BigInt(Math.round(Number(s) * 1e6));
  const deposited = ledger.filter((e) => e.ledger.delta.type === 'deposit').reduce((s, e) => s + micro(e.ledger.delta.usdc), 0n);
  const withdrawn = ledger.reduce((s, e) => s + (e.ledger.delta.type === 'withdraw' ? micro(e.ledger.delta.usdc) + micro(e.ledger.delta.fee) : e.ledger.delta.type === 'withdrawRefund' ? -micro(e.ledger.delta.usdc) : 0n), 0n);
  const totals = await r.totals();
  t.equal(micro(totals.deposits), deposited);
  t.equal(micro(totals.withdrawals), withdrawn);
  const traders = events.flatMap(({ e }) => (e.kind === 'fill' ? [e.user] : []));
  const users = new Set([...traders, ...ledger.filter((e) => e.ledger.delta.type === 'deposit').map((e) => e.user)]);
  t.equal(totals.users, users.size);
  const daily = await r.dailyStats(0, Number.MAX_SAFE_INTEGER);
  t.equal(daily.reduce((s, d) => s + d.newUsers, 0), users.size, 'every user is new on exactly one day');
  t.equal(daily.reduce((s, d) => s + d.trades, 0), takers.length);
});

t.test('book snapshots go after 90 days and open interest after a year', async (t) => {
  const { indexer } = await openIndexer(t);
  const t0 = Date.UTC(2026, 0, 1);
  const sample = (height: number, time: number, prevTime: number): IndexedBlock => indexedBlock(height, time, prevTime, [], {
    markets: [], openInterest: [{ coin: 'BTC', openInterest: '1', markPx: '1' }], books: [{ coin: 'BTC', bids: [], asks: [] }],
  });
  const times = [t0, t0 + 100 * 86_400_000, t0 + 400 * 86_400_000];
  await index(indexer, times.map((time, i) => sample(i + 1, time, i === 0 ? time : (times[i - 1] as number))));
  const now = times[2] as number;
  t.same((await indexer.store.bookSnapshots('BTC', ALL)).map((s) => s.time).filter((x) => x < now - RETENTION.books), []);
  t.same((await indexer.store.openInterest('BTC', ALL)).map((s) => s.time), [now, times[1]], 'the sample of a year ago is gone');
  t.same((await indexer.store.bookSnapshots('BTC', ALL)).map((s) => s.time), [now]);
});
