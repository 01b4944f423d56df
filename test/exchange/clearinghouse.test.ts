// The clearinghouse: oracle prices, funding, liquidations, leverage, and USDC conservation.
import t from 'tap';
import { Harness, USERS, bookInvariants, lim, usdcTotal } from '../support/exchange.ts';
import { replaySeed } from '../support/seed.ts';
import { DEVNET_BACKSTOP, devnetGenesis } from '../../genesis/index.ts';
import { Account, BookOrder, TIF_GTC, availableMargin, bankruptcyPxExact, bankruptcyPxNum, crossMaintenanceNum, freeMarginCovers, maintenanceNum, maintenanceOf, marginFigures, Position, initialMarginNum, views } from '../../exchange/index.ts';

const [A, B, C] = USERS as [string, string, string];
const BTC = 0;

t.test('oracle: weighted median of fresh validator prices; stale and unknown refused', async (t) => {
  const g = devnetGenesis();
  g.validators = [
    { pubKey: 'aa'.repeat(32), power: 1 },
    { pubKey: 'bb'.repeat(32), power: 1 },
    { pubKey: 'cc'.repeat(32), power: 3 },
  ];
  const h = new Harness(g);
  const btc = h.ex.state.perps[0]!;
  h.idle(1);
  const submit = (validator: string, px: string, time = h.time) => h.ex.submitOracle({ validator, time, prices: { BTC: px } });
  t.match(submit('aa'.repeat(32), '101000'), { status: 'ok' });
  t.equal(btc.engine.oraclePx, 1010000, 'one submission: its price');
  submit('bb'.repeat(32), '99000');
  submit('cc'.repeat(32), '100500');
  t.equal(btc.engine.oraclePx, 1005000, 'power 3 of 5 carries the median');
  t.match(submit('dd'.repeat(32), '1'), { status: 'err', error: { message: /unknown validator/ } });
  t.match(submit('aa'.repeat(32), '1', h.time - 61_000), { status: 'err', error: { message: /stale/ } });
  t.match(h.ex.submitOracle({ validator: 'aa'.repeat(32), time: h.time, prices: { DOGE: '1' } }), { status: 'err' });
  h.idle(59_000);
  h.ex.submitOracle({ validator: 'aa'.repeat(32), time: h.time, prices: { BTC: '102000' } });
  t.equal(btc.engine.oraclePx, 1005000, 'the median of 99,000 (1), 100,500 (3), 102,000 (1) is 100,500');
  h.idle(2_000); // bb and cc are now older than 60 s
  t.equal(btc.engine.oraclePx, 1020000, 'only the fresh submission counts');
});

t.test('funding: hourly, longs pay shorts when the book trades above the oracle, USDC conserved', async (t) => {
  const h = new Harness();
  const start = usdcTotal(h.ex.state);
  // A long 1 BTC, B short 1 BTC at 100,000; then the book sits 1% above the oracle.
  h.order(B, lim(BTC, false, '100000', '1'));
  h.order(A, lim(BTC, true, '100000', '1', 'Ioc'));
  h.order(C, lim(BTC, true, '101000', '10'));
  h.order(C, lim(BTC, false, '101100', '10'));
  const events = [];
  for (let i = 0; i < 720; i++) events.push(...h.idle(5_000)); // an hour of 5 s samples
  const rates = events.filter((e) => e.kind === 'fundingRate');
  t.ok(rates.length >= 1, 'a funding interval ended');
  const btcRate = rates.find((e) => e.kind === 'fundingRate' && e.rate.coin === 'BTC');
  // premium ~ +1% (impact bid 101,000 over oracle 100,000): rate per 8h = 1% - clamp, per hour /8.
  t.match(btcRate, { rate: { coin: 'BTC', premium: /^0\.01/, fundingRate: /^0\.001/ } });
  const pays = events.filter((e) => e.kind === 'funding');
  t.match(pays.find((e) => e.user === A), { funding: { coin: 'BTC', usdc: /^-/ } }, 'the long paid');
  t.match(pays.find((e) => e.user === B), { funding: { coin: 'BTC', usdc: /^[0-9]/ } }, 'the short received');
  t.equal(usdcTotal(h.ex.state), start, 'conserved to the unit (dust kept)');
  t.ok(h.ex.state.accounts.get(A)!.positions.get(BTC)!.funding > 0n);
});

