/**
 * Notebook commands: New Playground Notebook, Open Example Playgrounds, Run All Cells Against a
 * Fresh Engine, Advance Notebook Clock, and the toolbar's Shared / Isolated Engine items. Like
 * every command of the extension they take an argument object (no dialogs from code) and resolve
 * with a result.
 */
import * as vscode from 'vscode';
import {
  allCollections,
  registerCommand,
  quickPick,
  WorkbenchError,
  type CommandResult,
  type Invocation,
  type Services,
} from '../commands/context';
import { formatClockTime, formatMillis, parseClockAdvance } from '../logic/durations';
import { parseTtlbook } from '../../formats/ttlbook';
import { contentsOf, describeLoss, freshChoices, type FreshTarget } from '../logic/fresh-engine';
import type { PlaygroundController } from './controller';
import { CONTROLLER_ID } from './controller';
import type { NotebookEngines } from './engines';
import { headerWithConnection } from '../logic/notebook-connection';
import { batchDeleteSnippet } from '../logic/batch-delete-snippet';
import { NOTEBOOK_TYPE, notebookDataOf } from './serializer';

export const EXTENSION_ID = 'ttl-workbench.ttl-workbench';

/** The guided sample of "New Playground Notebook": one TTL index, two documents, time moving. */
export const NEW_PLAYGROUND = `// ---
// title: TTL playground
// ---

// %% [markdown]
// # TTL playground
//
// Code cells are mongosh snippets run against TTL Workbench's embedded engine: the one the
// **Databases** view shows, on its virtual clock. Run the cells one by one (or Run All) and watch
// the tree. \`use()\` picks the database (it appears in the tree once a cell writes to it). Type
// \`db.\` for collections and methods.

// %%
use('playground')

// %%
db.sessions.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 3600 })

// %%
db.sessions.insertMany([
  { user: 'ada', lastSeen: new Date() },
  { user: 'bob', lastSeen: new Date(Date.now() - 50 * 60 * 1000) },
])

// %% [markdown]
// \`sleep()\` moves the virtual clock forward at once; the TTL monitor passes every 60 s of engine
// time. After 11 minutes bob's session is an hour old and gone.

// %%
sleep(11 * 60 * 1000)
db.sessions.find({}, { _id: 0 }).toArray()
`;

export interface NotebookDeps {
  services: Services;
  engines: NotebookEngines;
  controller: PlaygroundController;
  extensionUri: vscode.Uri;
  /** The saved connections' names, for the toolbar's Run On… picker. */
  connectionNames?: () => string[];
}

/**
 * Menu items of the notebook toolbar call a command with `{ notebookEditor: { notebookUri }, ui: true }`:
 * a user's click (interactive) about that notebook.
 */
export function fromNotebookUi(inv: Invocation): Invocation {
  const a = inv.args as { ui?: unknown; notebookEditor?: { notebookUri?: unknown } };
  if (a.ui !== true && !a.notebookEditor) return inv;
  const uri = a.notebookEditor?.notebookUri;
  return {
    ...inv,
    interactive: true,
    args: { ...(uri ? { notebook: uri instanceof vscode.Uri ? uri.toString() : String(uri) } : {}) },
  };
}

/** The notebook a command is about: `notebook` (a uri string or Uri) in the arguments, else the active one. */
export function targetNotebook(inv: Invocation): vscode.NotebookDocument {
  const arg = inv.args.notebook;
  const uri = typeof arg === 'string' ? arg : arg instanceof vscode.Uri ? arg.toString() : undefined;
  const notebook = uri
    ? vscode.workspace.notebookDocuments.find((nb) => nb.uri.toString() === uri)
    : vscode.window.activeNotebookEditor?.notebook;
  if (!notebook || notebook.notebookType !== NOTEBOOK_TYPE) {
    throw new WorkbenchError(
      uri ? `No open playground notebook ${uri}: open it first.` : 'Open a playground notebook (.ttlbook) first.',
      { title: 'New Playground Notebook', command: 'ttlWorkbench.newPlayground' },
    );
  }
  return notebook;
}

async function show(notebook: vscode.NotebookDocument, deps: NotebookDeps): Promise<vscode.NotebookEditor> {
  const editor = await vscode.window.showNotebookDocument(notebook);
  deps.controller.prefer(notebook);
  // Select the controller without the kernel picker (there is only this one for the type).
  await vscode.commands.executeCommand('notebook.selectKernel', { id: CONTROLLER_ID, extension: EXTENSION_ID });
  return editor;
}

