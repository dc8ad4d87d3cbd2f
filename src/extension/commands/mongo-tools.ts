/**
 * Export for mongoimport… / Import mongoimport Files…: a database as the files MongoDB's own tools
 * read (src/formats/mongo-tools.ts): `<collection>.json` per collection in canonical EJSON (one
 * document per line, or `--jsonArray`) and `<db>.indexes.js`, a mongosh script that creates the
 * collections with their options and their indexes. Import reads such files back: the script first
 * (run in a mongosh session on the engine, so clustered and time-series collections get their
 * options), then the documents.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Document } from '../../engine';
import { requireTrust } from '../ui/workspace-trust';
import {
  canonicalLine,
  collectionFileName,
  createIndexesScript,
  parseDocumentsFile,
  retargetScript,
  scriptCollections,
  scriptDatabase,
  type CollectionLayout,
} from '../../formats/mongo-tools';
import { databaseNameProblem } from '../logic/collection-commands';
import { plural } from '../logic/durations';
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
import { pickDatabase, replaceCollections, workspaceUri } from './storage';

const BATCH = 1000;

/**
 * Every document of a collection, a cursor batch at a time, handed to `each` batch by batch: the
 * documents of a large collection are never all in memory on this thread, and between batches the
 * thread is free (the formatting of one batch is the longest it is held).
 */
async function forEachBatch(
  services: Services,
  db: string,
  collection: string,
  each: (docs: Document[]) => Promise<void>,
): Promise<void> {
  let reply = await services.backend.runCommand(db, { find: collection, batchSize: BATCH });
  let cursor = reply.cursor as { id: unknown; firstBatch?: Document[]; nextBatch?: Document[] };
  await each(cursor.firstBatch ?? []);
  while (cursor.id !== undefined && Number(String(cursor.id)) !== 0) {
    reply = await services.backend.runCommand(db, { getMore: cursor.id, collection, batchSize: BATCH });
    cursor = reply.cursor as typeof cursor;
    await each(cursor.nextBatch ?? []);
  }
}

/** Writes one collection's documents as mongoexport does (one per line, or a JSON array); returns the count. */
async function writeCollectionFile(
  services: Services,
  db: string,
  collection: string,
  file: string,
  jsonArray: boolean,
): Promise<number> {
  const out = await fs.promises.open(file, 'w');
  let count = 0;
  try {
    if (jsonArray) await out.write('[\n');
    await forEachBatch(services, db, collection, async (docs) => {
      if (docs.length === 0) return;
      const lines = docs.map((d) => canonicalLine(d));
      const sep = jsonArray ? ',\n' : '\n';
      await out.write(`${count > 0 && jsonArray ? sep : ''}${lines.join(sep)}${jsonArray ? '' : '\n'}`);
      count += docs.length;
    });
    if (jsonArray) await out.write('\n]\n');
  } finally {
    await out.close();
  }
  return count;
}

