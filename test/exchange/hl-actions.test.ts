// Hyperliquid's actions the state machine added for its clients: noop, batchModify, scheduleCancel
// (the dead man's switch), approveBuilderFee and the builder fees of order actions.
import t from 'tap';
import { maxBuilderFee, restoreExchange, snapshotState, stateHash, type ExchangeEvent, type TxOutcome } from '../../exchange/index.ts';
import { Harness, USERS, bookInvariants, lim, mulberry32, pnlImbalance, statuses, trig, usdcTotal } from '../support/exchange.ts';

const [A, B, C] = USERS as [string, string, string];
const BTC = 0;
const SVC = 10000; // spot pair 0: SVC-USDC
const E8 = 100_000_000n;
const E6 = 1_000_000n;
const BUILDER = `0x${'b1'.repeat(20)}`;
const AGENT = `0x${'a9'.repeat(20)}`;
const CLOID = `0x${'12'.repeat(16)}`;

function ok(out: TxOutcome): unknown {
  if (out.result.status !== 'ok') throw new Error(`action failed: ${out.result.error.message}`);
  return out.result.response;
}

function err(out: TxOutcome): string {
  if (out.result.status !== 'err') throw new Error(`action succeeded: ${JSON.stringify(out.result.response)}`);
  return out.result.error.message;
}

const orderEvents = (events: readonly ExchangeEvent[], status: string) =>
  events.flatMap((e) => (e.kind === 'order' && e.status === status ? [e.order.oid] : [])).sort((x, y) => x - y);

const fills = (events: readonly ExchangeEvent[]) => events.flatMap((e) => (e.kind === 'fill' ? [e.fill] : []));

function approve(h: Harness, user: string, builder: string, maxFeeRate: string): TxOutcome {
  return h.tx(user, { type: 'approveBuilderFee', maxFeeRate, builder, nonce: h.time + 1 });
}

t.test('noop: uses the nonce and changes nothing else', async (t) => {
  const h = new Harness();
  h.order(A, lim(BTC, true, '90000', '0.1'));
  const time = h.time + 1;
  h.ex.beginBlock(h.ex.height + 1, time);
  const strip = (snap: unknown) => {
    const s = JSON.parse(JSON.stringify(snap));
    delete s.nonces;
    for (const row of s.accounts) row[8] = 0; // the request count: a noop is one request, as any action
    return s;
  };
  const before = strip(snapshotState(h.ex.state));
  const tx = { hash: '0x01', signer: A, nonce: time, vaultAddress: null, action: { type: 'noop' } };
  const out = h.ex.execute(tx);
  t.same(out.result, { status: 'ok', response: { type: 'default' } });
  t.same(out.events, []);
  t.same(strip(snapshotState(h.ex.state)), before, 'nothing but the nonce and the request count moved');
  t.match(h.ex.execute({ ...tx, hash: '0x02' }).result, { status: 'err', error: { code: 'NONCE_USED' } }, 'the nonce is spent');
  t.equal(h.ex.state.accounts.get(A)!.requests, 2);
});