async function openUntitled(text: string, deps: NotebookDeps): Promise<vscode.NotebookDocument> {
  const notebook = await vscode.workspace.openNotebookDocument(NOTEBOOK_TYPE, notebookDataOf(text));
  await show(notebook, deps);
  return notebook;
}

async function newPlayground(deps: NotebookDeps): Promise<CommandResult> {
  const notebook = await openUntitled(NEW_PLAYGROUND, deps);
  return { ok: true, uri: notebook.uri.toString() };
}

async function exampleFiles(deps: NotebookDeps): Promise<Array<{ name: string; title: string; uri: vscode.Uri }>> {
  const dir = vscode.Uri.joinPath(deps.extensionUri, 'examples');
  const entries = await vscode.workspace.fs.readDirectory(dir);
  const out: Array<{ name: string; title: string; uri: vscode.Uri }> = [];
  for (const [name, type] of entries.sort(([a], [b]) => a.localeCompare(b))) {
    if (type !== vscode.FileType.File || !name.endsWith('.ttlbook')) continue;
    const uri = vscode.Uri.joinPath(dir, name);
    const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
    const title = parseTtlbook(text).metadata.title;
    out.push({ name, title: typeof title === 'string' ? title : name, uri });
  }
  return out;
}

/**
 * Examples open as untitled copies: running and editing them never changes the files shipped with
 * the extension, and "Save As" keeps a copy.
 */
async function openExamples(deps: NotebookDeps, inv: Invocation): Promise<CommandResult> {
  const examples = await exampleFiles(deps);
  if (examples.length === 0)
    throw new WorkbenchError('No example playgrounds found in the extension (examples/*.ttlbook).');
  const wanted = typeof inv.args.example === 'string' ? inv.args.example : undefined;
  let chosen = wanted ? examples.find((e) => e.name === wanted || e.name === `${wanted}.ttlbook`) : undefined;
  if (wanted && !chosen)
    throw new WorkbenchError(`No example '${wanted}': the examples are ${examples.map((e) => e.name).join(', ')}.`);
  if (!chosen) {
    if (!inv.interactive) return { ok: true, examples: examples.map((e) => e.name) };
    chosen = await quickPick(
      examples.map((e) => ({ label: e.title, description: e.name, value: e })),
      'Open an example playground notebook (an untitled copy)',
      'TTL Workbench: Example Playgrounds',
    );
  }
  const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(chosen.uri));
  const notebook = await openUntitled(text, deps);
  return { ok: true, example: chosen.name, uri: notebook.uri.toString() };
}

/**
 * Which fresh engine: `engine` from code ('isolated' | 'shared'); from the UI a picker that names
 * what a reset of the shared engine deletes, an isolated engine first unless the shared one is
 * empty; from code without `engine`, an isolated engine (code never deletes data unasked).
 */
async function chooseFresh(
  deps: NotebookDeps,
  inv: Invocation,
  notebook: vscode.NotebookDocument,
): Promise<FreshTarget> {
  const request = deps.engines.requestOf(notebook);
  const differs = deps.engines.differs(request);
  const asked = inv.args.engine;
  if (asked !== undefined && asked !== 'isolated' && asked !== 'shared')
    throw new WorkbenchError(`Unknown engine '${String(asked)}': use 'isolated' or 'shared'.`);
  if (request.isolated || asked === 'isolated') return 'isolated';
  if (asked === 'shared') {
    if (differs)
      throw new WorkbenchError(
        `This notebook asks for ${differs}: a notebook never changes the window's engine, so it runs on an isolated engine (engine: 'isolated'), or change the setting and Reset Engine.`,
      );
    return 'shared';
  }
  if (!inv.interactive || differs) return 'isolated';
  const shared = contentsOf(await allCollections(deps.services.backend));
  const choices = freshChoices(request, deps.services.settings(), shared);
  return quickPick(
    choices.map((c) => ({ label: c.label, detail: c.detail, value: c.target })),
    shared.length
      ? `A reset of the shared engine deletes ${describeLoss(shared)}`
      : 'The shared engine is empty: nothing is deleted either way',
    'Run All Cells Against a Fresh Engine',
  );
}

async function runAllFresh(deps: NotebookDeps, inv: Invocation): Promise<CommandResult> {
  const notebook = targetNotebook(inv);
  const target = await chooseFresh(deps, inv, notebook);
  const engine = await deps.engines.fresh(notebook, target);
  deps.controller.resetOrder(notebook);
  await show(notebook, deps);
  await vscode.commands.executeCommand('notebook.execute', notebook.uri);
  const summary = await deps.controller.whenIdle(notebook);
  const clock = await engine.backend.clock();
  return {
    ok: true,
    isolated: engine.isolated,
    now: clock.now,
    ...(summary ?? { cells: 0, failed: 0, interrupted: false }),
  };
}

