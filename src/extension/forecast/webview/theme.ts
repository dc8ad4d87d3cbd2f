/**
 * What the chart pages share in the browser: the theme's colours (VS Code sets its CSS variables
 * for light, dark and high contrast themes, in panels and notebook outputs alike) and small DOM
 * helpers that only ever set text, never HTML.
 */

export function cssVar(name: string, fallback: string, from: Element = document.body): string {
  const v = getComputedStyle(from).getPropertyValue(name).trim();
  return v || fallback;
}

/** The theme's chart colours. */
export function palette(from?: Element) {
  const v = (name: string, fallback: string) => cssVar(name, fallback, from);
  return {
    fg: v('--vscode-charts-foreground', v('--vscode-foreground', '#888')),
    lines: v('--vscode-charts-lines', 'rgba(128,128,128,0.4)'),
    blue: v('--vscode-charts-blue', '#3794ff'),
    purple: v('--vscode-charts-purple', '#b180d7'),
    orange: v('--vscode-charts-orange', '#d18616'),
    yellow: v('--vscode-charts-yellow', '#cca700'),
    red: v('--vscode-charts-red', '#f14c4c'),
    green: v('--vscode-charts-green', '#89d185'),
    fontFamily: v('--vscode-font-family', 'sans-serif'),
    font: `${v('--vscode-font-size', '13px')} ${v('--vscode-font-family', 'sans-serif')}`,
  };
}
export type Palette = ReturnType<typeof palette>;

export function fmt(n: number): string {
  return n.toLocaleString('en-US');
}

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: string,
  cls?: string,
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

export const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

/** A legend entry: a swatch in the series' colour and its words. */
export function legendItem(color: string, text: string, kind: 'bar' | 'line' | 'dash' | 'tick'): HTMLLIElement {
  const li = el('li');
  const sw = el('span', undefined, `swatch ${kind}`);
  sw.style.setProperty('--swatch', color);
  li.append(sw, el('span', text));
  return li;
}

/** A table's header row and body from text cells (`scope` set for screen readers). */
export function fillTable(head: HTMLElement, body: HTMLElement, headers: string[], rows: string[][]): void {
  head.replaceChildren(
    ...headers.map((h) => {
      const th = el('th', h);
      th.scope = 'col';
      return th;
    }),
  );
  body.replaceChildren(
    ...rows.map((r) => {
      const tr = el('tr');
      tr.append(...r.map((cell) => el('td', cell)));
      return tr;
    }),
  );
}

/** The text of each row's cells. */
export function cellsOf(rows: Iterable<HTMLTableRowElement>): string[][] {
  return Array.from(rows).map((tr) => Array.from(tr.cells).map((c) => c.textContent ?? ''));
}

/** Whether an element and its ancestors are shown (what a screen reader would read). */
export function isShown(e: HTMLElement): boolean {
  for (let n: HTMLElement | null = e; n; n = n.parentElement) if (n.hidden) return false;
  return true;
}
