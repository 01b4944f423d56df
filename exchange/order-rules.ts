// The spec's order constraints: price at most 5 significant figures (integers always allowed),
// at most the market's price decimals; size a multiple of the lot.
import { parseDecimal, scanUnits, scannedSigFigs, significantFigures, toScaled, formatScaled } from '../primitives/index.ts';
import { MAX_SIG_FIGS } from './config.ts';
import { exchangeError, type ExchangeError } from './errors.ts';

/** Largest integer price or size (in units) the engine holds as a JS number. */
const MAX_UNITS = BigInt(Number.MAX_SAFE_INTEGER);

export function parsePrice(text: string, pxDecimals: number): number | ExchangeError {
  const fast = scanUnits(text, pxDecimals);
  // A whole number always passes; with a fraction, at most MAX_SIG_FIGS figures (else the general path says why).
  if (fast > 0 && (fast % 10 ** pxDecimals === 0 || scannedSigFigs <= MAX_SIG_FIGS)) return fast;
  const d = parseDecimal(text);
  if (d === null || d.negative || d.digits === '') {
    return exchangeError('INVALID_PRICE', `${text} is not a positive decimal`);
  }
  if (d.scale > 0 && significantFigures(d) > MAX_SIG_FIGS) {
    return exchangeError('INVALID_PRICE', `${text} has more than ${MAX_SIG_FIGS} significant figures`);
  }
  const px = toScaled(d, pxDecimals);
  if (px === null) {
    return exchangeError(
      'INVALID_PRICE',
      `${text} is not a multiple of the tick size ${formatScaled(1n, pxDecimals)}`,
    );
  }
  if (px > MAX_UNITS) return exchangeError('INVALID_PRICE', `${text} is too large`);
  return Number(px);
}

export function parseSize(text: string, szDecimals: number): number | ExchangeError {
  const fast = scanUnits(text, szDecimals);
  if (fast > 0) return fast;
  const d = parseDecimal(text);
  if (d === null || d.negative || d.digits === '') {
    return exchangeError('INVALID_SIZE', `${text} is not a positive decimal`);
  }
  const sz = toScaled(d, szDecimals);
  if (sz === null) {
    return exchangeError('INVALID_SIZE', `${text} does not conform to szDecimals ${szDecimals}`);
  }
  if (sz > MAX_UNITS) return exchangeError('INVALID_SIZE', `${text} is too large`);
  return Number(sz);
}

export function isExchangeError(v: unknown): v is ExchangeError {
  return typeof v === 'object' && v !== null && 'code' in v && 'message' in v;
}
