// Trades as the embedded history store keeps them: up to PACK_ROWS of one market and one block in
// one entry, keyed by the first one's time and id, instead of one entry a trade. A busy block has
// thousands of trades: an entry each cost the history thread a JSON object's text, a key and a
// LevelDB insert, and LevelDB a memtable node and its share of every compaction (about 40 µs of
// node CPU a 20-order action in the batch mix, docs/performance.md, session 35). The value is JSON:
//   [1, time, height, firstId, strings, rows]
// where `strings` holds the hashes and addresses the rows name, each once, and a row is
//   [id - firstId, tid, px, sz, side, hash, buyer, seller, liquidation (0 or 1)]
// with hash, buyer and seller as indices into `strings`. Rows ascend by id. Entries written
// before the packing (one TradeRow object each) still read: the reader dispatches on the shape.
import type { TradeRow } from '../../rpc/index.ts';

/** Rows an entry holds at most: a page of recent trades parses at most this many extra. */
export const PACK_ROWS = 64;
const PACKED = 1;

type PackedRow = [number, number, string, string, 'B' | 'A', number, number, number, 0 | 1];
type Packed = [typeof PACKED, number, number, number, string[], PackedRow[]];

/** One entry: the first row's time and id (its key) and its value's JSON text. */
export interface PackedTrades {
  readonly coin: string;
  readonly time: number;
  readonly firstId: number;
  readonly text: string;
}

class Group {
  readonly strings: string[] = [];
  private readonly index = new Map<string, number>();
  readonly rows: PackedRow[] = [];

  constructor(
    readonly coin: string,
    readonly time: number,
    readonly height: number,
    readonly firstId: number,
  ) {}

  add(t: TradeRow): void {
    this.rows.push([t.id - this.firstId, t.tid, t.px, t.sz, t.side, this.ref(t.hash), this.ref(t.buyer), this.ref(t.seller), t.liquidation ? 1 : 0]);
  }

  packed(): PackedTrades {
    const value: Packed = [PACKED, this.time, this.height, this.firstId, this.strings, this.rows];
    return { coin: this.coin, time: this.time, firstId: this.firstId, text: JSON.stringify(value) };
  }

  private ref(s: string): number {
    let i = this.index.get(s);
    if (i === undefined) {
      i = this.strings.push(s) - 1;
      this.index.set(s, i);
    }
    return i;
  }
}

/**
 * Groups trades (in id order, as the indexer makes them) into entries: one market, one block and
 * one time each, at most PACK_ROWS rows. A market's entries of one time cover disjoint, ascending id
 * ranges, so key order is (time, id) order.
 */
export function packTrades(trades: readonly TradeRow[]): PackedTrades[] {
  const out: PackedTrades[] = [];
  const open = new Map<string, Group>();
  let height = -1;
  for (const t of trades) {
    if (t.height !== height) {
      for (const g of open.values()) out.push(g.packed());
      open.clear();
      height = t.height;
    }
    let g = open.get(t.coin);
    if (g !== undefined && (g.rows.length >= PACK_ROWS || g.time !== t.time)) {
      out.push(g.packed());
      g = undefined;
    }
    if (g === undefined) open.set(t.coin, (g = new Group(t.coin, t.time, t.height, t.id)));
    g.add(t);
  }
  for (const g of open.values()) out.push(g.packed());
  return out;
}

/** An entry's trades, ascending by id: a packed entry's rows, or the one row an older entry is. */
export function unpackTrades(coin: string, value: unknown): TradeRow[] {
  if (!Array.isArray(value)) return [value as TradeRow];
  const [tag, time, height, firstId, strings, rows] = value as Packed;
  if (tag !== PACKED) throw new Error(`history store: unknown trade entry version ${String(tag)}`);
  return rows.map(([d, tid, px, sz, side, h, b, s, liq]) => ({
    id: firstId + d, coin, time, height, tid, px, sz, side,
    hash: strings[h] as string, buyer: strings[b] as string, seller: strings[s] as string, liquidation: liq === 1,
  }));
}
