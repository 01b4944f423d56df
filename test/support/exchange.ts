// Drives the exchange state machine directly, block by block, with already-authenticated txs.
import { Exchange, type BookOrder, type ExchangeTx, type TxOutcome } from '../../exchange/index.ts';
import type { Address } from '../../primitives/index.ts';
import { DEVNET_BACKSTOP, devnetGenesis, loadGenesis, type GenesisFile } from '../../genesis/index.ts';

export const USERS = loadGenesis(devnetGenesis()).balances.map((b) => b.address).filter((a) => a !== DEVNET_BACKSTOP);
/** The single validator of harness chains (a public key only: oracle prices skip the node's signature check). */
export const VALIDATOR = 'aa'.repeat(32);

export class Harness {
  readonly ex: Exchange;
  private nonce = 0;
  private height = 0;
  time: number;

  constructor(genesis: GenesisFile = devnetGenesis(), localValidator = VALIDATOR) {
    const g = loadGenesis(genesis, { localValidator });
    this.time = g.file.genesisTime + 1000;
    this.ex = Exchange.fromGenesis(g.exchange, g.balances, g.file.genesisTime);
  }

  /** Executes one transaction in its own block, one millisecond after the previous. */
  tx(signer: string, action: unknown, vaultAddress: string | null = null): TxOutcome {
    this.height += 1;
    this.time += 1;
    this.ex.beginBlock(this.height, this.time);
    const tx: ExchangeTx = { hash: `0x${this.height.toString(16).padStart(64, '0')}`, signer, nonce: this.time, vaultAddress, action };
    this.nonce += 1;
    return this.ex.execute(tx);
  }

  /** Statuses of an order action. */
  order(signer: string, ...orders: unknown[]): unknown[] {
    return statuses(this.tx(signer, { type: 'order', orders, grouping: 'na' }));
  }

  grouped(signer: string, grouping: string, ...orders: unknown[]): unknown[] {
    return statuses(this.tx(signer, { type: 'order', orders, grouping }));
  }

  cancel(signer: string, asset: number, oid: number): unknown {
    return statuses(this.tx(signer, { type: 'cancel', cancels: [{ a: asset, o: oid }] }))[0];
  }

  /** Ends the current block (trigger orders fire) and returns its events. */
  endBlock() {
    return this.ex.endBlock();
  }

  /** A block `ms` later with the validator's oracle prices (coin -> price), then its end. */
  oracle(prices: Record<string, string>, ms = 1) {
    this.height += 1;
    this.time += ms;
    this.ex.beginBlock(this.height, this.time);
    const result = this.ex.submitOracle({ validator: VALIDATOR, time: this.time, prices });
    return { result, events: this.ex.endBlock() };
  }

  /** A block with one validator's bridge attestations and withdrawal signatures (the node's signature check skipped). */
  bridge(claims: unknown[], signatures: unknown[] = [], validator = VALIDATOR) {
    this.height += 1;
    this.time += 1;
    this.ex.beginBlock(this.height, this.time);
    const out = this.ex.submitBridge({ validator, time: this.time, claims, signatures });
    return { ...out, events: this.ex.endBlock() };
  }

  /** An empty block `ms` later, and its end-of-block events. */
  idle(ms: number) {
    this.height += 1;
    this.time += ms;
    this.ex.beginBlock(this.height, this.time);
    return this.ex.endBlock();
  }

  /** A resting order in any market, by oid. */
  resting(oid: number) {
    for (const m of this.ex.state.markets) {
      const o = m.engine.orders.get(oid);
      if (o !== undefined) return o;
    }
    return undefined;
  }

  /** How many orders rest in all books. */
  restingCount(): number {
    let n = 0;
    for (const m of this.ex.state.markets) n += m.engine.orders.size;
    return n;
  }
}

export function statuses(out: TxOutcome): unknown[] {
  if (out.result.status !== 'ok') throw new Error(`action failed: ${out.result.error.message}`);
  const r = out.result.response;
  if (r.type !== 'order' && r.type !== 'cancel') throw new Error(`no statuses in a ${r.type} response`);
  return r.data.statuses;
}

export function trig(a: number, b: boolean, p: string, s: string, triggerPx: string, tpsl: 'tp' | 'sl', isMarket = true, r = true) {
  return { a, b, p, s, r, t: { trigger: { isMarket, triggerPx, tpsl } } };
}

