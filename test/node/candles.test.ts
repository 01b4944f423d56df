// Candles fold a block's trades in runs (consecutive trades of a coin at one time): the same
// candles, in the same order, as folding trade by trade.
import fc from 'fast-check';
import t from 'tap';
import type { FillRecord } from '../../exchange/index.ts';
import { CandleBook, CANDLE_INTERVALS, type StoredCandle } from '../../node/index.ts';
import { Harness } from '../support/exchange.ts';
import { replaySeed } from '../support/seed.ts';

/** The fold trade by trade, as the book did before runs (prices and sizes given in units). */
class TradeByTrade {
  readonly current = new Map<string, (StoredCandle | undefined)[]>();

  apply(trades: readonly { coin: string; time: number; px: number; sz: number; crossed: boolean }[]): StoredCandle[] {
    const changed = new Set<StoredCandle>();
    for (const f of trades) {
      if (!f.crossed) continue;
      let candles = this.current.get(f.coin);
      if (candles === undefined) this.current.set(f.coin, (candles = []));
      Object.entries(CANDLE_INTERVALS).forEach(([interval, ms], i) => {
        const at = Math.floor(f.time / ms) * ms;
        let c = candles[i];
        if (c === undefined || c.t !== at) candles[i] = c = { coin: f.coin, interval, t: at, o: f.px, h: f.px, l: f.px, c: f.px, v: 0, n: 0 };
        c.h = Math.max(c.h, f.px);
        c.l = Math.min(c.l, f.px);
        c.c = f.px;
        c.v += f.sz;
        c.n += 1;
        changed.add(c);
      });
    }
    return [...changed].map((c) => ({ ...c }));
  }
}

t.test('candles folded in runs equal candles folded trade by trade', async (t) => {
  const seed = replaySeed(t, 20261129);
  const h = new Harness();
  const coins = [{ coin: 'BTC', pxDecimals: 1, szDecimals: 5 }, { coin: 'ETH', pxDecimals: 2, szDecimals: 4 }].map((c) => {
    const m = h.ex.state.marketsByName.get(c.coin);
    if (m === undefined) throw new Error(`${c.coin} is not a devnet market`);
    return { coin: c.coin, pxDecimals: m.pxDecimals, szDecimals: m.szDecimals };
  });
  const trade = fc.record({ coin: fc.integer({ min: 0, max: 1 }), px: fc.integer({ min: 1, max: 5_000_000 }), sz: fc.integer({ min: 1, max: 100_000 }), crossed: fc.boolean(), later: fc.integer({ min: 0, max: 9 }) });
  // Blocks of trades: mostly one time a block, sometimes a later one inside it; blocks minutes to days apart.
  const blocks = fc.array(fc.record({ gap: fc.integer({ min: 1, max: 3 * 86_400_000 }), trades: fc.array(trade, { maxLength: 40 }) }), { maxLength: 30 });
  fc.assert(
    fc.property(blocks, (bs) => {
      const book = new CandleBook(h.ex);
      const reference = new TradeByTrade();
      let time = 1_767_225_600_000;
      for (const b of bs) {
        time += b.gap;
        let at = time;
        const trades = b.trades.map((x) => {
          if (x.later === 0) at += 30_000; // a trade at a later time inside the block
          const c = coins[x.coin] as (typeof coins)[number];
          return { coin: c.coin, time: at, px: x.px, sz: x.sz, crossed: x.crossed, c };
        });
        const fills = trades.map((x) => ({
          coin: x.coin, time: x.time, crossed: x.crossed,
          px: (x.px / 10 ** x.c.pxDecimals).toFixed(x.c.pxDecimals), sz: (x.sz / 10 ** x.c.szDecimals).toFixed(x.c.szDecimals),
        }) as unknown as FillRecord);
        const got = book.apply(fills);
        const want = reference.apply(trades);
        if (JSON.stringify(got) !== JSON.stringify(want)) return false;
      }
      return true;
    }),
    { seed, numRuns: 300 },
  );
});
