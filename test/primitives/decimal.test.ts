import t from 'tap';
import fc from 'fast-check';
import { ScaledFormatter, divRound, formatScaled, parseDecimal, parseScaled, scanUnits, scannedSigFigs, significantFigures } from '../../primitives/index.ts';
import { replaySeed } from '../support/seed.ts';

t.test('parseDecimal accepts plain decimals only', async (t) => {
  t.same(parseDecimal('123.4500'), { negative: false, digits: '12345', scale: 2 });
  t.same(parseDecimal('0.00100'), { negative: false, digits: '1', scale: 3 });
  t.same(parseDecimal('-0'), { negative: false, digits: '', scale: 0 });
  t.same(parseDecimal('-2.50'), { negative: true, digits: '25', scale: 1 });
  for (const bad of ['', '1e5', '+1', '.5', '5.', '0x10', ' 1', '1 ', '1,5', 'NaN', '--1', '9'.repeat(65)]) {
    t.equal(parseDecimal(bad), null, `rejects ${JSON.stringify(bad)}`);
  }
});

t.test('significant figures: integer trailing zeros do not count', async (t) => {
  const cases: [string, number][] = [['67432', 5], ['3521.2', 5], ['67432.12', 7], ['142.853', 6], ['67000', 2], ['0.0012340', 4], ['100.0', 1], ['0', 0]];
  for (const [text, n] of cases) t.equal(significantFigures(parseDecimal(text)!), n, text);
});

t.test('scaling is exact or refused', async (t) => {
  t.equal(parseScaled('1.23', 2), 123n);
  t.equal(parseScaled('1.230000', 2), 123n);
  t.equal(parseScaled('1.231', 2), null);
  t.equal(parseScaled('123456789012345678901234567890.5', 1), 1234567890123456789012345678905n);
  t.equal(parseScaled('-0.5', 1), -5n);
});

t.test('formatScaled normalizes', async (t) => {
  t.equal(formatScaled(123n, 2), '1.23');
  t.equal(formatScaled(100n, 2), '1');
  t.equal(formatScaled(5, 3), '0.005');
  t.equal(formatScaled(0n, 8), '0');
  t.equal(formatScaled(-150n, 2), '-1.5');
  t.equal(formatScaled(42n, 0), '42');
  t.equal(formatScaled(-0n, 4), '0');
  t.equal(formatScaled(-0, 4), '0');
  t.equal(formatScaled(Number.MAX_SAFE_INTEGER, 15), '9.007199254740991');
  t.equal(formatScaled(-Number.MAX_SAFE_INTEGER, 8), '-90071992.54740991');
  t.equal(formatScaled(10n ** 30n + 5n, 20), '10000000000.00000000000000000005', 'past the safe integers and 15 decimals');
});

t.test('formatScaled gives numbers and bigints the same text', async (t) => {
  const seed = replaySeed(t, 20261123);
  // A bigint past the safe integers takes the digit-string path; a number, integer division.
  const value = fc.oneof(fc.maxSafeInteger(), fc.integer({ min: -1_000_000, max: 1_000_000 }), fc.tuple(fc.integer({ min: -999, max: 999 }), fc.integer({ min: 0, max: 12 })).map(([m, e]) => m * 10 ** e));
  fc.assert(
    fc.property(value, fc.integer({ min: 0, max: 17 }), (v, d) => formatScaled(v, d) === formatScaled(BigInt(v) * 10n ** 20n, d + 20) && formatScaled(BigInt(v), d) === formatScaled(v, d)),
    { seed, numRuns: 20_000 },
  );
});

t.test('divRound rounds in the named direction', async (t) => {
  const rows: [bigint, bigint, 'floor' | 'ceil' | 'trunc' | 'nearest', bigint][] = [
    [7n, 2n, 'floor', 3n], [7n, 2n, 'ceil', 4n], [7n, 2n, 'trunc', 3n], [7n, 2n, 'nearest', 4n],
    [-7n, 2n, 'floor', -4n], [-7n, 2n, 'ceil', -3n], [-7n, 2n, 'trunc', -3n], [-7n, 2n, 'nearest', -4n],
    [5n, 3n, 'nearest', 2n], [4n, 3n, 'nearest', 1n], [6n, 3n, 'ceil', 2n], [7n, -2n, 'floor', -4n],
  ];
  for (const [a, b, mode, want] of rows) t.equal(divRound(a, b, mode), want, `${a}/${b} ${mode}`);
  t.throws(() => divRound(1n, 0n, 'floor'));
});

t.test('scanUnits agrees with the general path wherever it answers', async (t) => {
  const seed = replaySeed(t, 20261122);
  const text = fc.oneof(
    fc.tuple(fc.stringMatching(/^[0-9]{1,9}$/), fc.option(fc.stringMatching(/^[0-9]{1,9}$/), { nil: undefined })).map(([i, f]) => (f === undefined ? i : `${i}.${f}`)),
    fc.string({ maxLength: 18 }),
    fc.constantFrom('0', '0.0', '00.50', '1.', '.5', '-1', '1e3', '9007199254740993', '123456789012345.6', '0.000000001'),
  );
  fc.assert(
    fc.property(text, fc.integer({ min: 0, max: 10 }), (s, decimals) => {
      const fast = scanUnits(s, decimals);
      const d = parseDecimal(s);
      const general = d === null || d.negative || d.digits === '' ? null : parseScaled(s, decimals);
      if (fast === -1) {
        // Refused by the fast path: fine, unless it is a short plain value the general path scales safely.
        if (general !== null && general <= BigInt(Number.MAX_SAFE_INTEGER) && d!.digits.length <= 15 && s.length <= 16 && /^[0-9]+(\.[0-9]+)?$/.test(s)) return false;
        return true;
      }
      return general !== null && BigInt(fast) === general && (d!.scale === 0 || scannedSigFigs === significantFigures(d!));
    }),
    { seed, numRuns: 5000 },
  );
});

t.test('ScaledFormatter answers as formatScaled, through slot collisions and repeats', async (t) => {
  const seed = replaySeed(t, 20261123);
  // Values drawn from a small pool (repeats hit), plus ones sharing low bits (collisions replace).
  const value = fc.oneof(fc.constantFrom(0, 1, 10, 256, 512, 100_000, 2 ** 31, 2 ** 32 + 1, -256, Number.MAX_SAFE_INTEGER), fc.integer({ min: -1e6, max: 1e6 }), fc.maxSafeInteger());
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 12 }), fc.array(value, { maxLength: 300 }), (decimals, values) => {
      const f = new ScaledFormatter(decimals);
      return values.every((v) => f.format(v) === formatScaled(v, decimals) && f.format(v) === formatScaled(v, decimals));
    }),
    { seed, numRuns: 500 },
  );
});