t.test('liquidation: through the book, then the backstop, deficit from the insurance', async (t) => {
  const h = new Harness();
  const start = usdcTotal(h.ex.state);
  // A goes long 190 BTC at 100,000 with 1,000,000 USDC (19x of 20x).
  h.order(B, lim(BTC, false, '100000', '190'));
  h.order(A, lim(BTC, true, '100000', '190', 'Ioc'));
  t.equal(h.ex.state.accounts.get(A)!.positions.get(BTC)!.szi, 19_000_000);
  // Some bids below for the book to absorb part of it.
  h.order(C, lim(BTC, true, '94000', '50'));
  // The market falls 6%: oracle, mid and last all near 94,000 -> A's value is about -140,000.
  h.order(C, lim(BTC, false, '94100', '1'));
  h.order(B, lim(BTC, false, '94000', '1', 'Ioc'));
  const { events } = h.oracle({ BTC: '94000' });
  const liq = events.filter((e) => e.kind === 'liquidation');
  t.match(liq, [{ user: A, liquidation: { method: 'market+backstop', liquidatedPositions: [{ coin: 'BTC', szi: '190' }] } }]);
  t.equal(h.ex.state.accounts.get(A)!.positions.size, 0, 'no position left');
  t.ok(h.ex.state.accounts.get(A)!.usdc >= 0n, 'no negative equity left behind');
  const backstop = h.ex.state.accounts.get(DEVNET_BACKSTOP)!;
  t.ok(backstop.positions.get(BTC)!.szi > 0, 'the backstop holds what the book could not absorb');
  t.match(events.filter((e) => e.kind === 'fill' && e.user === DEVNET_BACKSTOP), [{ fill: { liquidation: { liquidatedUser: A, method: 'backstop' } } }]);
  t.equal(usdcTotal(h.ex.state), start, 'USDC conserved through the liquidation');
  t.equal(bookInvariants(h.ex), null);
});

t.test('auto-deleveraging: a backstop without the margin to take over leaves the rest to the most profitable shorts, at the bankruptcy price', async (t) => {
  const g = devnetGenesis();
  g.balances = g.balances.map((b) => (b.address === DEVNET_BACKSTOP ? { ...b, usdc: '1000' } : b));
  const h = new Harness(g);
  const start = usdcTotal(h.ex.state);
  const D = USERS[3] as string;
  // A long 190 BTC at 100,000 (19x): B short 150, D short 40.
  h.order(B, lim(BTC, false, '100000', '150'));
  h.order(D, lim(BTC, false, '100000', '40'));
  h.order(A, lim(BTC, true, '100000', '190', 'Ioc'));
  // The market falls 6% with thin bids: A is bankrupt (about -140,000 at the mark).
  h.order(C, lim(BTC, true, '94000', '5'));
  h.order(C, lim(BTC, false, '94100', '1'));
  h.order(B, lim(BTC, false, '94000', '1', 'Ioc'));
  const { events } = h.oracle({ BTC: '94000' });
  const liq = events.filter((e) => e.kind === 'liquidation');
  t.match(liq, [{ user: A, liquidation: { method: 'market+adl', deficit: '0' } }]);
  const adl = events.filter((e) => e.kind === 'fill' && e.fill.liquidation?.method === 'adl' && e.user !== A);
  t.ok(adl.length >= 1, 'shorts were deleveraged');
  t.ok(adl.every((e) => e.kind === 'fill' && Number(e.fill.px) > 94000), 'at the bankruptcy price, above the mark');
  const a = h.ex.state.accounts.get(A)!;
  t.equal(a.positions.size, 0);
  // The price rounds to a whole price unit (0.1) against the shorts: at most 190 x 0.1 = 19 USDC.
  t.ok(a.usdc >= 0n && a.usdc < 19n * 10n ** 8n, `A ends at zero equity (within a price unit), never below: ${a.usdc}`);
  t.equal(h.ex.state.accounts.get(DEVNET_BACKSTOP)!.positions.size, 0, 'the backstop took nothing');
  t.equal(h.ex.state.accounts.get(DEVNET_BACKSTOP)!.usdc, 1000n * 10n ** 8n, 'nor paid anything');
  t.equal(usdcTotal(h.ex.state), start, 'USDC conserved');
  t.equal(bookInvariants(h.ex), null);
});

