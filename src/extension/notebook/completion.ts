/**
 * Completion in playground cells: the candidates come from logic/playground-completion.ts; the
 * collection names from the cell's own notebook engine (shared or isolated), in the database its
 * session is on.
 */
import * as vscode from 'vscode';
import { CELL_LANGUAGE } from '../logic/playground-notebook';
import { completionCandidates, completionContext } from '../logic/playground-completion';
import type { NotebookEngines } from './engines';

const KINDS = {
  collection: vscode.CompletionItemKind.Field,
  method: vscode.CompletionItemKind.Method,
  option: vscode.CompletionItemKind.Property,
} as const;

export function notebookOfCell(document: vscode.TextDocument): vscode.NotebookDocument | undefined {
  return vscode.workspace.notebookDocuments.find((nb) => nb.getCells().some((c) => c.document === document));
}

export function registerPlaygroundCompletion(engines: NotebookEngines): vscode.Disposable {
  const provider: vscode.CompletionItemProvider = {
    async provideCompletionItems(document, position) {
      const before = document.getText(new vscode.Range(new vscode.Position(0, 0), position));
      const ctx = completionContext(before);
      if (!ctx) return undefined;
      let collections: string[] = [];
      if (ctx.kind === 'dbMember') {
        const notebook = notebookOfCell(document);
        try {
          if (notebook) {
            const session = await engines.session(notebook);
            const engine = engines.engineFor(notebook);
            // The catalog snapshot: answered at once even while a long cell keeps the engine busy.
            collections = (await engine.backend.catalog({ allowStale: true })).collections
              .filter((c) => c.db === session.dbName)
              .map((c) => c.name);
          }
        } catch {
          // Bad engine metadata: the methods are still worth offering.
        }
      }
      const range = document.getWordRangeAtPosition(position, /[A-Za-z_$][\w$]*/);
      return completionCandidates(ctx, collections).map((c) => {
        const item = new vscode.CompletionItem(c.label, KINDS[c.kind]);
        item.detail = c.detail;
        item.sortText = `${c.rank}_${c.label}`;
        if (c.insertText) item.insertText = c.insertText;
        if (range) item.range = range;
        return item;
      });
    },
  };
  return vscode.languages.registerCompletionItemProvider({ language: CELL_LANGUAGE }, provider, '.', '{', ',');
}
