// RFC 8785 JSON canonicalization: object keys sorted by UTF-16 code units, no whitespace,
// numbers in ECMAScript shortest form (JSON.stringify already produces it), strings as JSON.stringify.
// Written as one string builder (no per-node arrays): it runs for every transaction and block.
// canonical-bytes.ts writes the same text as UTF-8 bytes, in pieces, for hashing large values.
import { isPlain, OwnScratch, readOwn } from './canonical-shape.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The output being built; canonicalize calls no user code, so it is never re-entered. */
let out = '';
/** Objects' keys and values by nesting depth (`readOwn`). */
const scratch = new OwnScratch();
let depth = 0;

export function canonicalize(value: unknown): string {
  out = '';
  depth = 0;
  try {
    write(value);
    return out;
  } finally {
    out = '';
    depth = 0;
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
      out += `${value}`; // JSON.stringify's text for every finite number (-0 as 0)
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
        }
        out += ']';
        return;
      }
      const keys = scratch.keysAt(depth);
      const values = scratch.valuesAt(depth);
      const n = readOwn(value, keys, values);
      const { order, open, next } = scratch.shapeAt(depth, keys, n);
      out += '{';
      let first = true;
      depth++;
      for (let j = 0; j < n; j++) {
        const v = values[order[j] as number];
        if (v === undefined) continue;
        out += first ? open[j] : next[j];
        first = false;
        write(v);
      }
      depth--;
      for (let i = 0; i < n; i++) values[i] = undefined; // holds no value past its write
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
  for (let i = 0; i < s.length; i++) if (!isPlain(s.charCodeAt(i))) return JSON.stringify(s);
  return `"${s}"`;
}

