// Property tests (fast-check) over random order streams: after every transaction the books are
// sound (not crossed, levels equal the sum of their orders, queues in time order, reserves match);
// every order's filled + cancelled + remaining size equals its original size; and the same
// stream gives the same events and state hash, also across a snapshot and restore.
// Replay a failure with FC_SEED=<seed> (fast-check prints the seed and the shrunk stream).
import fc from 'fast-check';
import t from 'tap';
import { parseScaled } from '../../primitives/index.ts';
import { restoreExchange, snapshotState, stateHash, sweepOrder, type ExchangeEvent, type ExchangeState } from '../../exchange/index.ts';
import { DEVNET_BACKSTOP, devnetGenesis } from '../../genesis/index.ts';
import { Harness, USERS, bookInvariants, lim, pnlImbalance, trig, usdcTotal } from '../support/exchange.ts';
import { APP_HASH_V2_FIELDS, STORED_FILLS, STORED_ORDER_STATUS, readStoredFills, readStoredOrderStatus, writeOutputs } from '../../node/index.ts';

const SEED = Number(process.env.FC_SEED ?? 20261122);
const RUNS = Number(process.env.FC_RUNS ?? 60);
const MIDS = [100000, 3500, 150, 1];
const SZ_DECIMALS = [5, 4, 2, 2];
const ASSETS = [0, 1, 2, 10000];

type Cmd =
  | { kind: 'place'; user: number; market: number; isBuy: boolean; offsetBps: number; lots: number; tif: 'Gtc' | 'Ioc' | 'Alo'; reduceOnly: boolean }
  | { kind: 'trigger'; user: number; market: number; isBuy: boolean; offsetBps: number; lots: number; tpsl: 'tp' | 'sl' }
  | { kind: 'cancel'; user: number; pick: number }
  | { kind: 'modify'; user: number; pick: number; offsetBps: number; lots: number }
  | { kind: 'oracle'; market: number; moveBps: number }
  | { kind: 'margin'; user: number; market: number; isolated: boolean; leverage: number; ntli: number }
  | { kind: 'withdraw'; user: number; amount: number }
  | { kind: 'idle'; minutes: number };

const user = fc.integer({ min: 0, max: 4 });
const market = fc.integer({ min: 0, max: 3 });
const offsetBps = fc.integer({ min: -150, max: 150 });
const lots = fc.integer({ min: 1, max: 40 });
const place = fc.record({ kind: fc.constant('place' as const), user, market, isBuy: fc.boolean(), offsetBps, lots, tif: fc.constantFrom('Gtc' as const, 'Gtc' as const, 'Ioc' as const, 'Alo' as const), reduceOnly: fc.boolean() });
const cmd = (withModify: boolean) =>
  fc.oneof(
    { arbitrary: place, weight: 6 },
    { arbitrary: fc.record({ kind: fc.constant('trigger' as const), user, market: fc.integer({ min: 0, max: 2 }), isBuy: fc.boolean(), offsetBps, lots, tpsl: fc.constantFrom('tp' as const, 'sl' as const) }), weight: 1 },
    { arbitrary: fc.record({ kind: fc.constant('cancel' as const), user, pick: fc.nat() }), weight: 2 },
    { arbitrary: fc.record({ kind: fc.constant('modify' as const), user, pick: fc.nat(), offsetBps, lots }), weight: withModify ? 2 : 0 },
    { arbitrary: fc.record({ kind: fc.constant('oracle' as const), market: fc.integer({ min: 0, max: 2 }), moveBps: fc.integer({ min: -800, max: 800 }) }), weight: 1 },
    { arbitrary: fc.record({ kind: fc.constant('idle' as const), minutes: fc.integer({ min: 1, max: 90 }) }), weight: 1 },
    {
      arbitrary: fc.record({ kind: fc.constant('margin' as const), user, market: fc.integer({ min: 0, max: 2 }), isolated: fc.boolean(), leverage: fc.integer({ min: 1, max: 25 }), ntli: fc.integer({ min: -20_000_000_000, max: 20_000_000_000 }) }),
      weight: 1,
    },
    { arbitrary: fc.record({ kind: fc.constant('withdraw' as const), user, amount: fc.integer({ min: 5, max: 3000 }) }), weight: 1 },
  );

