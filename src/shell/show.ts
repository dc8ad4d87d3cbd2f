/**
 * `show("dbs")` / `show("collections")`: mongosh's show helpers as a function (a script file
 * cannot use the `show dbs` command syntax, mongosh's neither). The result prints as mongosh's
 * table: names left-aligned, sizes (or badges) in a second column two spaces on, each row's
 * trailing blanks cut.
 */
import type { Document } from '../engine';
import { shellDisplay } from './render';
import type { ShellRuntime } from './runtime';

const BINARY_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB', 'ZiB', 'YiB'];

/** mongosh's size text: whole bytes up to 1000, else two decimals in the largest binary unit reached. */
export function formatBytes(bytes: number): string {
  if (bytes <= 1000) return `${Math.round(bytes)} B`;
  let power = 0;
  while (power < BINARY_UNITS.length - 1 && bytes >= 1024 ** (power + 1)) power++;
  return `${(bytes / 1024 ** power).toFixed(2)} ${BINARY_UNITS[power]}`;
}

/** Rows as columns: each column as wide as its widest cell, right-aligned where asked. */
export function table(rows: string[][], rightAligned: boolean[]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows
    .map((row) =>
      row
        .map((cell, i) => (rightAligned[i] ? cell.padStart(widths[i]) : cell.padEnd(widths[i])))
        .join('  ')
        .replace(/\s+$/, ''),
    )
    .join('\n');
}

/** What `show` returns: prints as its table, and keeps the rows for a script that reads them. */
export class ShowResult {
  constructor(
    readonly type: string,
    readonly value: Document[],
    private readonly text: string,
  ) {}

  [shellDisplay](): string {
    return this.text;
  }
}

function badgeOf(info: Document): string {
  if (info.type === 'timeseries') return '[time-series]';
  if (info.type === 'view') return '[view]';
  return '';
}

export function show(rt: ShellRuntime, what: unknown): ShowResult {
  switch (what) {
    case 'dbs':
    case 'databases': {
      const dbs = rt.out(rt.run('admin', { listDatabases: 1 }).databases as Document[]);
      const rows = dbs.map((d) => [String(d.name), formatBytes(Number(d.sizeOnDisk ?? 0))]);
      return new ShowResult('ShowDatabasesResult', dbs, table(rows, [false, true]));
    }
    case 'collections':
    case 'tables': {
      const reply = rt.run(rt.dbName, { listCollections: 1, nameOnly: true, cursor: {} });
      const infos = rt.out((reply.cursor as Document).firstBatch as Document[]);
      // mongosh lists collections by name; system collections come last.
      infos.sort((a, b) => String(a.name).localeCompare(String(b.name)));
      const system = (i: Document) => String(i.name).startsWith('system.') || String(i.name).startsWith('enxcol_.');
      const ordered = [...infos.filter((i) => !system(i)), ...infos.filter(system)];
      const rows = ordered.map((i) => [String(i.name), badgeOf(i)]);
      const names = ordered.map((i) => ({ name: i.name, badge: badgeOf(i) }));
      return new ShowResult('ShowCollectionsResult', names, table(rows, [false, false]));
    }
    default:
      throw rt.errors.error(
        `show ${String(what)} is not available here: use show("dbs") or show("collections").`,
        'MongoshInvalidInputError',
      );
  }
}
