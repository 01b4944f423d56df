// `portfolio` over REST: Hyperliquid's shape, closed by the live figures.
import t from 'tap';
import { limit, orderAction, startNode, wallets } from '../support/node.ts';

const [alice, bob] = wallets as [typeof wallets[0], typeof wallets[0]];

t.test('portfolio: eight windows with value and PnL history and volume; [] for an unknown user', async (t) => {
  const { client } = await startNode(t);
  await client.exchange(bob, orderAction(limit(0, false, '100000', '0.5')));
  await client.exchange(alice, orderAction(limit(0, true, '100000', '0.5', 'Ioc')));
  const res = await client.info({ type: 'portfolio', user: alice.address.toLowerCase() });
  t.equal(res.status, 200);
  const windows = res.body as [string, { accountValueHistory: [number, string][]; pnlHistory: [number, string][]; vlm: string }][];
  t.same(windows.map(([n]) => n), ['day', 'week', 'month', 'allTime', 'perpDay', 'perpWeek', 'perpMonth', 'perpAllTime']);
  const [, day] = windows[0]!;
  t.equal(day.vlm, '50000', 'half a BTC at 100,000');
  const state = (await client.info({ type: 'clearinghouseState', user: alice.address.toLowerCase() })).body;
  const [, perpDay] = windows[4]!;
  t.equal(perpDay.accountValueHistory.at(-1)![1], state.marginSummary.accountValue, 'the live point is the account value now');
  t.match(day.pnlHistory.at(-1)![1], /^-\d/, 'the taker fee so far');
  t.same((await client.info({ type: 'portfolio', user: '0x00000000000000000000000000000000000000aa' })).body, []);
  t.equal((await client.info({ type: 'portfolio' })).status, 400);
});
