// Candles from trades: candleSnapshot over REST and the candle stream over WebSocket.
import t from 'tap';
import WebSocket from 'ws';
import { limit, orderAction, startNode, wallets } from '../support/node.ts';

const [alice, bob] = wallets as [typeof wallets[0], typeof wallets[0]];

t.test('trades make candles for every interval', async (t) => {
  const { node, client } = await startNode(t);
  const ws = new WebSocket(node.wsUrl as string);
  const got: any[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any
  ws.on('message', (d) => got.push(JSON.parse(d.toString())));
  await new Promise((r) => ws.once('open', r));
  t.teardown(() => ws.close());
  ws.send(JSON.stringify({ method: 'subscribe', subscription: { type: 'candle', coin: 'ETH', interval: '1m' } }));

  await client.exchange(alice, orderAction(limit(1, false, '3500', '2'), limit(1, false, '3510', '2')));
  await client.exchange(bob, orderAction(limit(1, true, '3500', '1', 'Ioc')));
  await client.exchange(bob, orderAction(limit(1, true, '3510', '2', 'Ioc')));

  const now = Date.now();
  const res = await client.info({ type: 'candleSnapshot', req: { coin: 'ETH', interval: '1m', startTime: now - 3_600_000, endTime: now + 60_000 } });
  t.equal(res.status, 200);
  const c = res.body[res.body.length - 1];
  t.match(c, { s: 'ETH', i: '1m', o: '3500', h: '3510', l: '3500', c: '3510', n: Number, v: String });
  t.equal(c.T - c.t, 59_999);
  const day = (await client.info({ type: 'candleSnapshot', req: { coin: 'ETH', interval: '1d', startTime: 0 } })).body;
  t.equal(day.length, 1);
  t.equal(day[0].v, res.body.reduce((sum: number, x: { v: string }) => sum + Number(x.v), 0).toString(), 'the day holds all the minutes');
  t.equal((await client.info({ type: 'candleSnapshot', req: { coin: 'ETH', interval: '2m', startTime: 0 } })).status, 400);

  const deadline = Date.now() + 5000;
  while (!got.some((m) => m.channel === 'candle') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  t.match(got.find((m) => m.channel === 'candle'), { data: { s: 'ETH', i: '1m', o: '3500' } });
});
