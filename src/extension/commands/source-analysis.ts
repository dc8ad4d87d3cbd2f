/**
 * Commands of the source diagnostics: Check Workspace and the NaN quick fix's value prompt, which
 * need no engine and register with the analysis, and Apply to Engine (the CodeLens), which
 * registers with the engine. Each takes an argument object and returns its result.
 */
import * as vscode from 'vscode';
import type { Document } from '../../engine';
import { checkWorkspace } from '../analysis/check-workspace';
import { applyDefinition } from '../analysis/code-lens';
import { replaceTTLValue } from '../analysis/code-actions';
import type { LiveDiagnostics } from '../analysis/live-diagnostics';
import { registerCommand, reportSuccess, WorkbenchError, type CommandHost, type Services } from './context';

export function registerSourceCommands(services: CommandHost, live: LiveDiagnostics): vscode.Disposable[] {
  return [
    registerCommand(services, {
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
    }),
    registerCommand(services, {
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
    }),
  ];
}

export function registerApplyDefinition(services: Services, live: LiveDiagnostics): vscode.Disposable {
  return registerCommand(services, {
    id: 'ttlWorkbench.applyDefinition',
    action: 'Apply to Engine',
    run: async (inv) => {
      const { collection, command, db } = inv.args as { collection?: unknown; command?: unknown; db?: unknown };
      if (typeof collection !== 'string' || !command || typeof command !== 'object')
        throw new WorkbenchError('Apply to Engine needs {collection, command} (the CodeLens passes them).');
      const r = await applyDefinition(services.backend, live.snapshot, {
        collection,
        command: command as Document,
        ...(typeof db === 'string' ? { db } : {}),
      });
      if (!r.ok) throw Object.assign(new Error(r.message ?? 'refused'), { code: r.code, codeName: r.codeName });
      reportSuccess(services, inv, `Applied to ${r.db}.${collection}.`);
      return { ok: true, db: r.db, reply: r.reply };
    },
  });
}
