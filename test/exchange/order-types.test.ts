// Order types beyond plain limits: spot settlement and holds, fees, triggers and TP/SL groups,
// modify and its queue-priority rules, reduce-only on resting orders, the price band.
import t from 'tap';
import { Harness, USERS, bookInvariants, lim, statuses, trig } from '../support/exchange.ts';

const [A, B, C, D] = USERS as [string, string, string, string];
const BTC = 0;
const SVC = 10000; // spot pair 0: SVC-USDC
const E8 = 100_000_000n;

t.test('spot: holds while resting, settlement in both tokens, fees in the quote', async (t) => {
  const h = new Harness();
  const acctA = h.ex.state.accounts.get(A)!;
  const acctB = h.ex.state.accounts.get(B)!;
  t.same(h.order(A, lim(SVC, false, '1.5', '1000')), [{ resting: { oid: 1 } }]);
  t.equal(acctA.held.get(10001), 1000n * E8, '1000 SVC held for the ask');
  t.same(h.order(B, lim(SVC, true, '1.5', '400', 'Ioc')), [{ filled: { totalSz: '400', avgPx: '1.5', oid: 2 } }]);
  // Buyer: +400 SVC, -600 USDC - 0.42 taker fee (7 bps). Seller: -400 SVC, +600 - 0.24 maker fee (4 bps).
  t.equal(acctB.balance(10001), 100_400n * E8);
  t.equal(acctB.usdc, (1_000_000n - 600n) * E8 - 42_000_000n);
  t.equal(acctA.balance(10001), 99_600n * E8);
  t.equal(acctA.usdc, (1_000_000n + 600n) * E8 - 24_000_000n);
  t.equal(acctA.held.get(10001), 600n * E8, 'the hold shrinks with the fill');
  t.equal(h.ex.state.feesCollected, 66_000_000n);
  t.same(h.order(B, lim(SVC, false, '2', '200000')), [{ error: 'Insufficient spot balance' }]);
  t.same(h.order(A, lim(SVC, false, '1.6', '99600')), [{ error: 'Insufficient spot balance' }], '600 of the 99,600 are held');
  t.same(h.order(B, lim(SVC, true, '1.49', '1', 'Gtc', true)), [{ error: 'Reduce only violated: spot orders cannot be reduce-only' }]);
  t.same(h.cancel(A, SVC, 1), 'success');
  t.equal(acctA.held.size, 0, 'cancel releases the hold');
  t.equal(bookInvariants(h.ex), null);
});

t.test('spot: price decimals are 8 - szDecimals of the base, with 5 significant figures', async (t) => {
  const h = new Harness();
  t.match(h.order(A, lim(SVC, true, '0.012345', '10')), [{ resting: {} }], '6 decimals allowed for SVC (szDecimals 2)');
  t.match(h.order(A, lim(SVC, true, '0.123456', '10')), [{ error: /more than 5 significant figures/ }]);
  t.match(h.order(A, lim(SVC, true, '0.1234567', '10')), [{ error: /^Invalid price: 0.1234567/ }]);
  t.match(h.order(A, lim(SVC, true, '1.23456', '10')), [{ error: /more than 5 significant figures/ }]);
  t.match(h.order(A, lim(SVC, true, '1', '0.5')), [{ error: /^Size below market minimum/ }]);
});

t.test('perp fees: taker and maker rates from the genesis on every fill', async (t) => {
  const h = new Harness();
  h.order(A, lim(BTC, false, '100000', '1'));
  const out = h.tx(B, { type: 'order', orders: [lim(BTC, true, '100000', '1', 'Ioc')], grouping: 'na' });
  const fills = out.events.filter((e) => e.kind === 'fill').map((e) => e.kind === 'fill' && [e.user, e.fill.fee, e.fill.feeToken]);
  t.same(fills, [[A, '15', 'USDC'], [B, '45', 'USDC']]);
});

t.test('price band: limit prices within 80% of the oracle', async (t) => {
  const h = new Harness();
  t.match(h.order(A, lim(BTC, true, '20000', '0.1')), [{ resting: {} }], '80% below the reference 100,000');
  t.match(h.order(A, lim(BTC, true, '19999', '0.1')), [{ error: /^Price out of range/ }]);
  t.match(h.order(A, lim(BTC, false, '180000', '0.1')), [{ resting: {} }]);
  t.match(h.order(A, lim(BTC, false, '180010', '0.1')), [{ error: /^Price out of range/ }]);
});