/** A price `bps` away from the market's mid, at 5 significant figures. */
/** `mid`: the market's fixed mid, or (leveraged streams) the perp's oracle, so the book follows it. */
function price(m: number, bps: number, mid = MIDS[m] as number): string {
  const raw = mid * (1 + bps / 10_000);
  return m === 3 ? raw.toFixed(4) : (+raw.toPrecision(5)).toString();
}

function size(m: number, n: number, scale = 1): string {
  n *= scale;
  const minLots = [10, 10, 10, 100][m] as number; // the devnet minimums
  return ((n * minLots) / 10 ** (SZ_DECIMALS[m] as number)).toFixed(SZ_DECIMALS[m] as number);
}

function openOids(h: Harness, u: string): [number, number][] {
  return h.ex.state.markets.flatMap((m) => [
    ...[...m.engine.ownerOrders(u)].map((o): [number, number] => [m.asset, o.oid]),
    ...(m.kind === 'perp' ? [...m.triggers.ofOwner(u)].map((tr): [number, number] => [m.asset, tr.oid]) : []),
  ]).sort((a, b) => a[1] - b[1]);
}

/**
 * Bookkeeping kept beside the state: the liquidation sweep's order against what it replaced (the
 * union of the markets' holders, sorted), each market's holder list against the open positions,
 * and the accounts' leverage and isolated flags. Null when all agree.
 */
function sweepOrderDiffers(state: ExchangeState): string | null {
  const union = new Set<string>();
  for (const m of state.perps) {
    // Each market's holder list: exactly the accounts' positions in it, each in its own slot.
    const listed = m.holders.positions();
    const open = [...state.accounts.values()].filter((a) => a.positions.has(m.asset));
    if (listed.length !== open.length || listed.some((p, i) => p.holderSlot !== i || p.owner.positions.get(m.asset) !== p)) return `${m.name} holders differ from the open positions`;
    for (const p of listed) union.add(p.owner.address);
  }
  // The accounts' flags for their leverage and isolated choices.
  for (const a of state.accounts.values()) {
    if (a.anyIsolated !== a.isolated.size > 0 || a.anyLeverage !== a.leverage.size > 0) return `${a.address}'s leverage/isolated flags are out of step`;
  }
  const want = [...union].sort().join(',');
  const got = sweepOrder(state).map((a) => a.address).join(',');
  return got === want ? null : `sweep order ${got} != holders ${want}`;
}