t.test('updateLeverage: bounded by maxLeverage, refused when positions would not fit', async (t) => {
  const h = new Harness();
  const lev = (user: string, leverage: number, isCross = true) => h.tx(user, { type: 'updateLeverage', asset: BTC, isCross, leverage }).result;
  t.same(lev(A, 50), { status: 'ok', response: { type: 'default' } });
  t.match(lev(A, 51), { status: 'err', error: { message: /from 1 to 50/ } });
  t.same(lev(C, 10, false), { status: 'ok', response: { type: 'default' } }, 'no position: the mode may change');
  t.same(lev(C, 20, true), { status: 'ok', response: { type: 'default' } });
  t.same(lev(B, 50), { status: 'ok', response: { type: 'default' } });
  h.order(B, lim(BTC, false, '100000', '300'));
  t.match(h.order(A, lim(BTC, true, '100000', '300', 'Ioc')), [{ filled: { totalSz: '300' } }], '30M notional at 50x: 600,000 margin');
  t.match(lev(A, 20), { status: 'err', error: { code: 'INSUFFICIENT_MARGIN' } }, '1,500,000 at 20x does not fit');
  t.equal(h.ex.state.accounts.get(A)!.leverage.get(BTC), 50, 'unchanged');
  t.same(lev(A, 45), { status: 'ok', response: { type: 'default' } }, '666,667 at 45x fits');
});

