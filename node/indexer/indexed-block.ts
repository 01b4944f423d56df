// A committed block as the indexer takes it: the facts it records, compact (a trade is one
// tuple), plus what needs the state right after the block (open interest each minute, the books
// each 5 minutes, the decimals of the markets traded). Built on the commit path, so it does as
// little as it can: one pass over the events; the writer does the rest.
import { formatScaled } from '../../primitives/index.ts';
import { views, type ExchangeEvent, type ExchangeState, type FundingRateRecord, type LedgerRecord, type LiquidationRecord } from '../../exchange/index.ts';
import type { BookLevelRow } from '../../rpc/index.ts';

/** Open interest is sampled at the first block of each minute, books at the first of each 5 minutes. */
export const OI_SAMPLE_MS = 60_000;
export const BOOK_SNAPSHOT_MS = 300_000;
/** Levels a side in a book snapshot. */
export const BOOK_SNAPSHOT_DEPTH = 100;

/**
 * A trade: coin, px, sz, taker side, time, tid, then the hash, buyer and seller as indices into
 * the block's `strings` (a sweep repeats its hash and taker on every trade), liquidation (1) or
 * not (0).
 */
export type TradeTuple = [string, string, string, 'B' | 'A', number, number, number, number, number, 0 | 1];

export interface IndexedBlock {
  readonly height: number;
  readonly time: number;
  /** Time of the block before it (the genesis time for the first). */
  readonly prevTime: number;
  readonly trades: readonly TradeTuple[];
  /** Hashes and addresses the trades name, each once. */
  readonly strings: readonly string[];
  readonly fundingRates: readonly FundingRateRecord[];
  /** USDC the paying positions paid, per coin (the hour's payments, summed). */
  readonly fundingPaid: readonly (readonly [string, string])[];
  readonly liquidations: readonly LiquidationRecord[];
  readonly ledger: readonly { readonly user: string; readonly ledger: LedgerRecord }[];
  readonly openInterest: readonly { readonly coin: string; readonly openInterest: string; readonly markPx: string }[];
  readonly books: readonly { readonly coin: string; readonly bids: readonly BookLevelRow[]; readonly asks: readonly BookLevelRow[] }[];
  /** Price and size decimals of the markets traded in the block. */
  readonly markets: readonly (readonly [string, number, number])[];
}

export type StateSamples = Pick<IndexedBlock, 'openInterest' | 'books' | 'markets'>;

/** The block's facts from its events; `samples` from the state after it. */
export function indexedBlock(height: number, time: number, prevTime: number, events: readonly ExchangeEvent[], samples: StateSamples): IndexedBlock {
  const trades: TradeTuple[] = [];
  const strings: string[] = [];
  const index = new Map<string, number>();
  const ref = (text: string): number => {
    let i = index.get(text);
    if (i === undefined) {
      i = strings.push(text) - 1;
      index.set(text, i);
    }
    return i;
  };
  const fundingRates: FundingRateRecord[] = [];
  const liquidations: LiquidationRecord[] = [];
  const ledger: { user: string; ledger: LedgerRecord }[] = [];
  let paid: Map<string, string[]> | null = null;
  // A trade's maker fill comes right before its taker fill (the same tid).
  let makerTid = -1;
  let maker = '';
  for (const e of events) {
    switch (e.kind) {
      case 'fill': {
        const f = e.fill;
        if (!f.crossed) {
          makerTid = f.tid;
          maker = e.user;
          break;
        }
        const other = makerTid === f.tid ? maker : '';
        const buy = f.side === 'B';
        trades.push([f.coin, f.px, f.sz, f.side, f.time, f.tid, ref(f.hash), ref(buy ? e.user : other), ref(buy ? other : e.user), f.liquidation === undefined ? 0 : 1]);
        break;
      }
      case 'funding':
        if (e.funding.usdc.startsWith('-')) {
          paid ??= new Map();
          const list = paid.get(e.funding.coin);
          if (list === undefined) paid.set(e.funding.coin, [e.funding.usdc.slice(1)]);
          else list.push(e.funding.usdc.slice(1));
        }
        break;
      case 'fundingRate':
        fundingRates.push(e.rate);
        break;
      case 'liquidation':
        liquidations.push(e.liquidation);
        break;
      case 'ledger':
        ledger.push({ user: e.user, ledger: e.ledger });
        break;
      default:
        break;
    }
  }
  // Payments are summed by the writer (exact decimal sums); here they travel as lists joined by '+'.
  const fundingPaid = paid === null ? [] : [...paid].map(([coin, list]) => [coin, list.join('+')] as const);
  return { height, time, prevTime, trades, strings, fundingRates, fundingPaid, liquidations, ledger, ...samples };
}

/** What needs the state right after the block: decimals of the traded markets, open interest and books when due. */
export function sampleState(state: ExchangeState, height: number, time: number, prevTime: number, events: readonly ExchangeEvent[]): StateSamples {
  const openInterest: { coin: string; openInterest: string; markPx: string }[] = [];
  if (height === 1 || Math.floor(time / OI_SAMPLE_MS) !== Math.floor(prevTime / OI_SAMPLE_MS)) {
    for (const m of state.perps) {
      let oi = 0;
      for (const pos of m.holders.positions()) if (pos.szi > 0) oi += pos.szi;
      openInterest.push({ coin: m.name, openInterest: formatScaled(oi, m.szDecimals), markPx: formatScaled(state.markPx(m), m.pxDecimals) });
    }
  }
  const books: { coin: string; bids: BookLevelRow[]; asks: BookLevelRow[] }[] = [];
  if (height === 1 || Math.floor(time / BOOK_SNAPSHOT_MS) !== Math.floor(prevTime / BOOK_SNAPSHOT_MS)) {
    for (const m of state.markets) books.push({ coin: m.name, bids: views.bookLevels(m, true, BOOK_SNAPSHOT_DEPTH), asks: views.bookLevels(m, false, BOOK_SNAPSHOT_DEPTH) });
  }
  const markets: [string, number, number][] = [];
  let last = '';
  for (const e of events) {
    if (e.kind !== 'fill' || e.fill.coin === last) continue;
    last = e.fill.coin;
    if (markets.some((x) => x[0] === last)) continue;
    const m = state.marketsByName.get(last);
    if (m !== undefined) markets.push([m.name, m.pxDecimals, m.szDecimals]);
  }
  return { openInterest, books, markets };
}

/** Both: the block as the node hands it to the indexer. */
export function sampleBlock(state: ExchangeState, height: number, time: number, prevTime: number, events: readonly ExchangeEvent[]): IndexedBlock {
  return indexedBlock(height, time, prevTime, events, sampleState(state, height, time, prevTime, events));
}
