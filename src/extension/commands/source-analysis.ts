/**
 * Commands of the source diagnostics that need no engine: Check Workspace and the NaN quick fix's
 * value prompt. They register with the analysis (Apply to Engine, which needs the engine, is
 * apply-definition.ts). Each takes an argument object and returns its result.
 */
import * as vscode from 'vscode';
import { checkWorkspace } from '../analysis/check-workspace';
import { replaceTTLValue } from '../analysis/code-actions';
import type { LiveDiagnostics } from '../analysis/live-diagnostics';
import { BOUND_FILES_SETTING, toggledBinding } from '../logic/engine-binding';
import { checkWorkspaceSummary } from '../logic/check-summary';
import { registerCommand, WorkbenchError, type CommandHost, type CommandSpec } from './context';

/** Registers the commands; `ids` names them, so activation stands in for every other command only. */
export function registerSourceCommands(
  services: CommandHost,
  live: LiveDiagnostics,
): { ids: string[]; disposables: vscode.Disposable[] } {
  const specs: CommandSpec[] = [
    {
      id: 'ttlWorkbench.checkWorkspace',
      action: 'Check Workspace',
      run: async (inv) => {
        const r = await checkWorkspace(live);
        const text = checkWorkspaceSummary(r);
        if (!inv.args.quiet)
          services.notifier.showAndForget(
            r.problems ? 'warning' : 'info',
            text,
            r.problems ? ['Show Problems'] : [],
            (c) =>
              c === 'Show Problems' ? vscode.commands.executeCommand('workbench.actions.view.problems') : undefined,
          );
        return { ...r, message: text };
      },
    },
    {
      id: 'ttlWorkbench.bindFileToEngine',
      action: 'Bind File to Engine',
      run: async (inv) => {
        const arg = inv.args.uri;
        const uri =
          typeof arg === 'string'
            ? vscode.Uri.parse(arg)
            : arg instanceof vscode.Uri
              ? arg
              : vscode.window.activeTextEditor?.document.uri;
        if (!uri) throw new WorkbenchError('Open the file whose code runs against the embedded engine first.');
        if (!vscode.workspace.getWorkspaceFolder(uri))
          throw new WorkbenchError(
            `${uri.fsPath} is outside the workspace: only workspace files can be bound (ttlWorkbench.${BOUND_FILES_SETTING} is a workspace setting).`,
          );
        const relative = vscode.workspace.asRelativePath(uri, false);
        const config = vscode.workspace.getConfiguration('ttlWorkbench');
        const current = config.get<unknown>(BOUND_FILES_SETTING, []);
        const patterns = Array.isArray(current) ? current.filter((x): x is string => typeof x === 'string') : [];
        const wanted = typeof inv.args.bound === 'boolean' ? inv.args.bound : undefined;
        const next = toggledBinding(patterns, relative);
        if (wanted === undefined || wanted === next.bound)
          await config.update(BOUND_FILES_SETTING, next.patterns, vscode.ConfigurationTarget.Workspace);
        const bound = wanted ?? next.bound;
        const text = bound
          ? `${relative} runs against the embedded engine: the rules that compare code with the engine (TTL011, TTL008) and "Apply to engine" apply there. Run Bind File to Engine again to unbind it.`
          : `${relative} is no longer bound to the embedded engine: the engine's state no longer affects its diagnostics.`;
        if (!inv.args.quiet) services.notifier.showAndForget('info', text, [], () => undefined);
        return { ok: true, bound, path: relative, message: text };
      },
    },
    {
      id: 'ttlWorkbench.replaceTTLValue',
      action: 'Replace expireAfterSeconds',
      run: async (inv) => {
        const a = inv.args as Parameters<typeof replaceTTLValue>[0];
        if (typeof a.uri !== 'string' || !Array.isArray(a.range))
          throw new WorkbenchError('Replace expireAfterSeconds needs {uri, range} (the quick fix passes them).');
        const r = await replaceTTLValue(a);
        if (!r.ok && r.message !== 'cancelled') throw new WorkbenchError(r.message ?? 'not replaced');
        return r.ok ? { ok: true, seconds: r.seconds } : { ok: false, cancelled: true };
      },
    },
  ];
  return { ids: specs.map((c) => c.id), disposables: specs.map((c) => registerCommand(services, c)) };
}
