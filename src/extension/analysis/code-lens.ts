/**
 * "Apply to engine" above each definition whose every part is literal: it runs the definition's
 * command (createIndexes, create, collMod) against the embedded engine through the Backend.
 */
import * as vscode from 'vscode';
import type { Document } from '../../engine';
import type { Backend } from '../backend/backend';
import type { EngineSnapshot } from './engine-snapshot';
import { inDocument, rangeOf, type DocumentAnalyzer } from './document-analysis';

const APPLY_COMMAND = 'ttlWorkbench.applyDefinition';

export class ApplyToEngineLens implements vscode.CodeLensProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(private readonly analyzer: DocumentAnalyzer) {}

  refresh(): void {
    this.changed.fire();
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
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

export interface ApplyArgs {
  db?: string;
  collection: string;
  command: Document;
}

/** Which database a definition without one means: the one that has the collection, else "test" (mongosh's default). */
export async function applyDefinition(
  backend: Backend,
  snapshot: EngineSnapshot,
  args: ApplyArgs,
): Promise<{ ok: boolean; db: string; reply?: Document; code?: number; codeName?: string; message?: string }> {
  const db = args.db ?? (await snapshot.refresh())?.collection({ collection: args.collection })?.db ?? 'test';
  try {
    const reply = await backend.runCommand(db, args.command);
    return { ok: true, db, reply };
  } catch (e) {
    const err = e as { code?: number; codeName?: string; message?: string };
    return { ok: false, db, code: err.code, codeName: err.codeName, message: err.message ?? String(e) };
  }
}
