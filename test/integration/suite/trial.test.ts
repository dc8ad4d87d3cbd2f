// Issue 18, "a new user's trial in the real workbench": data never dropped unasked, the window's
// flavor and clock kept, engine-aware diagnostics only where code runs against the engine, and the
// flows (Create TTL Index, Create Collection, Show Documents, Advance Clock) as a user drives them.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { suite, suiteSetup, test } from 'mocha';
import * as vscode from 'vscode';
import type { TTLWorkbenchApi } from '../../../src/extension/api';
import type { CommandResult } from '../../../src/extension/commands/context';
import { canDriveUi, driveUi, screenshot } from './index';
import { treeRows } from './tree-rows';
import { delay, until } from './wait';

const EXTENSION_ID = 'ttl-workbench.ttl-workbench';
let api: TTLWorkbenchApi;
type Result = CommandResult & Record<string, unknown>;

const run = (id: string, args: Record<string, unknown> = {}) =>
  vscode.commands.executeCommand<Result>(`ttlWorkbench.${id}`, { quiet: true, ...args });

/**
 * The path in code-server's file dialog once it has settled on `wanted` (or what it shows after 10 s):
 * the dialog fills its path box in steps, the parent folder first while it reads the default one,
 * on a busy machine for a second or more.
 */
async function settledDialogPath(wanted: string): Promise<string> {
  let value = '';
  return until(
    `the file dialog at ${wanted}`,
    async () => {
      value = (await driveUi([]))?.value ?? '';
      return value.startsWith(wanted) ? value : undefined;
    },
    10_000,
  ).catch(() => value);
}

