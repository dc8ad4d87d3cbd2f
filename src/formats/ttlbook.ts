/**
 * The `.ttlbook` playground format: plain JavaScript that mongosh could run as a script, with
 * cells marked in the spirit of Jupytext's percent format so a notebook diffs cleanly in git.
 *
 *   // ---
 *   // title: Expire after N seconds
 *   // engine: {"isolated": true, "now": "2026-01-01T00:00:00Z"}
 *   // ---
 *
 *   // %% [markdown]
 *   // # A heading
 *   // Markdown lines are comments.
 *
 *   // %%
 *   db.sessions.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 3600 })
 *
 * Metadata lines are `key: value`, the value JSON when it parses as JSON and a string otherwise.
 * Outputs are never stored: on the virtual clock a notebook's results are reproducible. Parsing
 * keeps each cell's exact text, so saving an unchanged notebook writes the same bytes.
 */

export type CellKind = 'code' | 'markdown';

export interface TtlbookCell {
  kind: CellKind;
  /** The cell's content: code as written, markdown without its `// ` comment prefixes. */
  source: string;
  /** Text after `// %%` on the marker line, other than `[markdown]` (a cell title). */
  title?: string;
  /** 1-based line of the cell's first content line in the file (for error positions). */
  line: number;
  /** The exact text of the cell as read (marker to before the next marker), for byte-identical saves. */
  raw?: string;
  /** The raw text ran to the end of the file (so it has no separator after it). */
  endsFile?: boolean;
}

export interface Ttlbook {
  metadata: Record<string, unknown>;
  cells: TtlbookCell[];
  /** The exact header text as read (metadata block and what follows it before the first cell). */
  rawHeader?: string;
}

const MARKER = /^\/\/ %%(.*)$/;
const HEADER_FENCE = '// ---';

function parseMetadataValue(text: string): unknown {
  const t = text.trim();
  try {
    return JSON.parse(t);
  } catch {
    return t;
  }
}

