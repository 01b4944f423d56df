// The app hash's versions 2 and 3 (node/app-hash.ts): version 2's bytes equal a reference written
// here from the format's description with Node's Buffer, over random fills, order statuses and
// other events; every field it lists changes the bytes; version 3 hashes the same bytes with
// SHA-256; hashed on the event loop, off it or on a signer worker (blocks in flight together
// included), it is the same app hash; and a chain's genesis picks the version (absent: 1).
import { createHash } from 'node:crypto';
import t from 'tap';
import canonicalizeRef from 'canonicalize';
import { bytesToHex, concatBytes, hexToBytes, keccak256 } from '../../primitives/index.ts';
import {
  APP_HASH_V2_FIELDS, InlineRecovery, STORED_FILLS, STORED_ORDER_STATUS, WorkerPoolRecovery, appHashV2Bytes, nextAppHash, nextAppHashOffLoop, readStoredFills, readStoredOrderStatus,
  writeOutputs, type BlockOutputs,
} from '../../node/index.ts';
import { exchangeDomain, type AuthConfig, type ExchangeEvent, type FillRecord, type OrderView } from '../../exchange/index.ts';
import { devnetGenesis, loadGenesis } from '../../genesis/index.ts';
import { mulberry32 } from '../support/exchange.ts';

const SEED = Number(process.env.APP_HASH_SEED ?? 20261129);

// The reference: the format as docs/consensus.md and node/app-hash.ts describe it.
function uleb(n: number): Buffer {
  const out: number[] = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) b += 128;
    out.push(b);
  } while (n > 0);
  return Buffer.from(out);
}
function refStr(s: string): Buffer {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(s)) return Buffer.concat([uleb(s.length * 2), Buffer.from(s, 'latin1')]);
  const text = Buffer.from(JSON.stringify(s), 'utf8');
  return Buffer.concat([uleb(text.length * 2 + 1), text]);
}
function refNum(n: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeDoubleLE(n === 0 ? 0 : n);
  return b;
}
const refBool = (v: boolean): Buffer => Buffer.of(v ? 1 : 0);
const refOpt = (v: unknown, write: (v: never) => Buffer): Buffer => (v === undefined || v === null ? Buffer.of(0) : Buffer.concat([Buffer.of(1), write(v as never)]));
function refFill(f: FillRecord): Buffer {
  return Buffer.concat([
    refStr(f.coin), refStr(f.px), refStr(f.sz), refStr(f.side), refNum(f.time), refStr(f.startPosition), refStr(f.dir), refStr(f.closedPnl),
    refStr(f.hash), refNum(f.oid), refBool(f.crossed), refStr(f.fee), refStr(f.feeToken), refNum(f.tid), refOpt(f.cloid, refStr), refOpt(f.builderFee, refStr),
    refOpt(f.liquidation, (l: NonNullable<FillRecord['liquidation']>) => Buffer.concat([refStr(l.liquidatedUser), refStr(l.markPx), refStr(l.method)])),
  ]);
}
function refOrder(o: OrderView): Buffer {
  return Buffer.concat([
    refStr(o.coin), refStr(o.side), refStr(o.limitPx), refStr(o.sz), refNum(o.oid), refNum(o.timestamp), refStr(o.origSz), refOpt(o.cloid, refStr),
    refBool(o.reduceOnly), refStr(o.orderType), refOpt(o.tif, refStr), refBool(o.isTrigger), refStr(o.triggerCondition), refStr(o.triggerPx),
    refBool(o.isPositionTpsl), uleb(o.children.length), ...o.children.map(refOrder),
  ]);
}
function reference(o: BlockOutputs): Buffer {
  const parts: Buffer[] = [Buffer.from(canonicalizeRef({ evm: o.evm, results: o.results, state: o.state }) as string, 'utf8')];
  for (const e of o.events) {
    if (e.kind === 'fill') parts.push(Buffer.of(1), refStr(e.user), refFill(e.fill));
    else if (e.kind === 'order') parts.push(Buffer.of(2), refStr(e.user), refStr(e.status), refNum(e.statusTimestamp), refOrder(e.order));
    else parts.push(Buffer.of(0), Buffer.from(canonicalizeRef(e) as string, 'utf8'));
  }
  return Buffer.concat(parts);
}

