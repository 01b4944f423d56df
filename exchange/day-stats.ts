// Rolling 24-hour market statistics kept in state (deterministic, from block times): traded
// notional per hour and the mark at each hour's start, for `metaAndAssetCtxs`.
import type { PerpMarket } from './markets.ts';
import type { ExchangeState } from './state.ts';

const HOUR = 3_600_000;

/** Moves the ring forward to the block's hour, clearing the hours that passed. */
export function advanceHours(state: ExchangeState): void {
  const hour = Math.floor(state.time / HOUR);
  for (const m of state.perps) {
    if (m.hour === hour) continue;
    const steps = Math.min(24, hour - m.hour);
    for (let i = 1; i <= steps; i++) {
      const slot = (hour - steps + i) % 24;
      m.hourlyVolume[slot] = 0n;
      m.hourlyMark[slot] = 0;
    }
    m.hourlyMark[hour % 24] = state.markPx(m);
    m.hour = hour;
  }
}

export function addVolume(m: PerpMarket, ntl: bigint): void {
  const slot = m.hour % 24;
  m.hourlyVolume[slot] = (m.hourlyVolume[slot] as bigint) + ntl;
}

export function dayVolume(m: PerpMarket): bigint {
  return m.hourlyVolume.reduce((a, b) => a + b, 0n);
}

/** Mark price 24 hours ago (the oldest hour on record), or 0 when none. */
export function prevDayPx(m: PerpMarket): number {
  for (let i = 1; i <= 24; i++) {
    const px = m.hourlyMark[(m.hour + i) % 24] as number;
    if (px > 0) return px;
  }
  return 0;
}
