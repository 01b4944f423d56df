// Exact decimal strings <-> scaled integers. Never goes through floating point.

/** A parsed non-negative or negative decimal: value = digits * 10^-scale. */
export interface Decimal {
  readonly negative: boolean;
  /** Significant digits without leading zeros ("" for zero). */
  readonly digits: string;
  /** Digits after the decimal point once trailing zeros are dropped. */
  readonly scale: number;
}

const DECIMAL_RE = /^(-)?(\d+)(?:\.(\d+))?$/;
/** Longest decimal string accepted; bounds the work done on hostile input. */
export const MAX_DECIMAL_LENGTH = 64;

/** Parses "123.4500" style strings; no exponent, no sign "+", no leading ".". Null when malformed. */
export function parseDecimal(text: string): Decimal | null {
  if (text.length === 0 || text.length > MAX_DECIMAL_LENGTH) return null;
  const m = DECIMAL_RE.exec(text);
  if (m === null) return null;
  const frac = (m[3] ?? '').replace(/0+$/, '');
  const all = ((m[2] ?? '') + frac).replace(/^0+/, '');
  return { negative: m[1] === '-' && all !== '', digits: all, scale: frac.length };
}

/** Number of significant figures: integer trailing zeros do not count ("67000" has 2). */
export function significantFigures(d: Decimal): number {
  if (d.digits === '') return 0;
  if (d.scale > 0) return d.digits.length;
  return d.digits.replace(/0+$/, '').length;
}

/** value * 10^decimals as an exact integer, or null when the value has more decimals than that. */
export function toScaled(d: Decimal, decimals: number): bigint | null {
  if (d.scale > decimals) return null;
  if (d.digits === '') return 0n;
  const v = BigInt(d.digits) * 10n ** BigInt(decimals - d.scale);
  return d.negative ? -v : v;
}

/** Parses and scales in one step; null when malformed or too precise. */
export function parseScaled(text: string, decimals: number): bigint | null {
  const d = parseDecimal(text);
  return d === null ? null : toScaled(d, decimals);
}

/** Significant figures of the value the last successful `scanUnits` read. */
/** Exact sum of decimal strings (the node's own figures; a malformed one is a bug). */
export function addDecimals(...terms: readonly string[]): string {
  const parsed = terms.map((t) => {
    const d = parseDecimal(t);
    if (d === null) throw new Error(`invariant: not a decimal: ${t}`);
    return d;
  });
  const scale = parsed.reduce((s, d) => Math.max(s, d.scale), 0);
  return formatScaled(parsed.reduce((sum, d) => sum + (toScaled(d, scale) as bigint), 0n), scale);
}

export let scannedSigFigs = 0;

/**
 * The hot path of order parsing: a plain positive decimal of at most 15 digits ("3500.5") as an
 * integer number of 10^-decimals units, without regular expressions or bigints. Returns -1
 * whenever the text is anything else (zero, negative, malformed, long, more decimals than
 * `decimals`): the caller then takes the general path, which gives the exact error. On success
 * `scannedSigFigs` holds the figures `significantFigures` would count for a value with a fraction.
 */
export function scanUnits(text: string, decimals: number): number {
  const n = text.length;
  if (n === 0 || n > 16) return -1;
  let v = 0;
  let digits = 0; // significant digits so far (leading zeros skipped)
  let frac = -1; // digits after the point; -1 before one
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 46 /* . */) {
      if (frac >= 0 || i === 0 || i === n - 1) return -1;
      frac = 0;
      continue;
    }
    const d = c - 48;
    if (d < 0 || d > 9) return -1;
    if (digits > 0 || d !== 0) digits++;
    v = v * 10 + d;
    if (frac >= 0) frac++;
  }
  if (v === 0 || digits > 15) return -1;
  if (frac < 0) frac = 0;
  while (frac > 0 && v % 10 === 0) {
    v /= 10;
    frac--;
    digits--;
  }
  if (frac > decimals) return -1;
  const units = v * 10 ** (decimals - frac);
  if (!Number.isSafeInteger(units)) return -1;
  scannedSigFigs = digits;
  return units;
}

/** 10^0 .. 10^15: a safe integer's remainder and quotient by these are exact. */
const POW10 = Array.from({ length: 16 }, (_, i) => 10 ** i);
const MAX_SAFE_BIG = BigInt(Number.MAX_SAFE_INTEGER);
const isPow10Index = (decimals: number): boolean => Number.isInteger(decimals) && decimals >= 0 && decimals < POW10.length;
const ZEROS = Array.from({ length: 16 }, (_, i) => '0'.repeat(i));

