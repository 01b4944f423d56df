// What the canonical JSON writers (canonical-json.ts, canonical-bytes.ts) share: object shapes,
// and which characters a string writes as themselves. A block's results and events, and the
// actions signed, are many objects of a few shapes: each shape's sorted order and quoted keys are
// computed once, and an object's values are read with one `Object.values` in its own order (a
// keyed load per property, by a different key each time, costs more than the rest of the
// writer). Own enumerable getters therefore run in the object's own key order, not the sorted
// one: no object this project canonicalizes has them.

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

/** The shape of an object whose `Object.keys` are `keys`. */
export function shapeOf(keys: readonly string[]): Shape {
  const n = keys.length;
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
  const shape = buildShape(keys);
  if (n > 32 || keys.reduce((sum, k) => sum + k.length, 0) > 256) return shape;
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