function generator(seed: number) {
  const rnd = mulberry32(seed);
  const int = (n: number) => Math.floor(rnd() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)] as T;
  const texts = ['BTC', '0.001', '-12.5', '', 'é', 'ü€ ☃', 'quote"back\\slash', 'x'.repeat(63), 'y'.repeat(64), `0x${'ab'.repeat(32)}`, 'z'.repeat(200) + 'é', 'w'.repeat(1023), 'u'.repeat(1024), 'v'.repeat(8200)];
  // Lone surrogates only where version 2 writes the string itself (the reference canonical JSON refuses them).
  const text = (): string => (rnd() < 0.05 ? '\ud800x' : pick(texts));
  const json = (): string => pick(texts);
  const number = (): number => pick([0, -0, 1, 1795938410115, 2 ** 53 - 1, 0.5, -3, 1e-7, 123456789]);
  const address = () => `0x${int(2 ** 31).toString(16).padStart(40, '0')}`;
  const fill = (): FillRecord => ({
    coin: text(), px: text(), sz: text(), side: pick(['B', 'A'] as const), time: number(), startPosition: text(), dir: text(), closedPnl: text(), hash: text(),
    oid: number(), crossed: rnd() < 0.5, fee: text(), feeToken: text(), tid: number(),
    ...(rnd() < 0.5 ? { cloid: text() } : {}), ...(rnd() < 0.3 ? { builderFee: text() } : {}),
    ...(rnd() < 0.3 ? { liquidation: { liquidatedUser: address(), markPx: text(), method: pick(['market', 'backstop', 'adl'] as const) } } : {}),
  });
  const order = (depth = 0): OrderView => ({
    coin: text(), side: pick(['B', 'A'] as const), limitPx: text(), sz: text(), oid: number(), timestamp: number(), origSz: text(), cloid: rnd() < 0.5 ? null : text(),
    reduceOnly: rnd() < 0.5, orderType: pick(['Limit', 'Stop Market'] as const), tif: rnd() < 0.3 ? null : text(), isTrigger: rnd() < 0.5, triggerCondition: text(),
    triggerPx: text(), isPositionTpsl: rnd() < 0.5, children: depth < 2 && rnd() < 0.3 ? Array.from({ length: 1 + int(2) }, () => order(depth + 1)) : [],
  });
  const event = (): ExchangeEvent => {
    const k = int(10);
    if (k < 4) return { kind: 'fill', user: address(), fill: fill() };
    if (k < 8) return { kind: 'order', user: address(), status: pick(['open', 'filled', 'canceled'] as const), statusTimestamp: number(), order: order() };
    if (k === 8) return { kind: 'fundingRate', rate: { coin: json(), fundingRate: json(), premium: json(), time: number() } };
    return { kind: 'funding', user: address(), funding: { time: number(), coin: json(), usdc: json(), szi: json(), fundingRate: json() } };
  };
  const outputs = (n: number): BlockOutputs => ({
    results: Array.from({ length: int(4) }, () => ({ hash: json(), result: { status: 'ok', response: { type: 'order', data: { statuses: [{ resting: { oid: number() } }] } } } })),
    events: Array.from({ length: n }, event),
    state: rnd() < 0.5 ? undefined : `0x${'12'.repeat(32)}`,
    evm: `0x${'ab'.repeat(32)}`,
  });
  return { outputs, fill, order, event };
}

const chained = (prev: string, bytes: Uint8Array) => bytesToHex(keccak256(concatBytes(hexToBytes(prev), keccak256(bytes))));
const chained3 = (prev: string, bytes: Uint8Array) => bytesToHex(keccak256(concatBytes(hexToBytes(prev), createHash('sha256').update(bytes).digest())));

