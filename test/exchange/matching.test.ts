// Matching, tables first, then seeded streams checking the book's invariants and determinism.
import t from 'tap';
import { restoreExchange, snapshotState, stateHash } from '../../exchange/index.ts';
import { Harness, USERS, bookInvariants, lim, mulberry32, statuses } from '../support/exchange.ts';

const [A, B, C] = USERS as [string, string, string];
const BTC = 0;

t.test('price-time priority and partial fills', async (t) => {
  const h = new Harness();
  const [r1] = h.order(A, lim(BTC, false, '100010', '0.3')) as [{ resting: { oid: number } }];
  const [r2] = h.order(B, lim(BTC, false, '100000', '0.2')) as [{ resting: { oid: number } }];
  const [r3] = h.order(C, lim(BTC, false, '100000', '0.2')) as [{ resting: { oid: number } }];
  t.ok(r1.resting && r2.resting && r3.resting);
  const out = h.tx(USERS[3] as string, { type: 'order', orders: [lim(BTC, true, '100010', '0.5', 'Ioc')], grouping: 'na' });
  const fills = out.events.filter((e) => e.kind === 'fill');
  t.same(
    fills.map((f) => f.kind === 'fill' && [f.user, f.fill.px, f.fill.sz, f.fill.crossed]),
    [
      [B, '100000', '0.2', false], [USERS[3], '100000', '0.2', true],
      [C, '100000', '0.2', false], [USERS[3], '100000', '0.2', true],
      [A, '100010', '0.1', false], [USERS[3], '100010', '0.1', true],
    ],
  );
  t.same(statuses(out), [{ filled: { totalSz: '0.5', avgPx: '100002', oid: 4 } }]);
  const a = h.resting(r1.resting.oid);
  t.equal(a?.sz, 20000, 'the partly filled maker keeps 0.2 and its place');
});

t.test('ioc remainder is cancelled; gtc remainder rests', async (t) => {
  const h = new Harness();
  h.order(A, lim(BTC, false, '100000', '0.1'));
  t.same(h.order(B, lim(BTC, true, '100000', '0.3', 'Ioc')), [{ filled: { totalSz: '0.1', avgPx: '100000', oid: 2 } }]);
  t.equal(h.restingCount(), 0);
  h.order(A, lim(BTC, false, '100000', '0.1'));
  t.same(h.order(B, lim(BTC, true, '100000', '0.3', 'Gtc')), [{ resting: { oid: 4 } }]);
  t.equal(h.resting(4)?.sz, 20000);
});

t.test('self-trade: the resting order of the same account is cancelled, the rest matches', async (t) => {
  const h = new Harness();
  h.order(A, lim(BTC, false, '100000', '0.1'));
  h.order(B, lim(BTC, false, '100000', '0.1'));
  const out = h.tx(A, { type: 'order', orders: [lim(BTC, true, '100000', '0.1')], grouping: 'na' });
  t.match(out.events[0], { kind: 'order', user: A, status: 'selfTradeCanceled', order: { oid: 1 } });
  t.same(statuses(out), [{ filled: { totalSz: '0.1', avgPx: '100000', oid: 3 } }]);
});

t.test('self-trade on a Gtc keeps the owner index whole when it empties it', async (t) => {
  const h = new Harness();
  h.order(A, lim(2, false, '150', '0.1'));
  t.same(h.order(A, lim(2, true, '150', '0.1')), [{ resting: { oid: 2 } }], 'own ask cancelled, the bid rests');
  t.same([...h.ex.state.perps[2]!.engine.ownerOrders(A)].map((o) => o.oid), [2]);
  t.equal(bookInvariants(h.ex), null);
});

t.test('reduce-only closes at most the position', async (t) => {
  const h = new Harness();
  h.order(A, lim(BTC, false, '100000', '1'));
  h.order(B, lim(BTC, true, '100000', '0.3', 'Ioc'));
  t.same(h.order(B, lim(BTC, true, '100000', '0.1', 'Gtc', true)), [{ error: 'Reduce only violated' }], 'would increase a long');
  h.order(C, lim(BTC, true, '99000', '1'));
  const [st] = h.order(B, lim(BTC, false, '99000', '0.5', 'Ioc', true)) as [{ filled: { totalSz: string } }];
  t.equal(st.filled.totalSz, '0.3', 'clamped to the 0.3 position');
  t.equal(h.ex.state.accounts.get(B)?.positions.size, 0);
});

