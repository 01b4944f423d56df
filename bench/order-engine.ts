// The order engine against the npm package nodejs-order-book on one seeded stream (mulberry32,
// seed 42): 10,000 resting orders prefilled, then 1,000,000 operations on integer ticks around a
// mid of 100,000 within +/-1%: 60% passive limits (one sixth post-only), 10% IOCs priced 1%
// through the mid with sizes 1-300, 30% cancels of orders still resting. Then the heap held by
// 1,000,000 resting orders.
import { OrderBook as PeerBook } from 'nodejs-order-book';
import { MatchingEngine, TIF_ALO, TIF_GTC, TIF_IOC, type IdSource } from '../exchange/index.ts';
import { mulberry32 } from '../test/support/exchange.ts';

const SEED = 42;
const MID = 100_000;
const BAND = 1000; // 1% of the mid, in ticks
const PREFILL = 10_000;
const OPS = Number(process.env.BENCH_OPS ?? 1_000_000);
const MAKERS = 64;

const OP_LIMIT = 0;
const OP_IOC = 1;
const OP_CANCEL = 2;

interface Stream {
  kind: Uint8Array;
  isBuy: Uint8Array;
  postOnly: Uint8Array;
  px: Int32Array;
  sz: Int32Array;
  /** For limits and IOCs: the order's stream id; for cancels: the target's stream id. */
  ref: Int32Array;
  owner: string[];
  prefill: number;
}

const RULES = { pxDecimals: 0, tick: 1, minSz: 1, maxOpenPerOwner: 1e9, bandBps: 0 };

/** Generates the stream, tracking with a reference engine which orders are still resting. */
function generate(seed: number, prefill: number, ops: number): Stream {
  const rnd = mulberry32(seed);
  const n = prefill + ops;
  const s: Stream = {
    kind: new Uint8Array(n), isBuy: new Uint8Array(n), postOnly: new Uint8Array(n), px: new Int32Array(n),
    sz: new Int32Array(n), ref: new Int32Array(n), owner: new Array<string>(n), prefill,
  };
  const makers = Array.from({ length: MAKERS }, (_, i) => `maker${i}`);
  const ref = new MatchingEngine(RULES, { nextOid: 1, nextTid: 1, nextSeq: 1 });
  const live: number[] = []; // stream ids of orders that may be resting
  const oidOf = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const roll = i < prefill ? 0 : rnd();
    let kind = roll < 0.6 ? OP_LIMIT : roll < 0.7 ? OP_IOC : OP_CANCEL;
    // Cancels pick a resting order; drop ones the IOCs filled meanwhile.
    if (kind === OP_CANCEL) {
      let target = -1;
      while (live.length > 0) {
        const k = Math.floor(rnd() * live.length);
        const id = live[k] as number;
        live[k] = live[live.length - 1] as number;
        live.pop();
        if (ref.orders.has(oidOf[id] as number)) {
          target = id;
          break;
        }
      }
      if (target < 0) kind = OP_LIMIT;
      else {
        s.kind[i] = OP_CANCEL;
        s.ref[i] = target;
        s.owner[i] = s.owner[target] as string;
        ref.cancel(s.owner[i] as string, oidOf[target] as number);
        continue;
      }
    }
    const isBuy = rnd() < 0.5;
    s.kind[i] = kind;
    s.isBuy[i] = isBuy ? 1 : 0;
    s.ref[i] = i;
    if (kind === OP_LIMIT) {
      const offset = 1 + Math.floor(rnd() * BAND);
      s.px[i] = isBuy ? MID - offset : MID + offset;
      s.sz[i] = 1 + Math.floor(rnd() * 100);
      s.postOnly[i] = rnd() < 1 / 6 ? 1 : 0;
      s.owner[i] = makers[Math.floor(rnd() * MAKERS)] as string;
      const oid = ref.place(i + 1, s.owner[i] as string, isBuy, s.px[i] as number, s.sz[i] as number, s.postOnly[i] ? TIF_ALO : TIF_GTC, false, null, 0);
      oidOf[i] = oid;
      live.push(i);
    } else {
      s.px[i] = isBuy ? MID + BAND : MID - BAND;
      s.sz[i] = 1 + Math.floor(rnd() * 300);
      s.owner[i] = 'taker';
      ref.place(i + 1, 'taker', isBuy, s.px[i] as number, s.sz[i] as number, TIF_IOC, false, null, 0);
    }
  }
  return s;
}

interface RunResult {
  opsPerSec: number;
  filledLots: number;
  resting: number;
}

