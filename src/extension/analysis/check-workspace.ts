/**
 * "TTL Workbench: Check Workspace": every analysable file of the workspace (node_modules skipped,
 * files.exclude honoured by findFiles) analysed with a progress notification, the problems put into
 * the Problems panel. Open documents are read from their editors (unsaved text included).
 */
import * as vscode from 'vscode';
import { analyzeText, LineIndex, type Problem } from '../../analysis';
import { toDiagnostic } from './document-analysis';
import type { LiveDiagnostics } from './live-diagnostics';

export const CHECK_GLOB = '**/*.{js,mjs,cjs,jsx,ts,mts,cts,tsx,ttlbook}';

export interface CheckWorkspaceResult {
  ok: true;
  files: number;
  /** What the Problems panel counts (errors, warnings, information). */
  problems: number;
  errors: number;
  /** Hints (the Problems panel does not count them). */
  hints: number;
  cancelled: boolean;
}

export async function checkWorkspace(live: LiveDiagnostics): Promise<CheckWorkspaceResult> {
  const uris = (await vscode.workspace.findFiles(CHECK_GLOB)).filter(
    (u) => !u.path.includes('/node_modules/') && !u.path.endsWith('.d.ts'),
  );
  let problems = 0;
  let errors = 0;
  let hints = 0;
  let done = 0;
  let cancelled = false;
  await vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: 'TTL Workbench: checking the workspace',
      cancellable: true,
    },
    async (progress, token) => {
      for (const uri of uris) {
        if (token.isCancellationRequested) {
          cancelled = true;
          break;
        }
        progress.report({
          message: `${done + 1}/${uris.length} ${vscode.workspace.asRelativePath(uri)}`,
          increment: 100 / Math.max(1, uris.length),
        });
        const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
        const text = open ? open.getText() : new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
        const found = analyzeText(text, uri.path, live.options(uri)).problems;
        const index = new LineIndex(text);
        const range = (s: { start: number; end: number }) => {
          const a = index.position(s.start);
          const b = index.position(s.end);
          return new vscode.Range(a.line, a.character, b.line, b.character);
        };
        live.collection.set(
          uri,
          found.map((p: Problem) => toDiagnostic(p, range(p), (r) => new vscode.Location(uri, range(r)))),
        );
        live.checkedByWorkspace.add(uri.toString());
        problems += found.filter((p) => p.severity !== 'hint').length;
        hints += found.filter((p) => p.severity === 'hint').length;
        errors += found.filter((p) => p.severity === 'error').length;
        done++;
        // Give the extension host's event loop a turn between files.
        await new Promise((r) => setImmediate(r));
      }
    },
  );
  return { ok: true, files: done, problems, errors, hints, cancelled };
}
