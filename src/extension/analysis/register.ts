/**
 * Wires the source analysis into VS Code: diagnostics, quick fixes, hover and CodeLens providers,
 * and the commands that need no engine (Check Workspace, the NaN quick fix's prompt). This is what
 * a JavaScript or TypeScript file activates; it reads the engine through the link once the engine
 * has started, and never starts it.
 */
import * as vscode from 'vscode';
import type { EngineLink } from '../engine-link';
import { registerSourceCommands } from '../commands/source-analysis';
import type { CommandHost } from '../commands/context';
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

export function registerSourceAnalysis(
  engine: EngineLink,
  commands: CommandHost,
): { live: LiveDiagnostics; commandIds: string[]; disposables: vscode.Disposable[] } {
  const live = new LiveDiagnostics(engine);
  const sourceCommands = registerSourceCommands(commands, live);
  const lens = new ApplyToEngineLens(
    live.analyzer,
    (doc) => live.applyLensEverywhere || live.runsAgainstEngine(doc.uri),
  );
  const disposables: vscode.Disposable[] = [
    live,
    vscode.languages.registerCodeActionsProvider(SOURCE_SELECTOR, new SourceCodeActions(live.analyzer), {
      providedCodeActionKinds: SourceCodeActions.kinds,
    }),
    vscode.languages.registerHoverProvider(SOURCE_SELECTOR, new TTLValueHover(live.analyzer, engine, live.snapshot)),
    vscode.languages.registerCodeLensProvider(SOURCE_SELECTOR, lens),
    { dispose: engine.onDidChange(() => lens.refresh()) },
    vscode.workspace.onDidGrantWorkspaceTrust(() => lens.refresh()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('ttlWorkbench.engineBoundFiles') || e.affectsConfiguration('ttlWorkbench.codeLens'))
        lens.refresh();
    }),
    ...sourceCommands.disposables,
  ];
  live.analyzeVisible();
  return { live, commandIds: sourceCommands.ids, disposables };
}
