// RFC 8785 JSON canonicalization: object keys sorted by UTF-16 code units, no whitespace,
// numbers in ECMAScript shortest form (JSON.stringify already produces it), strings as JSON.stringify.
// Written as one string builder (no per-node arrays): it runs for every transaction and block.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The output being built; canonicalize calls no user code, so it is never re-entered. */
let out = '';

/**
 * Where `canonicalizeTo` sends the text as it grows; null while `canonicalize` builds one string.
 * A sink must not canonicalize (the builder is shared and not re-entrant).
 */
let sink: ((chunk: string) => void) | null = null;

/** Text handed to the sink at a time: large values go out in pieces, never as one long string. */
const CHUNK = 16 << 10;

export function canonicalize(value: unknown): string {
  out = '';
  try {
    write(value);
    return out;
  } finally {
    out = '';
  }
}

/**
 * The canonical text of `value`, handed to `to` in pieces in order (their concatenation is
 * `canonicalize(value)`): a block's results and events can be hashed as they are written, without
 * building (and collecting) one string of megabytes.
 */
export function canonicalizeTo(value: unknown, to: (chunk: string) => void): void {
  out = '';
  sink = to;
  try {
    write(value);
    if (out.length > 0) to(out);
  } finally {
    out = '';
    sink = null;
  }
}

function spill(): void {
  if (sink !== null && out.length >= CHUNK) {
    sink(out);
    out = '';
  }
}

function write(value: unknown): void {
  if (value === null) {
    out += 'null';
    return;
  }
  switch (typeof value) {
    case 'boolean':
      out += value ? 'true' : 'false';
      return;
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError('non-finite number in canonical JSON');
      out += JSON.stringify(value);
      return;
    case 'string':
      out += quote(value);
      return;
    case 'object': {
      if (Array.isArray(value)) {
        out += '[';
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out += ',';
          write(value[i]);
          spill();
        }
        out += ']';
        return;
      }
      const obj = value as Record<string, unknown>;
      out += '{';
      let first = true;
      for (const k of sortedKeys(obj)) {
        const v = obj[k];
        if (v === undefined) continue;
        out += first ? quotedKey(k) : `,${quotedKey(k)}`;
        first = false;
        write(v);
      }
      out += '}';
      return;
    }
    default:
      throw new TypeError(`cannot canonicalize ${typeof value}`);
  }
}

/** A string as JSON: printable ASCII without `"` or `\` is its own body; anything else goes to JSON.stringify. */
function quote(s: string): string {
  if (s.length > 64) return JSON.stringify(s);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || c > 0x7e) return JSON.stringify(s);
  }
  return `"${s}"`;
}

/** `"key":` of the keys seen, bounded (keys of hostile input are quoted afresh once it is full). */
const QUOTED = new Map<string, string>();

function quotedKey(k: string): string {
  let q = QUOTED.get(k);
  if (q === undefined) {
    q = `${quote(k)}:`;
    if (QUOTED.size < 4096) QUOTED.set(k, q);
  }
  return q;
}

/**
 * Sorted key lists of the object shapes seen, by first key. The events and results of a block
 * are many objects of a few shapes: a cached list is reused when the object has as many keys and
 * every one of them (same count and all present: the same set), which is cheaper than sorting.
 * Bounded; an unknown shape is sorted.
 */
const SHAPES = new Map<string, string[][]>();

function sortedKeys(obj: Record<string, unknown>): readonly string[] {
  const keys = Object.keys(obj);
  const n = keys.length;
  let sorted = true;
  for (let i = 1; i < n; i++) {
    if ((keys[i - 1] as string) > (keys[i] as string)) {
      sorted = false;
      break;
    }
  }
  if (sorted) return keys;
  const first = keys[0] as string;
  const known = SHAPES.get(first);
  if (known !== undefined) {
    next: for (const shape of known) {
      if (shape.length !== n) continue;
      for (let i = 0; i < n; i++) if (!Object.prototype.propertyIsEnumerable.call(obj, shape[i] as string)) continue next;
      return shape;
    }
  }
  keys.sort();
  if (known !== undefined ? known.length < 8 : SHAPES.size < 1024) (known ?? SHAPES.set(first, []).get(first)!).push(keys);
  return keys;
}
