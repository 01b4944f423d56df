import t from 'tap';
import { isExchangeError, parsePrice, parseSize } from '../../exchange/index.ts';

t.test('prices: 5 significant figures, integers always, within the price decimals', async (t) => {
  // [text, pxDecimals, expected units or error fragment]
  const rows: [string, number, number | RegExp][] = [
    ['67432', 1, 674320],
    ['3521.2', 2, 352120],
    ['123456', 1, 1234560],
    ['0.001234', 6, 1234],
    ['67432.12', 1, /more than 5 significant figures/],
    ['142.853', 4, /more than 5 significant figures/],
    ['0.0012345', 6, /not a multiple of the tick size 0.000001/],
    ['0.00123456', 8, /more than 5 significant figures/],
    ['1234.5', 0, /not a multiple of the tick size 1/],
    ['0.05', 1, /not a multiple of the tick size 0.1/],
    ['0', 2, /not a positive decimal/],
    ['-1', 2, /not a positive decimal/],
    ['1e3', 2, /not a positive decimal/],
    ['99999999999999999999', 0, /too large/],
  ];
  for (const [text, dec, want] of rows) {
    const got = parsePrice(text, dec);
    if (typeof want === 'number') t.equal(got, want, text);
    else t.ok(isExchangeError(got) && want.test(got.message) && got.message.startsWith('Invalid price: '), `${text}: ${JSON.stringify(got)}`);
  }
});

t.test('sizes: a multiple of the lot, with the spec message', async (t) => {
  t.equal(parseSize('0.5', 5), 50000);
  t.equal(parseSize('1.00000', 2), 100);
  const bad = parseSize('0.123456', 5);
  t.ok(isExchangeError(bad));
  t.equal(isExchangeError(bad) && bad.message, 'Invalid size: 0.123456 does not conform to szDecimals 5');
  t.ok(isExchangeError(parseSize('0', 2)));
  t.ok(isExchangeError(parseSize('abc', 2)));
});