t.test('max open orders per market counts resting and trigger orders', async (t) => {
  const g = (await import('../../genesis/index.ts')).devnetGenesis();
  g.exchange.maxOpenOrdersPerMarket = 2;
  const h = new Harness(g);
  h.order(A, lim(BTC, true, '90000', '0.1'));
  h.order(A, lim(BTC, false, '110000', '0.1'));
  t.same(h.order(A, lim(BTC, true, '90000', '0.1')), [{ error: 'Max open orders exceeded' }]);
  t.match(h.order(A, lim(BTC, true, '90000', '0.1', 'Ioc')), [{ error: /could not immediately match/ }], 'Ioc never rests: no limit');
  t.match(h.order(A, lim(1, true, '3000', '0.1')), [{ resting: {} }], 'the limit is per market');
});

t.test('reduce-only: resting orders never add up to more than the position', async (t) => {
  const h = new Harness();
  h.order(B, lim(BTC, false, '100000', '1'));
  h.order(A, lim(BTC, true, '100000', '1', 'Ioc')); // A long 1
  t.same(h.order(A, lim(BTC, false, '110000', '0.6', 'Gtc', true)), [{ resting: { oid: 3 } }]);
  t.same(h.order(A, lim(BTC, false, '111000', '0.6', 'Gtc', true)), [{ resting: { oid: 4 } }], 'clamped to the 0.4 left');
  t.equal(h.resting(4)?.sz, 40000);
  t.same(h.order(A, lim(BTC, false, '112000', '0.1', 'Gtc', true)), [{ error: 'Reduce only violated' }], 'no room left');
  // A sells 0.5 elsewhere: position 0.5 < 1.0 of resting reduce-only: the newest goes.
  h.order(C, lim(BTC, true, '99000', '0.5'));
  const out = h.tx(A, { type: 'order', orders: [lim(BTC, false, '99000', '0.5', 'Ioc')], grouping: 'na' });
  t.match(out.events.filter((e) => e.kind === 'order' && e.status === 'reduceOnlyCanceled'), [{ order: { oid: 3 } }], 'the 0.6 no longer fits');
  t.notOk(h.resting(3));
  t.equal(h.resting(4)?.sz, 40000, 'the 0.4 still does');
  t.equal(bookInvariants(h.ex), null);
});

t.test('trigger orders fire at the end of the block when the mark crosses', async (t) => {
  const h = new Harness();
  h.order(B, lim(BTC, false, '100000', '1'));
  h.order(A, lim(BTC, true, '100000', '1', 'Ioc')); // A long 1 at 100,000
  // Stop loss: sell when the mark falls to 95,000; take profit: sell at 105,000 or above.
  const [sl, tp] = h.order(A, trig(BTC, false, '94000', '1', '95000', 'sl'), trig(BTC, false, '105000', '1', '105000', 'tp', false)) as [{ resting: { oid: number } }, { resting: { oid: number } }];
  t.ok(sl.resting && tp.resting);
  t.same(h.endBlock(), [], 'mark 100,000: nothing fires');
  // The market moves down: bid 94,500 / ask 95,000, last trade 94,500. The mark is the median of
  // oracle 100,000, mid 94,750 and last 94,500.
  h.order(C, lim(BTC, true, '94500', '2.1'));
  h.order(C, lim(BTC, false, '95000', '0.1'));
  h.order(D, lim(BTC, false, '94500', '0.1', 'Ioc'));
  t.equal(h.ex.state.markPx(h.ex.state.perps[0]!), 947500, 'mark 94,750.0');
  const events = h.endBlock();
  t.match(events.filter((e) => e.kind === 'order').map((e) => e.kind === 'order' && [e.order.oid, e.status]), [[sl.resting.oid, 'triggered']]);
  const fills = events.filter((e) => e.kind === 'fill' && e.user === A);
  t.match(fills, [{ fill: { px: '94500', sz: '1', dir: 'Close Long', oid: sl.resting.oid, crossed: true } }]);
  t.equal(h.ex.state.accounts.get(A)?.positions.size, 0);
  t.match(h.order(A, lim(BTC, true, '90000', '0.1')), [{ resting: {} }]);
  t.ok(h.ex.state.perps[0]!.triggers.orders.has(tp.resting.oid), 'a standalone TP stays (reduce-only: it will find nothing to close)');
});

