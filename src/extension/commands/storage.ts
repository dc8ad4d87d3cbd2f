/**
 * Durable storage commands: Export Database as EJSON…, Import EJSON…, Reveal Data Folder,
 * Compact Now, Acknowledge Storage Damage. Each takes an argument object (db, file, into) so tests and other extensions need
 * no dialogs; interactively they ask with the usual pickers and file dialogs.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { formatCount, plural } from '../logic/durations';
import {
  inputBox,
  quickPick,
  registerCommand,
  reportSuccess,
  WorkbenchError,
  type CommandResult,
  type Invocation,
  type Services,
} from './context';

async function pickDatabase(services: Services, inv: Invocation): Promise<string> {
  if (typeof inv.args.db === 'string' && inv.args.db) return inv.args.db;
  if (inv.node?.type === 'database') return inv.node.db;
  if (!inv.interactive) throw new WorkbenchError("Export needs 'db': e.g. {db: 'app', file: '/tmp/app.ejson.json'}.");
  const dbs = await services.backend.listDatabases();
  if (dbs.length === 0) throw new WorkbenchError('There is no database to export yet.');
  return quickPick(
    dbs.map((d) => ({ label: d.name, value: d.name })),
    'Database to export',
  );
}

async function exportDatabase(services: Services, inv: Invocation): Promise<CommandResult> {
  const db = await pickDatabase(services, inv);
  let target: vscode.Uri | undefined = typeof inv.args.file === 'string' ? vscode.Uri.file(inv.args.file) : undefined;
  if (!target) {
    if (!inv.interactive) throw new WorkbenchError("Export needs 'file': the path to write.");
    target = await vscode.window.showSaveDialog({
      title: `Export ${db} as EJSON`,
      saveLabel: 'Export',
      filters: { 'Extended JSON': ['json'] },
      defaultUri: vscode.Uri.file(`${db}.ejson.json`),
    });
    if (!target) return { ok: false, cancelled: true };
  }
  // A local file is written by the engine host itself: the text of a large database never
  // reaches this thread. Other file systems (a virtual workspace) get the text through VS Code.
  const dest = target;
  const bytes = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Exporting ${db}…` },
    async () => {
      if (dest.scheme === 'file') return (await services.backend.exportDatabaseToFile(db, dest.fsPath)).bytes;
      const text = Buffer.from(await services.backend.exportDatabase(db), 'utf8');
      await vscode.workspace.fs.writeFile(dest, text);
      return text.length;
    },
  );
  reportSuccess(
    services,
    inv,
    `Exported ${db} to ${target.fsPath} (canonical EJSON: every BSON type, index and TTL setting).`,
  );
  return { ok: true, db, file: target.fsPath, bytes };
}

async function importEJSON(services: Services, inv: Invocation): Promise<CommandResult> {
  let source: vscode.Uri | undefined = typeof inv.args.file === 'string' ? vscode.Uri.file(inv.args.file) : undefined;
  if (!source) {
    if (!inv.interactive) throw new WorkbenchError("Import needs 'file': a file made by Export Database as EJSON….");
    const picked = await vscode.window.showOpenDialog({
      title: 'Import EJSON',
      openLabel: 'Import',
      canSelectMany: false,
      filters: { 'Extended JSON': ['json'] },
    });
    if (!picked?.length) return { ok: false, cancelled: true };
    source = picked[0];
  }
  let into = typeof inv.args.into === 'string' && inv.args.into ? inv.args.into : undefined;
  if (!into && inv.interactive) {
    into = await inputBox({
      title: 'Import EJSON',
      prompt: 'Into which database (empty: the name it was exported from)',
      placeHolder: 'the exported name',
    });
    into = into.trim() || undefined;
  }
  const from = source;
  const r = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Importing ${path.basename(from.fsPath)}…` },
    async () =>
      from.scheme === 'file'
        ? services.backend.importDatabaseFromFile(from.fsPath, into)
        : services.backend.importDatabase(Buffer.from(await vscode.workspace.fs.readFile(from)).toString('utf8'), into),
  );
  reportSuccess(
    services,
    inv,
    `Imported ${plural(r.documents, 'document')} into ${plural(r.collections, 'collection')} of ${r.database} (${plural(r.indexes, 'index', 'indexes')}).`,
  );
  return { ok: true, ...r };
}

async function revealDataFolder(services: Services, inv: Invocation): Promise<CommandResult> {
  const info = await services.backend.storageInfo();
  if (info.mode !== 'folder' || !info.dir) {
    throw new WorkbenchError(
      'The engine is in memory: set ttlWorkbench.storage to "workspace" or "global" to keep its data in a folder.',
      {
        title: 'Open Settings',
        command: 'workbench.action.openSettings',
        args: ['ttlWorkbench.storage'],
      },
    );
  }
  if (inv.interactive) await vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(info.dir));
  return { ok: true, dir: info.dir, readOnly: info.readOnly, journalBytes: info.journalBytes };
}

async function compactNow(services: Services, inv: Invocation): Promise<CommandResult> {
  const info = await services.backend.storageInfo();
  const r = await vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: `Compacting ${info.dir ?? 'the data folder'}…`,
      cancellable: false,
    },
    () => services.backend.compactNow(),
  );
  reportSuccess(
    services,
    inv,
    `Compacted: ${plural(r.documents, 'document')} in a ${(r.bytes / 1048576).toFixed(1)} MiB snapshot, ${r.totalMs.toFixed(0)} ms (writes waited ${r.heldMs.toFixed(1)} ms).`,
  );
  return { ok: true, ...r };
}

/**
 * The report of damage recovered from the data folder, read and acknowledged: the tree stops
 * showing it. The damaged files kept aside stay in the folder (Reveal Data Folder shows them).
 */
