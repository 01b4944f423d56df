// Decimal strings for the wire, computed on scaled bigints: never through floating point.
import { divRound, formatScaled, parseDecimal, toScaled } from '../primitives/index.ts';

export type Rounding = 'floor' | 'ceil' | 'nearest' | 'trunc';

/** A decimal given as a string, a bigint (whole units) or a safe integer; anything else is refused. */
export type DecimalInput = string | bigint | number;

/** The decimal as an integer count of 10^-decimals, rounded as asked (exact when it fits). */
export function toUnits(value: DecimalInput, decimals: number, rounding: Rounding = 'trunc'): bigint {
  const text = textOf(value);
  const d = parseDecimal(text);
  if (d === null) throw new TypeError(`not a decimal: ${text}`);
  const exact = toScaled(d, decimals);
  if (exact !== null) return exact;
  const full = toScaled(d, d.scale) as bigint;
  return divRound(full, 10n ** BigInt(d.scale - decimals), rounding);
}

/** The normalized decimal string of units * 10^-decimals ("1.5", not "1.50"). */
export function fromUnits(units: bigint, decimals: number): string {
  return formatScaled(units, decimals);
}

/** Normalizes a decimal input to the wire's form: no exponent, no trailing zeros. */
export function toWire(value: DecimalInput): string {
  const text = textOf(value);
  const d = parseDecimal(text);
  if (d === null) throw new TypeError(`not a decimal: ${text}`);
  return formatScaled(toScaled(d, d.scale) as bigint, d.scale);
}

/**
 * A price the exchange accepts: at most `maxDecimals` decimals (6 − szDecimals on perpetuals,
 * 8 − szDecimals on spot) and at most 5 significant figures unless it is an integer.
 */
export function roundPrice(value: DecimalInput, maxDecimals: number, rounding: Rounding = 'nearest'): string {
  let units = toUnits(value, maxDecimals, rounding);
  const negative = units < 0n;
  if (negative) units = -units;
  const digits = units.toString().length;
  const wholeDigits = digits - maxDecimals; // digits before the point
  if (digits > 5 && wholeDigits < digits) {
    // Keep 5 significant figures, but never round away digits of the integer part.
    const drop = Math.min(digits - 5, maxDecimals);
    const step = 10n ** BigInt(drop);
    units = divRound(units, step, rounding) * step;
  }
  return formatScaled(negative ? -units : units, maxDecimals);
}

/** Adds decimals exactly. */
export function addDecimal(a: DecimalInput, b: DecimalInput): string {
  const scale = Math.max(scaleOf(a), scaleOf(b));
  return formatScaled(toUnits(a, scale) + toUnits(b, scale), scale);
}

/** a * b exactly. */
export function mulDecimal(a: DecimalInput, b: DecimalInput): string {
  const sa = scaleOf(a);
  const sb = scaleOf(b);
  return formatScaled(toUnits(a, sa) * toUnits(b, sb), sa + sb);
}

/** Compares two decimals: -1, 0 or 1. */
export function compareDecimal(a: DecimalInput, b: DecimalInput): number {
  const scale = Math.max(scaleOf(a), scaleOf(b));
  const x = toUnits(a, scale);
  const y = toUnits(b, scale);
  return x < y ? -1 : x > y ? 1 : 0;
}

function scaleOf(value: DecimalInput): number {
  const d = parseDecimal(textOf(value));
  if (d === null) throw new TypeError(`not a decimal: ${String(value)}`);
  return d.scale;
}

function textOf(value: DecimalInput): string {
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'bigint') return value.toString();
  if (Number.isSafeInteger(value)) return String(value);
  throw new TypeError(`pass fractional amounts as decimal strings, not as the float ${value}`);
}
