// A hash map from positive integer keys (oids, prices) to objects: open addressing with linear
// probing and backward-shift deletion (no tombstones), so heavy insert/delete churn, the order
// book's normal load, never degrades or forces a rehash. Keys must be integers in [1, 2^53).
const MIN_CAPACITY = 16;

export class NumMap<V> {
  private keys: Float64Array;
  private vals: (V | undefined)[];
  private mask: number;
  private count = 0;

  constructor(capacity = MIN_CAPACITY) {
    let cap = MIN_CAPACITY;
    while (cap < capacity * 2) cap *= 2;
    this.keys = new Float64Array(cap);
    this.vals = new Array<V | undefined>(cap).fill(undefined);
    this.mask = cap - 1;
  }

  get size(): number {
    return this.count;
  }

  /** Home slot: the key's low 32 bits spread by a multiplicative hash. */
  private slot(key: number): number {
    return Math.imul(key | 0, 0x9e3779b1) >>> 0 & this.mask;
  }

  get(key: number): V | undefined {
    const keys = this.keys;
    for (let i = this.slot(key); ; i = (i + 1) & this.mask) {
      const k = keys[i] as number;
      if (k === key) return this.vals[i];
      if (k === 0) return undefined;
    }
  }

  has(key: number): boolean {
    return this.get(key) !== undefined;
  }

  set(key: number, value: V): void {
    const keys = this.keys;
    let i = this.slot(key);
    for (; ; i = (i + 1) & this.mask) {
      const k = keys[i] as number;
      if (k === key) {
        this.vals[i] = value;
        return;
      }
      if (k === 0) break;
    }
    keys[i] = key;
    this.vals[i] = value;
    if (++this.count * 2 > this.mask) this.grow();
  }

  delete(key: number): boolean {
    const keys = this.keys;
    const mask = this.mask;
    let i = this.slot(key);
    for (; ; i = (i + 1) & mask) {
      const k = keys[i] as number;
      if (k === key) break;
      if (k === 0) return false;
    }
    // Backward shift: pull later entries of the probe run into the hole when their home allows.
    let hole = i;
    for (let j = (i + 1) & mask; ; j = (j + 1) & mask) {
      const k = keys[j] as number;
      if (k === 0) break;
      const home = this.slot(k);
      // Move k when its home is not cyclically within (hole, j].
      if (hole <= j ? home <= hole || home > j : home <= hole && home > j) {
        keys[hole] = k;
        this.vals[hole] = this.vals[j];
        hole = j;
      }
    }
    keys[hole] = 0;
    this.vals[hole] = undefined;
    this.count -= 1;
    return true;
  }

  *values(): Generator<V> {
    for (let i = 0; i <= this.mask; i++) if ((this.keys[i] as number) !== 0) yield this.vals[i] as V;
  }

  private grow(): void {
    const oldKeys = this.keys;
    const oldVals = this.vals;
    const cap = (this.mask + 1) * 2;
    this.keys = new Float64Array(cap);
    this.vals = new Array<V | undefined>(cap).fill(undefined);
    this.mask = cap - 1;
    this.count = 0;
    for (let i = 0; i < oldKeys.length; i++) {
      const k = oldKeys[i] as number;
      if (k !== 0) this.set(k, oldVals[i] as V);
    }
  }
}
