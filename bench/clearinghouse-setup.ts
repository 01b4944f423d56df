// The clearinghouse bench's chain and workload, shared by bench/clearinghouse.ts and the
// profiling harness bench/ch-profile.ts: 10,000 accounts each holding positions in 3 perps,
// passive orders from random accounts, and a 20% price fall that liquidates half of them.
import {
  Exchange, MatchingEngine, TIF_GTC, isExchangeError, newEventList, submitLimit, type ExchangeTx, type GenesisBalance, type LimitSpec, type TxContext,
} from '../exchange/index.ts';
import { devnetGenesis, loadGenesis } from '../genesis/index.ts';
import { mulberry32 } from '../test/support/exchange.ts';

export const ACCOUNTS = 10_000;
export const ORDERS = Number(process.env.BENCH_CH_ORDERS ?? 100_000);
export const VALIDATOR = 'aa'.repeat(32);
export const MIDS = [1_000_000, 350_000, 1_500_000]; // price units: BTC 100,000.0, ETH 3,500.00, SOL 150.0000

/** Account addresses, built once (as a node keeps the strings of known accounts). */
const ADDRESSES = Array.from({ length: ACCOUNTS }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`);
const address = (i: number) => ADDRESSES[i] as string;

function expectOk(out: ReturnType<Exchange['execute']>): void {
  const r = out.result;
  const statuses = r.status === 'ok' && (r.response.type === 'order' || r.response.type === 'cancel') ? r.response.data.statuses : [];
  if (r.status !== 'ok' || statuses.some((s) => typeof s === 'object' && s !== null && 'error' in s)) {
    throw new Error(`benchmark setup order refused: ${JSON.stringify(r.status === 'ok' ? statuses : r.error)}`);
  }
}

export function setup(withPositions = true): { ex: Exchange } {
  const g = loadGenesis(devnetGenesis(), { localValidator: VALIDATOR });
  const balances: GenesisBalance[] = [...g.balances];
  for (let i = 0; i < ACCOUNTS; i++) balances.push({ address: address(i), usdc: 100_000n * 10n ** 8n, tokens: [] });
  const ex = Exchange.fromGenesis(g.exchange, balances, g.file.genesisTime);
  let time = g.file.genesisTime + 1000;
  let height = 0;
  // Every account opens a position in each perp against its neighbour (longs even, shorts odd):
  // 200,000 of notional per market, 6x its 100,000 USDC, so a 20% move wipes out one side.
  const sizes = ['2', '57', '1333'];
  const prices = ['100000', '3500', '150'];
  for (let i = 0; withPositions && i + 1 < ACCOUNTS; i += 2) {
    ex.beginBlock(++height, (time += 10));
    for (let a = 0; a < 3; a++) {
      const order = (user: string, isBuy: boolean, tif: string) => ({ hash: '0x', signer: user, nonce: time + a, vaultAddress: null, action: { type: 'order', grouping: 'na', orders: [{ a, b: isBuy, p: prices[a], s: sizes[a], r: false, t: { limit: { tif } } }] } });
      expectOk(ex.execute(order(address(i + 1), false, 'Gtc')));
      expectOk(ex.execute(order(address(i), true, 'Ioc')));
    }
    ex.endBlock();
  }
  let positions = 0;
  for (const m of ex.state.perps) positions += m.holders.size;
  if (withPositions && positions !== ACCOUNTS * 3) throw new Error(`setup opened ${positions} positions, not ${ACCOUNTS * 3}`);
  return { ex };
}

export interface BenchOrder {
  user: string;
  asset: number;
  isBuy: boolean;
  px: number;
  lots: number;
}

/** The bare engines the exchange's placement is compared with: one per perp, no accounts. */
export function bareEngines(): MatchingEngine[] {
  return [0, 1, 2].map((asset) => new MatchingEngine({ pxDecimals: [1, 2, 4][asset]!, tick: 1, minSz: 1, maxOpenPerOwner: 1000, bandBps: 0 }, { nextOid: 1, nextTid: 1, nextSeq: 1 }));
}

/**
 * What a placement run is timed through: `tx`, whole transactions through `Exchange.execute` as a
 * client sends them (signer and agent check, nonce, request budget, wire parsing, result objects);
 * `clearinghouse`, the orders as numbers through `submitLimit` (the account looked up, margin
 * admission, the engine, the reserve, the status event), what the clearinghouse adds to the engine.
 */
export type PlaceLayer = 'tx' | 'clearinghouse';

export interface PlaceRun {
  /** Orders/s of the exchange and of the bare engines over the same chunks. */
  rate: number;
  bareRate: number;
  refused: number;
}

const BLOCK = 100;

/**
 * Places the orders through the exchange, 100 a block, and the same orders through fresh bare
 * engines in a separate timed loop of the same process, with the exchange's chain alive (the heap
 * the same size for both); `bareFirst` picks which runs first (rounds alternate it, as the heap
 * grows by the orders placed). Only execution is timed: each block's wire transactions are built
 * just before it, off the clock, and a full collection runs before each timed loop.
 */
export function place(ex: Exchange, orders: BenchOrder[], layer: PlaceLayer, bareFirst = false): PlaceRun {
  const bareRate = bareFirst ? placeBare(orders) : 0;
  const state = ex.state;
  let time = state.time;
  let height = ex.height;
  (globalThis as { gc?: () => void }).gc?.();
  let elapsed = 0;
  let refused = 0;
  const txs: ExchangeTx[] = [];
  for (let i = 0; i < orders.length; i += BLOCK) {
    time += 1000;
    const last = Math.min(i + BLOCK, orders.length);
    if (layer === 'tx') {
      txs.length = 0;
      for (let k = i; k < last; k++) {
        const o = orders[k]!;
        txs.push({ hash: '0x', signer: o.user, nonce: time + (k - i), vaultAddress: null, action: { type: 'order', grouping: 'na', orders: [{ a: o.asset, b: o.isBuy, p: pxText(o.asset, o.px), s: szText[o.asset], r: false, t: { limit: { tif: 'Gtc' } } }] } });
      }
      const t0 = performance.now();
      ex.beginBlock(++height, time);
      for (const tx of txs) {
        const out = ex.execute(tx);
        const st = out.result.status === 'ok' && out.result.response.type === 'order' ? out.result.response.data.statuses[0] : null;
        if (st === null || (typeof st === 'object' && 'error' in (st as object))) refused++;
      }
      elapsed += performance.now() - t0;
    } else {
      const t0 = performance.now();
      ex.beginBlock(++height, time);
      for (let k = i; k < last; k++) {
        const o = orders[k]!;
        const ctx: TxContext = { state, hash: '0x', time, events: newEventList() }; // one per order, as a transaction has
        const acct = state.accounts.get(o.user)!;
        const spec: LimitSpec = { oid: state.ids.nextOid, isBuy: o.isBuy, px: o.px, sz: o.lots, tif: TIF_GTC, reduceOnly: false, cloid: null };
        if (isExchangeError(submitLimit(ctx, acct, state.perps[o.asset]!, spec))) refused++;
      }
      elapsed += performance.now() - t0;
    }
  }
  return { rate: orders.length / (elapsed / 1000), bareRate: bareFirst ? bareRate : placeBare(orders), refused };
}

/** The orders through fresh bare engines: orders/s. */
function placeBare(orders: BenchOrder[]): number {
  const bare = bareEngines();
  (globalThis as { gc?: () => void }).gc?.();
  const t0 = performance.now();
  for (let k = 0; k < orders.length; k++) {
    const o = orders[k]!;
    bare[o.asset]!.place(k + 1, o.user, o.isBuy, o.px, o.lots, TIF_GTC, false, null, 0);
  }
  return orders.length / ((performance.now() - t0) / 1000);
}

/** The bench's orders: passive, around the mids (no crossing), each from a random account (seeded). */
export function benchOrders(): BenchOrder[] {
  const rnd = mulberry32(42);
  return Array.from({ length: ORDERS }, () => {
    const asset = Math.floor(rnd() * 3);
    const isBuy = rnd() < 0.5;
    const offset = 1 + Math.floor(rnd() * 500);
    const px = (MIDS[asset] as number) + (isBuy ? -offset : offset) * [10, 10, 100][asset]!; // 5 significant figures
    return { user: address(Math.floor(rnd() * ACCOUNTS)), asset, isBuy, px, lots: 10 };
  });
}

/** An order's price and size as a client writes them. */
const pxText = (asset: number, px: number): string => (px / 10 ** [1, 2, 4][asset]!).toFixed([1, 2, 4][asset]!);
const szText = ['0.0001', '0.001', '0.1'];

/** A 20% fall: the oracle moves, the book is cleared so the mark follows, and one block ends. */
export function sweep(ex: Exchange): { ms: number; liquidated: number } {
  let time = ex.state.time;
  ex.beginBlock(ex.height + 1, (time += 1000));
  const prices: Record<string, string> = {};
  ex.state.perps.forEach((m, a) => (prices[m.name] = (Math.floor(((MIDS[a] as number) * 8) / 10) / 10 ** [1, 2, 4][a]!).toFixed([1, 2, 4][a]!)));
  ex.submitOracle({ validator: VALIDATOR, time, prices });
  // The book cleared off the clock (the mark follows the oracle), the orders' reserves released.
  for (const m of ex.state.perps) {
    for (const o of [...m.engine.orders.values()]) {
      const gone = m.engine.cancel(o.owner, o.oid);
      if (gone !== null) ex.state.accounts.get(gone.owner)?.releaseOrder(gone);
    }
  }
  const t0 = performance.now();
  const events = ex.endBlock();
  return { ms: performance.now() - t0, liquidated: events.filter((e) => e.kind === 'liquidation').length };
}