t.test('batchModify: each modify independently, in order, with its order status', async (t) => {
  const h = new Harness();
  t.same(h.order(A, lim(BTC, true, '90000', '0.5'), lim(BTC, true, '91000', '0.5', 'Gtc', false, CLOID), lim(BTC, true, '92000', '0.5')), [
    { resting: { oid: 1 } }, { resting: { oid: 2, cloid: CLOID } }, { resting: { oid: 3 } },
  ]);
  h.order(B, lim(BTC, false, '95000', '0.2'));
  const requests = h.ex.state.accounts.get(A)!.requests;
  const out = h.tx(A, {
    type: 'batchModify',
    modifies: [
      { oid: 1, order: lim(BTC, true, '90000', '0.3') }, // smaller in place
      { oid: CLOID, order: lim(BTC, true, '95000', '0.5', 'Gtc', false, CLOID) }, // crosses: 0.2 fills, 0.3 rests
      { oid: 999, order: lim(BTC, true, '90000', '0.1') },
      { oid: 3, order: lim(BTC, true, '96000', '0.1', 'Ioc') }, // nothing to meet any more: refused, the order stays
      { oid: 1, order: lim(BTC, true, '89000', '0.3') }, // sees the first modify
    ],
  });
  t.same(ok(out), {
    type: 'order',
    data: {
      statuses: [
        { resting: { oid: 1 } },
        { resting: { oid: 2, cloid: CLOID } },
        { error: 'Order not found' },
        { error: 'Order could not immediately match against any resting orders' },
        { resting: { oid: 1 } },
      ],
    },
  });
  t.equal(h.ex.state.accounts.get(A)!.requests, requests + 5, 'a batch of n counts n requests');
  t.equal(h.resting(1)?.px, 890000);
  t.equal(h.resting(2)?.sz, 30000, '0.3 left after 0.2 filled');
  t.equal(h.resting(3)?.px, 920000, 'the refused modify left the order');
  h.order(B, lim(BTC, false, '96000', '0.1'));
  t.same(statuses(h.tx(A, { type: 'batchModify', modifies: [{ oid: 3, order: lim(BTC, true, '96000', '0.1') }] })), [
    { filled: { totalSz: '0.1', avgPx: '96000', oid: 3 } },
  ], 'a modify that fills reports it');
  t.same(ok(h.tx(A, { type: 'modify', oid: 1, order: lim(BTC, true, '88000', '0.3') })), { type: 'default' }, "modify's own answer is unchanged");
  t.match(err(h.tx(A, { type: 'batchModify', modifies: [] })), /action.modifies: expected a non-empty array/);
  t.match(err(h.tx(A, { type: 'batchModify', modifies: [{ order: lim(BTC, true, '1', '1') }] })), /Missing field: action.modifies\[0\].oid/);
  t.equal(bookInvariants(h.ex), null);
});

t.test('scheduleCancel: fires at its time and not before, on every market, then clears', async (t) => {
  const h = new Harness();
  t.equal(err(h.tx(A, { type: 'scheduleCancel', time: h.time + 1 + 4999 })), 'Scheduled cancel time must be at least 5 seconds in the future');
  t.same(h.order(A, lim(BTC, true, '90000', '0.1'), lim(1, false, '4000', '1'), lim(SVC, true, '1', '100')), [
    { resting: { oid: 1 } }, { resting: { oid: 2 } }, { resting: { oid: 3 } },
  ]);
  h.order(B, lim(BTC, false, '100000', '0.5'));
  h.order(A, lim(BTC, true, '100000', '0.5', 'Ioc')); // A long: a stop below
  t.same(h.order(A, trig(BTC, false, '80000', '0.5', '80000', 'sl')), [{ resting: { oid: 6 } }]);
  h.order(C, lim(BTC, true, '85000', '0.1')); // someone else's order stays
  t.same(h.grouped(A, 'normalTpsl', lim(BTC, true, '89000', '0.1'), trig(BTC, false, '80000', '0.1', '85000', 'sl')), [
    { resting: { oid: 8 } }, { resting: { oid: 9 } },
  ], 'a parent with a waiting leg');
  const at = h.time + 10_000;
  t.same(ok(h.tx(A, { type: 'scheduleCancel', time: at })), { type: 'default' });
  t.equal(h.ex.state.scheduledCancels.get(A), at);
  t.same(orderEvents(h.idle(at - 1 - h.time), 'scheduledCancel'), [], 'a millisecond early: nothing');
  t.equal(h.resting(1)?.oid, 1);
  const events = h.idle(1);
  t.same(orderEvents(events, 'scheduledCancel'), [1, 2, 3, 6, 8, 9], 'book and trigger orders, every market, waiting legs too');
  t.same(orderEvents(events, 'canceled'), []);
  t.equal(h.ex.state.tpslChildren.size, 0);
  t.match(events.find((e) => e.kind === 'order'), { user: A, status: 'scheduledCancel', statusTimestamp: at });
  t.equal(h.restingCount(), 1, "only C's order rests");
  t.equal(h.ex.state.perps[BTC]!.triggers.count(A), 0);
  t.equal(h.ex.state.accounts.get(A)!.held.size, 0, 'the spot hold is released');
  t.equal(h.ex.state.accounts.get(A)!.orderMargin, 0n);
  t.equal(h.ex.state.scheduledCancels.size, 0, 'the schedule is cleared');
  t.same(orderEvents(h.idle(60_000), 'scheduledCancel'), [], 'it fires once');
  t.equal(bookInvariants(h.ex), null);

  // Cleared before its time: nothing fires. A later schedule replaces an earlier one.
  h.order(A, lim(BTC, true, '90000', '0.1'));
  ok(h.tx(A, { type: 'scheduleCancel', time: h.time + 6000 }));
  ok(h.tx(A, { type: 'scheduleCancel' }));
  t.same(orderEvents(h.idle(10_000), 'scheduledCancel'), [], 'cleared');
  ok(h.tx(A, { type: 'scheduleCancel', time: h.time + 6000 }));
  ok(h.tx(A, { type: 'scheduleCancel', time: h.time + 20_000 }));
  t.same(orderEvents(h.idle(10_000), 'scheduledCancel'), [], 'moved later');
  t.equal(orderEvents(h.idle(10_000), 'scheduledCancel').length, 1);
});