async function exportForMongoTools(services: Services, inv: Invocation): Promise<CommandResult> {
  const db = await pickDatabase(services, inv);
  let folder = typeof inv.args.folder === 'string' ? vscode.Uri.file(inv.args.folder) : undefined;
  if (!folder) {
    if (!inv.interactive) throw new WorkbenchError("Export for mongoimport needs 'folder': where the files go.");
    const picked = await vscode.window.showOpenDialog({
      title: `Export ${db} for mongoimport: the folder to write ${db}/ into`,
      openLabel: 'Export Here',
      canSelectFiles: false,
      canSelectFolders: true,
      defaultUri: workspaceUri(),
    });
    if (!picked?.length) return { ok: false, cancelled: true };
    folder = picked[0];
  }
  let jsonArray = inv.args.jsonArray === true;
  if (inv.interactive && inv.args.jsonArray === undefined)
    jsonArray = await quickPick(
      [
        { label: 'One document per line', description: "mongoexport's default: mongoimport --file", value: false },
        { label: 'A JSON array', description: 'mongoimport --jsonArray', value: true },
      ],
      'Form of the document files',
    );
  if (folder.scheme !== 'file')
    throw new WorkbenchError(`Export for mongoimport writes to a local folder; ${folder.toString()} is not one.`);
  const dir = vscode.Uri.joinPath(folder, db);
  await fs.promises.mkdir(dir.fsPath, { recursive: true });
  const layouts: CollectionLayout[] = [];
  const files: string[] = [];
  let documents = 0;
  const collections = await services.backend.listCollections(db);
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Exporting ${db} for mongoimport` },
    async (progress) => {
      for (const c of collections) {
        progress.report({ message: c.name, increment: 100 / Math.max(1, collections.length) });
        const file = collectionFileName(c.name);
        documents += await writeCollectionFile(services, db, c.name, path.join(dir.fsPath, file), jsonArray);
        const indexes = (await services.backend.listIndexes(db, c.name)).map((i) =>
          i.stored ? { ...i.spec, expireAfterSeconds: i.stored.expireAfterSeconds } : i.spec,
        );
        layouts.push({ name: c.name, options: c.options, indexes });
        files.push(file);
      }
    },
  );
  const script = `${db}.indexes.js`;
  await fs.promises.writeFile(path.join(dir.fsPath, script), createIndexesScript(db, layouts, files), 'utf8');
  reportSuccess(
    services,
    inv,
    `Exported ${db} for mongoimport to ${dir.fsPath}: ${plural(files.length, 'collection file')} (${plural(documents, 'document')}${jsonArray ? ', --jsonArray' : ''}) and ${script} (run it with mongosh first).`,
  );
  return { ok: true, db, folder: dir.fsPath, files: [...files, script], documents, jsonArray };
}

async function importMongoTools(services: Services, inv: Invocation): Promise<CommandResult> {
  requireTrust('Import');
  let uris = Array.isArray(inv.args.files)
    ? (inv.args.files as unknown[]).map((f) => vscode.Uri.file(String(f)))
    : undefined;
  if (!uris) {
    if (!inv.interactive)
      throw new WorkbenchError("Import mongoimport Files needs 'files': the .json (and .js) paths.");
    const picked = await vscode.window.showOpenDialog({
      title: 'Import mongoimport files: the collections’ .json files, and the .indexes.js script if there is one',
      openLabel: 'Import',
      canSelectMany: true,
      filters: { 'mongoexport files': ['json', 'js'] },
      defaultUri: workspaceUri(),
    });
    if (!picked?.length) return { ok: false, cancelled: true };
    uris = picked;
  }
  inv.state.files = uris.map((u) => u.fsPath);
  const scriptUri = uris.find((u) => u.path.endsWith('.js'));
  const dataUris = uris.filter((u) => u.path.endsWith('.json'));
  const script = scriptUri ? Buffer.from(await vscode.workspace.fs.readFile(scriptUri)).toString('utf8') : undefined;
  const suggested = (script && scriptDatabase(script)) ?? path.basename(path.dirname(dataUris[0]?.fsPath ?? 'app'));
  let into = typeof inv.args.into === 'string' && inv.args.into ? inv.args.into : undefined;
  if (!into && inv.interactive)
    into = await inputBox({
      title: 'Import mongoimport files',
      prompt: 'Into which database',
      value: suggested,
      validateInput: databaseNameProblem,
    });
  into ??= suggested;
  inv.state.into = into;
  const names = [
    ...new Set([
      ...(script ? scriptCollections(script) : []),
      ...dataUris.map((u) => path.basename(u.fsPath).replace(/\.json$/, '')),
    ]),
  ];
  await replaceCollections(services, inv, into, names);
  if (script) await runScript(services, retargetScript(script, into));
  let documents = 0;
  for (const u of dataUris) {
    const name = path.basename(u.fsPath).replace(/\.json$/, '');
    const docs = parseDocumentsFile(Buffer.from(await vscode.workspace.fs.readFile(u)).toString('utf8'));
    for (let i = 0; i < docs.length; i += 10_000) {
      const reply = await services.backend.runCommand(into, {
        insert: name,
        documents: docs.slice(i, i + 10_000),
        ordered: true,
      });
      documents += Number(reply.n ?? 0);
      const errors = reply.writeErrors as Array<{ errmsg?: string }> | undefined;
      if (errors?.length)
        throw new WorkbenchError(
          `${into}.${name}: ${errors[0].errmsg ?? 'a document was refused'} (after ${documents}).`,
        );
    }
  }
  reportSuccess(
    services,
    inv,
    `Imported ${plural(documents, 'document')} into ${plural(dataUris.length, 'collection')} of ${into}${script ? ' (collections and indexes from the script)' : ''}.`,
  );
  return { ok: true, database: into, collections: names, documents, script: script !== undefined };
}

/** Runs the indexes script in a mongosh session on the engine; its first failing statement fails the import. */
async function runScript(services: Services, script: string): Promise<void> {
  const session = await services.backend.openPlayground({});
  try {
    for await (const ev of session.run(script, { filename: 'indexes.js' })) {
      if (ev.kind !== 'statement' || ev.ok) continue;
      const err = ev.outputs.find((o) => o.kind === 'error');
      throw Object.assign(new Error(`The indexes script failed at line ${ev.line}: ${err?.text ?? 'an error'}`), {
        ...(err && 'code' in err && err.code !== undefined ? { code: err.code } : {}),
        ...(err && 'codeName' in err && err.codeName !== undefined ? { codeName: err.codeName } : {}),
      });
    }
  } finally {
    session.dispose();
  }
}

export function registerMongoToolsCommands(services: Services): vscode.Disposable[] {
  return [
    registerCommand(services, {
      id: 'ttlWorkbench.exportForMongoTools',
      action: 'Export for mongoimport',
      run: (inv) => exportForMongoTools(services, inv),
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.importMongoTools',
      action: 'Import mongoimport Files',
      run: (inv) => importMongoTools(services, inv),
      remedyContext: (inv) =>
        Array.isArray(inv.state.files) && typeof inv.state.into === 'string'
          ? {
              importing: {
                command: 'ttlWorkbench.importMongoTools',
                args: { files: inv.state.files },
                into: inv.state.into,
              },
            }
          : {},
    }),
  ];
}