function formatMetadataValue(value: unknown): string {
  return typeof value === 'string' && !/^[[{"\d-]|^(true|false|null)$/.test(value) ? value : JSON.stringify(value);
}

/** Markdown content from comment lines: `// text` → `text`, `//` → empty. */
function uncomment(lines: string[]): string {
  return lines.map((l) => (l.startsWith('// ') ? l.slice(3) : l.startsWith('//') ? l.slice(2) : l)).join('\n');
}

function comment(text: string): string {
  return text
    .split('\n')
    .map((l) => (l.length === 0 ? '//' : `// ${l}`))
    .join('\n');
}

/** Strip the blank lines that separate cells, keeping the content itself exact. */
function trimBlankLines(lines: string[]): { lines: string[]; leading: number } {
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start].trim() === '') start++;
  while (end > start && lines[end - 1].trim() === '') end--;
  return { lines: lines.slice(start, end), leading: start };
}

export function parseTtlbook(text: string): Ttlbook {
  const lines = text.split('\n');
  const metadata: Record<string, unknown> = {};
  let i = 0;
  if (lines[0] === HEADER_FENCE) {
    const close = lines.indexOf(HEADER_FENCE, 1);
    if (close > 0) {
      for (const line of lines.slice(1, close)) {
        const body = line.startsWith('// ') ? line.slice(3) : line.replace(/^\/\/\s?/, '');
        const colon = body.indexOf(':');
        if (colon > 0) metadata[body.slice(0, colon).trim()] = parseMetadataValue(body.slice(colon + 1));
      }
      i = close + 1;
    }
  }
  // Cell boundaries: marker lines; code before the first marker is a cell of its own.
  const starts: number[] = [];
  for (let j = i; j < lines.length; j++) if (MARKER.test(lines[j])) starts.push(j);
  const cells: TtlbookCell[] = [];
  const firstMarker = starts.length ? starts[0] : lines.length;
  const preamble = trimBlankLines(lines.slice(i, firstMarker));
  const headerEnd = preamble.lines.length ? i : firstMarker;
  // Every chunk ends with the newline that separates it from the next; the file's last chunk ends
  // exactly where the file does.
  const chunk = (from: number, to: number) => lines.slice(from, to).join('\n') + (to < lines.length ? '\n' : '');
  const rawHeader = headerEnd > 0 ? chunk(0, headerEnd) : '';
  if (preamble.lines.length) {
    cells.push({
      kind: 'code',
      source: preamble.lines.join('\n'),
      line: i + preamble.leading + 1,
      raw: chunk(i, firstMarker),
      endsFile: firstMarker === lines.length,
    });
  }
  for (let k = 0; k < starts.length; k++) {
    const at = starts[k];
    const next = k + 1 < starts.length ? starts[k + 1] : lines.length;
    const marker = MARKER.exec(lines[at])![1].trim();
    const isMarkdown = /^\[markdown\]/.test(marker) || /\[markdown\]$/.test(marker);
    const title = marker.replace('[markdown]', '').trim();
    const body = trimBlankLines(lines.slice(at + 1, next));
    const raw = chunk(at, next);
    cells.push({
      kind: isMarkdown ? 'markdown' : 'code',
      source: isMarkdown ? uncomment(body.lines) : body.lines.join('\n'),
      ...(title ? { title } : {}),
      line: at + 2 + body.leading,
      raw,
      endsFile: next === lines.length,
    });
  }
  return { metadata, cells, rawHeader };
}

function headerText(metadata: Record<string, unknown>): string {
  const keys = Object.keys(metadata);
  if (keys.length === 0) return '';
  const body = keys.map((k) => `// ${k}: ${formatMetadataValue(metadata[k])}`).join('\n');
  return `${HEADER_FENCE}\n${body}\n${HEADER_FENCE}\n\n`;
}

function cellText(cell: TtlbookCell): string {
  const marker = `// %%${cell.title ? ` ${cell.title}` : ''}${cell.kind === 'markdown' ? ' [markdown]' : ''}`;
  const body = cell.kind === 'markdown' ? comment(cell.source) : cell.source;
  return `${marker}\n${body}\n`;
}

/**
 * Text of a notebook. Cells whose source is unchanged since parsing keep their exact original text;
 * new or edited cells are written in the canonical form (marker, content, one blank line).
 */
export function serializeTtlbook(book: Ttlbook, original?: Ttlbook): string {
  const sameMeta = original && JSON.stringify(original.metadata) === JSON.stringify(book.metadata);
  let out = sameMeta && original?.rawHeader !== undefined ? original.rawHeader : headerText(book.metadata);
  book.cells.forEach((cell, index) => {
    const before = cell.raw !== undefined ? parseTtlbook(cell.raw).cells[0] : undefined;
    const unchanged =
      before &&
      before.source === cell.source &&
      before.kind === cell.kind &&
      (before.title ?? '') === (cell.title ?? '');
    const last = index === book.cells.length - 1;
    if (unchanged && cell.raw !== undefined) {
      // A cell that is last only because the cells after it went: drop its separating blank lines.
      out += last && !cell.endsFile ? cell.raw.replace(/\n[ \t\r\n]*$/, '\n') : cell.raw;
      // A cell that used to end the file needs a separator once another cell follows it.
      if (!last && cell.endsFile) out += cell.raw.endsWith('\n') ? '\n' : '\n\n';
    } else {
      out += cellText(cell) + (index < book.cells.length - 1 ? '\n' : '');
    }
  });
  return out;
}

/** Run a notebook as a script: the code cells in order, each with its line in the file. */
export function codeCells(book: Ttlbook): TtlbookCell[] {
  return book.cells.filter((c) => c.kind === 'code' && c.source.trim() !== '');
}

/** What a notebook's `engine` metadata asks for: `{"isolated": true, "now": "…", "flavor": "cosmos", "replSet": "rs0"}`. */
export interface EngineRequest {
  /** Its own fresh engine instead of the shared one (the CLI always gives each file its own). */
  isolated: boolean;
  /** Where a virtual clock starts. */
  now?: Date;
  flavor?: 'mongodb' | 'cosmos';
  serverVersion?: '8.0' | '7.0';
  clock?: 'virtual' | 'system';
  /** A one-member replica set of this name (sessions, transactions, change streams), on an engine of its own. */
  replSet?: string;
}

/**
 * Reads and checks the `engine` metadata. Unknown keys are refused rather than ignored: a typo
 * (`"isolate": true`) would otherwise run the notebook against the wrong engine without a word.
 */
export function engineRequestOf(metadata: Record<string, unknown>): EngineRequest | { error: string } {
  const raw = metadata.engine;
  if (raw === undefined) return { isolated: false };
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    return {
      error: `the notebook's engine metadata must be an object such as {"isolated": true, "now": "2026-01-01T00:00:00Z"}, got ${JSON.stringify(raw)}`,
    };
  const m = raw as Record<string, unknown>;
  const known = ['isolated', 'now', 'flavor', 'serverVersion', 'clock', 'replSet'];
  const unknown = Object.keys(m).filter((k) => !known.includes(k));
  if (unknown.length)
    return {
      error: `unknown key${unknown.length > 1 ? 's' : ''} in the notebook's engine metadata: ${unknown.join(', ')} (known: ${known.join(', ')})`,
    };
  const out: EngineRequest = { isolated: false };
  if (m.isolated !== undefined) {
    if (typeof m.isolated !== 'boolean')
      return { error: `engine.isolated must be true or false, got ${JSON.stringify(m.isolated)}` };
    out.isolated = m.isolated;
  }
  if (m.now !== undefined) {
    const d = typeof m.now === 'string' || typeof m.now === 'number' ? new Date(m.now) : new Date(NaN);
    if (Number.isNaN(d.getTime()))
      return {
        error: `the notebook's engine.now metadata is not a date: ${JSON.stringify(m.now)} (use an ISO date such as "2026-01-01T00:00:00Z")`,
      };
    out.now = d;
  }
  if (m.flavor !== undefined) {
    if (m.flavor !== 'mongodb' && m.flavor !== 'cosmos')
      return { error: `engine.flavor must be "mongodb" or "cosmos", got ${JSON.stringify(m.flavor)}` };
    out.flavor = m.flavor;
  }
  if (m.serverVersion !== undefined) {
    if (m.serverVersion !== '8.0' && m.serverVersion !== '7.0')
      return { error: `engine.serverVersion must be "8.0" or "7.0", got ${JSON.stringify(m.serverVersion)}` };
    out.serverVersion = m.serverVersion;
  }
  if (m.clock !== undefined) {
    if (m.clock !== 'virtual' && m.clock !== 'system')
      return { error: `engine.clock must be "virtual" or "system", got ${JSON.stringify(m.clock)}` };
    out.clock = m.clock;
  }
  if (m.replSet !== undefined) {
    // The engine's own rule for a set name (Engine's replSetName).
    if (typeof m.replSet !== 'string' || !/^[^/\s,]+$/.test(m.replSet))
      return {
        error: `engine.replSet must be a replica set name without spaces, "/" or ",", such as "rs0", got ${JSON.stringify(m.replSet)}`,
      };
    out.replSet = m.replSet;
  }
  return out;
}