t.test('isolated margin: funded from the cross balance, on its own for liquidation, loss capped at its margin', async (t) => {
  const h = new Harness();
  const start = usdcTotal(h.ex.state);
  const act = (user: string, action: object) => h.tx(user, action).result;
  const a = () => h.ex.state.accounts.get(A)!;
  t.same(act(A, { type: 'updateLeverage', asset: BTC, isCross: false, leverage: 10 }), { status: 'ok', response: { type: 'default' } });
  h.order(B, lim(BTC, false, '100000', '10'));
  const usdc0 = a().usdc;
  t.match(h.order(A, lim(BTC, true, '100000', '10', 'Ioc')), [{ filled: { totalSz: '10' } }]);
  const pos = a().positions.get(BTC)!;
  t.equal(pos.margin, 100_000n * 10n ** 8n, '1,000,000 notional at 10x: 100,000 set aside');
  const fee = usdc0 - a().usdc - pos.margin;
  t.ok(fee > 0n && fee < 10n ** 12n, 'the rest of the debit is the taker fee');
  let ch = views.clearinghouseState(h.ex.state, A);
  t.match(ch.assetPositions[0], { position: { coin: 'BTC', leverage: { type: 'isolated', value: 10 }, marginUsed: '100000' } });
  t.equal(ch.crossMarginSummary.totalNtlPos, '0', 'the isolated position is not in the cross summary');
  t.equal(ch.marginSummary.totalNtlPos, '1000000');
  t.equal(ch.marginSummary.totalMarginUsed, '100000', 'the whole-account summary counts the isolated margin');
  t.equal(ch.crossMarginSummary.accountValue, views.clearinghouseState(h.ex.state, A).withdrawable, 'cross value is all free');
  t.match(act(A, { type: 'updateLeverage', asset: BTC, isCross: true, leverage: 10 }), { status: 'err', error: { message: /open position/ } });
  t.match(act(A, { type: 'updateLeverage', asset: BTC, isCross: false, leverage: 5 }), { status: 'err', error: { code: 'INSUFFICIENT_MARGIN' } }, '5x needs 200,000');
  t.same(act(A, { type: 'updateIsolatedMargin', asset: BTC, isBuy: true, ntli: 50_000_000_000 }), { status: 'ok', response: { type: 'default' } }, 'add 50,000');
  t.equal(a().positions.get(BTC)!.margin, 150_000n * 10n ** 8n);
  t.match(act(A, { type: 'updateIsolatedMargin', asset: BTC, isBuy: true, ntli: -60_000_000_000 }), { status: 'err', error: { code: 'INSUFFICIENT_MARGIN' } }, 'below the initial margin');
  t.same(act(A, { type: 'updateIsolatedMargin', asset: BTC, isBuy: true, ntli: -40_000_000_000 }), { status: 'ok', response: { type: 'default' } }, 'remove 40,000');
  t.match(act(A, { type: 'updateIsolatedMargin', asset: 1, isBuy: true, ntli: 1 }), { status: 'err', error: { message: /no isolated position/ } });
  t.match(act(A, { type: 'updateIsolatedMargin', asset: BTC, isBuy: true, ntli: 1.5 }), { status: 'err', error: { code: 'INVALID_ACTION' } });
  // A cross position on ETH beside it, well margined.
  h.order(B, lim(1, false, '3500', '10'));
  h.order(A, lim(1, true, '3500', '10', 'Ioc'));
  const cross = a().usdc;
  ch = views.clearinghouseState(h.ex.state, A);
  t.match(ch.assetPositions[1], { position: { coin: 'ETH', leverage: { type: 'cross' } } });
  // BTC falls 12%: the isolated position (110,000 margin on 1,000,000) is under water, the account is not.
  h.order(C, lim(BTC, true, '88000', '20'));
  h.order(C, lim(BTC, false, '88100', '1'));
  h.order(B, lim(BTC, false, '88000', '1', 'Ioc'));
  const { events } = h.oracle({ BTC: '88000' });
  const liq = events.filter((e) => e.kind === 'liquidation');
  t.match(liq, [{ user: A, liquidation: { leverageType: 'isolated', liquidatedPositions: [{ coin: 'BTC', szi: '10' }] } }]);
  t.notOk(a().positions.has(BTC), 'the isolated position is closed');
  t.ok(a().positions.has(1), 'the cross position is untouched');
  t.equal(a().usdc, cross, 'the cross balance lost nothing: the loss beyond the margin came from the insurance');
  t.match(liq[0], { liquidation: { deficit: /^[1-9]/ } });
  t.equal(usdcTotal(h.ex.state), start, 'USDC conserved');
  t.equal(bookInvariants(h.ex), null);
});

t.test('onlyIsolated markets: isolated by default, cross refused', async (t) => {
  const g = devnetGenesis();
  g.exchange.perps[2]!.onlyIsolated = true;
  const h = new Harness(g);
  const SOL = 2;
  t.match(h.tx(A, { type: 'updateLeverage', asset: SOL, isCross: true, leverage: 5 }).result, { status: 'err', error: { message: /isolated margin only/ } });
  h.order(B, lim(SOL, false, '150', '100'));
  h.order(A, lim(SOL, true, '150', '100', 'Ioc'));
  const pos = h.ex.state.accounts.get(A)!.positions.get(SOL)!;
  t.equal(pos.margin, 750n * 10n ** 8n, '15,000 notional at the default 20x');
  t.match(views.clearinghouseState(h.ex.state, A).assetPositions[0], { position: { leverage: { type: 'isolated', value: 20 } } });
  t.match(views.meta(h.ex.state).universe[SOL], { onlyIsolated: true });
});

t.test('review regression: absurd oracle prices are refused; large ones cannot make the block end throw', async (t) => {
  const h = new Harness();
  h.order(B, lim(BTC, false, '100000', '0.01'));
  h.order(A, lim(BTC, true, '100000', '0.01', 'Ioc')); // A long, B short
  h.order(A, { a: BTC, b: false, p: '50000', s: '0.01', r: true, t: { trigger: { isMarket: true, triggerPx: '90000', tpsl: 'sl' } } });
  h.order(C, lim(BTC, false, '110000', '1'));
  const absurd = h.oracle({ BTC: '900719925474099.1' });
  t.match(absurd.result, { status: 'err', error: { code: 'INVALID_PRICE' } });
  t.doesNotThrow(() => h.oracle({ BTC: '90071992547409.1' }), 'the largest accepted oracle price');
  t.doesNotThrow(() => h.idle(2000));
  t.equal(bookInvariants(h.ex), null);
});

