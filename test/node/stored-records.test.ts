// The chain store's packed per-order records (node/stored-records.ts): what reads back is the
// record written, field for field and in the same order, whatever its shape; the store's fill
// queries answer as they did with one entry per fill, over entries of earlier versions and
// entries kept as the app hash wrote them (node/app-hash-records.ts) alike.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { Level } from 'level';
import t from 'tap';
import { ChainStoreForTests, ORDER_BUCKET, STORED_ORDER_STATUS, packFills, packOrderStatus, unpackFills, unpackOrderStatus, writeOutputs, type OrderStatusRecord, type StatusWrite } from '../../node/index.ts';
import type { ExchangeEvent } from '../../exchange/index.ts';
import type { FillRecord } from '../../exchange/index.ts';
import { Harness, USERS } from '../support/exchange.ts';
import { tempDir } from '../support/node.ts';
import { replaySeed } from '../support/seed.ts';

/** An order status event of the exchange: a bid resting on BTC. */
function restingOrder(cloid: string | null) {
  const order = { a: 0, b: true, p: '90000', s: '0.01', r: false, t: { limit: { tif: 'Gtc' } }, ...(cloid === null ? {} : { c: cloid }) };
  const e = new Harness().tx(USERS[0] as string, { type: 'order', orders: [order], grouping: 'na' }).events.find((x) => x.kind === 'order');
  if (e === undefined || e.kind !== 'order') throw new Error('no order status event');
  return e;
}

/** Through JSON as the store keeps it. */
const stored = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

const FILL: FillRecord = {
  coin: 'BTC', px: '99990', sz: '0.001', side: 'A', time: 1795778061783, startPosition: '0', dir: 'Open Short', closedPnl: '0',
  hash: `0x${'af'.repeat(32)}`, oid: 1411, crossed: true, fee: '0.0449955', feeToken: 'USDC', tid: 521,
};

/** A record's fields, some dropped, moved or undefined, some added, in an order the draw picks. */
const reshaped = (base: Record<string, unknown>) =>
  fc.record({
    drop: fc.array(fc.constantFrom(...Object.keys(base)), { maxLength: 2 }),
    undef: fc.option(fc.constantFrom(...Object.keys(base)), { nil: undefined }),
    extra: fc.dictionary(fc.constantFrom('cloid', 'builderFee', 'liquidation', 'zz', '__proto__'), fc.jsonValue(), { maxKeys: 3 }),
    moveLast: fc.option(fc.constantFrom(...Object.keys(base)), { nil: undefined }),
  }).map(({ drop, undef, extra, moveLast }) => {
    const o: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(base)) if (!drop.includes(k) && k !== moveLast) o[k] = v;
    // Own fields even for `__proto__` (JSON.parse makes it one; assignment would set the prototype).
    for (const [k, v] of Object.entries(extra)) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
    if (moveLast !== undefined) o[moveLast] = base[moveLast];
    if (undef !== undefined) o[undef] = undefined;
    return o;
  });

t.test('property: a packed fill or order status reads back as the record written, in field order', async (t) => {
  const seed = replaySeed(t, 20261127);
  const order = restingOrder(`0x${'12'.repeat(16)}`);
  const statusOf = (o: Record<string, unknown>): OrderStatusRecord => ({ order: o as never, status: 'open', statusTimestamp: 7 });
  // Exact as the exchange builds them: packed.
  t.type(stored(packOrderStatus(statusOf(order.order as never))), Array);
  t.same(JSON.stringify(unpackOrderStatus(stored(packOrderStatus(statusOf(order.order as never))))), JSON.stringify(statusOf(order.order as never)));
  fc.assert(fc.property(reshaped(order.order as never), reshaped(FILL as never), fc.array(reshaped(FILL as never), { maxLength: 4 }), (o, f, more) => {
    const r = statusOf(o);
    const fills = [f, ...more] as unknown as FillRecord[];
    const back = unpackOrderStatus(stored(packOrderStatus(r)));
    const fillsBack = unpackFills(stored(packFills(fills)));
    return JSON.stringify(back) === JSON.stringify(r) && JSON.stringify(fillsBack) === JSON.stringify(fills);
  }), { seed, numRuns: 300 });
});

