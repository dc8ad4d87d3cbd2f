// TTL diagnostics of source files inside a real VS Code: fixture files are copied into the
// workspace and opened; the test reads vscode.languages.getDiagnostics, applies the quick fixes
// through vscode.executeCodeActionProvider and checks the edited text, reads the hover, runs the
// "Apply to engine" CodeLens and "Check Workspace".
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { suite, suiteSetup, test } from 'mocha';
import * as vscode from 'vscode';
import type { TTLWorkbenchApi } from '../../../src/extension/api';
import { until } from './wait';

const EXTENSION_ID = 'ttl-workbench.ttl-workbench';
const FIXTURES = path.resolve(__dirname, '../../../../test/integration/fixtures/diagnostics');
let api: TTLWorkbenchApi;
let folder: string;

function ours(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'TTL Workbench');
}

function codeOf(d: vscode.Diagnostic): string {
  return typeof d.code === 'object' ? String(d.code.value) : String(d.code);
}

function summary(doc: vscode.TextDocument, list: vscode.Diagnostic[]): string[] {
  return list
    .map((d) => `${codeOf(d)} ${d.range.start.line + 1}:${d.range.start.character + 1} ${doc.getText(d.range)}`)
    .sort();
}

async function open(name: string): Promise<vscode.TextDocument> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(folder, name)));
  await vscode.window.showTextDocument(doc, { preview: false });
  return doc;
}

/** Diagnostics once they satisfy `ready` (the analysis is debounced). */
async function diagnosticsWhen(
  doc: vscode.TextDocument,
  ready: (codes: string[]) => boolean,
): Promise<vscode.Diagnostic[]> {
  return until(`diagnostics of ${path.basename(doc.fileName)}`, async () => {
    await api.whenIdle();
    const list = ours(doc.uri);
    return ready(list.map(codeOf)) ? list : undefined;
  });
}

async function actionsFor(doc: vscode.TextDocument, d: vscode.Diagnostic): Promise<vscode.CodeAction[]> {
  // Only this diagnostic's range is asked for, so every action returned is one of its fixes.
  const all = await vscode.commands.executeCommand<vscode.CodeAction[]>(
    'vscode.executeCodeActionProvider',
    doc.uri,
    d.range,
  );
  return all.filter(
    (a) => !a.diagnostics || a.diagnostics.length === 0 || a.diagnostics.some((x) => codeOf(x) === codeOf(d)),
  );
}

async function applyAction(
  doc: vscode.TextDocument,
  code: string,
  titlePart: string,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const d = ours(doc.uri).find((x) => codeOf(x) === code);
  assert.ok(d, `no ${code} on ${doc.fileName}: ${summary(doc, ours(doc.uri)).join('; ')}`);
  const actions = await actionsFor(doc, d);
  const action = actions.find((a) => a.title.includes(titlePart));
  assert.ok(action, `no "${titlePart}" fix for ${code}: ${actions.map((a) => a.title).join('; ')}`);
  if (action.edit) assert.ok(await vscode.workspace.applyEdit(action.edit));
  if (action.command?.command === 'ttlWorkbench.quickFixApplied') {
    // After an edit: only tells the walkthrough a quick fix was applied (no result to check).
    await vscode.commands.executeCommand(action.command.command, ...(action.command.arguments ?? []));
  } else if (action.command) {
    const [args] = (action.command.arguments ?? []) as Array<Record<string, unknown>>;
    const r = await vscode.commands.executeCommand<{ ok: boolean }>(action.command.command, { ...args, ...extra });
    assert.equal(r.ok, true, JSON.stringify(r));
  }
}

/** Put a fixture's original text back and save it (the next tests and Check Workspace read it). */
async function restore(doc: vscode.TextDocument, name: string): Promise<void> {
  const edit = new vscode.WorkspaceEdit();
  edit.replace(doc.uri, new vscode.Range(0, 0, doc.lineCount, 0), fs.readFileSync(path.join(FIXTURES, name), 'utf8'));
  assert.ok(await vscode.workspace.applyEdit(edit));
  assert.ok(await doc.save());
}

function line(doc: vscode.TextDocument, n: number): string {
  return doc.lineAt(n - 1).text;
}

