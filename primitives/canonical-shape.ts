// What the canonical JSON writers (canonical-json.ts, canonical-bytes.ts) share: object shapes,
// an object's own keys and values read without allocating, and which characters a string writes
// as themselves. A block's results and events, and the actions signed, are many objects of a few
// shapes: each shape's sorted order and quoted keys are computed once, and an object's keys and
// values are read in its own order by one `for...in` into arrays reused per nesting depth (V8
// walks a fast object's enumeration cache and loads each value by its field index; a keyed load
// per property in sorted order, by a different key each time, costs more than the rest of the
// writer, and `Object.keys` with `Object.values` allocate two arrays an object: a fifth of a
// busy node's allocation). Own enumerable getters therefore run in the object's own key order,
// not the sorted one: no object this project canonicalizes has them.

export interface Shape {
  /** The keys in the objects' own order (`Object.keys`). */
  readonly keys: readonly string[];
  /** For each key in sorted order (UTF-16 code units), its index in the own order. */
  readonly order: Int32Array;
  /** `"key":` of each key in sorted order, and `,"key":`. */
  readonly open: readonly string[];
  readonly next: readonly string[];
  /** The same as UTF-8 bytes. */
  readonly openBytes: readonly Uint8Array[];
  readonly nextBytes: readonly Uint8Array[];
}

const EMPTY: Shape = { keys: [], order: new Int32Array(0), open: [], next: [], openBytes: [], nextBytes: [] };

/**
 * Shapes seen, by first key, at most 8 per first key and 1024 first keys, and only shapes of at
 * most 32 keys of 256 characters in all: keys of hostile input pin at most a few MB, and are
 * sorted afresh once the cache is full.
 */
const SHAPES = new Map<string, Shape[]>();
const encoder = new TextEncoder();

/**
 * An object's own enumerable keys and values (`Object.keys`, `Object.values`), into `keys` and
 * `values` from index 0; returns their count. `for...in` also visits inherited enumerable keys:
 * objects with a prototype other than `Object.prototype` or null are read with `Object.keys`.
 */
export function readOwn(value: object, keys: string[], values: unknown[]): number {
  const proto: unknown = Object.getPrototypeOf(value);
  let n = 0;
  if (proto === Object.prototype || proto === null) {
    for (const k in value) {
      keys[n] = k;
      values[n] = (value as Record<string, unknown>)[k];
      n++;
    }
    return n;
  }
  for (const k of Object.keys(value)) {
    keys[n] = k;
    values[n] = (value as Record<string, unknown>)[k];
    n++;
  }
  return n;
}

/**
 * Scratch arrays for `readOwn`, one pair per nesting depth, kept by a writer, and the shape last
 * seen at each depth: an array's objects mostly share one, found by comparing keys by identity
 * before the shape table's lookup by first key.
 */
export class OwnScratch {
  private readonly keys: string[][] = [];
  private readonly values: unknown[][] = [];
  private readonly last: Shape[] = [];
  keysAt(depth: number): string[] {
    return this.keys[depth] ?? (this.keys[depth] = []);
  }
  valuesAt(depth: number): unknown[] {
    return this.values[depth] ?? (this.values[depth] = []);
  }
  /** The shape of the first `n` of `keys`, read at `depth`. */
  shapeAt(depth: number, keys: readonly string[], n: number): Shape {
    const last = this.last[depth];
    if (last !== undefined && last.keys.length === n) {
      const ks = last.keys;
      let i = 0;
      while (i < n && ks[i] === keys[i]) i++;
      if (i === n) return last;
    }
    const shape = shapeOf(keys, n);
    this.last[depth] = shape;
    return shape;
  }
}

/** The shape of an object whose `Object.keys` are the first `n` of `keys` (all by default). */
export function shapeOf(keys: readonly string[], n = keys.length): Shape {
  if (n === 0) return EMPTY;
  const first = keys[0] as string;
  const known = SHAPES.get(first);
  if (known !== undefined) {
    // Keys of objects built by the same code are the same (internalized) strings: compared by identity first.
    next: for (let s = 0; s < known.length; s++) {
      const shape = known[s] as Shape;
      const ks = shape.keys;
      if (ks.length !== n) continue;
      for (let i = 1; i < n; i++) if (ks[i] !== keys[i]) continue next;
      return shape;
    }
  }
  const shape = buildShape(keys.slice(0, n));
  if (n > 32 || shape.keys.reduce((sum, k) => sum + k.length, 0) > 256) return shape;
  if (known !== undefined ? known.length < 8 : SHAPES.size < 1024) (known ?? SHAPES.set(first, []).get(first)!).push(shape);
  return shape;
}

function buildShape(keys: readonly string[]): Shape {
  const order = Int32Array.from(keys.map((_, i) => i).sort((a, b) => ((keys[a] as string) < (keys[b] as string) ? -1 : 1)));
  const open: string[] = [];
  const next: string[] = [];
  for (const i of order) {
    const quoted = `${JSON.stringify(keys[i])}:`;
    open.push(quoted);
    next.push(`,${quoted}`);
  }
  return { keys: [...keys], order, open, next, openBytes: open.map((k) => encoder.encode(k)), nextBytes: next.map((k) => encoder.encode(k)) };
}

/** Whether a UTF-16 unit stands for itself inside a JSON string (printable ASCII but `"` and `\`). */
export function isPlain(c: number): boolean {
  return c >= 0x20 && c <= 0x7e && c !== 0x22 && c !== 0x5c;
}