t.test('normalTpsl: legs wait for the parent, then one cancels the other', async (t) => {
  const h = new Harness();
  const st = h.grouped(A, 'normalTpsl', lim(BTC, true, '99000', '1'), trig(BTC, false, '90000', '1', '90000', 'sl'), trig(BTC, false, '120000', '1', '110000', 'tp', false)) as { resting: { oid: number } }[];
  t.match(st, [{ resting: { oid: 1 } }, { resting: { oid: 2 } }, { resting: { oid: 3 } }]);
  const triggers = h.ex.state.perps[0]!.triggers;
  t.equal(triggers.orders.get(2)?.active, false, 'waiting for the parent');
  h.order(B, lim(BTC, false, '99000', '1', 'Ioc')); // the parent fills
  t.equal(triggers.orders.get(2)?.active, true);
  t.equal(triggers.orders.get(3)?.sibling, 2);
  // Mark to 110,000+ (mid and last trade there): the TP fires (a limit sell at 120,000 that
  // rests), the SL is cancelled.
  h.order(C, lim(BTC, true, '110000', '0.1'));
  h.order(C, lim(BTC, false, '110010', '0.2'));
  h.order(D, lim(BTC, true, '110010', '0.1', 'Ioc'));
  const events = h.endBlock();
  t.same(events.filter((e) => e.kind === 'order').map((e) => e.kind === 'order' && [e.order.oid, e.status]), [[3, 'triggered'], [2, 'siblingFilledCanceled'], [3, 'open']]);
  t.equal(triggers.orders.size, 0);
  t.equal(h.resting(3)?.px, 1200000, 'the TP limit rests at 120,000');
});

t.test('normalTpsl: a parent cancelled unfilled takes its legs with it', async (t) => {
  const h = new Harness();
  h.grouped(A, 'normalTpsl', lim(BTC, true, '99000', '1'), trig(BTC, false, '90000', '1', '90000', 'sl'));
  t.equal(h.cancel(A, BTC, 1), 'success');
  t.equal(h.ex.state.perps[0]!.triggers.orders.size, 0);
  t.equal(h.ex.state.tpslChildren.size, 0);
});

t.test('positionTpsl: sized to the position, removed with it', async (t) => {
  const h = new Harness();
  t.match(h.grouped(A, 'positionTpsl', trig(BTC, false, '90000', '0', '90000', 'sl')), [{ error: /needs an open position/ }]);
  h.order(B, lim(BTC, false, '100000', '2'));
  h.order(A, lim(BTC, true, '100000', '2', 'Ioc'));
  t.match(h.grouped(A, 'positionTpsl', trig(BTC, false, '90000', '0', '90000', 'sl')), [{ resting: {} }]);
  h.order(C, lim(BTC, true, '100000', '2'));
  h.order(A, lim(BTC, false, '100000', '2', 'Ioc')); // position closed
  t.equal(h.ex.state.perps[0]!.triggers.orders.size, 0, 'the position TP/SL went with the position');
});

t.test('modify: priority kept when the size shrinks or the price improves; re-queued otherwise', async (t) => {
  const h = new Harness();
  const place = (user: string, px: string) => (h.order(user, lim(BTC, true, px, '1')) as [{ resting: { oid: number } }])[0].resting.oid;
  const a = place(A, '99000');
  const b = place(B, '99000');
  const queue = (px: number) => {
    const level = h.ex.state.perps[0]!.engine.bids.levels.get(px * 10);
    const out: number[] = [];
    for (let o = level?.head ?? null; o !== null; o = o.next) out.push(o.oid);
    return out;
  };
  const modify = (user: string, oid: number, px: string, sz: string) => h.tx(user, { type: 'modify', oid, order: lim(BTC, true, px, sz) }).result;
  t.same(modify(A, a, '99000', '0.5'), { status: 'ok', response: { type: 'default' } });
  t.same(queue(99000), [a, b], 'smaller at the same price: stays first');
  t.equal(h.resting(a)?.sz, 50000);
  t.same(modify(A, a, '99000', '2'), { status: 'ok', response: { type: 'default' } });
  t.same(queue(99000), [b, a], 'larger: back of the queue');
  const c = place(C, '99500');
  t.same(modify(B, b, '99500', '1'), { status: 'ok', response: { type: 'default' } });
  t.same(queue(99500), [b, c], 'a better price keeps its original time priority at the new level');
  t.match(modify(A, a, '99000.55', '1'), { status: 'err', error: { message: /significant figures/ } });
  t.same(queue(99000), [a], 'a refused modify leaves the order as it was');
  t.match(modify(B, a, '99000', '1'), { status: 'err', error: { code: 'ORDER_NOT_FOUND' } }, 'only the owner modifies');
  t.match(h.tx(A, { type: 'modify', oid: '0x000102030405060708090a0b0c0d0e0f', order: lim(BTC, true, '99000', '1') }).result, { status: 'err', error: { message: 'Order not found' } });
  t.equal(bookInvariants(h.ex), null);
});

