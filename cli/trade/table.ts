// Aligned text tables: a header, columns padded to their widest cell, numbers right-aligned.

const NUMERIC = /^[-+]?[0-9][0-9,]*(\.[0-9]+)?%?$/;

export function table(headers: readonly string[], rows: readonly (readonly (string | number | boolean | null | undefined)[])[]): string[] {
  const cells = rows.map((r) => r.map((c) => (c === null || c === undefined ? '-' : String(c))));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length)));
  // A column of numbers (blank and '-' cells aside) is right-aligned.
  const right = headers.map((_, i) => cells.some((r) => NUMERIC.test(r[i] ?? '')) && cells.every((r) => NUMERIC.test(r[i] ?? '') || r[i] === '-' || r[i] === ''));
  const line = (r: readonly string[]) =>
    r.map((c, i) => (right[i] ? c.padStart(widths[i] as number) : c.padEnd(widths[i] as number))).join('  ').trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)];
}

/** `label  value` lines with the labels padded to one width. */
export function pairs(entries: readonly [string, string | number | null | undefined][]): string[] {
  const w = Math.max(...entries.map(([k]) => k.length));
  return entries.map(([k, v]) => `${k.padEnd(w)}  ${v ?? '-'}`);
}

export function isoTime(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}
