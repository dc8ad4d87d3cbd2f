/**
 * "Apply to engine" above each definition whose every part is literal: it runs the definition's
 * command (createIndexes, create, collMod) against the embedded engine (commands/apply-definition.ts).
 * Shown where code runs against the engine (playground notebooks, bound files), or everywhere with
 * ttlWorkbench.codeLens.applyEverywhere; an application's code elsewhere stays quiet. Not in an
 * untrusted workspace (Restricted Mode).
 */
import * as vscode from 'vscode';
import { inDocument, rangeOf, type DocumentAnalyzer } from './document-analysis';

const APPLY_COMMAND = 'ttlWorkbench.applyDefinition';

export class ApplyToEngineLens implements vscode.CodeLensProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(
    private readonly analyzer: DocumentAnalyzer,
    private readonly shown: (doc: vscode.TextDocument) => boolean,
  ) {}

  refresh(): void {
    this.changed.fire();
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    // Restricted Mode: applying runs a workspace file's definitions; the lens comes back on trust.
    if (!vscode.workspace.isTrusted || !this.shown(doc)) return [];
    const analysis = this.analyzer.analyze(doc);
    return analysis.result.runnable
      .filter((r) => inDocument(r, analysis))
      .map((r) => {
        const range = rangeOf(doc, r);
        return new vscode.CodeLens(new vscode.Range(range.start, range.start), {
          title: '$(play) Apply to engine',
          tooltip: `Run ${r.label} against the embedded engine`,
          command: APPLY_COMMAND,
          arguments: [{ db: r.ns.db, collection: r.ns.collection, command: r.command }],
        });
      });
  }
}