suite('TTL diagnostics in source files', function () {
  this.timeout(120_000);

  suiteSetup(async () => {
    const ext = vscode.extensions.getExtension<TTLWorkbenchApi>(EXTENSION_ID);
    assert.ok(ext);
    api = await ext.activate();
    await vscode.commands.executeCommand('ttlWorkbench.resetEngine', { quiet: true });
    const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    assert.ok(root, 'the runner opens a workspace folder');
    folder = path.join(root, 'diagnostics-fixtures');
    fs.rmSync(folder, { recursive: true, force: true });
    fs.cpSync(FIXTURES, folder, { recursive: true });
    // A dependency with a TTL mistake: Check Workspace must not report it.
    fs.mkdirSync(path.join(folder, 'node_modules', 'pkg'), { recursive: true });
    fs.writeFileSync(
      path.join(folder, 'node_modules', 'pkg', 'index.js'),
      'db.x.createIndex({ t: 1 }, { expireAfterSeconds: -1 });\n',
    );
  });

  test('an opened JavaScript file gets its problems with codes, ranges and documentation links', async () => {
    const doc = await open('values.js');
    const list = await diagnosticsWhen(doc, (c) => c.length >= 5);
    assert.deepEqual(summary(doc, list), [
      'TTL002 3:62 NaN',
      'TTL003 2:64 -3600',
      'TTL006 4:23 { tenant: 1, createdAt: 1 }',
      'TTL014 6:54 86400000',
      'TTL016 5:101 { expireAfterSeconds: 3600 }',
    ]);
    const negative = list.find((d) => codeOf(d) === 'TTL003')!;
    assert.equal(negative.severity, vscode.DiagnosticSeverity.Error);
    assert.match(negative.message, /CannotCreateIndex \(67\)/);
    assert.equal(
      typeof negative.code === 'object' && negative.code.target.toString(),
      'https://www.mongodb.com/docs/manual/core/index-ttl/',
    );
  });

  test('quick fixes edit the text and the problems go away', async () => {
    const doc = await open('values.js');
    await diagnosticsWhen(doc, (c) => c.length >= 5);
    await applyAction(doc, 'TTL003', 'Use 3600');
    assert.equal(line(doc, 2), 'db.sessions.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 3600 });');
    await applyAction(doc, 'TTL002', 'Replace NaN', { value: '2h' });
    assert.equal(line(doc, 3), 'db.carts.createIndex({ touchedAt: 1 }, { expireAfterSeconds: 7200 });');
    await applyAction(doc, 'TTL016', 'Move');
    assert.equal(
      line(doc, 5),
      "db.weather.createIndex({ timestamp: 1 }, { partialFilterExpression: { 'metadata.sensorId': 123 }, expireAfterSeconds: 3600 });",
    );
    await applyAction(doc, 'TTL014', 'Use 86400');
    assert.equal(line(doc, 6), 'db.logs.createIndex({ at: 1 }, { expireAfterSeconds: 86400 });');
    await applyAction(doc, 'TTL006', 'TTL index on createdAt');
    assert.equal(line(doc, 4), 'db.events.createIndex({ createdAt: 1 }, { expireAfterSeconds: 86400 });');
    assert.equal(line(doc, 5), 'db.events.createIndex({ tenant: 1, createdAt: 1 });');
    const after = await diagnosticsWhen(doc, (c) => c.length === 0);
    assert.deepEqual(after, []);
    await restore(doc, 'values.js');
  });

  test('rule 2.3: in a file bound to the engine, a createIndex that would change the engine index is IndexOptionsConflict, fixed with collMod; an unbound file never compares with the engine (issue 18.3)', async () => {
    await api.backend.runCommand('app', {
      createIndexes: 'orders',
      indexes: [{ key: { createdAt: 1 }, name: 'createdAt_1', expireAfterSeconds: 3600 }],
    });
    const doc = await open('engine.ts');
    // Application code talking to another server: the scratch engine's state says nothing about it.
    await api.whenIdle();
    await new Promise((r) => setTimeout(r, 500));
    await api.whenIdle();
    assert.deepEqual(ours(doc.uri).map(codeOf), [], 'no engine-aware rule in an unbound file');
    const bound = await vscode.commands.executeCommand<{ ok: boolean; bound: boolean; path: string }>(
      'ttlWorkbench.bindFileToEngine',
      { uri: doc.uri.toString(), quiet: true },
    );
    assert.deepEqual([bound.ok, bound.bound, bound.path], [true, true, 'diagnostics-fixtures/engine.ts']);
    const [d] = await diagnosticsWhen(doc, (c) => c.includes('TTL011'));
    assert.match(
      d.message,
      /app\.orders already has index 'createdAt_1' with expireAfterSeconds 3600.*IndexOptionsConflict \(85\)/,
    );
    await applyAction(doc, 'TTL011', 'collMod');
    assert.equal(
      line(doc, 5),
      'await db.command({ collMod: "orders", index: { keyPattern: { createdAt: 1 }, expireAfterSeconds: 7200 } });',
    );
    await diagnosticsWhen(doc, (c) => c.length === 0);
    await restore(doc, 'engine.ts');
    const unbound = await vscode.commands.executeCommand<{ bound: boolean }>('ttlWorkbench.bindFileToEngine', {
      uri: doc.uri.toString(),
      quiet: true,
    });
    assert.equal(unbound.bound, false);
    assert.deepEqual(vscode.workspace.getConfiguration('ttlWorkbench').get('engineBoundFiles'), []);
  });

  test('hover shows the duration in words and how many engine documents are eligible now', async () => {
    const now = (await api.backend.clock()).now.getTime();
    await api.backend.runCommand('app', {
      insert: 'visits',
      documents: [
        { seenAt: new Date(now - 2 * 3600_000) },
        { seenAt: new Date(now - 3 * 3600_000) },
        { seenAt: new Date(now) },
      ],
    });
    const doc = await open('hover.js');
    await api.whenIdle();
    const position = new vscode.Position(1, line(doc, 2).indexOf('expireAfterSeconds') + 3);
    const text = await until('a hover with the engine count', async () => {
      const hovers = await vscode.commands.executeCommand<vscode.Hover[]>(
        'vscode.executeHoverProvider',
        doc.uri,
        position,
      );
      const all = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
      return all.includes('Embedded engine') ? all : undefined;
    });
    assert.match(text, /3,600 s = 1 hour/);
    assert.match(text, /after the date in `seenAt`/);
    assert.match(text, /Embedded engine, app\.visits: 2 existing documents become eligible at once/);
  });

  test('"Apply to engine" CodeLens shows only in bound files (and notebooks) and runs the definition against the embedded engine', async () => {
    const doc = await open('hover.js');
    const none = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri);
    assert.deepEqual(
      none.map((l) => l.command?.title),
      [],
      'no lens in an unbound file',
    );
    const config = vscode.workspace.getConfiguration('ttlWorkbench');
    await config.update('engineBoundFiles', ['diagnostics-fixtures/*.js'], vscode.ConfigurationTarget.Workspace);
    const lenses = await until('the Apply lens in a bound file', async () => {
      const l = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri);
      return l.length ? l : undefined;
    });
    await config.update('engineBoundFiles', undefined, vscode.ConfigurationTarget.Workspace);
    const lens = lenses.find((l) => l.command?.title.includes('Apply to engine'));
    assert.ok(lens?.command, `no Apply lens: ${lenses.map((l) => l.command?.title).join()}`);
    const r = await vscode.commands.executeCommand<{ ok: boolean; db: string }>(lens.command.command, {
      ...(lens.command.arguments?.[0] as object),
      quiet: true,
    });
    assert.equal(r.ok, true, JSON.stringify(r));
    assert.equal(r.db, 'app');
    const indexes = await api.backend.listIndexes('app', 'visits');
    assert.equal(Number(indexes.find((i) => i.name === 'seenAt_1')?.spec.expireAfterSeconds), 3600);
  });

  test('a .ttlbook is analysed cell by cell with the right lines (a capped collection from an earlier cell)', async () => {
    const doc = await open('notebook.ttlbook');
    const list = await diagnosticsWhen(doc, (c) => c.length >= 2);
    assert.deepEqual(summary(doc, list), ['TTL005 12:53 2.5', 'TTL008 12:33 expireAfterSeconds: 2.5']);
  });

  test('ttlWorkbench.diagnostics.disabledRules turns rules off', async () => {
    const config = vscode.workspace.getConfiguration('ttlWorkbench.diagnostics');
    const doc = await open('values.js');
    await diagnosticsWhen(doc, (c) => c.includes('TTL014'));
    try {
      await config.update('disabledRules', ['TTL014', 'TTL016'], vscode.ConfigurationTarget.Global);
      const list = await diagnosticsWhen(doc, (c) => !c.includes('TTL014'));
      assert.deepEqual(list.map(codeOf).sort(), ['TTL002', 'TTL003', 'TTL006']);
    } finally {
      await config.update('disabledRules', undefined, vscode.ConfigurationTarget.Global);
    }
    await diagnosticsWhen(doc, (c) => c.includes('TTL014'));
  });

  test('"Check Workspace" fills the Problems panel for files never opened, skipping node_modules', async () => {
    const unopened = vscode.Uri.file(path.join(folder, 'unopened.mjs'));
    assert.deepEqual(ours(unopened), []);
    const r = await vscode.commands.executeCommand<{ ok: boolean; files: number; problems: number; errors: number }>(
      'ttlWorkbench.checkWorkspace',
      { quiet: true },
    );
    assert.equal(r.ok, true);
    assert.ok(r.files >= 5, `checked ${r.files} files`);
    assert.deepEqual(ours(unopened).map(codeOf), ['TTL007']);
    assert.deepEqual(ours(vscode.Uri.file(path.join(folder, 'node_modules', 'pkg', 'index.js'))), []);
    assert.ok(r.errors >= 3, JSON.stringify(r));
  });
});