export function lim(a: number, b: boolean, p: string, s: string, tif = 'Gtc', r = false, c?: string) {
  return { a, b, p, s, r, t: { limit: { tif } }, ...(c === undefined ? {} : { c }) };
}

/** mulberry32: a small seeded PRNG for replayable streams. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** The book and account invariants that must hold after every transaction; null when they do. */
export function bookInvariants(ex: Exchange): string | null {
  const s = ex.state;
  for (const m of s.markets) {
    const bid = m.engine.bids.bestPx();
    const ask = m.engine.asks.bestPx();
    if (bid !== undefined && ask !== undefined && bid >= ask) return `${m.name} book crossed: ${bid} >= ${ask}`;
    let count = 0;
    for (const side of [m.engine.bids, m.engine.asks]) {
      for (const level of side.iterate()) {
        let sz = 0;
        let n = 0;
        let seq = -Infinity;
        for (let o = level.head; o !== null; o = o.next) {
          sz += o.sz;
          n += 1;
          if (o.px !== level.px || m.engine.orders.get(o.oid) !== o) return `order ${o.oid} misplaced`;
          if (o.sz <= 0 || o.sz > o.origSz) return `order ${o.oid} size ${o.sz} of ${o.origSz}`;
          if (o.seq <= seq) return `level ${level.px} out of queue order at ${o.oid}`;
          seq = o.seq;
        }
        if (sz !== level.sz || n !== level.n) return `level ${level.px} totals ${level.sz}/${level.n} != ${sz}/${n}`;
        count += n;
      }
    }
    if (count !== m.engine.orders.size) return `${m.name}: ${m.engine.orders.size} orders indexed, ${count} in levels`;
    const byOwner = new Map<string, number>();
    for (const o of m.engine.orders.values()) byOwner.set(o.owner, (byOwner.get(o.owner) ?? 0) + 1);
    for (const [owner, n] of byOwner) {
      const listed = [...m.engine.ownerOrders(owner)];
      if (listed.length !== n || m.engine.openCount(owner) !== n) return `${m.name}: ${owner} has ${n} orders, its list ${listed.length}, its count ${m.engine.openCount(owner)}`;
      // The list is in queue order, newest first, linked both ways, with its closing totals.
      const list = m.engine.ownerList(owner as Address);
      if (list === undefined || list.tail !== listed[n - 1] || list.head !== listed[0]) return `${m.name}: ${owner}'s list ends are wrong`;
      for (let i = 0; i < n; i++) {
        const o = listed[i] as BookOrder;
        if (o.ownerPrev !== (listed[i - 1] ?? null) || o.ownerList !== list) return `${m.name}: ${owner}'s list links wrong at ${o.oid}`;
        if (i > 0 && o.seq >= (listed[i - 1] as BookOrder).seq) return `${m.name}: ${owner}'s list out of queue order at ${o.oid}`;
      }
      for (const isBuy of [true, false]) {
        const closing = listed.filter((o) => o.isBuy === isBuy).reduce((t, o) => t + o.closing, 0);
        if ((isBuy ? list.buyClosing : list.sellClosing) !== closing) return `${m.name}: ${owner} ${isBuy ? 'buy' : 'sell'} closing total ${isBuy ? list.buyClosing : list.sellClosing} != ${closing}`;
      }
      for (const isBuy of [true, false]) {
        const lots = listed.filter((o) => o.isBuy === isBuy).reduce((t, o) => t + o.sz, 0);
        const ro = listed.filter((o) => o.isBuy === isBuy && o.reduceOnly).reduce((t, o) => t + o.sz, 0);
        if (m.engine.ownerLots(owner, isBuy) !== lots || m.engine.ownerReduceOnlyLots(owner, isBuy) !== ro) {
          return `${m.name}: ${owner} ${isBuy ? 'buy' : 'sell'} lots ${m.engine.ownerLots(owner, isBuy)}/${m.engine.ownerReduceOnlyLots(owner, isBuy)} != ${lots}/${ro}`;
        }
      }
    }
    if (m.kind === 'perp') {
      let net = 0;
      for (const a of s.accounts.values()) net += a.positions.get(m.asset)?.szi ?? 0;
      if (net !== 0) return `${m.name} positions do not net to zero: ${net}`;
    }
  }
  for (const a of s.accounts.values()) {
    let margin = 0n;
    for (const m of s.perps) for (let o = m.engine.ownerHead(a.address); o !== null; o = o.ownerNext) margin += o.margin;
    if (margin !== a.orderMargin) return `${a.address} order margin ${a.orderMargin} != ${margin}`;
    // Each resting perp order reserves the initial margin of the lots the position's closing
    // capacity does not cover, shared out reduce-only orders first, then in queue order.
    for (const m of s.perps) {
      const lev = BigInt(s.leverage(a, m));
      const szi = a.positions.get(m.asset)?.szi ?? 0;
      for (const isBuy of [true, false]) {
        const orders = [...m.engine.ownerOrders(a.address)].filter((o) => o.isBuy === isBuy).sort((x, y) => x.seq - y.seq);
        let capacity = szi !== 0 && szi > 0 !== isBuy ? Math.abs(szi) : 0;
        for (const o of orders) if (o.reduceOnly) capacity -= o.sz;
        for (const o of orders) {
          let want = 0n;
          if (!o.reduceOnly) {
            const closing = Math.min(o.sz, Math.max(0, capacity));
            capacity -= closing;
            const ntl = s.notional(m, o.px, o.sz - closing);
            want = (ntl + lev - 1n) / lev;
            if (o.closing !== closing) return `${a.address} order ${o.oid} closes ${o.closing} lots, not ${closing}`;
          }
          if (o.margin !== want) return `${a.address} order ${o.oid} reserves ${o.margin}, not ${want}`;
          if (o.marginUnits !== (o.margin >= 0n && o.margin <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(o.margin) : -1)) return `order ${o.oid}: marginUnits ${o.marginUnits} for ${o.margin}`;
        }
      }
    }
    // The margin screen's doubles: Number() of the exact fields, positions in the map's order.
    const screen = [Number(a.usdc), Number(a.orderMargin), Number(a.held.get(10000) ?? 0n), ...[...a.positions.values()].flatMap((p) => [p.asset, p.szi, Number(p.entryNtl)])];
    if (screen.length !== a.screen.length || screen.some((v, i) => v !== a.screen[i])) return `${a.address} screen ${a.screen.join(',')} != ${screen.join(',')}`;
    for (const oid of a.holds.keys()) {
      const m = s.markets.find((mk) => mk.engine.orders.has(oid));
      if (m === undefined || m.engine.orders.get(oid)?.owner !== a.address) return `${a.address} reserves for order ${oid} that does not rest`;
    }
    for (const [token, held] of a.held) if (held < 0n) return `${a.address} holds ${held} of ${token}`;
  }
  return null;
}