async function advanceNotebookClock(deps: NotebookDeps, inv: Invocation): Promise<CommandResult> {
  const notebook = targetNotebook(inv);
  const engine = deps.engines.engineFor(notebook);
  if (!engine.isolated)
    return (
      (await vscode.commands.executeCommand<CommandResult>('ttlWorkbench.advanceClock', {
        ...inv.args,
        notebook: undefined,
      })) ?? { ok: false }
    );
  let ms = typeof inv.args.ms === 'number' ? inv.args.ms : undefined;
  const text = typeof inv.args.duration === 'string' ? inv.args.duration : undefined;
  if (ms === undefined) {
    const chosen =
      text ??
      (inv.interactive
        ? await quickPick(
            ['90s', '1h', '1d'].map((d) => ({ label: `+${d}`, value: d })),
            "Advance the notebook engine's virtual clock (due TTL passes run on the way)",
          )
        : undefined);
    if (chosen === undefined)
      throw new WorkbenchError("Advance Notebook Clock needs 'duration' (e.g. '90s', '1h') or 'ms'.");
    const p = parseClockAdvance(chosen);
    if ('error' in p) throw new WorkbenchError(p.error);
    ms = p.ms;
  }
  const r = await engine.backend.advanceClock(ms);
  if (inv.args.quiet !== true)
    deps.services.notifier.showAndForget(
      'info',
      `Notebook clock +${formatMillis(ms)} → ${formatClockTime(r.now)}: ${r.passes} TTL passes, ${r.deleted} deleted.`,
      [],
      () => undefined,
    );
  return { ok: true, ms, now: r.now, passes: r.passes, deleted: r.deleted };
}

async function engineInfo(deps: NotebookDeps, inv: Invocation): Promise<CommandResult> {
  const notebook = targetNotebook(inv);
  const engine = deps.engines.engineFor(notebook);
  const [info, clock] = await Promise.all([engine.backend.info(), engine.backend.clock()]);
  const result = {
    ok: true as const,
    isolated: engine.isolated,
    flavor: info.flavor,
    version: info.version,
    clock: clock.mode,
    now: clock.now,
  };
  if (inv.interactive) {
    const byUser = deps.engines.isIsolatedByUser(notebook);
    const what = engine.isolated
      ? `This notebook has its own engine: ${info.flavor} ${info.version}, ${clock.mode} clock at ${formatClockTime(clock.now)}. The Databases view does not show it.`
      : `This notebook runs on the shared engine the Databases view shows: ${info.flavor} ${info.version}, ${clock.mode} clock at ${formatClockTime(clock.now)}. Metadata "engine": {"isolated": true, "now": "…"} gives it its own.`;
    const actions = ['Run All Cells Against a Fresh Engine…', 'Advance Clock…'];
    if (byUser) actions.push('Use the Shared Engine');
    const choice = await vscode.window.showInformationMessage(what, ...actions);
    if (choice === 'Run All Cells Against a Fresh Engine…')
      await vscode.commands.executeCommand('ttlWorkbench.runAllFresh', {
        notebook: notebook.uri.toString(),
        interactive: true,
      });
    if (choice === 'Use the Shared Engine') deps.engines.useShared(notebook);
    if (choice === 'Advance Clock…')
      await vscode.commands.executeCommand('ttlWorkbench.advanceNotebookClock', {
        notebook: notebook.uri.toString(),
        interactive: true,
      });
  }
  return result;
}

/**
 * Run On…: the notebook's cells run on the embedded engine or on a saved connection. The choice is
 * the notebook's `"connection"` metadata (saved with it, as a hand-written one would be); from code
 * `{notebook, connection: "<name>"}`, or `connection: null` for the embedded engine.
 */