t.test('scheduleCancel: agents may set it; at most 10 fire per UTC day', async (t) => {
  const h = new Harness();
  ok(h.tx(A, { type: 'approveAgent', agentAddress: AGENT, agentName: '', nonce: h.time + 1 }));
  ok(h.tx(AGENT, { type: 'scheduleCancel', time: h.time + 5001 }, A));
  t.equal(h.ex.state.scheduledCancels.get(A), h.time + 5000, 'set for the account the agent signs for');
  h.idle(5000);
  for (let i = 1; i < 10; i++) {
    ok(h.tx(A, { type: 'scheduleCancel', time: h.time + 5001 }));
    h.idle(5000);
  }
  t.equal(h.ex.state.scheduledCancelsFired.get(A)?.count, 10, 'ten fired today (with or without orders)');
  t.equal(err(h.tx(A, { type: 'scheduleCancel', time: h.time + 5001 })), 'Too many scheduled cancels today');
  ok(h.tx(A, { type: 'scheduleCancel' }));
  ok(h.tx(B, { type: 'scheduleCancel', time: h.time + 5001 })); // the limit is per account
  const nextDay = Math.ceil(h.time / 86_400_000) * 86_400_000;
  h.idle(nextDay - h.time - 2);
  t.equal(err(h.tx(A, { type: 'scheduleCancel', time: h.time + 5001 })), 'Too many scheduled cancels today', 'until 00:00 UTC');
  ok(h.tx(A, { type: 'scheduleCancel', time: h.time + 5001 }));
  t.equal(h.ex.state.scheduledCancels.get(A), nextDay + 5000);
});

t.test('approveBuilderFee: main wallet, percent rates up to 1%, "0%" revokes', async (t) => {
  const h = new Harness();
  t.equal(maxBuilderFee(h.ex.state, A, BUILDER), 0);
  t.same(ok(approve(h, A, BUILDER, '0.01%')), { type: 'default' });
  t.equal(maxBuilderFee(h.ex.state, A, BUILDER), 10, 'tenths of a basis point');
  t.equal(maxBuilderFee(h.ex.state, A.toUpperCase().replace('0X', '0x'), BUILDER.toUpperCase().replace('0X', '0x')), 10, 'any case');
  ok(approve(h, A, BUILDER, '1%'));
  t.equal(maxBuilderFee(h.ex.state, A, BUILDER), 1000);
  ok(approve(h, A, BUILDER, '0.001%'));
  t.equal(maxBuilderFee(h.ex.state, A, BUILDER), 1);
  t.match(err(approve(h, A, BUILDER, '1.001%')), /Invalid field action.maxFeeRate/);
  t.match(err(approve(h, A, BUILDER, '0.0001%')), /Invalid field action.maxFeeRate/);
  t.match(err(approve(h, A, BUILDER, '0.01')), /Invalid field action.maxFeeRate/);
  t.match(err(h.tx(A, { type: 'approveBuilderFee', maxFeeRate: '0.01%', builder: BUILDER, nonce: 1 })), /nonce must equal the request nonce/);
  ok(h.tx(A, { type: 'approveAgent', agentAddress: AGENT, agentName: '', nonce: h.time + 1 }));
  t.equal(err(h.tx(AGENT, { type: 'approveBuilderFee', maxFeeRate: '0.1%', builder: BUILDER, nonce: h.time + 1 }, A)), 'Agent not authorized: only the main wallet may sign this action');
  ok(approve(h, A, BUILDER, '0%'));
  t.equal(maxBuilderFee(h.ex.state, A, BUILDER), 0);
  t.equal(h.ex.state.builderApprovals.size, 0, 'a revoke leaves nothing behind');
  t.notOk('builderApprovals' in (snapshotState(h.ex.state) as object), 'nor in the snapshot');
});