/** Runs a stream; returns the events, and the first broken invariant (with its step). */
function run(cmds: Cmd[], h = new Harness(), scale = 1, follow = false): { h: Harness; events: ExchangeEvent[]; broken: string | null; isolatedSteps: number } {
  // Withdrawals need a bridge chain; the harness validator registers one (its quorum alone).
  if (h.ex.state.bridge.chains.size === 0) h.bridge([{ kind: 'chain', chainId: 1, contract: '0x00000000000000000000000000000000000000bb', set: { nonce: 0, signers: ['0x00000000000000000000000000000000000000aa'], powers: [1] } }]);
  const events: ExchangeEvent[] = [];
  let isolatedSteps = 0;
  let broken: string | null = null;
  const total = usdcTotal(h.ex.state);
  cmds.forEach((c, i) => {
    const check = () => {
      broken ??= ((f) => (f === null ? null : `step ${i}: ${f}`))(bookInvariants(h.ex));
      if (broken === null && usdcTotal(h.ex.state) !== total) broken = `step ${i}: USDC total ${usdcTotal(h.ex.state)} != ${total}`;
      for (const a of h.ex.state.accounts.values()) for (const p of a.positions.values()) if (p.margin !== 0n) isolatedSteps++;
      if (broken === null && pnlImbalance(h.ex.state) !== 0n) broken = `step ${i}: PnL is not zero-sum (${pnlImbalance(h.ex.state)})`;
      broken ??= ((f) => (f === null ? null : `step ${i}: ${f}`))(sweepOrderDiffers(h.ex.state));
    };
    if (c.kind === 'oracle') {
      const m = h.ex.state.perps[c.market]!;
      const move = follow ? c.moveBps * 3 : c.moveBps; // leveraged streams: moves up to 24%
      const px = Math.max(1, Math.round((m.engine.oraclePx * (10_000 + move)) / 10_000));
      const out = h.oracle({ [m.name]: (px / 10 ** m.pxDecimals).toFixed(m.pxDecimals) });
      events.push(...out.events);
      return check();
    }
    if (c.kind === 'idle') {
      events.push(...h.idle(c.minutes * 60_000));
      return check();
    }
    const u = USERS[c.user] as string;
    const perp = h.ex.state.perps[c.kind === 'place' || c.kind === 'trigger' ? c.market : -1];
    const mid = follow && perp !== undefined ? perp.engine.oraclePx / 10 ** perp.pxDecimals : undefined;
    let action: unknown;
    if (c.kind === 'withdraw') {
      action = { type: 'withdraw', destination: '0x00000000000000000000000000000000000000dd', amount: String(c.amount) };
    } else if (c.kind === 'margin') {
      // Leverage and mode first; margin moves on an isolated position when there is one.
      action = h.ex.state.accounts.get(u)?.positions.has(c.market) && c.ntli % 2 === 0
        ? { type: 'updateIsolatedMargin', asset: c.market, isBuy: true, ntli: c.ntli }
        : { type: 'updateLeverage', asset: c.market, isCross: !c.isolated, leverage: c.leverage };
    } else if (c.kind === 'place') action = { type: 'order', orders: [lim(ASSETS[c.market] as number, c.isBuy, price(c.market, c.offsetBps, mid), size(c.market, c.lots, scale), c.tif, c.reduceOnly && c.market < 3)], grouping: 'na' };
    else if (c.kind === 'trigger') action = { type: 'order', orders: [trig(c.market, c.isBuy, price(c.market, c.offsetBps, mid), size(c.market, c.lots, scale), price(c.market, -c.offsetBps, mid), c.tpsl)], grouping: 'na' };
    else {
      const open = openOids(h, u);
      if (open.length === 0) return;
      const [asset, oid] = open[c.pick % open.length] as [number, number];
      const m = ASSETS.indexOf(asset);
      action = c.kind === 'cancel'
        ? { type: 'cancel', cancels: [{ a: asset, o: oid }] }
        : { type: 'modify', oid, order: lim(asset, h.resting(oid)?.isBuy ?? true, price(m, c.offsetBps), size(m, c.lots)) };
    }
    const out = h.tx(u, action);
    events.push(...out.events, ...h.endBlock());
    check();
  });
  return { h, events, broken, isolatedSteps };
}

/** Per oid: original size = filled + cancelled remainder + still resting (limit orders, no modify). */
function sizesAddUp(h: Harness, events: ExchangeEvent[]): string | null {
  const orig = new Map<number, bigint>();
  const done = new Map<number, bigint>();
  const lots = (s: string) => parseScaled(s, 8) ?? 0n;
  for (const e of events) {
    if (e.kind === 'order' && !e.order.isTrigger) {
      if (!orig.has(e.order.oid)) orig.set(e.order.oid, lots(e.order.origSz));
      if (e.status !== 'open' && e.status !== 'filled') done.set(e.order.oid, (done.get(e.order.oid) ?? 0n) + lots(e.order.sz));
    }
    if (e.kind === 'fill') done.set(e.fill.oid, (done.get(e.fill.oid) ?? 0n) + lots(e.fill.sz));
  }
  for (const [oid, o] of orig) {
    const m = h.ex.state.markets.find((mk) => mk.engine.orders.has(oid));
    const rest = m === undefined ? 0n : BigInt(m.engine.orders.get(oid)!.sz) * 10n ** BigInt(8 - m.szDecimals);
    const total = (done.get(oid) ?? 0n) + rest;
    if (total !== o) return `order ${oid}: original ${o} != filled+cancelled+resting ${total}`;
  }
  return null;
}

