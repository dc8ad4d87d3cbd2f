/** Wires the source analysis into VS Code: diagnostics, quick fixes, hover and CodeLens providers. */
import * as vscode from 'vscode';
import type { Backend } from '../backend/backend';
import { ApplyToEngineLens } from './code-lens';
import { SourceCodeActions } from './code-actions';
import { LiveDiagnostics } from './live-diagnostics';
import { TTLValueHover } from './hover';

/** Documents the providers answer for: scripts, notebook cells and .ttlbook files. */
export const SOURCE_SELECTOR: vscode.DocumentSelector = [
  { language: 'javascript' },
  { language: 'javascriptreact' },
  { language: 'typescript' },
  { language: 'typescriptreact' },
  { pattern: '**/*.ttlbook' },
];

export function registerSourceAnalysis(backend: Backend): { live: LiveDiagnostics; disposables: vscode.Disposable[] } {
  const live = new LiveDiagnostics(backend);
  const lens = new ApplyToEngineLens(live.analyzer);
  const disposables: vscode.Disposable[] = [
    live,
    vscode.languages.registerCodeActionsProvider(SOURCE_SELECTOR, new SourceCodeActions(live.analyzer), {
      providedCodeActionKinds: SourceCodeActions.kinds,
    }),
    vscode.languages.registerHoverProvider(SOURCE_SELECTOR, new TTLValueHover(live.analyzer, backend, live.snapshot)),
    vscode.languages.registerCodeLensProvider(SOURCE_SELECTOR, lens),
    { dispose: backend.onDidChange(() => lens.refresh()) },
  ];
  live.analyzeVisible();
  return { live, disposables };
}
