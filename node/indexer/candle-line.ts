// A candle as the history stores and serves it in bulk: one line `t,o,h,l,c,v,n` (open time,
// open, high, low, close, base volume, trade count), so a month of 1-minute candles is 43,200
// strings rather than 43,200 objects.
import type { CandleRow } from '../../rpc/index.ts';
import { CANDLE_INTERVALS } from '../candles.ts';

/** Candle lines per stored bucket (one interval's consecutive slots), in both stores. */
export const CANDLE_BUCKET_SLOTS = 256;

/** A candle's line: `t,o,h,l,c,v,n`. */
export function candleLine(c: CandleRow): string {
  return `${c.t},${c.o},${c.h},${c.l},${c.c},${c.v},${c.n}`;
}

/** The open time of a candle line. */
export function lineTime(line: string): number {
  return Number(line.slice(0, line.indexOf(',')));
}

/** A candle line as Hyperliquid's candle. */
export function candleOfLine(line: string, coin: string, interval: string): CandleRow {
  const [t, o, h, l, c, v, n] = line.split(',') as [string, string, string, string, string, string, string];
  const open = Number(t);
  return { t: open, T: open + (CANDLE_INTERVALS[interval] as number) - 1, s: coin, i: interval, o, h, l, c, v, n: Number(n) };
}

/**
 * Appends to `out`, newest first, the lines of `bucket` (oldest first) opening in [start, top],
 * until `out` holds `limit`. True when the walk is over: the limit is reached or a line opens
 * before `start` (older buckets hold only older lines).
 */
export function takeCandleLines(bucket: string, start: number, top: number, limit: number, out: string[]): boolean {
  const lines = bucket.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i] as string;
    const t = lineTime(line);
    if (t > top) continue;
    if (t < start) return true;
    out.push(line);
    if (out.length >= limit) return true;
  }
  return false;
}
