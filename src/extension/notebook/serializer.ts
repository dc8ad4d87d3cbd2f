/**
 * `.ttlbook` files as VS Code notebooks: the format itself is src/shell/ttlbook.ts, the mapping
 * to plain cell data is logic/playground-notebook.ts; this only copies that data into VS Code's
 * types. Outputs are never written (results are reproducible on the virtual clock).
 */
import * as vscode from 'vscode';
import { notebookDataFromText, textFromNotebookData, type CellLike } from '../logic/playground-notebook';

export const NOTEBOOK_TYPE = 'ttl-workbench-playground';

const decoder = new TextDecoder();
const encoder = new TextEncoder();

export class TtlbookSerializer implements vscode.NotebookSerializer {
  deserializeNotebook(content: Uint8Array): vscode.NotebookData {
    const data = notebookDataFromText(decoder.decode(content));
    const cells = data.cells.map((c) => {
      const cell = new vscode.NotebookCellData(
        c.kind === 'code' ? vscode.NotebookCellKind.Code : vscode.NotebookCellKind.Markup,
        c.value,
        c.language,
      );
      cell.metadata = c.metadata;
      return cell;
    });
    const notebook = new vscode.NotebookData(cells);
    notebook.metadata = data.metadata;
    return notebook;
  }

  serializeNotebook(data: vscode.NotebookData): Uint8Array {
    const cells: CellLike[] = data.cells.map((c) => ({
      kind: c.kind === vscode.NotebookCellKind.Code ? 'code' : 'markdown',
      value: c.value,
      metadata: c.metadata ?? {},
    }));
    return encoder.encode(textFromNotebookData(cells, data.metadata));
  }
}

/** NotebookData for text in the .ttlbook format (new and example notebooks opened untitled). */
export function notebookDataOf(text: string): vscode.NotebookData {
  return new TtlbookSerializer().deserializeNotebook(encoder.encode(text));
}
