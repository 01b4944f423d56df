// NumMap against the built-in Map over random insert/delete churn (seeded).
import t from 'tap';
import { NumMap } from '../../exchange/index.ts';
import { mulberry32 } from '../support/exchange.ts';

t.test('behaves like Map under churn', async (t) => {
  for (const seed of [1, 2, 3]) {
    const rnd = mulberry32(seed);
    const ours = new NumMap<number>();
    const ref = new Map<number, number>();
    let mismatches = 0;
    for (let i = 0; i < 50_000; i++) {
      const key = 1 + Math.floor(rnd() * (i % 2 === 0 ? 500 : 2 ** 40));
      const op = rnd();
      if (op < 0.5) {
        ours.set(key, i);
        ref.set(key, i);
      } else if (op < 0.9) {
        if (ours.delete(key) !== ref.delete(key)) mismatches++;
      } else if (ours.get(key) !== ref.get(key)) {
        mismatches++;
      }
    }
    t.equal(mismatches, 0, `seed ${seed}: every delete and get agreed`);
    t.equal(ours.size, ref.size, `seed ${seed}`);
    for (const [k, v] of ref) if (ours.get(k) !== v) t.fail(`seed ${seed}: key ${k}`);
    t.same([...ours.values()].sort((a, b) => a - b), [...ref.values()].sort((a, b) => a - b));
  }
});