t.test('agents: names, replacement, limits, one account per agent', async (t) => {
  const h = new Harness();
  const agent = (n: number) => `0x${'a'.repeat(39)}${n}`;
  const approve = (user: string, address: string, name: string) => {
    h.idle(1);
    return h.ex.execute({ hash: '0x', signer: user, nonce: h.time, vaultAddress: null, action: { type: 'approveAgent', agentAddress: address, agentName: name, nonce: h.time } }).result;
  };
  t.match(approve(A, agent(1), ''), { status: 'ok' });
  t.match(approve(A, agent(2), ''), { status: 'ok' }, 'a new unnamed agent replaces the old one');
  t.equal(h.ex.state.agents.has(agent(1)), false);
  for (const n of [3, 4, 5]) t.match(approve(A, agent(n), `bot${n}`), { status: 'ok' });
  t.match(approve(A, agent(6), 'bot6'), { status: 'err', error: { message: /at most 3 named agents/ } });
  t.match(approve(A, agent(7), 'bot3'), { status: 'ok' }, 'the same name replaces');
  t.match(approve(B, agent(7), ''), { status: 'err', error: { message: /another account/ } });
  t.match(approve(A, A, 'me'), { status: 'err', error: { message: /its own agent/ } });
  t.same(h.ex.state.agentsOf.get(A)!.map((a) => a.name).sort(), ['', 'bot4', 'bot5', 'bot3'].sort());
  h.idle(1);
  const mismatch = h.ex.execute({ hash: '0x', signer: A, nonce: h.time, vaultAddress: null, action: { type: 'approveAgent', agentAddress: agent(8), agentName: 'z', nonce: 1 } });
  t.match(mismatch.result, { status: 'err', error: { message: /must equal the request nonce/ } });
});

t.test('address-based request budget: 10,000 plus one per USDC traded; cancels get more room', async (t) => {
  const h = new Harness();
  const batch = (n: number) => Array.from({ length: n }, () => lim(BTC, true, '50000', '0.0001', 'Ioc'));
  for (let i = 0; i < 10; i++) h.tx(A, { type: 'order', orders: batch(1000), grouping: 'na' });
  t.same(views.userRateLimit(h.ex.state, A), { cumVlm: '0', nRequestsUsed: 10_000, nRequestsCap: 10_000, nRequestsSurplus: 0 });
  t.match(h.tx(A, { type: 'order', orders: batch(1), grouping: 'na' }).result, { status: 'err', error: { code: 'RATE_LIMITED', message: /too many cumulative requests sent \(10001 > 10000\)/ } });
  t.match(h.tx(A, { type: 'cancel', cancels: [{ a: BTC, o: 1 }] }).result, { status: 'ok' }, 'cancels still go through');
  // Another account trading 1,000 USDC of notional with A's resting order (placed before the
  // budget ran out would be needed; here B trades with C) grows B's and C's budgets.
  h.order(C, lim(BTC, false, '100000', '0.01'));
  h.order(B, lim(BTC, true, '100000', '0.01', 'Ioc'));
  t.same(views.userRateLimit(h.ex.state, B), { cumVlm: '1000', nRequestsUsed: 1, nRequestsCap: 11_000, nRequestsSurplus: 0 });
});

