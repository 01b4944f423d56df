// RFC 8785 JSON canonicalization: object keys sorted by UTF-16 code units, no whitespace,
// numbers in ECMAScript shortest form (JSON.stringify already produces it), strings as JSON.stringify.
// Written as one string builder (no per-node arrays): it runs for every transaction and block.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function canonicalize(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError('non-finite number in canonical JSON');
      return JSON.stringify(value);
    case 'string':
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + canonicalize(value[i]);
        return `${out}]`;
      }
      const obj = value as Record<string, unknown>;
      const keys = Object.keys(obj);
      // Most objects are small and many already sorted: check before sorting.
      for (let i = 1; i < keys.length; i++) {
        if ((keys[i - 1] as string) > (keys[i] as string)) {
          keys.sort();
          break;
        }
      }
      let out = '{';
      let first = true;
      for (const k of keys) {
        const v = obj[k];
        if (v === undefined) continue;
        out += `${first ? '' : ','}${JSON.stringify(k)}:${canonicalize(v)}`;
        first = false;
      }
      return `${out}}`;
    }
    default:
      throw new TypeError(`cannot canonicalize ${typeof value}`);
  }
}
