// Hyperliquid's l2Book aggregation: `nSigFigs` (2..5) rounds each price to that many significant
// figures (with `mantissa` 1, 2 or 5 at 5 figures: the last figure a multiple of it), bids down
// and asks up, merging the orders that land on one price; 20 levels a side after merging.
import { formatScaled, parseScaled } from '../../primitives/index.ts';

export interface Level {
  readonly px: string;
  readonly sz: string;
  readonly n: number;
}

/** Decimals at which sizes and prices are added exactly (prices and sizes carry at most 8). */
const SCALE = 8;

/** The bucket of `px` (SCALE units): its width from the price's magnitude, rounded down or up. */
function bucket(px: bigint, nSigFigs: number, mantissa: number, up: boolean): bigint {
  const digits = px.toString().length;
  let step = 10n ** BigInt(Math.max(0, digits - nSigFigs)) * BigInt(mantissa);
  if (step === 0n) step = 1n;
  const down = (px / step) * step;
  return up && down !== px ? down + step : down;
}

/** Aggregates one side (best first) into at most `depth` levels. */
export function aggregateSide(levels: readonly Level[], isBid: boolean, nSigFigs: number, mantissa: number, depth: number): Level[] {
  const out: { px: bigint; sz: bigint; n: number }[] = [];
  for (const l of levels) {
    const px = parseScaled(l.px, SCALE);
    const sz = parseScaled(l.sz, SCALE);
    if (px === null || sz === null) continue;
    const b = bucket(px, nSigFigs, mantissa, !isBid);
    const last = out[out.length - 1];
    if (last !== undefined && last.px === b) {
      last.sz += sz;
      last.n += l.n;
    } else {
      if (out.length === depth) break;
      out.push({ px: b, sz, n: l.n });
    }
  }
  return out.map((l) => ({ px: formatScaled(l.px, SCALE), sz: formatScaled(l.sz, SCALE), n: l.n }));
}