t.test('modify: a price that now crosses trades at once under the same oid', async (t) => {
  const h = new Harness();
  h.order(B, lim(BTC, false, '100000', '0.5'));
  h.order(A, lim(BTC, true, '99000', '1'));
  const out = h.tx(A, { type: 'modify', oid: 2, order: lim(BTC, true, '100000', '1') });
  t.same(out.result, { status: 'ok', response: { type: 'default' } });
  t.match(out.events.filter((e) => e.kind === 'fill' && e.user === A), [{ fill: { oid: 2, sz: '0.5', crossed: true } }]);
  t.equal(h.resting(2)?.sz, 50000, 'the rest rests under the same oid');
  t.same(statuses(h.tx(A, { type: 'cancel', cancels: [{ a: BTC, o: 2 }] })), ['success']);
});

t.test('review regressions: modify keeps holds, restores on a no-trade Ioc, releases TP/SL legs', async (t) => {
  const h = new Harness();
  const acctA = h.ex.state.accounts.get(A)!;
  h.order(A, lim(SVC, false, '1.5', '1000'));
  const refused = h.tx(A, { type: 'modify', oid: 1, order: lim(SVC, false, '1.5', '10000000') });
  t.match(refused.result, { status: 'err', error: { code: 'INSUFFICIENT_SPOT_BALANCE' } });
  t.equal(acctA.held.get(10001), 1000n * E8, 'the restored order still holds its 1000 SVC');
  t.equal(bookInvariants(h.ex), null);

  h.order(A, lim(BTC, true, '90000', '1'));
  const ioc = h.tx(A, { type: 'modify', oid: 2, order: lim(BTC, true, '90000', '2', 'Ioc') });
  t.match(ioc.result, { status: 'err', error: { code: 'IOC_NO_MATCH' } });
  t.equal(h.resting(2)?.sz, 100000, 'the order is back as it was');
  t.ok(h.ex.state.perps.some((m) => (m.engine.orders.get(2)?.margin ?? 0n) > 0n), 'with its margin');

  const g = new Harness();
  g.grouped(A, 'normalTpsl', lim(BTC, true, '95000', '1'), trig(BTC, false, '90000', '1', '90000', 'sl'), trig(BTC, false, '120000', '1', '110000', 'tp', false));
  g.order(B, lim(BTC, false, '100000', '1'));
  t.same(g.tx(A, { type: 'modify', oid: 1, order: lim(BTC, true, '100000', '1') }).result, { status: 'ok', response: { type: 'default' } });
  const legs = g.ex.state.perps[0]!.triggers;
  t.same([...legs.orders.values()].map((l) => [l.oid, l.active]), [[2, true], [3, true]], 'the parent filled through modify: legs are live');
  t.equal(g.ex.state.tpslChildren.size, 0);
});

t.test('review regressions: an Ioc parent that partly fills caps its legs', async (t) => {
  const h = new Harness();
  h.order(B, lim(BTC, false, '100000', '0.4'));
  const st = h.grouped(A, 'normalTpsl', lim(BTC, true, '100000', '1', 'Ioc'), trig(BTC, false, '90000', '1', '90000', 'sl'));
  t.match(st, [{ filled: { totalSz: '0.4' } }, { resting: {} }]);
  t.equal([...h.ex.state.perps[0]!.triggers.orders.values()][0]?.sz, 40000, 'the leg is sized to the 0.4 that filled');
});
