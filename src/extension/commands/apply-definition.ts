/**
 * Apply to Engine, the command behind the CodeLens above a literal TTL definition in source code:
 * it runs the definition's command (createIndexes, create, collMod) against the embedded engine.
 */
import type * as vscode from 'vscode';
import type { Document } from '../../engine';
import type { Backend } from '../backend/backend';
import type { LiveDiagnostics } from '../analysis/live-diagnostics';
import type { EngineSnapshot } from '../analysis/engine-snapshot';
import { registerCommand, reportSuccess, WorkbenchError, type Services } from './context';
import { requireTrust } from '../ui/workspace-trust';

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

export function registerApplyDefinition(services: Services, live: LiveDiagnostics): vscode.Disposable {
  return registerCommand(services, {
    id: 'ttlWorkbench.applyDefinition',
    action: 'Apply to Engine',
    run: async (inv) => {
      requireTrust('Apply to Engine');
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