t.test('the margin screen in doubles agrees with the exact comparison wherever it decides', async (t) => {
  const fc = (await import('fast-check')).default;
  const seed = replaySeed(t, 20261122);
  const h = new Harness();
  const acct = h.ex.state.accounts.get(A)!;
  const reserving = new BookOrder(1, A, true, 1, 1, 1, 1, TIF_GTC, false, null, 0);
  const big = (max: bigint) => fc.bigInt({ min: 0n, max });
  const position = fc.option(fc.record({ szi: fc.integer({ min: -1e9, max: 1e9 }).filter((x) => x !== 0), entryNtl: big(10n ** 17n) }), { nil: undefined });
  let decided = 0;
  fc.assert(
    fc.property(big(10n ** 17n), big(10n ** 15n), fc.array(position, { minLength: 3, maxLength: 3 }), fc.integer({ min: -1000, max: 1000 }), fc.boolean(), (usdc, orderMargin, positions, delta, near) => {
      acct.usdc = usdc;
      acct.setMargin(reserving, orderMargin); // the total is the sum of the orders' reserves: one order carries it
      for (const asset of [...acct.positions.keys()]) acct.removePosition(asset);
      positions.forEach((p, asset) => p !== undefined && acct.addPosition(new Position(acct, asset, p.szi, p.entryNtl)));
      const available = availableMargin(h.ex.state, acct);
      // A need at the boundary (within a few units of what is free) or anywhere.
      const need = near ? Number(available) + delta : Math.abs(delta) * 1e9;
      if (need < 0) return true;
      const screen = freeMarginCovers(h.ex.state, acct, need);
      if (screen !== null) decided++;
      return screen === null || screen === BigInt(Math.round(need)) <= available;
    }),
    { seed, numRuns: 3000 },
  );
  t.ok(decided > 0, `the screen decided ${decided} of 3000 cases`);
});

t.test('initial margin on numbers equals the bigint ceiling division', async (t) => {
  const fc = (await import('fast-check')).default;
  const seed = replaySeed(t, 20261123);
  const ntl = fc.oneof(fc.maxSafeNat(), fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: -2000, max: 2000 }).map((d) => 2 ** 52 + d));
  fc.assert(
    fc.property(ntl, fc.integer({ min: 1, max: 200 }), (n, lev) => BigInt(initialMarginNum(n, lev)) === (BigInt(n) + BigInt(lev) - 1n) / BigInt(lev)),
    { seed, numRuns: 50_000 },
  );
});

t.test('the liquidation check on safe integers equals the bigint figures wherever it answers', async (t) => {
  const fc = (await import('fast-check')).default;
  const seed = replaySeed(t, 20261123);
  // maintenanceOf split at its divisor, over constants and notionals up to the bound.
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 20_000 }), fc.integer({ min: 1, max: 200 }), fc.oneof(fc.integer({ min: 0, max: 2 ** 50 }), fc.integer({ min: 0, max: 10_000_000 })), (bps, maxLev, ntl) => {
      const n = maintenanceNum(bps, maxLev, ntl);
      const den = BigInt(10_000 * maxLev);
      return n === -1 ? bps > 10_000 * maxLev : BigInt(n) === (BigInt(ntl) * BigInt(bps) + den - 1n) / den;
    }),
    { seed, numRuns: 20_000 },
  );
  const h = new Harness();
  const state = h.ex.state;
  const acct = state.accounts.get(A)!;
  const big = (max: bigint) => fc.bigInt({ min: 0n, max });
  const position = fc.option(fc.record({ szi: fc.oneof(fc.integer({ min: -1e9, max: 1e9 }), fc.integer({ min: -1e4, max: 1e4 })).filter((x) => x !== 0), entryNtl: fc.oneof(big(10n ** 17n), big(10n ** 14n)), isolated: fc.boolean() }), { nil: undefined });
  const mark = fc.oneof(fc.integer({ min: 1, max: 2e9 }), fc.integer({ min: 1, max: 2e6 }));
  let answered = 0;
  let underwater = 0;
  fc.assert(
    fc.property(fc.oneof(fc.bigInt({ min: -(10n ** 17n), max: 10n ** 17n }), fc.bigInt({ min: -(10n ** 13n), max: 10n ** 13n })), fc.array(position, { minLength: 3, maxLength: 3 }), fc.array(mark, { minLength: 3, maxLength: 3 }), (usdc, positions, marks) => {
      acct.usdc = usdc;
      for (const asset of [...acct.positions.keys()]) acct.removePosition(asset);
      for (const asset of [...acct.isolated]) acct.setIsolated(asset, false);
      positions.forEach((p, asset) => {
        if (p === undefined) return;
        acct.addPosition(new Position(acct, asset, p.szi, p.entryNtl));
        if (p.isolated) acct.setIsolated(asset, true);
      });
      const n = crossMaintenanceNum(state, acct, marks);
      if (n === null) return true;
      answered++;
      const f = marginFigures(state, acct, marks);
      if (f.totalNtlPos > 0n && f.accountValue < f.maintenanceMargin) underwater++;
      return BigInt(n.value) === f.accountValue && BigInt(n.maintenance) === f.maintenanceMargin && BigInt(n.ntl) === f.totalNtlPos;
    }),
    { seed, numRuns: 5000 },
  );
  for (const asset of [...acct.isolated]) acct.setIsolated(asset, false);
  t.ok(answered > 1000 && underwater > 100, `safe integers answered ${answered} of 5000 cases, ${underwater} of them under water`);
  t.equal(maintenanceOf(state, 50, 12_345_678_901n), BigInt(maintenanceNum(state.config.clearinghouse.maintenanceBps, 50, 12_345_678_901)));
});

