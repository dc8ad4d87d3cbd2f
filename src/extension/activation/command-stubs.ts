/**
 * Every command of package.json exists from activation on, but most need the engine, which starts
 * on first need. A stub stands in for each of those: the first call of any of them starts the
 * engine (which disposes the stubs and registers the real commands), then runs the real command
 * with the same arguments. VS Code infers the `onCommand:` activation events from
 * `contributes.commands`, so a command run from a window where nothing activated the extension
 * also lands here. If the engine cannot start (the starter has said why), the stub answers
 * `{ok: false}` as a refused command does.
 */
import * as vscode from 'vscode';

/** The command ids package.json contributes. */
export function contributedCommands(context: vscode.ExtensionContext): string[] {
  const manifest = context.extension.packageJSON as { contributes?: { commands?: Array<{ command: string }> } };
  return (manifest.contributes?.commands ?? []).map((c) => c.command);
}

export function registerCommandStubs(ids: readonly string[], start: (reason: string) => boolean): vscode.Disposable {
  const stubs = ids.map((id) =>
    vscode.commands.registerCommand(id, (...args: unknown[]) => {
      if (!start(`the command ${id}`))
        return { ok: false, message: 'The TTL Workbench engine could not start (see the notification and the log).' };
      return vscode.commands.executeCommand(id, ...args);
    }),
  );
  return vscode.Disposable.from(...stubs);
}
