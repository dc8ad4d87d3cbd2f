/**
 * The "Get Started with TTL Workbench" walkthrough (package.json `walkthroughs`): opened once, the
 * first time the extension activates after it is installed (a flag in globalState, so not on
 * every start), and from the command palette. Its steps complete on real actions; the quick-fix
 * step listens for the context key set here when a TTL quick fix is applied.
 */
import * as vscode from 'vscode';

export const WALKTHROUGH_ID = 'gettingStarted';
const OPEN_WALKTHROUGH = { id: 'ttlWorkbench.openWalkthrough', title: 'Get Started with TTL Workbench' } as const;
export const OPEN_WALKTHROUGH_COMMAND = OPEN_WALKTHROUGH.id;
/** Run after a quick fix's edit (code-actions.ts); the walkthrough's quick-fix step waits for the key it sets. */
export const QUICK_FIX_APPLIED_COMMAND = 'ttlWorkbench.quickFixApplied';
const SHOWN_KEY = 'ttlWorkbench.walkthroughShown';

function openWalkthrough(context: vscode.ExtensionContext): Thenable<unknown> {
  return vscode.commands.executeCommand(
    'workbench.action.openWalkthrough',
    `${context.extension.id}#${WALKTHROUGH_ID}`,
    false,
  );
}

export function registerWalkthrough(
  context: vscode.ExtensionContext,
  log: (text: string) => void,
): vscode.Disposable[] {
  const disposables = [
    vscode.commands.registerCommand(OPEN_WALKTHROUGH_COMMAND, () => openWalkthrough(context)),
    vscode.commands.registerCommand(QUICK_FIX_APPLIED_COMMAND, (code?: unknown) => {
      log(`Quick fix applied${typeof code === 'string' ? ` (${code})` : ''}.`);
      return vscode.commands.executeCommand('setContext', 'ttlWorkbench.quickFixApplied', true);
    }),
  ];
  if (!context.globalState.get<boolean>(SHOWN_KEY)) {
    // Set first: a window that fails to open it must not retry at every start.
    void context.globalState.update(SHOWN_KEY, true).then(() => openWalkthrough(context));
  }
  return disposables;
}