t.test('the bankruptcy price on safe integers equals the bigint one wherever it answers', async (t) => {
  const fc = (await import('fast-check')).default;
  const seed = replaySeed(t, 20261123);
  let answered = 0;
  fc.assert(
    fc.property(
      fc.oneof(fc.integer({ min: 1, max: 2_000_000_000 }), fc.integer({ min: 1, max: 1000 })),
      fc.oneof(fc.integer({ min: -1e9, max: 1e9 }), fc.integer({ min: -100, max: 100 })).filter((x) => x !== 0),
      fc.integer({ min: 0, max: 8 }),
      fc.oneof(fc.bigInt({ min: -(2n ** 60n), max: -1n }), fc.bigInt({ min: -(10n ** 13n), max: -1n }), fc.bigInt({ min: -1000n, max: -1n })),
      (mark, szi, k, equity) => {
        const num = bankruptcyPxNum(mark, szi, 10 ** k, Number(equity));
        if (num === null || BigInt(Number(equity)) !== equity) return true;
        answered++;
        return num === bankruptcyPxExact(mark, szi, 10n ** BigInt(k), equity);
      },
    ),
    { seed, numRuns: 20_000 },
  );
  t.ok(answered > 5000, `safe integers answered ${answered} of 20000 cases`);
});

t.test('order reserves add up exactly on numbers and past 2^53 alike', async (t) => {
  const fc = (await import('fast-check')).default;
  const seed = replaySeed(t, 20261123);
  const MAX = BigInt(Number.MAX_SAFE_INTEGER);
  // Reserves near 0, near 2^53 and beyond it, set, replaced and released in any order.
  const amount = fc.oneof(fc.bigInt({ min: 0n, max: 1000n }), fc.bigInt({ min: MAX - 1000n, max: MAX + 1000n }), fc.bigInt({ min: 0n, max: 4n * MAX }));
  const step = fc.record({ order: fc.integer({ min: 0, max: 3 }), op: fc.constantFrom('set', 'units', 'release'), amount });
  fc.assert(
    fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
      const acct = new Account('0x' + '1'.repeat(40), 0n);
      const orders = [0, 1, 2, 3].map((i) => new BookOrder(i + 1, acct.address, true, 100, 1, 1, i, TIF_GTC, false, null, 0));
      const model = [0n, 0n, 0n, 0n];
      for (const s of steps) {
        const o = orders[s.order]!;
        if (s.op === 'release') {
          acct.releaseOrder(o);
          model[s.order] = 0n;
        } else if (s.op === 'units' && s.amount <= MAX) {
          acct.setMarginUnits(o, Number(s.amount));
          model[s.order] = s.amount;
        } else {
          acct.setMargin(o, s.amount);
          model[s.order] = s.amount;
        }
        const total = model.reduce((a, b) => a + b, 0n);
        if (acct.orderMargin !== total || acct.screen[1] !== Number(total)) return false;
        if (orders.some((x, i) => x.margin !== model[i] || x.marginUnits !== (model[i]! <= MAX ? Number(model[i]) : -1))) return false;
      }
      return true;
    }),
    { seed, numRuns: 2000 },
  );
});