t.test('closing fills realize pnl; flips open the other side', async (t) => {
  const h = new Harness();
  h.order(A, lim(BTC, false, '100000', '1'));
  h.order(B, lim(BTC, true, '100000', '1', 'Ioc'));
  h.order(C, lim(BTC, true, '101000', '3'));
  const out = h.tx(B, { type: 'order', orders: [lim(BTC, false, '101000', '3', 'Ioc')], grouping: 'na' });
  const mine = out.events.filter((e) => e.kind === 'fill' && e.user === B);
  t.match(mine, [{ fill: { dir: 'Long > Short', closedPnl: '1000', startPosition: '1', sz: '3' } }]);
  const pos = h.ex.state.accounts.get(B)?.positions.get(BTC);
  t.equal(pos?.szi, -200000);
  // 1,000,000 + 1,000 realized, less taker fees of 4.5 bps on 100,000 and on 303,000.
  t.equal(h.ex.state.accounts.get(B)?.usdc, 100_081_865_000_000n, '1,000,818.65 USDC in 1e-8 units');
  t.equal(h.ex.state.feesCollected, 45_00000000n + 136_35000000n + 15_00000000n + 45_45000000n, 'maker fees 1.5 bps');
});

t.test('margin: orders are refused beyond cross collateral at the leverage', async (t) => {
  const h = new Harness();
  // 1,000,000 USDC at 20x: every 100,000 of notional takes 5,000 of margin.
  t.match(h.order(A, lim(BTC, true, '90000', '99')), [{ resting: { oid: 1 } }], 'reserves 445,500');
  h.order(B, lim(BTC, false, '100000', '100'));
  t.match(h.order(A, lim(BTC, true, '100000', '100', 'Ioc')), [{ filled: { totalSz: '100' } }], 'position margin 500,000 at mark 100,000');
  t.same(h.order(A, lim(BTC, true, '100000', '11')), [{ error: 'Insufficient margin' }], '55,000 > 54,500 free');
  t.same(h.order(A, lim(BTC, true, '100000', '10')), [{ resting: { oid: 4 } }], '50,000 fits');
  t.same(h.order(A, lim(BTC, false, '120000', '2')), [{ resting: { oid: 5 } }]);
  t.equal(h.ex.state.perps[0]?.engine.orders.get(5)?.margin, 0n, 'a reducing order reserves no margin');
  t.match(h.order(C, lim(BTC, false, '130000', '150')), [{ resting: {} }], 'a short of 150 at 130,000 fits another account');
});

t.test('margin: a modify that keeps its queue place shares the closing capacity in queue order', async (t) => {
  const h = new Harness();
  h.order(B, lim(BTC, true, '100000', '100'));
  h.order(A, lim(BTC, false, '100000', '100', 'Ioc')); // A is short 100
  const acct = h.ex.state.accounts.get(A)!;
  t.match(h.order(A, lim(BTC, true, '90000', '50')), [{ resting: { oid: 3 } }], 'closes 50 of the short: no margin');
  t.match(h.order(A, lim(BTC, true, '91000', '100')), [{ resting: { oid: 4 } }], 'closes the other 50, opens 50');
  const before = acct.orderMargin;
  t.equal(before, 227_500n * 10n ** 8n, '50 at 91,000 at 20x: 227,500 USDC');
  // A better price keeps oid 3's place: it still closes first, so the reserves do not change.
  t.equal(h.tx(A, { type: 'modify', oid: 3, order: lim(BTC, true, '92000', '50') }).result.status, 'ok');
  t.equal(h.resting(3)?.px, 920000);
  t.equal(acct.orderMargin, before, 'the same 227,500: oid 4 still opens 50');
  // A worse price sends oid 3 to the back: oid 4 now closes 100, oid 3 opens 50 at 89,000.
  t.equal(h.tx(A, { type: 'modify', oid: 3, order: lim(BTC, true, '89000', '50') }).result.status, 'ok');
  t.equal(acct.orderMargin, 222_500n * 10n ** 8n, '50 at 89,000 at 20x');
  // Cancelled, its capacity goes back to oid 4 (which closes the whole short): nothing reserved.
  t.same(statuses(h.tx(A, { type: 'cancel', cancels: [{ a: BTC, o: 3 }] })), ['success']);
  t.equal(acct.orderMargin, 0n);
  t.equal(bookInvariants(h.ex), null);
});