/** Texts `formatSafe` made lately, by decimals then value: bounded, emptied when full. */
const recentTexts: (Map<number, string> | undefined)[] = [];
const RECENT_TEXTS = 4096;

/**
 * `formatSafe` through `recentTexts`. Prices, sizes and positions repeat: a block's fill records
 * and order views then share one string each instead of making their own, which lived as long as
 * the block's events (past its write) and so were promoted by V8, a tenth of what a busy block
 * promoted (docs/performance.md).
 */
function formatSafeShared(value: number, decimals: number): string {
  let texts = recentTexts[decimals];
  if (texts === undefined) recentTexts[decimals] = texts = new Map();
  let s = texts.get(value);
  if (s === undefined) {
    s = formatSafe(value, decimals);
    if (texts.size >= RECENT_TEXTS) texts.clear();
    texts.set(value, s);
  }
  return s;
}

/**
 * `formatScaled` of a safe integer: whole and fraction parts by exact integer division, each
 * converted once (V8 caches the strings of recent numbers, and prices and sizes repeat).
 */
function formatSafe(value: number, decimals: number): string {
  const negative = value < 0;
  const abs = negative ? -value : value;
  const scale = POW10[decimals] as number;
  let frac = abs % scale;
  const whole = (abs - frac) / scale;
  let s: string;
  if (frac === 0) s = String(whole);
  else {
    let digits = decimals;
    while (frac % 10 === 0) {
      frac /= 10;
      digits--;
    }
    const f = String(frac);
    s = f.length < digits ? `${whole}.${ZEROS[digits - f.length] as string}${f}` : `${whole}.${f}`;
  }
  return negative && abs !== 0 ? `-${s}` : s;
}

/** Formats value * 10^-decimals as a normalized decimal: no exponent, no trailing zeros, "0" for zero. */
export function formatScaled(value: bigint | number, decimals: number): string {
  let negative: boolean;
  let s: string;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new RangeError(`not a safe integer: ${value}`);
    if (isPow10Index(decimals)) return formatSafeShared(value, decimals);
    negative = value < 0;
    s = String(negative ? -value : value);
  } else if (value <= MAX_SAFE_BIG && value >= -MAX_SAFE_BIG && isPow10Index(decimals)) {
    return formatSafeShared(Number(value), decimals); // a bigint's toString allocates more than the number's
  } else {
    negative = value < 0n;
    s = (negative ? -value : value).toString();
  }
  if (decimals > 0) {
    if (s.length <= decimals) s = '0'.repeat(decimals + 1 - s.length) + s;
    const point = s.length - decimals;
    let end = s.length;
    while (end > point && s.charCodeAt(end - 1) === 48 /* 0 */) end--;
    s = end === point ? s.slice(0, point) : `${s.slice(0, point)}.${s.slice(point, end)}`;
  }
  return negative && s !== '0' ? `-${s}` : s;
}

/** Rounds a / b to an integer, half away from zero for "nearest", or toward the named direction. */
export function divRound(a: bigint, b: bigint, mode: 'floor' | 'ceil' | 'trunc' | 'nearest'): bigint {
  if (b === 0n) throw new RangeError('division by zero');
  if (b < 0n) return divRound(-a, -b, mode);
  const q = a / b; // truncates toward zero
  const r = a % b;
  if (r === 0n) return q;
  switch (mode) {
    case 'trunc':
      return q;
    case 'floor':
      return a < 0n ? q - 1n : q;
    case 'ceil':
      return a < 0n ? q : q + 1n;
    case 'nearest': {
      const twice = 2n * (r < 0n ? -r : r);
      if (twice < b) return q;
      return a < 0n ? q - 1n : q + 1n;
    }
  }
}

/**
 * `formatScaled` at fixed decimals for safe integers, remembering the last text of each of 256
 * slots (by the value's low bits): order sizes and prices repeat, and a hit allocates nothing.
 * A cache: every answer equals `formatScaled(value, decimals)`.
 */
export class ScaledFormatter {
  private readonly values = new Float64Array(256).fill(Number.NaN); // NaN equals nothing: empty slots miss
  private readonly texts: string[] = new Array<string>(256).fill('');

  constructor(readonly decimals: number) {}

  format(value: number): string {
    const slot = value & 255;
    if (this.values[slot] === value) return this.texts[slot] as string;
    const text = formatScaled(value, this.decimals);
    this.values[slot] = value;
    this.texts[slot] = text;
    return text;
  }
}
