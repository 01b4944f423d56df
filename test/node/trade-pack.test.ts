// The history store's trades, packed several to an entry (node/indexer/trade-pack.ts): every
// range, cursor and limit answers exactly what a list of the rows sorted newest first does, with
// blocks of hundreds of trades across interleaved markets (several entries a market and block),
// and with entries written one trade each before the packing mixed in.
import { rm } from 'node:fs/promises';
import { Level } from 'level';
import t from 'tap';
import { LevelHistoryStore, PACK_ROWS, packTrades, unpackTrades, type HistoryBatch } from '../../node/index.ts';
import type { RangeQuery, TradeRow } from '../../rpc/index.ts';
import { mulberry32 } from '../support/exchange.ts';
import { tempDir } from '../support/node.ts';
import { replaySeed } from '../support/seed.ts';

const T0 = 1_767_225_600_000;
const COINS = ['BTC', 'ETH', 'PURR/USDC'];
const hex14 = (n: number) => n.toString(16).padStart(14, '0');

function batchOf(height: number, trades: TradeRow[]): HistoryBatch {
  return {
    height, trades, candles: [], funding: [], liquidations: [], openInterest: [], books: [], transfers: [], daily: [], coinDaily: [],
    coinHourly: [], newUsers: [], dayUsers: [], totals: { users: 0, volume: '0', deposits: '0', withdrawals: '0' },
  };
}

/** Newest first by (time, id), as the store answers. */
function expected(rows: readonly TradeRow[], coin: string, q: RangeQuery): TradeRow[] {
  const out = rows
    .filter((r) => r.coin === coin && r.time >= q.start && r.time <= q.end)
    .filter((r) => q.before === null || r.time < q.before.time || (r.time === q.before.time && r.id < q.before.id))
    .sort((a, b) => b.time - a.time || b.id - a.id);
  return Number.isInteger(q.limit) && q.limit >= 0 ? out.slice(0, q.limit) : out; // LevelDB's reading of a limit
}

t.test('packed entries answer every range, cursor and limit as the rows do', async (t) => {
  const seed = replaySeed(t, 35);
  const r = mulberry32(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
  const users = Array.from({ length: 5 }, (_, i) => `0x${String(i + 1).padStart(40, '0')}`);
  const dir = await tempDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));

  // Before the packing: one JSON object an entry, as the store wrote them, for the first blocks.
  const all: TradeRow[] = [];
  let id = 1;
  let height = 1;
  let time = T0;
  const block = (count: number): TradeRow[] => {
    const rows: TradeRow[] = [];
    const hash = `0x${height.toString(16).padStart(64, '0')}`;
    for (let i = 0; i < count; i++) {
      rows.push({
        id: id++, coin: COINS[int(0, COINS.length - 1)] as string, time, height, tid: int(1, 2 ** 40), px: `${int(1, 90_000)}.5`, sz: `0.${int(1, 999)}`,
        side: r() < 0.5 ? 'B' : 'A', hash, buyer: users[int(0, 4)] as string, seller: r() < 0.1 ? '' : (users[int(0, 4)] as string), liquidation: r() < 0.05,
      });
    }
    height += 1;
    time += int(0, 3) * 1000; // blocks may share a time
    return rows;
  };
  const old = new Level<string, unknown>(dir, { valueEncoding: 'json' });
  const oldRows = old.sublevel<string, TradeRow>('t', { valueEncoding: 'json' });
  for (let b = 0; b < 4; b++) {
    for (const row of block(int(0, 30))) {
      all.push(row);
      await oldRows.put(`${row.coin}!${hex14(row.time)}!${hex14(row.id)}`, row);
    }
  }
  await old.close();

  const store = new LevelHistoryStore(dir);
  await store.open();
  t.teardown(() => store.close());
  for (let b = 0; b < 12; b++) {
    const rows = block(pick([0, 1, 5, 40, 2 * PACK_ROWS + 7, 400]));
    all.push(...rows);
    await store.write(batchOf(height - 1, rows));
  }
  function pick<T>(xs: readonly T[]): T {
    return xs[int(0, xs.length - 1)] as T;
  }

  const last = all[all.length - 1]?.time ?? T0;
  for (let i = 0; i < 300; i++) {
    const coin = pick([...COINS, 'DOGE']);
    const a = int(T0 - 1000, last + 1000);
    const b = pick([int(T0 - 1000, last + 1000), Number.MAX_SAFE_INTEGER]);
    const mine = all.filter((x) => x.coin === coin);
    const cursorRow = mine[int(0, Math.max(0, mine.length - 1))];
    const before = r() < 0.5 || cursorRow === undefined ? null : { time: cursorRow.time, id: cursorRow.id + int(-1, 1) };
    const q: RangeQuery = { start: Math.min(a, b), end: Math.max(a, b), before, limit: pick([0, 1, 4, 63, 65, 1000, -1, 2.5]) };
    const got = await store.trades(coin, q);
    if (!t.same(got, expected(all, coin, q), `query ${i}: ${coin} ${JSON.stringify(q)}`)) break;
  }

  // Paging through a market from the newest, four at a time, visits every row once, in order.
  const pages: TradeRow[] = [];
  let cursor: { time: number; id: number } | null = null;
  for (let i = 0; i <= all.length; i++) {
    const page = await store.trades('BTC', { start: 0, end: Number.MAX_SAFE_INTEGER, before: cursor, limit: 4 });
    if (page.length === 0) break;
    pages.push(...page);
    const end = page[page.length - 1] as TradeRow;
    cursor = { time: end.time, id: end.id };
  }
  t.same(pages, expected(all, 'BTC', { start: 0, end: Number.MAX_SAFE_INTEGER, before: null, limit: -1 }));
});

t.test('packing groups by market, block and time, at most PACK_ROWS an entry, and reads back', async (t) => {
  const rows: TradeRow[] = [];
  for (let i = 0; i < 3 * PACK_ROWS; i++) {
    rows.push({
      id: 100 + i, coin: i % 3 === 0 ? 'ETH' : 'BTC', time: T0 + (i >= 2 * PACK_ROWS ? 1000 : 0), height: i >= 2 * PACK_ROWS ? 8 : 7, tid: i, px: '1.5',
      sz: '2', side: 'B', hash: '0xab', buyer: '0x01', seller: i % 2 === 0 ? '0x02' : '"\\ \u00e9', liquidation: i % 5 === 0,
    });
  }
  const packed = packTrades(rows);
  t.ok(packed.every((p) => unpackTrades(p.coin, JSON.parse(p.text)).length <= PACK_ROWS));
  const back = packed.flatMap((p) => unpackTrades(p.coin, JSON.parse(p.text)));
  t.same(back.sort((a, b) => a.id - b.id), rows, 'every row, field for field');
  for (const p of packed) {
    const entry = unpackTrades(p.coin, JSON.parse(p.text));
    t.ok(entry.every((x) => x.coin === p.coin && x.time === p.time && x.height === entry[0]?.height), 'one market, time and block an entry');
    t.equal(entry[0]?.id, p.firstId, 'keyed by its first row');
  }
  t.throws(() => unpackTrades('BTC', [2, 0, 0, 0, [], []]), /unknown trade entry version 2/);
});