/**
 * A key of a fill or an order status the app hash's version 2 does not write (it writes the
 * listed fields only), or null: such a key would be outside the chain's commitment.
 */
function unwrittenKey(events: readonly ExchangeEvent[]): string | null {
  const fillKeys = new Set<string>(APP_HASH_V2_FIELDS.fill);
  const orderKeys = new Set<string>(APP_HASH_V2_FIELDS.order);
  const extra = (o: object, keys: Set<string>, what: string): string | null => {
    for (const k of Object.keys(o)) if (!keys.has(k)) return `${what} has the key ${k}`;
    return null;
  };
  const order = (o: object): string | null => extra(o, orderKeys, 'an order view') ?? ((o as { children: object[] }).children.map(order).find((x) => x !== null) ?? null);
  for (const e of events) {
    const found = e.kind === 'fill'
      ? extra(e, new Set(['kind', 'user', 'fill']), 'a fill event') ?? extra(e.fill, fillKeys, 'a fill')
        ?? (e.fill.liquidation === undefined ? null : extra(e.fill.liquidation, new Set(['liquidatedUser', 'markPx', 'method']), 'a liquidation fill'))
      : e.kind === 'order' ? extra(e, new Set(['kind', 'user', 'status', 'statusTimestamp', 'order']), 'an order event') ?? order(e.order) : null;
    if (found !== null) return found;
  }
  return null;
}

/**
 * A fill or order status the store, keeping the app hash's record (node/app-hash-records.ts),
 * would read back as other than the event's object (values or key order), or null.
 */
function storedDiffers(events: readonly ExchangeEvent[]): string | null {
  const written = writeOutputs({ results: [], events, state: undefined, evm: '0x' });
  try {
    for (let i = 0; i < events.length; i++) {
      const e = events[i] as ExchangeEvent;
      if (e.kind !== 'fill' && e.kind !== 'order') continue;
      const stored = new Uint8Array(1 + (written.ends[i] as number) - (written.starts[i] as number));
      stored[0] = e.kind === 'fill' ? STORED_FILLS : STORED_ORDER_STATUS;
      stored.set(written.bytes.subarray(written.starts[i], written.ends[i]), 1);
      const [before, after] = e.kind === 'fill'
        ? [JSON.stringify([e.fill]), JSON.stringify(readStoredFills(stored))]
        : [JSON.stringify({ order: e.order, status: e.status, statusTimestamp: e.statusTimestamp }), JSON.stringify(readStoredOrderStatus(stored))];
      if (before !== after) return `event ${i} stored as ${before} reads back as ${after}`;
    }
    return null;
  } finally {
    written.release();
  }
}