t.test('the store answers fills and order statuses across packed and earlier entries', async (t) => {
  const dir = await tempDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'db');
  const [a, b] = USERS as [string, string];
  const hex = (n: number) => n.toString(16).padStart(16, '0');
  // Entries of an earlier version first: one fill per entry, an order status as an object.
  const legacy = new Level<string, unknown>(path, { valueEncoding: 'json' });
  const fillsL = legacy.sublevel<string, unknown>('fill', { valueEncoding: 'json' });
  const ordersL = legacy.sublevel<string, unknown>('ostat', { valueEncoding: 'json' });
  const all = new Map<string, FillRecord[]>([[a, []], [b, []]]);
  let seq = 0;
  const fill = (user: string, time: number): { user: string; seq: number; fill: FillRecord } => {
    const f = { ...FILL, time, tid: seq, oid: 1000 + seq };
    (all.get(user) as FillRecord[]).push(f);
    return { user, seq: seq++, fill: f };
  };
  for (let i = 0; i < 5; i++) {
    const f = fill(i % 2 === 0 ? a : b, 1000 + i);
    await fillsL.put(`${f.user}!${hex(f.seq)}`, f.fill);
  }
  const old: OrderStatusRecord = { order: { coin: 'ETH', oid: 3 } as never, status: 'canceled', statusTimestamp: 5 };
  await ordersL.put(`${a}!${hex(3)}`, old);
  await legacy.close();

  const store = new ChainStoreForTests(path);
  await store.open();
  t.teardown(() => store.close());
  const placed = restingOrder(null);
  // Blocks of interleaved fills of both users, times rising by block.
  const withCloid = restingOrder(`0x${'34'.repeat(16)}`);
  const kept = { ...withCloid, order: { ...withCloid.order, oid: 77 } };
  // Heights 1 to 6 packed as JSON text (chains of app hash version 1), 7 to 12 kept as the app
  // hash wrote them, with a liquidation's fill and an order with a cloid among them.
  for (let height = 1; height <= 12; height++) {
    const fills: { user: string; seq: number; fill: FillRecord; at?: number }[] = Array.from({ length: height % 3 === 0 ? 0 : 7 }, (_, i) => fill(i % 3 === 0 ? b : a, 2000 + height * 10));
    if (height === 8) {
      const liquidated = { ...FILL, time: 2080, tid: seq, oid: 0, cloid: '0x01', liquidation: { liquidatedUser: b, markPx: '99000', method: 'market' as const } };
      (all.get(a) as FillRecord[]).push(liquidated);
      fills.push({ user: a, seq: seq++, fill: liquidated });
    }
    const statuses: { user: string; record: OrderStatusRecord }[] = [];
    if (height === 2) statuses.push({ user: a, record: { order: placed.order, status: 'open', statusTimestamp: 9 } });
    if (height === 9) statuses.push({ user: b, record: { order: kept.order, status: 'filled', statusTimestamp: 11 } });
    let orderStatuses: StatusWrite[] = statuses;
    let written;
    if (height > 6) {
      // The block's events in an order of their own, other events among them.
      const events: ExchangeEvent[] = [{ kind: 'fundingRate', rate: { coin: 'BTC', fundingRate: '0', premium: '0', time: 1 } }];
      orderStatuses = [...statuses].reverse().map((o) => ({
        user: o.user, oid: o.record.order.oid,
        at: events.push({ kind: 'order', user: o.user, status: o.record.status, statusTimestamp: o.record.statusTimestamp, order: o.record.order }) - 1,
      }));
      for (const f of fills) f.at = events.push({ kind: 'fill', user: f.user, fill: f.fill }) - 1;
      written = writeOutputs({ results: [], events, state: undefined, evm: '0x' });
    }
    await store.writeBlock({
      block: { header: { height }, txs: [] } as never, signers: [], commit: {} as never,
      head: { height, hash: '0x', time: 0, appHash: '0x', fillSeq: seq }, fills, orderStatuses,
      fundings: [], fundingRates: [], liquidations: [], candles: [], portfolio: [], snapshot: null, sync: false, ...(written !== undefined ? { written } : {}),
    });
    written?.release();
  }
  for (const user of [a, b]) {
    const newest = [...(all.get(user) as FillRecord[])].reverse();
    for (const limit of [0, 1, 3, 7, 8, 100]) t.same(await store.userFills(user, limit), newest.slice(0, limit), `userFills ${user.slice(0, 6)} ${limit}`);
    for (const [start, end, limit, reach] of [[0, 1e9, 100, 100], [1002, 2035, 100, 100], [0, 1e9, 3, 100], [0, 1e9, 100, 4], [2021, 2051, 5, 9]] as const) {
      const found: FillRecord[] = [];
      for (const f of newest.slice(0, reach)) {
        if (f.time < start) break;
        if (f.time < end) found.push(f);
      }
      t.same(await store.userFillsBetween(user, start, end, limit, reach), found.reverse().slice(0, limit), `userFillsBetween ${start} ${end} ${limit} ${reach}`);
    }
  }
  t.same(await store.orderStatus(a, 3), old, 'an order status of an earlier version');
  t.equal(JSON.stringify(await store.orderStatus(a, placed.order.oid)), JSON.stringify({ order: placed.order, status: 'open', statusTimestamp: 9 }));
  t.equal(await store.orderStatus(b, placed.order.oid), undefined);
  t.equal(JSON.stringify(await store.orderStatus(b, kept.order.oid)), JSON.stringify({ order: kept.order, status: 'filled', statusTimestamp: 11 }), 'an order status kept as the app hash wrote it');
  t.equal(JSON.stringify(await store.userFills(a, 1000)), JSON.stringify([...(all.get(a) as FillRecord[])].reverse()), 'fills of all three forms, fields in order');
});