t.test('version 2 writes what the reference writes, and its hash chains as version 1 does', async (t) => {
  const g = generator(SEED);
  for (let round = 0; round < 200; round++) {
    const o = g.outputs(round % 20);
    const ref = reference(o);
    if (!Buffer.from(appHashV2Bytes(o)).equals(ref)) return t.fail(`bytes differ from the reference (APP_HASH_SEED=${SEED}, round ${round})`);
    const prev = bytesToHex(keccak256(Buffer.from(String(round))));
    if (nextAppHash(prev, o, 2) !== chained(prev, ref)) return t.fail(`app hash differs (APP_HASH_SEED=${SEED}, round ${round})`);
    if (nextAppHash(prev, o, 3) !== chained3(prev, ref)) return t.fail(`version 3 app hash differs (APP_HASH_SEED=${SEED}, round ${round})`);
  }
  t.pass(`200 blocks of up to 19 events (APP_HASH_SEED=${SEED})`);
  const empty: BlockOutputs = { results: [], events: [], state: undefined, evm: '0x' };
  t.equal(Buffer.from(appHashV2Bytes(empty)).toString(), '{"evm":"0x","results":[]}', 'a block without events is its canonical JSON');
  t.not(nextAppHash('0x00', empty, 2), nextAppHash('0x00', { ...empty, events: [{ kind: 'fundingRate', rate: { coin: 'BTC', fundingRate: '0', premium: '0', time: 0 } }] }, 2));
  t.not(nextAppHash('0x00', empty, 3), nextAppHash('0x00', empty, 2), 'versions 2 and 3 differ on the same outputs');
});

t.test('fill and order status records read back as the objects written, fields in order', async (t) => {
  const g = generator(SEED + 3);
  for (let round = 0; round < 100; round++) {
    const o = g.outputs(1 + (round % 19));
    const written = writeOutputs(o);
    const record = (i: number) => written.bytes.subarray(written.starts[i], written.ends[i]);
    const stored = (mark: number, parts: Uint8Array[]) => Uint8Array.from([mark, ...parts.flatMap((p) => [...p])]);
    const fills: { fill: FillRecord; at: number }[] = [];
    o.events.forEach((e, i) => {
      if (e.kind === 'fill') fills.push({ fill: e.fill, at: i });
      if (e.kind !== 'order') return;
      const back = JSON.stringify(readStoredOrderStatus(stored(STORED_ORDER_STATUS, [record(i)])));
      const want = JSON.stringify({ order: e.order, status: e.status, statusTimestamp: e.statusTimestamp });
      if (back !== want) t.fail(`order status ${i} reads back as ${back}, not ${want} (APP_HASH_SEED=${SEED}, round ${round})`);
    });
    // Several fills in one entry, as the store keeps a user's fills of a block.
    const back = JSON.stringify(readStoredFills(stored(STORED_FILLS, fills.map((f) => record(f.at)))));
    if (back !== JSON.stringify(fills.map((f) => f.fill))) t.fail(`fills read back as ${back} (APP_HASH_SEED=${SEED}, round ${round})`);
    written.release();
  }
  t.throws(() => readStoredOrderStatus(Uint8Array.of(STORED_ORDER_STATUS, 4, 0x41)), /ends early/, 'a cut record is refused');
  t.throws(() => readStoredFills(Uint8Array.of(STORED_ORDER_STATUS)), /not a stored entry of fills/);
  t.pass(`100 blocks (APP_HASH_SEED=${SEED})`);
});

