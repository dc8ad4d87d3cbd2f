/**
 * The notebook renderer for documents (mime application/vnd.ttl-workbench.documents+json): mongosh's
 * text by default, as mongosh prints the value, and a table with one column per top-level field one
 * click away (the choice holds for the outputs drawn after it). It runs in the notebook's webview as a browser ES
 * module (bundled by esbuild.js into dist/renderer.js): plain DOM, no framework, colours from the
 * VS Code theme's CSS variables, and every piece of data set as textContent, never as HTML.
 */
import { tableOf } from '../../logic/playground-table';

/** The parts of VS Code's renderer API this uses (the `vscode-notebook-renderer` contract). */
interface OutputItem {
  readonly id: string;
  readonly mime: string;
  json(): unknown;
}

interface RendererApi {
  renderOutputItem(item: OutputItem, element: HTMLElement): void;
  disposeOutputItem?(id?: string): void;
}

const STYLE = `
.ttlw-table-wrap { overflow-x: auto; max-height: 420px; overflow-y: auto; }
.ttlw-table { border-collapse: collapse; font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size); color: var(--vscode-foreground); }
.ttlw-table th, .ttlw-table td { border: 1px solid var(--vscode-panel-border, rgba(128,128,128,0.35)); padding: 2px 8px; text-align: left; vertical-align: top; white-space: pre; }
.ttlw-table th { position: sticky; top: 0; background: var(--vscode-editor-background); font-weight: 600; }
.ttlw-table th.ttlw-index, .ttlw-table td.ttlw-index { color: var(--vscode-descriptionForeground); text-align: right; }
.ttlw-table tbody tr:hover { background: var(--vscode-list-hoverBackground); }
.ttlw-table td.ttlw-missing { color: var(--vscode-disabledForeground, var(--vscode-descriptionForeground)); }
.ttlw-caption { color: var(--vscode-descriptionForeground); font-size: 0.9em; padding: 4px 0; }
.ttlw-text { margin: 0; font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size); color: var(--vscode-foreground); white-space: pre-wrap; overflow-wrap: anywhere; }
.ttlw-switch { font-size: 0.85em; margin: 2px 0 4px; background: none; border: 1px solid var(--vscode-button-border, var(--vscode-panel-border, rgba(128,128,128,0.35))); color: var(--vscode-textLink-foreground); cursor: pointer; border-radius: 2px; padding: 1px 6px; }
`;

/** Whether the user last chose the table (module state: one renderer instance per notebook webview). */
let preferTable = false;

function cell(tag: 'td' | 'th', text: string, className?: string): HTMLElement {
  const el = document.createElement(tag);
  el.textContent = text;
  if (className) el.className = className;
  return el;
}

function tableView(payload: unknown): HTMLElement[] {
  const table = tableOf(payload);
  const wrap = document.createElement('div');
  wrap.className = 'ttlw-table-wrap';
  const t = document.createElement('table');
  t.className = 'ttlw-table';
  const head = document.createElement('tr');
  head.append(cell('th', '#', 'ttlw-index'), ...table.columns.map((c) => cell('th', c)));
  const thead = document.createElement('thead');
  thead.append(head);
  const tbody = document.createElement('tbody');
  table.rows.forEach((row, i) => {
    const tr = document.createElement('tr');
    tr.append(
      cell('td', String(i + 1), 'ttlw-index'),
      ...row.map((v) => (v === undefined ? cell('td', '—', 'ttlw-missing') : cell('td', v))),
    );
    tbody.append(tr);
  });
  t.append(thead, tbody);
  wrap.append(t);
  const caption = document.createElement('div');
  caption.className = 'ttlw-caption';
  caption.textContent = `${table.rows.length} document${table.rows.length === 1 ? '' : 's'}${table.hasMore ? ' shown — more in the cursor (type "it")' : ''}`;
  return [wrap, caption];
}

function render(payload: unknown, element: HTMLElement): void {
  const style = document.createElement('style');
  style.textContent = STYLE;
  const { text, shape } = (payload ?? {}) as { text?: unknown; shape?: unknown };
  if (typeof text !== 'string') {
    element.replaceChildren(style, ...tableView(payload));
    return;
  }
  if (shape === 'document') {
    // One document (findOne, insertOne's acknowledgement): a one-row table adds nothing.
    const pre = document.createElement('pre');
    pre.className = 'ttlw-text';
    pre.textContent = text;
    element.replaceChildren(style, pre);
    return;
  }
  const draw = () => {
    const toggle = document.createElement('button');
    toggle.className = 'ttlw-switch';
    toggle.textContent = preferTable ? 'Show as mongosh prints it' : 'Show as table';
    toggle.addEventListener('click', () => {
      preferTable = !preferTable;
      draw();
    });
    if (preferTable) element.replaceChildren(style, toggle, ...tableView(payload));
    else {
      const pre = document.createElement('pre');
      pre.className = 'ttlw-text';
      pre.textContent = text;
      element.replaceChildren(style, pre, toggle);
    }
  };
  draw();
}

export function activate(): RendererApi {
  return {
    renderOutputItem(item, element) {
      try {
        render(item.json(), element);
      } catch (err) {
        const pre = document.createElement('pre');
        pre.textContent = `TTL Workbench could not draw this table: ${(err as Error).message}`;
        element.replaceChildren(pre);
      }
    },
  };
}
