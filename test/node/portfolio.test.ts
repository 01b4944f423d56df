// The portfolio indexer: samples per 15 minutes of block time, only of changed accounts, and the
// windows built from them with PnL and volume counted from each window's start.
import t from 'tap';
import { views } from '../../exchange/index.ts';
import { PORTFOLIO_SAMPLE_MS, PortfolioIndex, portfolioView } from '../../node/index.ts';
import { Harness, USERS, lim } from '../support/exchange.ts';

const [A, B] = USERS as [string, string];

t.test('samples once per bucket, only accounts whose figures changed', async (t) => {
  const h = new Harness();
  const index = new PortfolioIndex();
  const first = index.sample(h.ex.state, h.time);
  t.equal(first.length, h.ex.state.accounts.size, 'the first sample covers every account');
  t.same(index.sample(h.ex.state, h.time + 1), [], 'same bucket: nothing');
  h.order(B, lim(0, false, '100000', '1'));
  h.order(A, lim(0, true, '100000', '1', 'Ioc'));
  const next = Math.ceil((h.time + 1) / PORTFOLIO_SAMPLE_MS) * PORTFOLIO_SAMPLE_MS;
  const rows = index.sample(h.ex.state, next);
  t.same(rows.map((r) => r.user).sort(), [A, B].sort(), 'only the two traders changed');
  const a = rows.find((r) => r.user === A)!.sample;
  t.equal(a[5], (100_000n * 10n ** 8n).toString(), 'cumulative volume: 100,000 USDC');
  t.ok(BigInt(a[2]) < 0n, 'the taker fee is a loss');
});

t.test('windows: value history, PnL since the window start, volume in the window', async (t) => {
  const h = new Harness();
  const index = new PortfolioIndex();
  const samples = index.sample(h.ex.state, h.time).filter((r) => r.user === A).map((r) => r.sample);
  // A buys 1 BTC at 100,000; two days later the mark is 110,000.
  h.order(B, lim(0, false, '100000', '1'));
  h.order(A, lim(0, true, '100000', '1', 'Ioc'));
  const dayLater = h.time + 86_400_000;
  samples.push(...index.sample(h.ex.state, dayLater).filter((r) => r.user === A).map((r) => r.sample));
  h.idle(2 * 86_400_000);
  h.oracle({ BTC: '110000' });
  const live = views.portfolioFigures(h.ex.state, A)!;
  const out = portfolioView(samples, live, h.time);
  t.same(out.map(([name]) => name), ['day', 'week', 'month', 'allTime', 'perpDay', 'perpWeek', 'perpMonth', 'perpAllTime']);
  const [, day] = out[0]!;
  const [, week] = out[1]!;
  t.equal(day.accountValueHistory.length, 1, 'the day window holds only the live point');
  t.equal(day.vlm, '0', 'no trade in the last day');
  t.equal(day.pnlHistory[0]![1], '10000', 'the day: +10,000 on the mark move (fees fell before the window)');
  t.equal(week.vlm, '100000');
  t.equal(week.accountValueHistory.length, 3);
  const fee = BigInt(live.perpPnl) - 10_000n * 10n ** 8n;
  t.ok(fee < 0n, 'over the week the fee counts');
  t.equal(week.pnlHistory.at(-1)![1], (Number(10_000n * 10n ** 8n + fee) / 1e8).toString(), 'PnL since the first sample: mark move less the fee');
  t.equal(week.accountValueHistory.at(-1)![1], views.clearinghouseState(h.ex.state, A).marginSummary.accountValue.replace(/^(\d+)$/, '$1'), 'value = USDC and perp equity (no spot tokens priced yet)');
});