t.test('builder fees: refused above the approval, charged on maker and taker fills, USDC conserved', async (t) => {
  const h = new Harness();
  const total = usdcTotal(h.ex.state);
  const order = (user: string, f: number, ...orders: unknown[]) => statuses(h.tx(user, { type: 'order', orders, grouping: 'na', builder: { b: BUILDER, f } }));
  t.same(order(A, 10, lim(BTC, false, '100000', '1'), lim(BTC, false, '101000', '1')), [
    { error: 'Builder fee has not been approved.' }, { error: 'Builder fee has not been approved.' },
  ], 'the whole batch');
  ok(approve(h, A, BUILDER, '0.01%'));
  t.same(order(A, 11, lim(BTC, false, '100000', '1')), [{ error: 'Builder fee has not been approved.' }], 'above the approval');
  t.same(order(A, 10, lim(BTC, false, '100000', '1')), [{ resting: { oid: 1 } }]);
  t.same(h.ex.state.orderBuilders.get(1), { b: BUILDER, f: 10 }, 'the builder rests with the order');
  ok(approve(h, B, BUILDER, '0.005%'));
  const out = h.tx(B, { type: 'order', orders: [lim(BTC, true, '100000', '1', 'Ioc')], grouping: 'na', builder: { b: BUILDER, f: 5 } });
  // Notional 100,000: A pays the 0.015% maker fee and 0.01% to the builder, B 0.045% and 0.005%.
  t.match(fills(out.events), [
    { oid: 1, crossed: false, fee: '25', builderFee: '10' },
    { oid: 2, crossed: true, fee: '50', builderFee: '5' },
  ]);
  t.equal(h.ex.state.accounts.get(BUILDER)?.usdc, 15n * E8, 'the builder account is created and credited');
  t.equal(h.ex.state.accounts.get(A)!.usdc, 1_000_000n * E8 - 25n * E8);
  t.equal(h.ex.state.feesCollected, 60n * E8, 'the exchange keeps only its own fees');
  t.equal(h.ex.state.orderBuilders.size, 0, 'a filled order leaves no builder behind');
  t.equal(usdcTotal(h.ex.state), total, 'USDC conserved');
  t.equal(pnlImbalance(h.ex.state), 0n, 'PnL still sums to zero');

  // Without a builder nothing changes; f = 0 needs no approval and pays nothing.
  h.order(C, lim(BTC, false, '100000', '0.1'));
  const plain = h.tx(B, { type: 'order', orders: [lim(BTC, true, '100000', '0.1', 'Ioc')], grouping: 'na', builder: { b: BUILDER, f: 0 } });
  t.same(fills(plain.events).map((f) => [f.fee, 'builderFee' in f]), [['1.5', false], ['4.5', false]]);
  t.equal(usdcTotal(h.ex.state), total);
});