/**
 * USDC accounting identity: account balances, fees collected, funding dust, plus short
 * minus long cost bases (with positions netting to zero, that is balances plus unrealized PnL).
 * Constant from genesis on, whatever trades, funding and liquidations happen.
 */
/**
 * Perp PnL is zero-sum: realized PnL (net of fees and funding) plus unrealized PnL at the marks,
 * over all accounts, plus the perp fees and funding dust the exchange kept, is 0 to the unit.
 */
export function pnlImbalance(state: Exchange['state']): bigint {
  let total = state.feesCollected + state.fundingDust;
  for (const a of state.accounts.values()) {
    total += a.perpRealized - a.spotFees;
    for (const [asset, p] of a.positions) {
      const m = state.perps[asset]!;
      const ntl = state.notional(m, state.markPx(m), Math.abs(p.szi));
      total += p.szi > 0 ? ntl - p.entryNtl : p.entryNtl - ntl;
    }
  }
  return total;
}

export function usdcTotal(state: Exchange['state']): bigint {
  // Deposits came in, completed withdrawals went out; what the bridge owes is still counted.
  let total = state.feesCollected + state.fundingDust + state.bridgeFees + state.deployFees - state.bridge.deposited + state.bridge.paidOut;
  for (const w of state.bridge.withdrawals.values()) if (w.status === 'pending' || w.status === 'signed') total += w.amount;
  for (const a of state.accounts.values()) {
    total += a.usdc;
    for (const p of a.positions.values()) total += p.margin + (p.szi < 0 ? p.entryNtl : -p.entryNtl);
  }
  return total;
}