t.test('property: an order\'s status is the last written, across buckets, blocks, forms and earlier entries', async (t) => {
  const seed = replaySeed(t, 20261129);
  const dir = await tempDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const users = (USERS as string[]).slice(0, 3);
  const base = restingOrder(null).order;
  const withCloid = restingOrder(`0x${'56'.repeat(16)}`).order;
  const statuses = ['open', 'filled', 'canceled', 'triggered'] as const;
  // Oids across four buckets, crowded at the buckets' edges.
  const oids = fc.oneof(fc.integer({ min: 0, max: 4 * ORDER_BUCKET }), fc.constantFrom(0, ORDER_BUCKET - 1, ORDER_BUCKET, 2 * ORDER_BUCKET - 1, 3 * ORDER_BUCKET));
  const update = fc.record({
    user: fc.constantFrom(...users), oid: oids, status: fc.constantFrom(...statuses), time: fc.nat({ max: 1e6 }),
    // A record whose shape the packed form does not take goes as the record itself.
    shape: fc.constantFrom('plain', 'plain', 'plain', 'cloid', 'extra'),
  });
  // Each block: its updates, and whether the app hash wrote them (versions 2 and 3) or not (version 1).
  const blocks = fc.array(fc.record({ updates: fc.array(update, { maxLength: 12 }), written: fc.boolean() }), { minLength: 1, maxLength: 12 });
  const legacy = fc.array(fc.record({ user: fc.constantFrom(...users), oid: oids, form: fc.constantFrom('object', 'packed', 'records') }), { maxLength: 8 });
  const hex = (n: number) => n.toString(16).padStart(16, '0');
  let run = 0;
  await fc.assert(fc.asyncProperty(legacy, blocks, async (earlier, bs) => {
    const path = join(dir, `db${run++}`);
    const model = new Map<string, string>();
    const record = (u: { oid: number; status: (typeof statuses)[number]; time: number; shape?: string }): OrderStatusRecord => {
      const order = u.shape === 'cloid' ? { ...withCloid, oid: u.oid } : u.shape === 'extra' ? { ...base, oid: u.oid, zz: 1 } : { ...base, oid: u.oid };
      return { order: order as never, status: u.status, statusTimestamp: u.time };
    };
    // Entries one order each, as earlier versions wrote them.
    const old = new Level<string, unknown>(path, { valueEncoding: 'json' });
    const ostat = old.sublevel<string, Uint8Array>('ostat', { valueEncoding: 'view' });
    for (const e of earlier) {
      const r = record({ oid: e.oid, status: 'open', time: 1 });
      let value: Uint8Array;
      if (e.form === 'records') {
        const w = writeOutputs({ results: [], events: [{ kind: 'order', user: e.user, status: r.status, statusTimestamp: r.statusTimestamp, order: r.order }], state: undefined, evm: '0x' });
        value = new Uint8Array([STORED_ORDER_STATUS, ...w.bytes.subarray(w.starts[0], w.ends[0])]);
        w.release();
      } else value = Buffer.from(JSON.stringify(e.form === 'packed' ? packOrderStatus(r) : r));
      await ostat.put(`${e.user}!${hex(e.oid)}`, value);
      model.set(`${e.user} ${e.oid}`, JSON.stringify(r));
    }
    await old.close();
    const store = new ChainStoreForTests(path);
    await store.open();
    try {
      for (let height = 1; height <= bs.length; height++) {
        const b = bs[height - 1] as (typeof bs)[number];
        const statuses = b.updates.map((u) => ({ user: u.user, record: record(u), shape: u.shape }));
        let orderStatuses: StatusWrite[] = statuses;
        let written;
        if (b.written) {
          // As the app hash wrote them; a record of a shape it cannot write (an extra field) is
          // given as the record, so some groups mix both.
          const events: ExchangeEvent[] = [{ kind: 'fundingRate', rate: { coin: 'BTC', fundingRate: '0', premium: '0', time: 1 } }];
          orderStatuses = statuses.map((o) => o.shape === 'extra'
            ? { user: o.user, record: o.record }
            : { user: o.user, oid: o.record.order.oid, at: events.push({ kind: 'order', user: o.user, status: o.record.status, statusTimestamp: o.record.statusTimestamp, order: o.record.order }) - 1 });
          written = writeOutputs({ results: [], events, state: undefined, evm: '0x' });
        }
        await store.writeBlock({
          block: { header: { height }, txs: [] } as never, signers: [], commit: {} as never,
          head: { height, hash: '0x', time: 0, appHash: '0x', fillSeq: 0 }, fills: [], orderStatuses,
          fundings: [], fundingRates: [], liquidations: [], candles: [], portfolio: [], snapshot: null, sync: false, ...(written !== undefined ? { written } : {}),
        });
        written?.release();
        for (const o of statuses) model.set(`${o.user} ${o.record.order.oid}`, JSON.stringify(o.record));
      }
      const asked = new Set([...model.keys(), ...users.flatMap((u) => [0, ORDER_BUCKET, 4 * ORDER_BUCKET + 1].map((oid) => `${u} ${oid}`))]);
      for (const k of asked) {
        const [user, oid] = k.split(' ') as [string, string];
        const got = await store.orderStatus(user, Number(oid));
        if ((got === undefined ? undefined : JSON.stringify(got)) !== model.get(k)) throw new Error(`${k}: ${JSON.stringify(got)} against ${model.get(k)}`);
      }
      return true;
    } finally {
      await store.close();
    }
  }), { seed, numRuns: 60 });
});