t.test('margin: a reduce-only order that would push plain orders past the free margin is refused', async (t) => {
  const h = new Harness();
  h.order(B, lim(BTC, false, '100000', '10'));
  h.order(A, lim(BTC, true, '100000', '10', 'Ioc')); // A is long 10: 50,000 of its 1,000,000 USDC at 20x
  const acct = h.ex.state.accounts.get(A)!;
  // Plain sells closing the whole position reserve nothing; a buy uses up most of the free margin.
  t.match(h.order(A, lim(BTC, false, '101000', '10')), [{ resting: {} }]);
  t.match(h.order(A, lim(BTC, true, '90000', '200')), [{ resting: {} }], 'reserves 900,000 of the 949,550 free');
  const reserved = acct.orderMargin;
  // A reduce-only sell would take the capacity first: the plain sell would reserve 50,500 for its 10.
  t.same(h.order(A, lim(BTC, false, '102000', '10', 'Gtc', true)), [{ error: 'Insufficient margin' }]);
  t.equal(acct.orderMargin, reserved, 'nothing changed');
  // Half of it fits (the plain sell then reserves 25,250 for 5 lots it opens).
  t.match(h.order(A, lim(BTC, false, '102000', '5', 'Gtc', true)), [{ resting: {} }]);
  t.equal(acct.orderMargin, reserved + 25_250n * 10n ** 8n);
  t.equal(bookInvariants(h.ex), null);
});

t.test('cancel, cancelByCloid and duplicate cloids', async (t) => {
  const h = new Harness();
  const cloid = '0x000102030405060708090a0b0c0d0e0f';
  t.match(h.order(A, lim(BTC, true, '90000', '0.1', 'Gtc', false, cloid)), [{ resting: { oid: 1, cloid } }]);
  t.match(h.order(A, lim(BTC, true, '90000', '0.1', 'Gtc', false, cloid)), [{ error: /^Client order id already used/ }]);
  t.same(h.cancel(B, BTC, 1), { error: 'Order not found' }, 'another account cannot cancel it');
  t.same(h.cancel(A, 1, 1), { error: 'Order not found' }, 'wrong asset');
  const out = h.tx(A, { type: 'cancelByCloid', cancels: [{ asset: BTC, cloid }] });
  t.same(statuses(out), ['success']);
  t.equal(h.restingCount(), 0);
});

t.test('authorization and nonces are checked at execution', async (t) => {
  const h = new Harness();
  const out = h.tx('0x000000000000000000000000000000000000beef', { type: 'cancel', cancels: [{ a: 0, o: 1 }] });
  t.match(out.result, { status: 'err', error: { code: 'ACCOUNT_NOT_ACTIVATED' } });
  const agent = h.tx(A, { type: 'cancel', cancels: [{ a: 0, o: 1 }] }, B);
  t.match(agent.result, { status: 'err', error: { code: 'AGENT_NOT_AUTHORIZED' } });
  h.ex.beginBlock(h.ex.height + 1, h.time + 1);
  const base = { hash: '0x01', signer: A, vaultAddress: null, action: { type: 'cancel', cancels: [{ a: 0, o: 1 }] } };
  t.match(h.ex.execute({ ...base, nonce: h.time }).result, { status: 'ok' });
  t.match(h.ex.execute({ ...base, nonce: h.time }).result, { status: 'err', error: { code: 'NONCE_USED' } });
  t.match(h.ex.execute({ ...base, nonce: h.time - 61_000 }).result, { status: 'err', error: { code: 'NONCE_TOO_OLD' } });
  t.match(h.ex.execute({ ...base, nonce: h.time + 61_000 }).result, { status: 'err', error: { code: 'NONCE_IN_FUTURE' } });
  t.match(h.ex.execute({ ...base, nonce: h.time + 5, action: { type: 'nope' } }).result, { status: 'err', error: { code: 'INVALID_ACTION' } });
  t.throws(() => h.ex.beginBlock(h.ex.height + 1, h.time - 10), /before/, 'time never goes back');
});

