// l2Book aggregation of the Hyperliquid dialect: significant figures and mantissa, bids down, asks up.
import t from 'tap';
import { aggregateSide } from '../../rpc/index.ts';

const lv = (px: string, sz: string, n = 1) => ({ px, sz, n });

t.test('bids round down and merge; asks round up', async (t) => {
  const bids = [lv('113377', '1'), lv('113376', '2', 3), lv('113300', '0.5'), lv('113299.5', '0.25')];
  t.same(aggregateSide(bids, true, 5, 1, 20), [lv('113370', '3', 4), lv('113300', '0.5'), lv('113290', '0.25')]);
  t.same(aggregateSide(bids, true, 3, 1, 20), [lv('113000', '3.75', 6)]);
  const asks = [lv('113377', '1'), lv('113380', '2'), lv('113381', '1')];
  t.same(aggregateSide(asks, false, 5, 1, 20), [lv('113380', '3', 2), lv('113390', '1')]);
});

t.test('mantissa 2 and 5 at five figures', async (t) => {
  const asks = [lv('1.2341', '1'), lv('1.2343', '1'), lv('1.2346', '1')];
  t.same(aggregateSide(asks, false, 5, 2, 20), [lv('1.2342', '1'), lv('1.2344', '1'), lv('1.2346', '1')]);
  t.same(aggregateSide(asks, false, 5, 5, 20), [lv('1.2345', '2', 2), lv('1.235', '1')]);
  const bids = [lv('0.0012349', '10'), lv('0.0012341', '5')];
  t.same(aggregateSide(bids, true, 4, 1, 20), [lv('0.001234', '15', 2)]);
});

t.test('at most depth levels after merging', async (t) => {
  const bids = Array.from({ length: 50 }, (_, i) => lv(String(1000 - i), '1'));
  const out = aggregateSide(bids, true, 2, 1, 20);
  t.same(out, [lv('1000', '1'), lv('990', '10', 10), lv('980', '10', 10), lv('970', '10', 10), lv('960', '10', 10), lv('950', '9', 9)]);
  t.equal(aggregateSide(bids, true, 5, 1, 20).length, 20);
});
