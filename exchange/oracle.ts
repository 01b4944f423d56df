// Oracle prices from validators: each publishes prices as a signed system transaction (the node
// checks the signature); the oracle of a market is the power-weighted median of the fresh
// submissions. Stale submissions (older than the staleness bound at the block time) no longer
// count; without any fresh one the oracle keeps its last value.
import { exchangeError, type ExchangeError } from './errors.ts';
import type { PerpMarket } from './markets.ts';
import { parseScaled } from '../primitives/index.ts';
import type { ExchangeState } from './state.ts';

export interface OraclePrices {
  /** Hex ed25519 public key of the validator (verified by the node). */
  readonly validator: string;
  /** The validator's timestamp, ms. */
  readonly time: number;
  /** Coin -> price as a decimal string. */
  readonly prices: Readonly<Record<string, string>>;
}

/**
 * Largest oracle price in price units: orders priced off the oracle (triggers, liquidations:
 * mark +/- slippage) must stay exact integers, so a tenth of the safe range.
 */
const MAX_ORACLE_UNITS = BigInt(Math.floor(Number.MAX_SAFE_INTEGER / 10));

/** Power-weighted median of fresh submissions (ties broken by validator key); null when none. */
export function weightedMedian(state: ExchangeState, m: PerpMarket): number | null {
  const { oracleStalenessMs } = state.config.clearinghouse;
  const validators = state.validators();
  const fresh: { px: number; power: number; key: string }[] = [];
  for (const v of validators) {
    const sub = m.oracleSubs.get(v.pubKey);
    if (sub !== undefined && sub.time >= state.time - oracleStalenessMs) fresh.push({ px: sub.px, power: v.power, key: v.pubKey });
  }
  if (fresh.length === 0) return null;
  fresh.sort((a, b) => a.px - b.px || (a.key < b.key ? -1 : 1));
  const total = fresh.reduce((sum, f) => sum + f.power, 0);
  let acc = 0;
  for (const f of fresh) {
    acc += f.power;
    if (acc * 2 >= total) return f.px;
  }
  return (fresh[fresh.length - 1] as { px: number }).px;
}

/** Applies one validator's prices. Refused whole when the validator or a price is unknown or bad. */
export function applyOracle(state: ExchangeState, sub: OraclePrices): ExchangeError | null {
  const { oracleStalenessMs } = state.config.clearinghouse;
  if (!state.validators().some((v) => v.pubKey === sub.validator)) return exchangeError('INVALID_ACTION', `unknown validator ${sub.validator}`);
  if (!Number.isSafeInteger(sub.time) || sub.time < state.time - oracleStalenessMs || sub.time > state.time + oracleStalenessMs) {
    return exchangeError('INVALID_ACTION', `stale oracle prices (stamped ${sub.time}, block time ${state.time})`);
  }
  const parsed: [PerpMarket, number][] = [];
  for (const [coin, text] of Object.entries(sub.prices)) {
    const m = state.marketsByName.get(coin);
    if (m === undefined || m.kind !== 'perp') return exchangeError('INVALID_ACTION', `oracle price for unknown perpetual ${coin}`);
    // Oracle prices need not be order prices: any positive value with the market's decimals.
    const px = typeof text === 'string' ? parseScaled(text, m.pxDecimals) : null;
    if (px === null || px <= 0n || px > MAX_ORACLE_UNITS) {
      return exchangeError('INVALID_PRICE', `oracle price ${String(text)} for ${coin} is not a positive decimal with at most ${m.pxDecimals} decimals`);
    }
    parsed.push([m, Number(px)]);
  }
  for (const [m, px] of parsed) {
    const prev = m.oracleSubs.get(sub.validator);
    if (prev !== undefined && prev.time > sub.time) continue; // an older message arriving late
    m.oracleSubs.set(sub.validator, { px, time: sub.time });
  }
  refreshOracles(state);
  return null;
}

/** Recomputes every perp oracle from the fresh submissions (block start and after submissions). */
export function refreshOracles(state: ExchangeState): void {
  for (const m of state.perps) {
    const px = weightedMedian(state, m);
    if (px !== null) m.engine.oraclePx = px;
  }
}