t.test('books stay sound and sizes add up over random streams', async (t) => {
  const seen = new Map<string, number>();
  fc.assert(
    fc.property(fc.array(cmd(false), { minLength: 40, maxLength: 200 }), (cmds) => {
      const { h, events, broken, isolatedSteps } = run(cmds);
      seen.set('isolated position', (seen.get('isolated position') ?? 0) + isolatedSteps);
      for (const e of events) {
        const k = e.kind === 'order' ? e.status : e.kind;
        seen.set(k, (seen.get(k) ?? 0) + 1);
      }
      if (broken !== null) throw new Error(broken);
      const sizes = sizesAddUp(h, events);
      if (sizes !== null) throw new Error(sizes);
      const unwritten = unwrittenKey(events);
      if (unwritten !== null) throw new Error(`app hash v2: ${unwritten}`);
      const stored = storedDiffers(events);
      if (stored !== null) throw new Error(`stored records: ${stored}`);
    }),
    { seed: SEED, numRuns: RUNS },
  );
  t.pass(`fast-check seed ${SEED}, ${RUNS} runs`);
  // The streams must reach the interesting paths, or the property proves little.
  for (const k of ['fill', 'open', 'filled', 'canceled', 'triggered', 'selfTradeCanceled', 'funding', 'fundingRate', 'isolated position']) t.ok((seen.get(k) ?? 0) > 0, `streams produced ${k} (${seen.get(k) ?? 0})`);
});

t.test('leveraged streams: liquidations, auto-deleveraging and withdrawals keep USDC conserved and PnL zero-sum', async (t) => {
  // Thin collateral: 8% oracle moves liquidate; a thin backstop (half the runs) cannot take over.
  const genesis = (backstop: string) => {
    const g = devnetGenesis();
    g.balances = g.balances.map((b) => ({ ...b, usdc: b.address === DEVNET_BACKSTOP ? backstop : '4000' }));
    return g;
  };
  const seen = new Map<string, number>();
  fc.assert(
    fc.property(fc.array(cmd(true), { minLength: 60, maxLength: 200 }), fc.constantFrom('10', '1000000'), (cmds, backstop) => {
      const { events, broken } = run(cmds, new Harness(genesis(backstop)), 100, true);
      for (const e of events) {
        const k = e.kind === 'fill' && e.fill.liquidation !== undefined ? `liquidation fill (${e.fill.liquidation.method})` : e.kind;
        seen.set(k, (seen.get(k) ?? 0) + 1);
      }
      if (broken !== null) throw new Error(broken);
      const unwritten = unwrittenKey(events);
      if (unwritten !== null) throw new Error(`app hash v2: ${unwritten}`);
    }),
    { seed: SEED + 2, numRuns: RUNS * 4 },
  );
  t.pass(`fast-check seed ${SEED + 2}, ${RUNS * 4} runs`);
  for (const k of ['liquidation', 'liquidation fill (backstop)', 'liquidation fill (adl)', 'funding']) t.ok((seen.get(k) ?? 0) > 0, `streams produced ${k} (${seen.get(k) ?? 0})`);
});

t.test('the same stream gives the same events and state hash, across snapshot and restore', async (t) => {
  fc.assert(
    fc.property(fc.array(cmd(true), { minLength: 20, maxLength: 150 }), fc.nat(), (cmds, cut) => {
      const one = run(cmds);
      if (one.broken !== null) throw new Error(one.broken);
      const two = run(cmds);
      if (stateHash(one.h.ex.state) !== stateHash(two.h.ex.state)) throw new Error('state hashes differ');
      if (JSON.stringify(one.events) !== JSON.stringify(two.events)) throw new Error('events differ');
      // Run the first part, snapshot through JSON, restore, run the rest: same end state.
      const k = cut % cmds.length;
      const head = run(cmds.slice(0, k));
      const restored = new Harness();
      Object.assign(restored, { ex: restoreExchange(head.h.ex.state.config, JSON.parse(JSON.stringify(snapshotState(head.h.ex.state)))), time: head.h.time });
      (restored as unknown as { height: number }).height = head.h.ex.height;
      const tail = run(cmds.slice(k), restored);
      if (stateHash(tail.h.ex.state) !== stateHash(one.h.ex.state)) throw new Error(`restore at step ${k} diverges`);
    }),
    { seed: SEED + 1, numRuns: Math.ceil(RUNS / 2) },
  );
  t.pass(`fast-check seed ${SEED + 1}`);
});
