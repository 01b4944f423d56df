// Candles from trades: candleSnapshot over REST and the candle stream over WebSocket, through the
// typed client (client/).
import t from 'tap';
import type { Candle, OrderWire } from '../../client/index.ts';
import { DEV_ACCOUNTS } from '../../genesis/index.ts';
import { startNode } from '../support/node.ts';

const [alice, bob] = DEV_ACCOUNTS as [typeof DEV_ACCOUNTS[0], typeof DEV_ACCOUNTS[0]];
const ETH = 1;
const order = (b: boolean, p: string, s: string, tif: 'Gtc' | 'Ioc' = 'Gtc'): OrderWire => ({ a: ETH, b, p, s, r: false, t: { limit: { tif } } });

t.test('trades make candles for every interval', async (t) => {
  const { svc } = await startNode(t);
  const a = svc(alice.privateKey);
  const b = svc(bob.privateKey);
  t.teardown(() => a.close());
  const pushed: Candle[] = [];
  await a.ws.subscribe({ type: 'candle', coin: 'ETH', interval: '1m' }, (c) => pushed.push(c));

  await a.exchange.order([order(false, '3500', '2'), order(false, '3510', '2')]);
  await b.exchange.order([order(true, '3500', '1', 'Ioc')]);
  await b.exchange.order([order(true, '3510', '2', 'Ioc')]);

  const now = Date.now();
  const minutes = await a.info.candleSnapshot('ETH', '1m', now - 3_600_000, now + 60_000);
  const c = minutes[minutes.length - 1] as Candle;
  t.match(c, { s: 'ETH', i: '1m', o: '3500', h: '3510', l: '3500', c: '3510', n: Number, v: String });
  t.equal(c.T - c.t, 59_999);
  const day = await a.info.candleSnapshot('ETH', '1d', 0);
  t.equal(day.length, 1);
  t.equal(day[0]?.v, minutes.reduce((sum, x) => sum + Number(x.v), 0).toString(), 'the day holds all the minutes');
  t.match(await a.info.candleSnapshot('ETH', '2m' as '1m', 0).catch((e: unknown) => e), { status: 400 });

  const deadline = Date.now() + 5000;
  while (pushed.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  t.match(pushed[0], { s: 'ETH', i: '1m', o: '3500' });
});
