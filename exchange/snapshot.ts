// Full-state snapshots: a canonical JSON form of ExchangeState (same state, same bytes) and its
// inverse. Books are written level by level from the best price, each level in queue order, so a
// restored book keeps price-time priority exactly.
import { canonicalize, keccak256, bytesToHex, utf8, type Address, type Json } from '../primitives/index.ts';
import { Account } from './account.ts';
import type { Tif } from './actions.ts';
import type { RestingOrder } from './book.ts';
import type { ExchangeConfig } from './config.ts';
import { Exchange } from './exchange.ts';
import { ExchangeState } from './state.ts';

type OrderRow = [oid: number, user: string, px: number, sz: number, origSz: number, reduceOnly: boolean, tif: string, cloid: string | null, timestamp: number, reserved: string];

interface Snapshot {
  version: 1;
  height: number;
  time: number;
  nextOid: number;
  nextTid: number;
  accounts: [address: string, usdc: string, positions: [number, number, string][], leverage: [number, number][]][];
  markets: { lastPx: number; bids: OrderRow[]; asks: OrderRow[] }[];
  nonces: [string, number[]][];
  agents: [string, string][];
}

const byKey = <T>(a: [string, T], b: [string, T]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

export function snapshotState(state: ExchangeState): Json {
  const row = (o: RestingOrder): OrderRow => [
    o.oid, o.user, o.px, o.sz, o.origSz, o.reduceOnly, o.tif, o.cloid, o.timestamp,
    (state.accounts.get(o.user)?.reserved.get(o.oid) ?? 0n).toString(),
  ];
  const side = (levels: Iterable<{ head: RestingOrder | null }>) => {
    const rows: OrderRow[] = [];
    for (const level of levels) for (let o = level.head; o !== null; o = o.next) rows.push(row(o));
    return rows;
  };
  const snap: Snapshot = {
    version: 1,
    height: state.height,
    time: state.time,
    nextOid: state.nextOid,
    nextTid: state.nextTid,
    accounts: [...state.accounts.values()]
      .map((a): Snapshot['accounts'][number] => [
        a.address,
        a.usdc.toString(),
        [...a.positions.entries()].sort(([x], [y]) => x - y).map(([asset, p]) => [asset, p.szi, p.entryNtl.toString()]),
        [...a.leverage.entries()].sort(([x], [y]) => x - y),
      ])
      .sort((a, b) => byKey([a[0], 0], [b[0], 0])),
    markets: state.markets.map((m) => ({ lastPx: m.lastPx, bids: side(m.book.bids.iterate()), asks: side(m.book.asks.iterate()) })),
    nonces: [...state.nonces.entries()].map(([k, v]): [string, number[]] => [k, [...v].sort((x, y) => x - y)]).sort(byKey),
    agents: [...state.agents.entries()].sort(byKey),
  };
  return snap as unknown as Json;
}

export function restoreExchange(config: ExchangeConfig, json: unknown): Exchange {
  const snap = json as Snapshot;
  if (snap.version !== 1) throw new Error(`unsupported snapshot version ${String(snap.version)}`);
  const state = new ExchangeState(config);
  state.height = snap.height;
  state.time = snap.time;
  state.nextOid = snap.nextOid;
  state.nextTid = snap.nextTid;
  for (const [address, usdc, positions, leverage] of snap.accounts) {
    const acct = new Account(address, BigInt(usdc));
    for (const [asset, szi, entryNtl] of positions) acct.positions.set(asset, { szi, entryNtl: BigInt(entryNtl) });
    for (const [asset, lev] of leverage) acct.leverage.set(asset, lev);
    state.accounts.set(address, acct);
  }
  snap.markets.forEach((ms, asset) => {
    const m = state.markets[asset];
    if (m === undefined) throw new Error(`snapshot has market ${asset} that the config lacks`);
    m.lastPx = ms.lastPx;
    for (const [isBuy, rows] of [[true, ms.bids], [false, ms.asks]] as const) {
      for (const [oid, user, px, sz, origSz, reduceOnly, tif, cloid, timestamp, reserved] of rows) {
        const order: RestingOrder = { oid, user: user as Address, asset, isBuy, px, sz, origSz, reduceOnly, tif: tif as Tif, cloid, timestamp, prev: null, next: null };
        m.book.add(order);
        state.orders.set(oid, order);
        state.accounts.get(user)?.trackOrder(order, BigInt(reserved));
      }
    }
  });
  for (const [signer, nonces] of snap.nonces) state.nonces.set(signer, new Set(nonces));
  for (const [agent, user] of snap.agents) state.agents.set(agent, user);
  return new Exchange(state);
}

/** keccak256 of the canonical snapshot: equal states, equal hashes, on every machine. */
export function stateHash(state: ExchangeState): string {
  return bytesToHex(keccak256(utf8(canonicalize(snapshotState(state)))));
}
