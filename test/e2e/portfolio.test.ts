// `portfolio` over REST: Hyperliquid's shape, closed by the live figures (through client/).
import t from 'tap';
import { DEV_ACCOUNTS } from '../../genesis/index.ts';
import { startNode } from '../support/node.ts';

const [alice, bob] = DEV_ACCOUNTS as [typeof DEV_ACCOUNTS[0], typeof DEV_ACCOUNTS[0]];

t.test('portfolio: eight windows with value and PnL history and volume; [] for an unknown user', async (t) => {
  const { svc } = await startNode(t);
  const a = svc(alice.privateKey);
  await svc(bob.privateKey).placeOrder({ coin: 'BTC', side: 'sell', price: '100000', size: '0.5' });
  await a.placeOrder({ coin: 'BTC', side: 'buy', price: '100000', size: '0.5', tif: 'Ioc' });
  const windows = await a.info.portfolio(a.address);
  t.same(windows.map(([n]) => n), ['day', 'week', 'month', 'allTime', 'perpDay', 'perpWeek', 'perpMonth', 'perpAllTime']);
  const [, day] = windows[0]!;
  t.equal(day.vlm, '50000', 'half a BTC at 100,000');
  const state = await a.info.clearinghouseState(a.address);
  const [, perpDay] = windows[4]!;
  t.equal(perpDay.accountValueHistory.at(-1)![1], state.marginSummary.accountValue, 'the live point is the account value now');
  t.match(day.pnlHistory.at(-1)![1], /^-\d/, 'the taker fee so far');
  t.same(await a.info.portfolio('0x00000000000000000000000000000000000000aa'), []);
  t.match(await a.info.request({ type: 'portfolio' } as never).catch((e: unknown) => e), { status: 400, details: { field: 'user' } });
});
