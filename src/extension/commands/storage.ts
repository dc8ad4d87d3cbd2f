/**
 * Durable storage commands: Export Database as EJSON…, Import EJSON…, Reveal Data Folder,
 * Compact Now, Acknowledge Storage Damage. Each takes an argument object (db, file, into) so tests and other extensions need
 * no dialogs; interactively they ask with the usual pickers and file dialogs.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { requireTrust } from '../ui/workspace-trust';
import { databaseNameProblem } from '../logic/collection-commands';
import { formatCount, plural } from '../logic/durations';
import {
  Cancelled,
  inputBox,
  quickPick,
  registerCommand,
  reportSuccess,
  WorkbenchError,
  type CommandResult,
  type Invocation,
  type Services,
} from './context';

/** Where file dialogs open: the workspace folder (not the file system's root), or a file in it. */
export function workspaceUri(file?: string): vscode.Uri | undefined {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  if (!folder) return file ? vscode.Uri.file(path.join(os.homedir(), file)) : vscode.Uri.file(os.homedir());
  return file ? vscode.Uri.joinPath(folder, file) : folder;
}

/**
 * Before an import that replaces: the collections of `db` it would meet (`names`; undefined: every
 * collection of `db`) are dropped, once the user has seen what goes. Without `replace`, meeting one
 * is NamespaceExists (48), whose remedies offer another name or Drop and replace.
 */
export async function replaceCollections(
  services: Services,
  inv: Invocation,
  db: string,
  names: string[] | undefined,
): Promise<string[]> {
  const present = (await services.backend.listCollections(db)).filter((c) => !names || names.includes(c.name));
  if (present.length === 0) return [];
  const list = present.map((c) => `${db}.${c.name} (${plural(c.count, 'document')})`).join(', ');
  if (inv.args.replace !== true)
    throw Object.assign(
      new Error(
        `${list} already exist${present.length === 1 ? 's' : ''}: import as another name, or drop and replace ${present.length === 1 ? 'it' : 'them'}.`,
      ),
      { code: 48, codeName: 'NamespaceExists' },
    );
  if (inv.interactive) {
    const choice = await services.notifier.confirm(
      names
        ? `Drop ${plural(present.length, 'collection')} of ${db} and import?`
        : `Drop the database ${db} and import?`,
      `${list} ${present.length === 1 ? 'goes' : 'go'}, with every index. This cannot be undone.`,
      'Drop and Replace',
    );
    if (choice !== 'Drop and Replace') throw new Cancelled();
  }
  if (names) for (const c of present) await services.backend.runCommand(db, { drop: c.name });
  else await services.backend.runCommand(db, { dropDatabase: 1 });
  return present.map((c) => c.name);
}

/** The database a TTL Workbench export names, read from the start of the file (the exporter writes it first). */
async function exportedDatabaseName(uri: vscode.Uri): Promise<string | undefined> {
  let head: string;
  if (uri.scheme === 'file') {
    const handle = await fs.promises.open(uri.fsPath, 'r');
    try {
      const buf = Buffer.alloc(64 * 1024);
      const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
      head = buf.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  } else head = Buffer.from(await vscode.workspace.fs.readFile(uri)).toString('utf8');
  const m = /"database"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(head);
  return m ? (JSON.parse(m[1]) as string) : undefined;
}

export async function pickDatabase(services: Services, inv: Invocation): Promise<string> {
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
      defaultUri: workspaceUri(`${db}.ejson.json`),
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
  requireTrust('Import');
  let source: vscode.Uri | undefined = typeof inv.args.file === 'string' ? vscode.Uri.file(inv.args.file) : undefined;
  if (!source) {
    if (!inv.interactive) throw new WorkbenchError("Import needs 'file': a file made by Export Database as EJSON….");
    const picked = await vscode.window.showOpenDialog({
      title: 'Import EJSON',
      openLabel: 'Import',
      canSelectMany: false,
      filters: { 'Extended JSON': ['json'] },
      defaultUri: workspaceUri(),
    });
    if (!picked?.length) return { ok: false, cancelled: true };
    source = picked[0];
  }
  inv.state.file = source.fsPath;
  const exported = await exportedDatabaseName(source).catch(() => undefined);
  let into = typeof inv.args.into === 'string' && inv.args.into ? inv.args.into : undefined;
  if (!into && inv.interactive && inv.args.replace !== true) {
    const askingAgain = inv.args.askInto === true;
    into = await inputBox({
      title: askingAgain ? 'Import EJSON as another name' : 'Import EJSON',
      prompt: askingAgain
        ? `Into which database (${exported ?? 'the exported one'} has collections of the same names)`
        : 'Into which database (empty: the name it was exported from)',
      ...(askingAgain && exported ? { value: `${exported}_2` } : { placeHolder: exported ?? 'the exported name' }),
      validateInput: (v) => (!v.trim() && !askingAgain ? undefined : databaseNameProblem(v.trim())),
    });
    into = into.trim() || undefined;
  }
  const target = into ?? exported;
  if (target) inv.state.into = target;
  // Drop and replace: the database the import goes into is emptied first (the user saw what goes).
  if (inv.args.replace === true && target) await replaceCollections(services, inv, target, undefined);
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
      remedyContext: (inv) =>
        typeof inv.state.file === 'string' && typeof inv.state.into === 'string'
          ? { importing: { command: 'ttlWorkbench.importEJSON', args: { file: inv.state.file }, into: inv.state.into } }
          : {},
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