async function runOn(deps: NotebookDeps, inv: Invocation): Promise<CommandResult> {
  const notebook = targetNotebook(inv);
  const names = deps.connectionNames?.() ?? [];
  let choice: string | undefined;
  if ('connection' in inv.args) {
    const asked = inv.args.connection;
    if (asked !== null && asked !== undefined && typeof asked !== 'string')
      throw new WorkbenchError(`'connection' must be a saved connection's name, or null for the embedded engine.`);
    choice = typeof asked === 'string' && asked !== '' ? asked : undefined;
  } else {
    if (!inv.interactive)
      throw new WorkbenchError(
        `Missing argument 'connection': call with e.g. {connection: "staging"} or {connection: null}.`,
      );
    const current = deps.engines.connectionOf(notebook);
    const picked = await quickPick<string | null>(
      [
        {
          label: 'Embedded engine',
          description: current === undefined ? 'current' : 'the engine the Databases view shows',
          value: null,
        },
        ...names.map((n) => ({ label: n, description: n === current ? 'current' : 'saved connection', value: n })),
      ],
      names.length ? 'Run this notebook on' : 'Run this notebook on (add a connection in the Databases view for more)',
      'Run On',
    );
    choice = picked ?? undefined;
  }
  if (choice !== undefined && !names.includes(choice))
    throw new WorkbenchError(`No connection named "${choice}": add it first (TTL Workbench: Add Connection).`, {
      title: 'Add Connection',
      command: 'ttlWorkbench.addConnection',
    });
  const metadata = (notebook.metadata ?? {}) as { ttlbook?: { header?: Record<string, unknown> } };
  const header = headerWithConnection(metadata.ttlbook?.header ?? {}, choice);
  const edit = new vscode.WorkspaceEdit();
  edit.set(notebook.uri, [
    vscode.NotebookEdit.updateNotebookMetadata({ ...metadata, ttlbook: { ...metadata.ttlbook, header } }),
  ]);
  if (!(await vscode.workspace.applyEdit(edit)))
    throw new WorkbenchError(
      'The notebook could not be changed (is it read-only?): edit its "connection" metadata by hand.',
    );
  return { ok: true, connection: choice ?? null };
}

/**
 * A new playground that deletes the documents a TTL change would make eligible, in batches
 * (logic/batch-delete-snippet.ts), bound to `connection` when given. Offered by the eligibility
 * confirmation; from code `{db, collection, field, expireAfterSeconds, partialFilterExpression?,
 * connection?, batchSize?}`.
 */
async function openBatchDeleteSnippet(deps: NotebookDeps, inv: Invocation): Promise<CommandResult> {
  const a = inv.args;
  for (const k of ['db', 'collection', 'field'])
    if (typeof a[k] !== 'string')
      throw new WorkbenchError(
        `Missing argument '${k}': call with e.g. {db: 'app', collection: 'events', field: 'createdAt', expireAfterSeconds: 3600}.`,
      );
  if (typeof a.expireAfterSeconds !== 'number' || !Number.isFinite(a.expireAfterSeconds))
    throw new WorkbenchError(`'expireAfterSeconds' must be a number of seconds, such as 3600.`);
  const connection = typeof a.connection === 'string' ? a.connection : undefined;
  const text = batchDeleteSnippet({
    db: a.db as string,
    collection: a.collection as string,
    field: a.field as string,
    expireAfterSeconds: a.expireAfterSeconds,
    ...(a.partialFilterExpression && typeof a.partialFilterExpression === 'object'
      ? { partialFilterExpression: a.partialFilterExpression as Record<string, unknown> }
      : {}),
    ...(connection !== undefined ? { connection } : {}),
    ...(typeof a.batchSize === 'number' && a.batchSize >= 1 ? { batchSize: Math.floor(a.batchSize) } : {}),
  });
  const notebook = await openUntitled(text, deps);
  return { ok: true, uri: notebook.uri.toString(), connection: connection ?? null };
}

export function registerNotebookCommands(deps: NotebookDeps): vscode.Disposable[] {
  const { services } = deps;
  return [
    registerCommand(services, {
      id: 'ttlWorkbench.newPlayground',
      action: 'New Playground Notebook',
      run: () => newPlayground(deps),
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.openExamplePlaygrounds',
      action: 'Open Example Playgrounds',
      run: (inv) => openExamples(deps, inv),
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.runAllFresh',
      action: 'Run All Cells Against a Fresh Engine',
      run: (inv) => runAllFresh(deps, fromNotebookUi(inv)),
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.advanceNotebookClock',
      action: 'Advance Notebook Clock',
      run: (inv) => advanceNotebookClock(deps, fromNotebookUi(inv)),
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.notebookSharedEngine',
      action: 'Shared Engine',
      run: (inv) => engineInfo(deps, fromNotebookUi(inv)),
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.batchDeleteSnippet',
      action: 'Delete Eligible Documents in Batches',
      run: (inv) => openBatchDeleteSnippet(deps, inv),
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.notebookRunOn',
      action: 'Run On',
      run: (inv) => runOn(deps, fromNotebookUi(inv)),
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.notebookIsolatedEngine',
      action: 'Isolated Engine',
      run: (inv) => engineInfo(deps, fromNotebookUi(inv)),
    }),
  ];
}