/** A replayable random stream of orders and cancels over three markets and five accounts. */
function runStream(seed: number, steps: number, onStep?: (h: Harness, i: number) => void): Harness {
  const rnd = mulberry32(seed);
  const h = new Harness();
  const users = USERS.slice(0, 5);
  const mids = [100000, 3500, 150];
  const tifs = ['Gtc', 'Gtc', 'Ioc', 'Alo'];
  for (let i = 0; i < steps; i++) {
    const user = users[Math.floor(rnd() * users.length)] as string;
    const open = h.ex.state.perps.flatMap((m) => [...m.engine.ownerOrders(user)].map((o) => [m.asset, o.oid] as const)).sort((a, b) => a[1] - b[1]);
    if (rnd() < 0.25 && open.length > 0) {
      const [asset, oid] = open[Math.floor(rnd() * open.length)] as readonly [number, number];
      h.cancel(user, asset, oid);
    } else {
      const asset = Math.floor(rnd() * 3);
      const mid = mids[asset] as number;
      const px = Math.round(mid * (1 + (rnd() - 0.5) * 0.02));
      const lots = [1, 5, 10, 50][Math.floor(rnd() * 4)] as number;
      const sz = (lots * [0.0001, 0.001, 0.1][asset]!).toFixed([4, 3, 1][asset]);
      h.order(user, lim(asset, rnd() < 0.5, String(px), sz, tifs[Math.floor(rnd() * 4)], rnd() < 0.1));
    }
    onStep?.(h, i);
  }
  return h;
}

t.test('random streams keep the book sound and replay identically', async (t) => {
  const seeds = [1, 2, 3, 42, 1337, 20261122];
  for (const seed of seeds) {
    let failure: string | null = null;
    const h1 = runStream(seed, 600, (h, i) => {
      failure ??= (() => {
        const f = bookInvariants(h.ex);
        return f === null ? null : `step ${i}: ${f}`;
      })();
    });
    t.equal(failure, null, `seed ${seed} (replay with runStream(${seed}, 600))`);
    const h2 = runStream(seed, 600);
    t.equal(stateHash(h2.ex.state), stateHash(h1.ex.state), `seed ${seed}: same stream, same state hash`);
  }
});

t.test('a restored snapshot continues exactly like the original', async (t) => {
  const seed = 7;
  const h = runStream(seed, 300);
  const restored = restoreExchange(h.ex.state.config, JSON.parse(JSON.stringify(snapshotState(h.ex.state))));
  t.equal(stateHash(restored.state), stateHash(h.ex.state));
  t.equal(bookInvariants(restored), null);
  // Same next transactions on both: same outcomes.
  const next = [
    { type: 'order', orders: [lim(0, true, '101000', '0.005', 'Ioc'), lim(1, false, '3400', '0.05', 'Ioc')], grouping: 'na' },
    { type: 'order', orders: [lim(2, true, '151', '1')], grouping: 'na' },
  ];
  for (const [i, action] of next.entries()) {
    const height = h.ex.height + 1;
    const time = h.time + 10 + i;
    const tx = { hash: '0xab', signer: USERS[1] as string, nonce: time, vaultAddress: null, action };
    h.ex.beginBlock(height, time);
    restored.beginBlock(height, time);
    t.same(restored.execute(tx), h.ex.execute(tx));
  }
  t.equal(stateHash(restored.state), stateHash(h.ex.state));
});

t.test('nonces: each used once, at most the 100 highest kept per signer', async (t) => {
  const h = new Harness();
  h.ex.beginBlock(h.ex.height + 1, h.time + 1);
  const time = h.time + 1;
  const run = (nonce: number) => h.ex.execute({ hash: '0x01', signer: A, nonce, vaultAddress: null, action: { type: 'cancel', cancels: [{ a: 0, o: 1 }] } }).result;
  for (let i = 0; i < 150; i++) t.equal(run(time - 40_000 + i * 2).status, 'ok');
  t.equal(h.ex.state.nonces.get(A)!.length, 100, 'bounded');
  t.match(run(time - 40_000 + 298), { status: 'err', error: { code: 'NONCE_USED' } });
  t.match(run(time - 40_000 + 1), { status: 'err', error: { code: 'NONCE_TOO_OLD', message: /below the 100 most recent/ } });
  t.match(run(time - 40_000 + 299), { status: 'ok' }, 'a gap above the lowest kept is fine');
});
