// The history store's contract: what the indexer writes and what `/v4` and `/stats` read. Two
// implementations answer every query the same way: the embedded level store (default) and
// PostgreSQL (`--indexer-db postgres://...`).
import type {
  BookSnapshotRow, CandleRow, CoinDailyRow, DailyStatsRow, FundingRow, HistoryReader, LiquidationRow, OpenInterestRow, StatsTotals,
  TradeRow, TransferRow,
} from '../../rpc/index.ts';

/** A market's trading in one UTC hour (the rolling 24-hour figures sum these). */
export interface CoinHourRow {
  readonly hour: number;
  readonly coin: string;
  readonly volume: string;
  readonly trades: number;
}

/**
 * Everything derived from a run of consecutive blocks, written atomically with the new
 * watermark: after a crash the store is at some batch's end, never inside one.
 */
export interface HistoryBatch {
  /** The last block the batch covers; the store's watermark after it. */
  readonly height: number;
  readonly trades: readonly TradeRow[];
  /** Candles created or changed (whole values; a candle is keyed by coin, interval and open time). */
  readonly candles: readonly CandleRow[];
  readonly funding: readonly FundingRow[];
  readonly liquidations: readonly LiquidationRow[];
  readonly openInterest: readonly OpenInterestRow[];
  readonly books: readonly BookSnapshotRow[];
  readonly transfers: readonly TransferRow[];
  /** Aggregates created or changed (whole values, keyed by day, by day and coin, by hour and coin). */
  readonly daily: readonly DailyStatsRow[];
  readonly coinDaily: readonly CoinDailyRow[];
  readonly coinHourly: readonly CoinHourRow[];
  /** Addresses seen for the first time, and addresses seen on a day for the first time that day. */
  readonly newUsers: readonly { readonly user: string; readonly day: number }[];
  readonly dayUsers: readonly { readonly user: string; readonly day: number }[];
  readonly totals: StatsTotals;
}

export interface HistoryStore extends HistoryReader {
  open(): Promise<void>;
  close(): Promise<void>;
  /** Writes a batch and moves the watermark to its height, atomically. */
  write(batch: HistoryBatch): Promise<void>;
  /** Deletes book snapshots older than `books` and open-interest samples older than `openInterest` (ms). */
  prune(cutoff: { readonly books: number; readonly openInterest: number }): Promise<void>;
  /** Which of these addresses the store has seen before (ever). */
  knownUsers(users: readonly string[]): Promise<Set<string>>;
  /** Addresses seen on `day`. */
  usersOfDay(day: number): Promise<string[]>;
  /** The last candle of a coin and interval, to continue it. */
  lastCandle(coin: string, interval: string): Promise<CandleRow | null>;
  /** The hourly row of a coin and hour, to continue it. */
  coinHour(coin: string, hour: number): Promise<CoinHourRow | null>;
  /** Whether this process may write (PostgreSQL: one writer per database; others only read). */
  readonly writable: boolean;
}
