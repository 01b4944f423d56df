// Trading fees: a rate in parts per million of notional, rounded up to the unit.
import type { ExchangeConfig } from './config.ts';
import type { Market } from './markets.ts';

export function feeOf(ntl: bigint, ppm: number): bigint {
  if (ppm === 0) return 0n;
  return (ntl * BigInt(ppm) + 999_999n) / 1_000_000n;
}

export function feeRates(cfg: ExchangeConfig, m: Market): { taker: number; maker: number } {
  const f = cfg.fees;
  return m.kind === 'perp' ? { taker: f.perpTakerPpm, maker: f.perpMakerPpm } : { taker: f.spotTakerPpm, maker: f.spotMakerPpm };
}
