/**
 * Commands of the source diagnostics that need no engine: Check Workspace and the NaN quick fix's
 * value prompt. They register with the analysis (Apply to Engine, which needs the engine, is
 * apply-definition.ts). Each takes an argument object and returns its result.
 */
import * as vscode from 'vscode';
import { checkWorkspace } from '../analysis/check-workspace';
import { replaceTTLValue } from '../analysis/code-actions';
import type { LiveDiagnostics } from '../analysis/live-diagnostics';
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
        const text = `Checked ${r.files} files: ${r.problems} TTL problem${r.problems === 1 ? '' : 's'} (${r.errors} error${r.errors === 1 ? '' : 's'})${r.cancelled ? ', stopped early' : ''}.`;
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