t.test('every field version 2 lists changes its bytes', async (t) => {
  const g = generator(SEED + 1);
  const base = g.fill();
  const fill: FillRecord = { ...base, cloid: '0x01', builderFee: '0.1', liquidation: { liquidatedUser: `0x${'11'.repeat(20)}`, markPx: '10', method: 'market' } };
  const order: OrderView = { ...g.order(), cloid: '0x02', tif: 'Gtc', children: [] };
  const bytes = (e: ExchangeEvent) => Buffer.from(appHashV2Bytes({ results: [], events: [e], state: undefined, evm: '0x' }));
  const fillBytes = bytes({ kind: 'fill', user: '0xaa', fill });
  for (const k of APP_HASH_V2_FIELDS.fill) {
    const v = fill[k];
    const changed = typeof v === 'string' ? `${v}0` : typeof v === 'number' ? v + 1 : typeof v === 'boolean' ? !v : { ...(v as object), markPx: '11' };
    t.notOk(bytes({ kind: 'fill', user: '0xaa', fill: { ...fill, [k]: changed } }).equals(fillBytes), `fill ${k}`);
  }
  const orderBytes = bytes({ kind: 'order', user: '0xaa', status: 'open', statusTimestamp: 1, order });
  for (const k of APP_HASH_V2_FIELDS.order) {
    const v = order[k];
    const changed = typeof v === 'string' ? `${v}0` : typeof v === 'number' ? v + 1 : typeof v === 'boolean' ? !v : [order];
    t.notOk(bytes({ kind: 'order', user: '0xaa', status: 'open', statusTimestamp: 1, order: { ...order, [k]: changed } }).equals(orderBytes), `order ${k}`);
  }
  t.notOk(bytes({ kind: 'order', user: '0xab', status: 'open', statusTimestamp: 1, order }).equals(orderBytes), 'order user');
  t.notOk(bytes({ kind: 'order', user: '0xaa', status: 'filled', statusTimestamp: 1, order }).equals(orderBytes), 'order status');
  t.notOk(bytes({ kind: 'order', user: '0xaa', status: 'open', statusTimestamp: 2, order }).equals(orderBytes), 'order status time');
  // Absent and null optional fields write the same; a wrong type is refused, not written as something else.
  t.ok(bytes({ kind: 'fill', user: '0xaa', fill: { ...fill, cloid: undefined } }).equals(bytes({ kind: 'fill', user: '0xaa', fill: { ...fill, cloid: null as unknown as string } })));
  t.throws(() => bytes({ kind: 'fill', user: '0xaa', fill: { ...fill, px: 1 as unknown as string } }), /non-string/);
  t.throws(() => bytes({ kind: 'fill', user: '0xaa', fill: { ...fill, oid: Number.NaN } }), /non-finite/);
  t.throws(() => bytes({ kind: 'fill', user: '0xaa', fill: { ...fill, crossed: 1 as unknown as boolean } }), /non-boolean/);
});

t.test('versions 2 and 3 hashed off the event loop, on a signer worker or inline, are the same app hash', async (t) => {
  const auth: AuthConfig = { domain: exchangeDomain(42069), source: 'b', literalNonceBinding: true, hyperliquid: { chains: ['Mainnet', 'Testnet'] } };
  const pool = await WorkerPoolRecovery.start(auth, 1);
  t.teardown(() => pool.close());
  const inline = new InlineRecovery(auth);
  const g = generator(SEED + 2);
  for (const [version, chain] of [[2, chained], [3, chained3]] as const) {
    let offLoop = 0;
    for (const n of [0, 5, 3000, 4000]) {
      const o = g.outputs(n);
      const expected = chain('0x01', reference(o));
      t.equal(await nextAppHashOffLoop('0x01', o, version, (b, d) => (offLoop++, pool.digest(b, d))), expected, `version ${version}, ${n} events, worker`);
      t.equal(await nextAppHashOffLoop('0x01', o, version, (b, d) => inline.digest(b, d)), expected, `version ${version}, ${n} events, inline`);
    }
    t.ok(offLoop >= 2, `version ${version}: ${offLoop} inputs went to the worker`);
  }
  // Blocks hashed together (two chains of one thread): each keeps its written bytes until its hash is back.
  const blocks = [g.outputs(3000), g.outputs(3500), g.outputs(4000)];
  const together = await Promise.all(blocks.map((o) => nextAppHashOffLoop('0x02', o, 3, (b, d) => pool.digest(b, d))));
  t.same(together, blocks.map((o) => chained3('0x02', reference(o))), 'three big blocks in flight at once');
});

t.test('the genesis picks the version: absent is 1, the devnet is 3, others are refused', async (t) => {
  const g = devnetGenesis();
  t.equal(loadGenesis(g, { localValidator: 'aa'.repeat(32) }).appHashVersion, 3);
  t.equal(loadGenesis({ ...g, appHashVersion: 2 }, { localValidator: 'aa'.repeat(32) }).appHashVersion, 2);
  const { appHashVersion: _, ...older } = g;
  t.equal(loadGenesis(older, { localValidator: 'aa'.repeat(32) }).appHashVersion, 1);
  t.throws(() => loadGenesis({ ...g, appHashVersion: 4 as never }, { localValidator: 'aa'.repeat(32) }), /appHashVersion must be 1, 2 or 3/);
});