function runEngine(s: Stream): RunResult {
  const ids: IdSource = { nextOid: 1, nextTid: 1, nextSeq: 1 };
  const engine = new MatchingEngine(RULES, ids);
  const oidOf = new Int32Array(s.kind.length);
  const { kind, isBuy, postOnly, px, sz, ref, owner } = s;
  let filledLots = 0;
  let t0 = 0;
  for (let i = 0; i < kind.length; i++) {
    if (i === s.prefill) t0 = performance.now();
    const k = kind[i];
    if (k === OP_CANCEL) {
      engine.cancel(owner[i] as string, oidOf[ref[i] as number] as number);
      continue;
    }
    const tif = k === OP_IOC ? TIF_IOC : postOnly[i] === 1 ? TIF_ALO : TIF_GTC;
    oidOf[i] = engine.place(i + 1, owner[i] as string, isBuy[i] === 1, px[i] as number, sz[i] as number, tif, false, null, 0);
    filledLots += engine.filled;
  }
  const seconds = (performance.now() - t0) / 1000;
  return { opsPerSec: (kind.length - s.prefill) / seconds, filledLots, resting: engine.orders.size };
}

function runPeer(s: Stream): RunResult {
  const book = new PeerBook();
  const ids = Array.from({ length: s.kind.length }, (_, i) => `o${i}`);
  let filledLots = 0;
  let resting = 0;
  const step = (i: number) => {
    const kind = s.kind[i];
    if (kind === OP_CANCEL) {
      book.cancel(ids[s.ref[i] as number] as string);
      return;
    }
    const side = s.isBuy[i] === 1 ? 'buy' : 'sell';
    const r = book.limit({
      id: ids[i] as string,
      side: side as never,
      size: s.sz[i] as number,
      price: s.px[i] as number,
      postOnly: s.postOnly[i] === 1,
      timeInForce: (kind === OP_IOC ? 'IOC' : 'GTC') as never,
    });
    filledLots += (s.sz[i] as number) - ((r as { quantityLeft?: number }).quantityLeft ?? 0);
  };
  for (let i = 0; i < s.prefill; i++) step(i);
  const t0 = performance.now();
  for (let i = s.prefill; i < s.kind.length; i++) step(i);
  const seconds = (performance.now() - t0) / 1000;
  const snap = book.snapshot() as unknown as { bids: { orders: unknown[] }[]; asks: { orders: unknown[] }[] };
  for (const l of [...snap.bids, ...snap.asks]) resting += l.orders.length;
  return { opsPerSec: (s.kind.length - s.prefill) / seconds, filledLots, resting };
}

function heapOfRestingOrders(count: number): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) return NaN;
  gc();
  const before = process.memoryUsage().heapUsed;
  const engine = new MatchingEngine(RULES, { nextOid: 1, nextTid: 1, nextSeq: 1 });
  const rnd = mulberry32(SEED);
  for (let i = 0; i < count; i++) {
    const isBuy = (i & 1) === 0;
    const offset = 1 + Math.floor(rnd() * BAND);
    engine.place(i + 1, `maker${i % MAKERS}`, isBuy, isBuy ? MID - offset : MID + offset, 1 + (i % 100), TIF_GTC, false, null, 0);
  }
  gc();
  const used = process.memoryUsage().heapUsed - before;
  if (engine.orders.size !== count) throw new Error('orders did not all rest');
  return used;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

export async function benchOrderEngine(): Promise<void> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
  const stream = generate(SEED, PREFILL, OPS);
  // Warm both once on a short stream so neither is measured cold.
  const warm = generate(SEED + 1, 1000, 50_000);
  runEngine(warm);
  runPeer(warm);
  // Alternate the two, several rounds, and compare medians: this machine's speed drifts.
  const ours: RunResult[] = [];
  const peer: RunResult[] = [];
  for (let r = 0; r < rounds; r++) {
    ours.push(runEngine(stream));
    peer.push(runPeer(stream));
  }
  const a = ours[0] as RunResult;
  const b = peer[0] as RunResult;
  if (a.filledLots !== b.filledLots || a.resting !== b.resting) throw new Error('the two engines disagree on the outcome of the stream');
  const oursMedian = median(ours.map((x) => x.opsPerSec));
  const peerMedian = median(peer.map((x) => x.opsPerSec));
  const heap = heapOfRestingOrders(1_000_000);
  const row = (xs: RunResult[], med: number) => ({
    'ops/s (median)': Math.round(med),
    'ops/s (best)': Math.round(Math.max(...xs.map((x) => x.opsPerSec))),
    'filled lots': xs[0]?.filledLots,
    'resting at end': xs[0]?.resting,
  });
  console.table({ 'exchange/ MatchingEngine': row(ours, oursMedian), 'nodejs-order-book': row(peer, peerMedian) });
  console.log(`ratio of medians: ${(oursMedian / peerMedian).toFixed(1)}x  (seed ${SEED}, ${OPS} ops after ${PREFILL} prefilled, ${rounds} rounds each)`);
  console.log(`heap held by 1,000,000 resting orders: ${Number.isNaN(heap) ? 'run with --expose-gc' : `${(heap / 2 ** 20).toFixed(0)} MB`}`);
}