suite('Issue 18: a new user trial', () => {
  suiteSetup(async () => {
    const ext = vscode.extensions.getExtension<TTLWorkbenchApi>(EXTENSION_ID);
    assert.ok(ext);
    api = await ext.activate();
    await run('resetEngine', { flavor: 'mongodb', serverVersion: '8.0' });
    // The UI-driven tests below read the workbench as a new user sees it: no editors, panels or
    // side views left open (and focused) by the suites that ran before.
    for (const command of [
      'workbench.action.closeAllEditors',
      'workbench.action.closePanel',
      'workbench.action.closeAuxiliaryBar',
      'workbench.action.closeQuickOpen',
    ])
      await vscode.commands.executeCommand(command);
  });

  test('a stored engine whose flavor differs from the settings asks: reset to the setting (naming what goes) or keep it and change the setting (18.2)', async () => {
    await run('resetEngine', { flavor: 'cosmos' });
    await api.backend.runCommand('app', { insert: 'c', documents: [{ _id: 1 }] });
    const before = api.messages().length;
    const config = vscode.workspace.getConfiguration('ttlWorkbench');
    await config.update('serverVersion', '8.0', vscode.ConfigurationTarget.Workspace);
    try {
      const question = await until('the flavor question', () =>
        api
          .messages()
          .slice(before)
          .find((m) => m.text.includes('stored engine is cosmos 8.0')),
      );
      assert.deepEqual(question.actions, [
        'Reset to mongodb 8.0 (deletes 1 database)',
        'Keep cosmos 8.0 and change the setting',
      ]);
      assert.equal((await api.backend.info()).flavor, 'cosmos', 'nothing changes until the user chooses');
    } finally {
      await config.update('serverVersion', undefined, vscode.ConfigurationTarget.Workspace);
      await run('resetEngine', { flavor: 'mongodb', serverVersion: '8.0' });
    }
  });

  test('after Reset Engine the status bar and the tree both say 0 deleted: one source (18.6)', async () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    await run('resetEngine');
    await api.backend.reset({}, { startMs: now });
    await api.backend.runCommand('s', {
      insert: 'c',
      documents: [1, 2, 3].map((i) => ({ _id: i, at: new Date(now - 2 * 3_600_000) })),
    });
    await api.backend.runCommand('s', {
      createIndexes: 'c',
      indexes: [{ key: { at: 1 }, name: 'at_1', expireAfterSeconds: 60 }],
    });
    await run('advanceClock', { duration: '90s' });
    await api.whenIdle();
    assert.match(api.statusBarText(), /TTL deleted 3$/);
    await run('resetEngine');
    await api.whenIdle();
    assert.match(api.statusBarText(), /TTL deleted 0$/);
    const [engine] = await treeRows(api);
    const monitor = (await treeRows(api, engine.node)).find((r) => r.label.startsWith('TTL Monitor'));
    assert.ok(monitor, 'no TTL Monitor row');
    assert.match(monitor.description, /0 deleted/);
  });

  test('Create Collection in the real quick input: a typed database name is accepted with Enter, and the new collection is revealed, its database expanded (18.5)', async function () {
    if (!canDriveUi()) return this.skip(); // desktop VS Code route: no page to type into
    await run('resetEngine');
    await api.backend.runCommand('existing', { create: 'c' });
    const pending = vscode.commands.executeCommand<Result>('ttlWorkbench.createCollection', {
      interactive: true,
      quiet: true,
    });
    try {
      // The picker lists the databases; typing a name that matches none keeps it as an item.
      await driveUi([{ waitForInput: 'Database of the new collection' }, { type: 'trialdb' }]);
      // The list follows the typing a moment later.
      const typed = await until('the typed name offered as an item', async () => {
        const state = await driveUi([]);
        return state && state.items.some((i) => /trialdb/.test(i)) ? state : undefined;
      });
      assert.equal(typed.items.length, 1, JSON.stringify(typed.items));
      assert.match(typed.items[0], /trialdb.*new database/);
      const name = await driveUi([{ press: 'Enter' }, { waitForInput: 'New collection in trialdb' }]);
      assert.equal(name!.value, 'events');
      await driveUi([{ press: 'Enter' }, { waitForInput: 'Kind of collection' }]);
      await driveUi([{ type: 'Plain' }, { press: 'Enter' }, { waitForClosed: true }]);
      const r = await pending;
      assert.equal(r.ok, true, JSON.stringify(r));
      assert.equal(r.db, 'trialdb');
      assert.equal(r.name, 'events');
      assert.equal(r.revealed, true);
      const selected = await until('the new collection selected in the view', () =>
        api.treeView.selection.find((n) => n.type === 'collection' && n.db === 'trialdb'),
      );
      assert.equal(selected.type === 'collection' && selected.info.name, 'events');
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      await pending.then(undefined, () => undefined);
    }
  });

  test('NaN fix from the editor: the opened spec has only our diagnostic, on expireAfterSeconds, and the editor itself offers and runs the fix (18.7)', async function () {
    if (!canDriveUi()) return this.skip();
    // The fix is offered in the editor as a CodeLens on the expireAfterSeconds line. VS Code's
    // lightbulb is no reliable home for it: the editor computes code actions only when it is
    // writable at the moment its model changes, so on this read-only spec the lightbulb appeared
    // or not depending on what the editor showed before (after another spec: never).
    await run('resetEngine');
    await run('createCollection', { db: 'nan', name: 'events' });
    await run('simulateLegacyIndex', { db: 'nan', collection: 'events', field: 'deletedAt' });
    await run('findNaNTTLIndexes');
    // As a user meets it after looking at another spec: open one, close it, then open this one.
    await run('createCollection', { db: 'nan', name: 'other' });
    await run('simulateLegacyIndex', { db: 'nan', collection: 'other', field: 'seenAt' });
    await run('findNaNTTLIndexes');
    await run('openIndexSpec', { db: 'nan', collection: 'other', index: 'seenAt_1' });
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    const opened = await run('openIndexSpec', { db: 'nan', collection: 'events', index: 'deletedAt_1' });
    const uri = vscode.Uri.parse(String(opened.uri));
    const editor = await until('the spec in the active editor', () =>
      vscode.window.activeTextEditor?.document.uri.toString() === uri.toString()
        ? vscode.window.activeTextEditor
        : undefined,
    );
    // Only ours: no language service reports on the bare object literal (it stays out of the error count).
    await delay(1500);
    const all = vscode.languages.getDiagnostics(uri);
    assert.deepEqual(
      all.map((d) => d.source),
      ['TTL Workbench'],
      all.map((d) => `${d.source}: ${d.message}`).join('\n'),
    );
    const range = all[0].range;
    assert.match(editor.document.lineAt(range.start.line).text, /^\s*expireAfterSeconds: NaN/);
    // The CodeLens sits on that line, and the quick fix is there for the Problems panel.
    const lenses = await until('the fix offered as a CodeLens', async () => {
      const found = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri);
      return found && found.length > 0 ? found : undefined;
    });
    assert.equal(lenses.length, 1);
    assert.equal(lenses[0].range.start.line, range.start.line);
    assert.equal(lenses[0].command?.command, 'ttlWorkbench.fixTTLIndex');
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
      'vscode.executeCodeActionProvider',
      uri,
      range,
      vscode.CodeActionKind.QuickFix.value,
    );
    assert.ok(actions.some((a) => a.command?.command === 'ttlWorkbench.fixTTLIndex'));
    // Click the CodeLens in the page, as a user does.
    const lens = '.codelens-decoration a:has-text("Set a valid expireAfterSeconds")';
    await screenshot('trial-nan-codelens.png');
    try {
      await driveUi([{ click: lens }]);
      const box = await driveUi([{ waitForInput: 'Fix deletedAt_1 of nan.events' }]);
      assert.match(box!.title, /Fix deletedAt_1 of nan\.events/);
      await driveUi([{ press: 'Control+A' }, { type: '3600' }, { press: 'Enter' }, { waitForClosed: true }]);
      await until('the fixed index to leave the Problems panel', () =>
        vscode.languages.getDiagnostics(uri).length === 0 ? true : undefined,
      );
      const [ix] = (await api.backend.listIndexes('nan', 'events')).filter((i) => i.name === 'deletedAt_1');
      assert.equal(Number(ix.spec.expireAfterSeconds), 3600);
      // The CodeLens goes with the problem.
      await until('the CodeLens to go', async () => {
        const left = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri);
        return left.length === 0 ? true : undefined;
      });
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    }
  });

  test('Show Documents opens the collection as mongosh prints it, read-only, 20 at first; Show More Documents adds 20; the view follows TTL deletions (18.5)', async () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    await run('resetEngine');
    await api.backend.reset({}, { startMs: now });
    const docs = Array.from({ length: 45 }, (_, i) => ({ _id: i, at: new Date(now - (i < 5 ? 2 : -2) * 3_600_000) }));
    await api.backend.runCommand('show', { insert: 'events', documents: docs });
    const shown = await run('showDocuments', { db: 'show', collection: 'events' });
    assert.equal(shown.ok, true, JSON.stringify(shown));
    assert.equal(shown.limit, 20);
    const editor = await until('the documents view', () =>
      vscode.window.activeTextEditor?.document.uri.toString() === shown.uri
        ? vscode.window.activeTextEditor
        : undefined,
    );
    const doc = editor.document;
    assert.equal(doc.languageId, 'ttl-mongosh', 'no language service reports on it');
    assert.match(doc.lineAt(0).text, /^\/\/ show\.events: documents 1–20 of 45, in natural order/);
    assert.match(doc.getText(), /\{ _id: 0, at: ISODate\('2029-12-31T22:00:00\.000Z'\) \}/);
    assert.equal((doc.getText().match(/_id: /g) ?? []).length, 20);
    const more = await run('showMoreDocuments', { uri: shown.uri });
    assert.equal(more.limit, 40);
    assert.equal((doc.getText().match(/_id: /g) ?? []).length, 40);
    assert.match(doc.lineAt(0).text, /documents 1–40 of 45/);
    // A TTL index and a clock move: the view redraws without the deleted documents.
    await run('createTTLIndex', { db: 'show', collection: 'events', field: 'at', expireAfterSeconds: 60 });
    await run('advanceClock', { duration: '90s' });
    await until('the view to follow the deletions', () =>
      /documents 1–40 of 40/.test(doc.lineAt(0).text) ? true : undefined,
    );
    assert.doesNotMatch(doc.getText(), /_id: 0,/);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  test('Create Index makes an ordinary index from a mongosh key spec with unique, sparse, a partial filter and a name; expireAfterSeconds is sent to Create TTL Index (18.5)', async () => {
    await run('resetEngine');
    await run('createCollection', { db: 'ix', name: 'users' });
    const r = await run('createIndex', {
      db: 'ix',
      collection: 'users',
      key: '{email: 1, createdAt: -1}',
      unique: true,
      partialFilterExpression: '{active: true}',
      name: 'email_recent',
    });
    assert.equal(r.ok, true, JSON.stringify(r));
    assert.equal(
      r.mongosh,
      "db.getSiblingDB('ix').users.createIndex({ email: 1, createdAt: -1 }, { unique: true, partialFilterExpression: { active: true }, name: 'email_recent' })",
    );
    const ix = (await api.backend.listIndexes('ix', 'users')).find((i) => i.name === 'email_recent');
    assert.ok(ix);
    assert.deepEqual(ix.spec.key, { email: 1, createdAt: -1 });
    assert.equal(ix.spec.unique, true);
    assert.deepEqual(ix.spec.partialFilterExpression, { active: true });
    const sparse = await run('createIndex', { db: 'ix', collection: 'users', key: { nick: 1 }, sparse: true });
    assert.equal(sparse.name, 'nick_1');
    const bad = await run('createIndex', { db: 'ix', collection: 'users', key: '{a: "nonsense"}' });
    assert.equal(bad.ok, false);
    assert.equal((bad.error as { code: number }).code, 67);
    const ttl = await run('createIndex', { db: 'ix', collection: 'users', key: { at: 1 }, expireAfterSeconds: 60 });
    assert.equal(ttl.ok, false);
    assert.deepEqual(ttl.remedies, ['Create TTL Index…']);
  });

  test('Advance Clock previews in the picker and in the Other… box how many documents the jump makes eligible, per TTL index (18.6)', async function () {
    if (!canDriveUi()) return this.skip();
    const now = Date.parse('2030-01-01T00:00:00Z');
    await run('resetEngine');
    await api.backend.reset({}, { startMs: now });
    await api.backend.runCommand('clk', {
      insert: 'events',
      documents: [-2, -0.5, 24, 30].map((h, i) => ({ _id: i, at: new Date(now + h * 3_600_000) })),
    });
    await run('createTTLIndex', { db: 'clk', collection: 'events', field: 'at', expireAfterSeconds: 3600 });
    const pending = vscode.commands.executeCommand<Result>('ttlWorkbench.advanceClock', {
      interactive: true,
      quiet: true,
    });
    try {
      const picker = await driveUi([{ waitForInput: 'Advance the virtual clock from' }]);
      const item = (label: string) => picker!.items.find((i) => i.startsWith(label)) ?? '';
      assert.match(item('+90s'), /1 document becomes eligible for deletion — clk\.events › at_1: 1/);
      assert.match(item('+1h'), /2 documents become eligible for deletion — clk\.events › at_1: 2/);
      assert.match(item('+2d'), /4 documents become eligible/);
      const box = await driveUi([
        { type: 'Other' },
        { press: 'Enter' },
        { waitForInput: 'Advance the virtual clock' },
        { type: '2030-01-02T02:00Z' },
        { waitForMessage: 'at_1: 3' },
      ]);
      assert.match(box!.message, /3 documents become eligible for deletion — clk\.events › at_1: 3/);
      await driveUi([{ press: 'Enter' }, { waitForClosed: true }]);
      const r = await pending;
      assert.equal(r.ok, true, JSON.stringify(r));
      assert.equal(r.deleted, 3, 'the jump deleted what it previewed');
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      await pending.then(undefined, () => undefined);
    }
  });

  test('Export for mongoimport writes canonical EJSON per collection and a mongosh script; importing them back recreates collections, options, indexes and documents; NamespaceExists offers another name or drop and replace (18.10)', async () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    await run('resetEngine');
    await api.backend.reset({}, { startMs: now });
    await api.backend.runCommand('exp', { insert: 'events', documents: [{ _id: 1, at: new Date(now), n: 2.5 }] });
    await api.backend.runCommand('exp', {
      createIndexes: 'events',
      indexes: [{ key: { at: 1 }, name: 'at_1', expireAfterSeconds: 3600 }],
    });
    await api.backend.runCommand('exp', {
      create: 'logs',
      clusteredIndex: { key: { _id: 1 }, unique: true },
      expireAfterSeconds: 60,
    });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttlw-mongoimport-'));
    try {
      const exported = await run('exportForMongoTools', { db: 'exp', folder: dir });
      assert.equal(exported.ok, true, JSON.stringify(exported));
      assert.deepEqual(exported.files, ['events.json', 'logs.json', 'exp.indexes.js']);
      const events = fs.readFileSync(path.join(dir, 'exp', 'events.json'), 'utf8');
      assert.equal(
        events,
        '{"_id":{"$numberDouble":"1.0"},"at":{"$date":{"$numberLong":"1893456000000"}},"n":{"$numberDouble":"2.5"}}\n',
      );
      const script = fs.readFileSync(path.join(dir, 'exp', 'exp.indexes.js'), 'utf8');
      assert.match(script, /mongoimport --uri .* --db "exp" --collection "events" --file "events\.json"/);
      const files = ['events.json', 'logs.json', 'exp.indexes.js'].map((f) => path.join(dir, 'exp', f));
      const imported = await run('importMongoTools', { files, into: 'copy' });
      assert.equal(imported.ok, true, JSON.stringify(imported));
      assert.equal(imported.documents, 1);
      const ttl = (await api.backend.listIndexes('copy', 'events')).find((i) => i.name === 'at_1');
      assert.equal(Number(ttl?.spec.expireAfterSeconds), 3600);
      const logs = (await api.backend.listCollections('copy')).find((c) => c.name === 'logs');
      assert.equal(logs?.kind, 'clustered');
      // Again into the same database: refused, with the two actions the README promises.
      const again = await run('importMongoTools', { files, into: 'copy' });
      assert.equal(again.ok, false);
      assert.equal((again.error as { codeName: string }).codeName, 'NamespaceExists');
      assert.deepEqual(again.remedies, ['Import as another name…', 'Drop and replace']);
      const replaced = await run('importMongoTools', { files, into: 'copy', replace: true });
      assert.equal(replaced.ok, true, JSON.stringify(replaced));
      assert.equal((await api.backend.listCollections('copy')).find((c) => c.name === 'events')?.count, 1);
      // The TTL Workbench export format says the same on a second import.
      const wrapper = path.join(dir, 'exp.ejson.json');
      assert.equal((await run('exportDatabase', { db: 'exp', file: wrapper })).ok, true);
      const twice = await run('importEJSON', { file: wrapper });
      assert.equal(twice.ok, false);
      assert.deepEqual(twice.remedies, ['Import as another name…', 'Drop and replace']);
      const dropped = await run('importEJSON', { file: wrapper, into: 'exp', replace: true });
      assert.equal(dropped.ok, true, JSON.stringify(dropped));
      assert.equal(dropped.documents, 1);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('Export for mongoimport streams a collection larger than one cursor batch, in both forms, every document once and in order; import reads both back (18.10)', async () => {
    await run('resetEngine');
    const docs = Array.from({ length: 2_500 }, (_, i) => ({ _id: i, v: `d${i}` }));
    await api.backend.runCommand('big', { insert: 'c', documents: docs });
    await api.backend.runCommand('big', { create: 'empty' });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttlw-mongoimport-big-'));
    try {
      for (const jsonArray of [false, true]) {
        const exported = await run('exportForMongoTools', {
          db: 'big',
          folder: path.join(dir, String(jsonArray)),
          jsonArray,
        });
        assert.equal(exported.ok, true, JSON.stringify(exported));
        assert.equal(exported.documents, 2_500);
        const text = fs.readFileSync(path.join(dir, String(jsonArray), 'big', 'c.json'), 'utf8');
        const empty = fs.readFileSync(path.join(dir, String(jsonArray), 'big', 'empty.json'), 'utf8');
        const ids = (
          jsonArray
            ? (JSON.parse(text) as Array<{ _id: unknown }>)
            : text
                .trimEnd()
                .split('\n')
                .map((l) => JSON.parse(l) as { _id: unknown })
        ).map((d) => Number((d._id as { $numberDouble?: string }).$numberDouble ?? d._id));
        assert.deepEqual(
          ids,
          docs.map((d) => d._id),
        );
        assert.equal(empty, jsonArray ? '[\n\n]\n' : '');
        const files = ['c.json', 'empty.json', 'big.indexes.js'].map((f) =>
          path.join(dir, String(jsonArray), 'big', f),
        );
        const imported = await run('importMongoTools', { files, into: `back${jsonArray ? 'Array' : 'Lines'}` });
        assert.equal(imported.ok, true, JSON.stringify(imported));
        assert.equal(imported.documents, 2_500);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the export and import dialogs open in the workspace folder, not at the file system root (18.10)', async function () {
    if (!canDriveUi()) return this.skip(); // code-server's file dialog is a quick input the driver can read
    await run('resetEngine');
    await run('createCollection', { db: 'dlg', name: 'c' });
    const folder = vscode.workspace.workspaceFolders![0].uri.fsPath;
    const pending = vscode.commands.executeCommand<Result>('ttlWorkbench.exportDatabase', {
      db: 'dlg',
      interactive: true,
      quiet: true,
    });
    try {
      await driveUi([{ waitForInput: 'Export dlg as EJSON' }]);
      assert.equal(await settledDialogPath(path.join(folder, 'dlg.ejson.json')), path.join(folder, 'dlg.ejson.json'));
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      await pending.then(undefined, () => undefined);
    }
    const opening = vscode.commands.executeCommand<Result>('ttlWorkbench.importEJSON', {
      interactive: true,
      quiet: true,
    });
    try {
      await driveUi([{ waitForInput: 'Import EJSON' }]);
      const open = await settledDialogPath(folder);
      assert.ok(open.startsWith(folder), `${open} is not in ${folder}`);
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      await opening.then(undefined, () => undefined);
    }
  });
});