t.test('builder fees: perps at most 0.1%, spot up to 1% in the quote token; they ride through modify and triggers', async (t) => {
  const h = new Harness();
  const total = usdcTotal(h.ex.state);
  ok(approve(h, A, BUILDER, '0.5%'));
  const order = (f: number, ...orders: unknown[]) => statuses(h.tx(A, { type: 'order', orders, grouping: 'na', builder: { b: BUILDER, f } }));
  t.same(order(500, lim(BTC, true, '90000', '0.1'), lim(SVC, true, '1.5', '1000')), [
    { error: 'Invalid action: builder fee above 0.1% on a perpetual market' }, { resting: { oid: 1 } },
  ]);
  // The spot buy holds 1,500 USDC + the 0.07% taker-rate fee + the 0.5% builder fee.
  t.equal(h.ex.state.accounts.get(A)!.held.get(10000), 1500n * E8 + 105n * E6 + 750n * E6);
  const sold = h.tx(B, { type: 'order', orders: [lim(SVC, false, '1.5', '400', 'Ioc')], grouping: 'na' });
  t.match(fills(sold.events), [{ oid: 1, fee: '3.24', builderFee: '3' }, { oid: 2, fee: '0.42' }]);
  t.notOk('builderFee' in fills(sold.events)[1]!, 'the taker named no builder');
  t.equal(h.ex.state.accounts.get(BUILDER)?.usdc, 3n * E8);
  t.equal(h.ex.state.accounts.get(A)!.spotFees, 324_000_000n);

  // A modify keeps the order's builder; the new version that trades pays it.
  h.order(C, lim(SVC, false, '1.6', '100'));
  t.same(statuses(h.tx(A, { type: 'batchModify', modifies: [{ oid: 1, order: lim(SVC, true, '1.6', '600') }] })), [{ resting: { oid: 1 } }]);
  t.equal(h.ex.state.accounts.get(BUILDER)?.usdc, 3n * E8 + 80n * E6, '0.5% of 160');
  t.same(h.ex.state.orderBuilders.get(1), { b: BUILDER, f: 500 }, 'still resting with its builder');
  h.cancel(A, SVC, 1);
  t.equal(h.ex.state.orderBuilders.size, 0, 'a cancel drops it');

  // A trigger order keeps the builder until it fires.
  h.order(C, lim(BTC, false, '100000', '0.1'));
  h.order(A, lim(BTC, true, '100000', '0.1', 'Ioc'));
  t.same(order(100, trig(BTC, false, '90000', '0.1', '99000', 'sl', false)), [{ resting: { oid: 6 } }]);
  h.order(C, lim(BTC, true, '98000', '0.1'));
  h.order(B, lim(BTC, false, '98000', '0.05', 'Ioc')); // last trade 98,000: the mark follows below 99,000
  h.order(B, lim(BTC, false, '98500', '0.05'));
  const before = h.ex.state.accounts.get(BUILDER)!.usdc;
  const fired = h.endBlock();
  t.same(orderEvents(fired, 'triggered'), [6]);
  const own = fills(fired).filter((f) => f.oid === 6);
  t.ok(own.length > 0, 'the stop traded');
  const paid = own.reduce((s, f) => s + BigInt(Math.round(Number(f.builderFee) * 1e8)), 0n);
  t.ok(paid > 0n);
  t.equal(h.ex.state.accounts.get(BUILDER)!.usdc - before, paid, '0.1% of what the stop traded');
  t.equal(usdcTotal(h.ex.state), total, 'USDC conserved');
  t.equal(pnlImbalance(h.ex.state), 0n);
  t.equal(bookInvariants(h.ex), null);
});

t.test('snapshots keep approvals, resting builders and schedules; the state hash covers them', async (t) => {
  const h = new Harness();
  const empty = stateHash(h.ex.state);
  ok(approve(h, A, BUILDER, '0.02%'));
  const approved = stateHash(h.ex.state);
  t.not(approved, empty);
  h.tx(A, { type: 'order', orders: [lim(BTC, false, '100000', '1')], grouping: 'na', builder: { b: BUILDER, f: 20 } });
  h.order(B, lim(BTC, true, '90000', '0.1'));
  ok(h.tx(B, { type: 'scheduleCancel', time: h.time + 5001 }));
  h.idle(5000);
  ok(h.tx(B, { type: 'scheduleCancel', time: h.time + 60_000 }));
  const snap = JSON.parse(JSON.stringify(snapshotState(h.ex.state)));
  t.same(snap.builderApprovals, [[A, BUILDER, 20]]);
  t.same(snap.orderBuilders, [[1, BUILDER, 20]]);
  t.same(snap.scheduledCancels, [[B, h.time + 59_999]]);
  t.same(snap.scheduledCancelsFired, [[B, Math.floor(h.time / 86_400_000), 1]]);
  const restored = restoreExchange(h.ex.state.config, snap);
  t.equal(stateHash(restored.state), stateHash(h.ex.state));
  // The same next blocks on both: a fill of the builder's order, then the schedule firing.
  const height = h.ex.height + 1;
  const time = h.time + 60_000;
  const tx = { hash: '0xab', signer: C, nonce: time, vaultAddress: null, action: { type: 'order', orders: [lim(BTC, true, '100000', '0.5', 'Ioc')], grouping: 'na' } };
  for (const ex of [h.ex, restored]) ex.beginBlock(height, time);
  const [a, b] = [h.ex.execute(tx), restored.execute(tx)];
  t.same(b, a);
  t.match(fills(a.events)[0], { oid: 1, builderFee: '10' });
  t.same(restored.endBlock(), h.ex.endBlock());
  t.equal(restored.state.scheduledCancels.size, 0, 'the restored schedule fired');
  t.equal(stateHash(restored.state), stateHash(h.ex.state));
});

