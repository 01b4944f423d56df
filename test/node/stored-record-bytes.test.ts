// The chain store's hot entries written as bytes (node/stored-record-bytes.ts) are exactly the
// UTF-8 of the strings written before: the keys and the packed records' JSON. Records of other
// shapes are refused (the store writes them as strings), never written differently.
import t from 'tap';
import { RecordBytes, packFills, packOrderStatus, type OrderStatusRecord } from '../../node/index.ts';
import type { FillRecord, OrderView } from '../../exchange/index.ts';
import { mulberry32 } from '../support/exchange.ts';

const SEED = Number(process.env.RECORD_SEED ?? 20261129);
const text = (b: Uint8Array | null) => (b === null ? null : Buffer.from(b).toString('utf8'));

function generator(seed: number) {
  const rnd = mulberry32(seed);
  const int = (n: number) => Math.floor(rnd() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)] as T;
  // Mostly what the exchange writes; sometimes text JSON escapes, other numbers, missing or extra fields.
  const odd = () => rnd() < 0.04;
  const str = (): string => (odd() ? pick(['é', 'a"b', 'back\\slash', '\n', '\u007f', '😀']) : pick(['BTC', '0.001', '-12.5', '', '99990', 'Open Long', `0x${'ab'.repeat(32)}`]));
  const num = (): number => (odd() ? pick([-0, -3, 0.5, 1e21, 1e-7, 2 ** 60, -(2 ** 53)]) : pick([0, 7, 10, 99, 100, 1795938410115, 2 ** 53 - 1, 230529]));
  const fill = (): FillRecord => {
    const f: Record<string, unknown> = {
      coin: str(), px: str(), sz: str(), side: pick(['B', 'A']), time: num(), startPosition: str(), dir: str(), closedPnl: str(), hash: str(),
      oid: num(), crossed: rnd() < 0.5, fee: str(), feeToken: str(), tid: num(),
    };
    if (odd()) f.cloid = str();
    if (odd()) delete f.fee;
    if (odd()) f.px = undefined;
    return f as unknown as FillRecord;
  };
  const order = (): OrderView => {
    const o: Record<string, unknown> = {
      coin: str(), side: pick(['B', 'A']), limitPx: str(), sz: str(), oid: num(), timestamp: num(), origSz: str(), cloid: rnd() < 0.5 ? null : str(),
      reduceOnly: rnd() < 0.5, orderType: 'Limit', tif: rnd() < 0.2 ? null : 'Gtc', isTrigger: false, triggerCondition: 'N/A', triggerPx: '0', isPositionTpsl: false, children: [],
    };
    if (odd()) o.children = [{ ...o }];
    if (odd()) o.extra = 1;
    return o as unknown as OrderView;
  };
  return { fill, order, int, pick, num };
}

t.test('keys and packed records as bytes are the strings written before, or refused', async (t) => {
  const g = generator(SEED);
  let written = 0;
  let refused = 0;
  for (let round = 0; round < 400; round++) {
    const bytes = new RecordBytes(); // one a block; many records share its chunks
    const views: [Uint8Array | null, string][] = [];
    for (let i = 0; i < 200; i++) {
      const user = g.pick([`0x${'cd'.repeat(20)}`, `0x${'0'.repeat(39)}1`, 'ü']);
      const n = g.num();
      const m = g.int(2) === 0 ? undefined : g.num();
      const keyOk = Number.isSafeInteger(n) && n >= 0 && (m === undefined || (Number.isSafeInteger(m) && m >= 0)) && user !== 'ü';
      const hex = (x: number) => `!${x.toString(16).padStart(16, '0')}`;
      views.push([bytes.key('!orders!', user, n, m), keyOk ? `!orders!${user}${hex(n)}${m === undefined ? '' : hex(m)}` : '']);
      const statuses = Array.from({ length: 1 + g.int(3) }, (): OrderStatusRecord => ({ order: g.order(), status: g.pick(['open', 'filled', 'canceled'] as const), statusTimestamp: g.num() }));
      views.push([bytes.orderStatuses(statuses), JSON.stringify(statuses.map(packOrderStatus))]);
      const fills = Array.from({ length: 1 + g.int(3) }, g.fill);
      views.push([bytes.fills(fills), JSON.stringify(packFills(fills))]);
    }
    // Checked after the whole block: later records never overwrite earlier views.
    for (const [view, expected] of views) {
      if (view === null) {
        refused++;
        continue;
      }
      written++;
      if (text(view) !== expected) return t.fail(`bytes ${text(view)} against ${expected} (RECORD_SEED=${SEED}, round ${round})`);
    }
  }
  t.ok(written > 100_000 && refused > 1000, `${written} written as the strings, ${refused} refused (RECORD_SEED=${SEED})`);
});

t.test('a record of the exchange\'s shape is written, and one of another shape refused', async (t) => {
  const bytes = new RecordBytes();
  const order: OrderView = {
    coin: 'BTC', side: 'B', limitPx: '99990', sz: '0', oid: 230529, timestamp: 1795938409660, origSz: '0.001', cloid: null, reduceOnly: false,
    orderType: 'Limit', tif: 'Gtc', isTrigger: false, triggerCondition: 'N/A', triggerPx: '0', isPositionTpsl: false, children: [],
  };
  const r: OrderStatusRecord = { order, status: 'filled', statusTimestamp: 1795938410115 };
  t.equal(text(bytes.orderStatuses([r])), JSON.stringify([packOrderStatus(r)]));
  t.equal(text(bytes.orderStatuses([r, r])), JSON.stringify([packOrderStatus(r), packOrderStatus(r)]));
  t.equal(text(bytes.orderStatuses([])), '[]');
  t.equal(bytes.orderStatuses([r, { ...r, order: Object.assign(Object.create({ inherited: 1 }) as object, order) as OrderView }]), null, 'another prototype');
  t.equal(bytes.orderStatuses([{ ...r, order: { ...order, cloid: undefined as unknown as null } }]), null, 'an undefined field');
  t.equal(bytes.key('!orders!', 'ü', 1), null);
  t.equal(bytes.key('!orders!', '0xab', -1), null);
  t.equal(bytes.key('!orders!', '0xab', 0.5), null);
  t.equal(text(bytes.key('!orders!', '0xab', 2 ** 53 - 1)), `!orders!0xab!${(2 ** 53 - 1).toString(16).padStart(16, '0')}`);
  t.equal(text(bytes.key('!orders!', '0xab', 1, 255)), `!orders!0xab!${'0'.repeat(15)}1!${'0'.repeat(14)}ff`);
  t.equal(bytes.key('!orders!', '0xab', 1, -1), null);
  t.equal(bytes.key('!orders!', '0xab', 1, 2 ** 53), null);
});
