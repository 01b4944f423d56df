// What `/v4` (history) and `/stats` read, declared here and supplied by the node's indexer.
// Rows are served as stored: prices and sizes as decimal strings, times in ms, `id` unique within
// its set and increasing in chain order (height, then order within the block).

/** Keyset position: rows strictly older than (time, id) come next. */
export interface Cursor {
  readonly time: number;
  readonly id: number;
}

/** Newest first: rows with start <= time <= end, older than `before`, at most `limit`. */
export interface RangeQuery {
  readonly start: number;
  readonly end: number;
  readonly before: Cursor | null;
  readonly limit: number;
}

/** A trade: one taker fill against one maker order. `side` is the taker's. */
export interface TradeRow {
  readonly id: number;
  readonly coin: string;
  readonly time: number;
  readonly height: number;
  readonly tid: number;
  readonly px: string;
  readonly sz: string;
  readonly side: 'B' | 'A';
  readonly hash: string;
  readonly buyer: string;
  readonly seller: string;
  /** True when the trade closed a liquidated position. */
  readonly liquidation: boolean;
}

/** A candle, Hyperliquid's fields; `t` opens it, `T` is its last millisecond. */
export interface CandleRow {
  readonly t: number;
  readonly T: number;
  readonly s: string;
  readonly i: string;
  readonly o: string;
  readonly h: string;
  readonly l: string;
  readonly c: string;
  readonly v: string;
  readonly n: number;
}

/** A funding rate: each hourly interval (`1h`, with what positions paid) and each 8-hour snapshot (`8h`, the sum of its hours). */
export interface FundingRow {
  readonly id: number;
  readonly coin: string;
  readonly interval: '1h' | '8h';
  readonly time: number;
  readonly height: number;
  readonly fundingRate: string;
  readonly premium: string;
  /** USDC the paying side paid in the interval (received by the other side). */
  readonly paid: string;
}

/** One position closed by a liquidation. */
export interface LiquidationRow {
  readonly id: number;
  readonly coin: string;
  readonly time: number;
  readonly height: number;
  readonly user: string;
  /** Signed size liquidated. */
  readonly szi: string;
  readonly leverageType: 'cross' | 'isolated';
  readonly method: string;
  readonly accountValue: string;
  readonly maintenanceMargin: string;
  readonly deficit: string;
}

/** A market's open interest (base units, one side), sampled at most once a minute of block time when it changed. */
export interface OpenInterestRow {
  readonly id: number;
  readonly coin: string;
  readonly time: number;
  readonly height: number;
  readonly openInterest: string;
  readonly markPx: string;
}

export interface BookLevelRow {
  readonly px: string;
  readonly sz: string;
  readonly n: number;
}

/** The book every 5 minutes of block time (the first block at or after each boundary), up to 100 levels a side. */
export interface BookSnapshotRow {
  readonly id: number;
  readonly coin: string;
  readonly time: number;
  readonly height: number;
  readonly bids: readonly BookLevelRow[];
  readonly asks: readonly BookLevelRow[];
}

/** A bridge deposit credited or a withdrawal requested (amount net of the fee) or refunded. */
export interface TransferRow {
  readonly id: number;
  readonly user: string;
  readonly type: 'deposit' | 'withdraw' | 'withdrawRefund';
  readonly time: number;
  readonly height: number;
  readonly usdc: string;
  readonly fee: string;
  readonly chainId: number;
  readonly hash: string;
}

/** One UTC day of the whole exchange. Amounts are USDC decimal strings. */
export interface DailyStatsRow {
  /** Midnight UTC, ms. */
  readonly day: number;
  readonly volume: string;
  readonly trades: number;
  /** Addresses that traded that day. */
  readonly users: number;
  /** Addresses that traded for the first time that day. */
  readonly newUsers: number;
  readonly deposits: string;
  readonly withdrawals: string;
}

/** One UTC day of one market. */
export interface CoinDailyRow {
  readonly day: number;
  readonly coin: string;
  readonly volume: string;
  readonly trades: number;
  /** Open interest (base units) and mark price at the day's last indexed block. */
  readonly openInterest: string;
  readonly markPx: string;
  /** Sum of the day's hourly funding rates. */
  readonly fundingSum: string;
}

export interface StatsTotals {
  /** Addresses that ever traded or deposited. */
  readonly users: number;
  readonly volume: string;
  readonly deposits: string;
  readonly withdrawals: string;
}

export interface HistoryReader {
  /** The last block the history holds. */
  indexedHeight(): Promise<number>;
  trades(coin: string, q: RangeQuery): Promise<TradeRow[]>;
  /**
   * Newest first: candles opening in [start, end], opening before `before.time`. Each is a line
   * `t,o,h,l,c,v,n` (open time, prices, base volume, trade count): a month of 1-minute candles
   * is 43,200 of them, served as the store holds them.
   */
  candles(coin: string, interval: string, q: RangeQuery): Promise<string[]>;
  funding(coin: string, interval: '1h' | '8h', q: RangeQuery): Promise<FundingRow[]>;
  /** `coin` null: every market. */
  liquidations(coin: string | null, q: RangeQuery): Promise<LiquidationRow[]>;
  openInterest(coin: string, q: RangeQuery): Promise<OpenInterestRow[]>;
  bookSnapshots(coin: string, q: RangeQuery): Promise<BookSnapshotRow[]>;
  /** `user` null: everyone's. */
  transfers(type: 'deposit' | 'withdraw', user: string | null, q: RangeQuery): Promise<TransferRow[]>;
  /** Days with start <= day <= end, oldest first. */
  dailyStats(start: number, end: number): Promise<DailyStatsRow[]>;
  coinDailyStats(start: number, end: number): Promise<CoinDailyRow[]>;
  totals(): Promise<StatsTotals>;
  /** Each market's USD volume and trade count with time >= since (hourly buckets: the hour holding `since` counts whole). */
  volumeSince(since: number): Promise<Map<string, { volume: string; trades: number }>>;
}