async function acknowledgeStorageDamage(services: Services, inv: Invocation): Promise<CommandResult> {
  const info = await services.backend.storageInfo();
  const recoveries = info.damage?.recoveries ?? [];
  if (recoveries.length === 0) {
    reportSuccess(services, inv, 'No damage report to acknowledge: the data folder opened clean.');
    return { ok: true, acknowledged: 0 };
  }
  if (inv.interactive) {
    const detail = recoveries
      .map((r) =>
        [
          `Recovered ${r.at}, keeping ${
            Object.entries(r.documents)
              .map(([ns, n]) => `${ns}: ${formatCount(n)}`)
              .join(', ') || 'no documents'
          }:`,
          ...r.notes.map((n) => `• ${n}`),
        ].join('\n'),
      )
      .join('\n\n');
    const choice = await services.notifier.confirm(
      'Acknowledge the data folder damage report?',
      `${detail}\n\nThe damaged files stay in ${info.dir ?? 'the data folder'} under their second names; only this report goes.`,
      'Acknowledge',
      'Reveal Data Folder',
    );
    if (choice === 'Reveal Data Folder') {
      await vscode.commands.executeCommand('ttlWorkbench.revealDataFolder');
      return { ok: false, cancelled: true };
    }
    if (choice !== 'Acknowledge') return { ok: false, cancelled: true };
  }
  await services.backend.acknowledgeStorageDamage();
  reportSuccess(
    services,
    inv,
    `Acknowledged ${recoveries.length === 1 ? 'the damage report' : `${recoveries.length} damage reports`}; the damaged files stay in the data folder.`,
  );
  return { ok: true, acknowledged: recoveries.length, notes: recoveries.flatMap((r) => r.notes) };
}

export function registerStorageCommands(services: Services): vscode.Disposable[] {
  return [
    registerCommand(services, {
      id: 'ttlWorkbench.exportDatabase',
      action: 'Export Database',
      run: (inv) => exportDatabase(services, inv),
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.importEJSON',
      action: 'Import EJSON',
      run: (inv) => importEJSON(services, inv),
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.revealDataFolder',
      action: 'Reveal Data Folder',
      run: (inv) => revealDataFolder(services, inv),
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.compactNow',
      action: 'Compact Now',
      run: (inv) => compactNow(services, inv),
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.acknowledgeStorageDamage',
      action: 'Acknowledge Storage Damage',
      run: (inv) => acknowledgeStorageDamage(services, inv),
    }),
  ];
}