t.test('random orders, modifies and cancels with builders: USDC conserved, builders only on resting orders', async (t) => {
  const h = new Harness();
  const rand = mulberry32(20261125);
  const users = [A, B, C];
  for (const u of users) ok(approve(h, u, BUILDER, '0.05%'));
  const total = usdcTotal(h.ex.state);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  for (let i = 0; i < 300; i++) {
    const user = pick(users);
    const r = rand();
    const spot = rand() < 0.4;
    const px = spot ? (1.4 + Math.floor(rand() * 20) / 100).toFixed(2) : String(98_000 + Math.floor(rand() * 40) * 100);
    const sz = spot ? String(1 + Math.floor(rand() * 50)) : (0.01 * (1 + Math.floor(rand() * 10))).toFixed(2);
    const o = lim(spot ? SVC : BTC, rand() < 0.5, px, sz, pick(['Gtc', 'Gtc', 'Ioc', 'Alo']));
    const builder = rand() < 0.7 ? { b: BUILDER, f: Math.floor(rand() * 60) } : undefined;
    if (r < 0.6) h.tx(user, { type: 'order', orders: [o], grouping: 'na', ...(builder === undefined ? {} : { builder }) });
    else if (r < 0.85) {
      const mine = [...h.ex.state.markets[spot ? h.ex.state.perps.length : BTC]!.engine.ownerOrders(user)].map((x) => x.oid);
      if (mine.length > 0) h.tx(user, { type: 'batchModify', modifies: [{ oid: pick(mine), order: o }] });
    } else {
      const oids = [...h.ex.state.orderBuilders.keys()];
      if (oids.length > 0) h.tx(user, { type: 'cancel', cancels: [{ a: spot ? SVC : BTC, o: pick(oids) }] });
    }
    const stray = [...h.ex.state.orderBuilders.keys()].find((oid) => h.resting(oid) === undefined);
    if (stray !== undefined) {
      t.fail(`step ${i}: order ${stray} has a builder but does not rest`);
      break;
    }
  }
  t.ok(h.ex.state.accounts.get(BUILDER)!.usdc > 0n, 'the builder earned');
  t.equal(usdcTotal(h.ex.state), total, 'USDC conserved');
  t.equal(pnlImbalance(h.ex.state), 0n);
  t.equal(bookInvariants(h.ex), null);
  const restored = restoreExchange(h.ex.state.config, JSON.parse(JSON.stringify(snapshotState(h.ex.state))));
  t.equal(stateHash(restored.state), stateHash(h.ex.state));
});

t.test('an agent approved with valid_until signs until that block time, also after a snapshot', async (t) => {
  const h = new Harness();
  const agent = '0x00000000000000000000000000000000000a9e17';
  const until = h.time + 10_000;
  const approveAt = (name: string) => h.tx(A, { type: 'approveAgent', agentAddress: agent, agentName: name, nonce: h.time + 1 });
  t.match(approveAt(`bot valid_until ${h.time + 181 * 86_400_000}`).result, { status: 'err', error: { message: /at most 180 days ahead/ } });
  t.match(approveAt(`bot valid_until ${h.time}`).result, { status: 'err' }, 'not in the past');
  ok(approveAt(`bot valid_until ${until}`));
  t.same(h.ex.state.agentsOf.get(A), [{ address: agent, name: 'bot', validUntil: until }], 'the name without its suffix');
  t.match(statuses(h.tx(agent, { type: 'order', orders: [lim(BTC, true, '90000', '0.1')], grouping: 'na' }, A)), [{ resting: {} }]);
  // A restored state keeps the expiry (it lives with the agent in the snapshot).
  const restored = restoreExchange(h.ex.state.config, JSON.parse(JSON.stringify(snapshotState(h.ex.state))));
  t.equal(stateHash(restored.state), stateHash(h.ex.state));
  h.idle(10_000);
  t.match(h.tx(agent, { type: 'order', orders: [lim(BTC, true, '90000', '0.1')], grouping: 'na' }, A).result, { status: 'err', error: { code: 'AGENT_NOT_AUTHORIZED' } }, 'expired');
  restored.beginBlock(restored.height + 1, h.time);
  t.notOk(restored.state.mayActFor(agent, A), 'expired in the restored state too');
  // Approving again under the same name replaces it, without expiry.
  ok(approveAt('bot'));
  t.ok(h.ex.state.mayActFor(agent, A));
  t.equal(h.ex.state.agentExpiry.size, 0);
});
