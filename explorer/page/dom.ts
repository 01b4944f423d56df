// Small DOM helpers: tables from rows, text escaped by construction (textContent, never innerHTML).

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (el === null) throw new Error(`missing #${id}`);
  return el as T;
}

export type Cell = string | number | null | undefined | { text: string; cls?: string; title?: string };

/** Replaces a table's content with a header row and body rows. */
export function fillTable(table: HTMLTableElement, headers: readonly string[], rows: readonly (readonly Cell[])[], onRow?: (i: number) => void): void {
  table.replaceChildren();
  if (headers.length > 0) {
    const tr = table.createTHead().insertRow();
    for (const h of headers) {
      const th = document.createElement('th');
      th.textContent = h;
      tr.appendChild(th);
    }
  }
  const body = table.createTBody();
  rows.forEach((r, i) => {
    const tr = body.insertRow();
    if (onRow !== undefined) {
      tr.className = 'clickable';
      tr.addEventListener('click', () => onRow(i));
    }
    for (const c of r) {
      const td = tr.insertCell();
      if (c !== null && typeof c === 'object') {
        td.textContent = c.text;
        if (c.cls !== undefined) td.className = c.cls;
        if (c.title !== undefined) td.title = c.title;
      } else td.textContent = c === null || c === undefined ? '-' : String(c);
    }
  });
}

export function short(hex: string, n = 6): string {
  return hex.length <= 2 * n + 2 ? hex : `${hex.slice(0, n + 2)}…${hex.slice(-n)}`;
}

export function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}

/** Runs `fn` at most once per `ms`, the last call winning. */
export function throttle(fn: () => void, ms: number): () => void {
  let timer: ReturnType<typeof setTimeout> | null = null;
  return () => {
    if (timer !== null) return;
    timer = setTimeout(() => {
      timer = null;
      fn();
    }, ms);
  };
}
