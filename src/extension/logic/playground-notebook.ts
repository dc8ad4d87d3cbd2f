/**
 * The pure half of the `.ttlbook` notebook serializer: file text ↔ the plain data a VS Code
 * notebook is made of (cells with kind, text and metadata; notebook metadata). The VS Code glue
 * only copies these into `vscode.NotebookData` and back.
 *
 * Byte-identical saves: each cell keeps the exact text it was read from (`raw`) in its metadata,
 * and the notebook keeps the header as read. `serializeTtlbook` writes a cell's raw text when the
 * cell still says what it said when read, and the canonical form otherwise, so an unchanged
 * notebook saves to the same bytes and an edit touches only the lines of the edited cell.
 */
import { parseTtlbook, serializeTtlbook, type Ttlbook, type TtlbookCell } from '../../formats/ttlbook';

/** The cell language of code cells. */
export const CELL_LANGUAGE = 'ttl-mongosh';

export interface PlaygroundCellMetadata {
  /** Text after `// %%` (other than `[markdown]`). */
  title?: string;
  /** The cell's exact text in the file it was read from. */
  raw?: string;
  /** The raw text ran to the end of the file. */
  endsFile?: boolean;
}

export interface PlaygroundCellData {
  kind: 'code' | 'markdown';
  /** Code as written; markdown without its `// ` prefixes. */
  value: string;
  language: string;
  metadata: { ttlbook?: PlaygroundCellMetadata };
}

export interface PlaygroundNotebookMetadata {
  /** The `// ---` header's keys (title, engine, …): what a user or command may change. */
  header: Record<string, unknown>;
  /** The header text as read, and its keys as read (to know whether it changed since). */
  rawHeader?: string;
  headerAsRead?: string;
}

export interface PlaygroundNotebookData {
  cells: PlaygroundCellData[];
  metadata: { ttlbook: PlaygroundNotebookMetadata };
}

export function notebookDataFromText(text: string): PlaygroundNotebookData {
  const book = parseTtlbook(text);
  return {
    cells: book.cells.map((c) => ({
      kind: c.kind,
      value: c.source,
      language: c.kind === 'code' ? CELL_LANGUAGE : 'markdown',
      metadata: {
        ttlbook: {
          ...(c.title ? { title: c.title } : {}),
          ...(c.raw !== undefined ? { raw: c.raw } : {}),
          ...(c.endsFile ? { endsFile: true } : {}),
        },
      },
    })),
    metadata: {
      ttlbook: {
        header: book.metadata,
        ...(book.rawHeader !== undefined ? { rawHeader: book.rawHeader } : {}),
        headerAsRead: JSON.stringify(book.metadata),
      },
    },
  };
}

/** Any cell-like data: what VS Code hands back may have lost or never had our metadata. */
export interface CellLike {
  kind: 'code' | 'markdown';
  value: string;
  metadata?: { ttlbook?: PlaygroundCellMetadata } | Record<string, unknown>;
}

export function textFromNotebookData(
  cells: readonly CellLike[],
  metadata: { ttlbook?: PlaygroundNotebookMetadata } | Record<string, unknown> | undefined,
): string {
  const nb = (metadata as { ttlbook?: PlaygroundNotebookMetadata } | undefined)?.ttlbook;
  const header = nb?.header ?? {};
  const book: Ttlbook = {
    metadata: header,
    cells: cells.map((c): TtlbookCell => {
      const m = (c.metadata as { ttlbook?: PlaygroundCellMetadata } | undefined)?.ttlbook ?? {};
      return {
        kind: c.kind,
        source: c.value,
        line: 0,
        ...(m.title ? { title: m.title } : {}),
        ...(typeof m.raw === 'string' ? { raw: m.raw } : {}),
        ...(m.endsFile ? { endsFile: true } : {}),
      };
    }),
  };
  // The header as read is reused only while its keys are those read: a changed engine setting is
  // written in the canonical form.
  const original: Ttlbook | undefined =
    nb?.rawHeader !== undefined && nb.headerAsRead !== undefined
      ? { metadata: JSON.parse(nb.headerAsRead) as Record<string, unknown>, cells: [], rawHeader: nb.rawHeader }
      : undefined;
  return serializeTtlbook(book, original);
}
