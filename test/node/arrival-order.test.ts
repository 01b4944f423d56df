// Admissions enter the mempool in arrival order, whatever order their recoveries finish in.
import t from 'tap';
import { ArrivalOrder } from '../../node/index.ts';

t.test('turns come in ticket order; a ticket done out of turn is an invariant violation', async (t) => {
  const order = new ArrivalOrder();
  const seen: number[] = [];
  const tickets = [order.take(), order.take(), order.take(), order.take()];
  // Finish "recoveries" in reverse: each waits for its turn, records, and passes the turn on.
  const runs = [...tickets].reverse().map(async (ticket) => {
    await order.turn(ticket);
    seen.push(ticket);
    order.done(ticket);
  });
  await Promise.all(runs);
  t.same(seen, [0, 1, 2, 3]);
  const late = order.take();
  t.throws(() => order.done(late + 1), /invariant/);
});
