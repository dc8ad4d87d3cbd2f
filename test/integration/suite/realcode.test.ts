// Issue 25 in the editor: files in the shapes real projects write (a NestJS @Schema class with
// @Prop({expires}), a Typegoose @index class, a Mongoose path-level index: {expires}, a
// decorator-heavy NestJS controller, a TypeORM @Index entity) are opened in the real host. Their
// live diagnostics must be exactly what `ttl-workbench check --json` (the bundled CLI) reports
// for the same files: one analysis, two front ends. Then quick fixes are applied in the editor.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { suite, suiteSetup, test } from 'mocha';
import * as vscode from 'vscode';
import type { TTLWorkbenchApi } from '../../../src/extension/api';
import { until } from './wait';

const EXTENSION_ID = 'ttl-workbench.ttl-workbench';
const ROOT = path.resolve(__dirname, '../../../..');
const FIXTURES = path.join(ROOT, 'test/integration/fixtures/realcode');
const CLI = path.join(ROOT, 'dist/cli.js');

/** The codes each fixture must show (the analysis must see these shapes at all). */
const EXPECTED: Record<string, string[]> = {
  'login-session.schema.ts': ['TTL014', 'TTL019'],
  'cache-entry.ts': ['TTL003'],
  'verification-token.js': ['TTL014'],
  'invites.controller.ts': ['TTL001', 'TTL018'],
  'device-session.entity.ts': ['TTL001'],
};

let api: TTLWorkbenchApi;
let folder: string;

function ours(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'TTL Workbench');
}

function codeOf(d: vscode.Diagnostic): string {
  return typeof d.code === 'object' ? String(d.code.value) : String(d.code);
}

const SEVERITY: Record<number, string> = {
  [vscode.DiagnosticSeverity.Error]: 'error',
  [vscode.DiagnosticSeverity.Warning]: 'warning',
  [vscode.DiagnosticSeverity.Information]: 'information',
  [vscode.DiagnosticSeverity.Hint]: 'hint',
};

/** One line per diagnostic, 1-based like check's output: `code line:col-endLine:endCol severity message`. */
function fromEditor(list: vscode.Diagnostic[]): string[] {
  return list
    .map((d) => {
      const r = d.range;
      const at = `${r.start.line + 1}:${r.start.character + 1}-${r.end.line + 1}:${r.end.character + 1}`;
      return `${codeOf(d)} ${at} ${SEVERITY[d.severity]} ${d.message}`;
    })
    .sort();
}

interface CheckRecord {
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  severity: string;
  code: string;
  message: string;
}

/** `ttl-workbench check --json` over the fixture folder, grouped by file name, in the same form. */
function fromCheck(): Map<string, string[]> {
  const r = spawnSync(process.execPath, [CLI, 'check', '--json', '.'], { cwd: folder, encoding: 'utf8' });
  assert.ok(r.status === 0 || r.status === 1, `check exited ${r.status}: ${r.stderr}`);
  const records = JSON.parse(r.stdout) as CheckRecord[];
  const out = new Map<string, string[]>();
  for (const rec of records) {
    const name = path.basename(rec.file);
    const list = out.get(name) ?? [];
    list.push(`${rec.code} ${rec.line}:${rec.column}-${rec.endLine}:${rec.endColumn} ${rec.severity} ${rec.message}`);
    out.set(name, list);
  }
  for (const list of out.values()) list.sort();
  return out;
}

async function open(name: string): Promise<vscode.TextDocument> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(folder, name)));
  await vscode.window.showTextDocument(doc, { preview: false });
  return doc;
}

/** The document's diagnostics once their codes are exactly `codes` (the analysis is debounced). */
async function diagnosticsWith(doc: vscode.TextDocument, codes: string[]): Promise<vscode.Diagnostic[]> {
  const want = [...codes].sort().join(',');
  return until(`diagnostics ${want} of ${path.basename(doc.fileName)}`, async () => {
    await api.whenIdle();
    const list = ours(doc.uri);
    return list.map(codeOf).sort().join(',') === want ? list : undefined;
  });
}

async function applyFix(doc: vscode.TextDocument, code: string, titlePart: string): Promise<void> {
  const d = ours(doc.uri).find((x) => codeOf(x) === code);
  assert.ok(d, `no ${code} on ${path.basename(doc.fileName)}`);
  const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
    'vscode.executeCodeActionProvider',
    doc.uri,
    d.range,
  );
  const action = actions.find((a) => a.title.includes(titlePart));
  assert.ok(action?.edit, `no "${titlePart}" fix for ${code}: ${actions.map((a) => a.title).join('; ')}`);
  assert.ok(await vscode.workspace.applyEdit(action.edit));
}

async function restore(doc: vscode.TextDocument, name: string): Promise<void> {
  const edit = new vscode.WorkspaceEdit();
  edit.replace(doc.uri, new vscode.Range(0, 0, doc.lineCount, 0), fs.readFileSync(path.join(FIXTURES, name), 'utf8'));
  assert.ok(await vscode.workspace.applyEdit(edit));
  assert.ok(await doc.save());
}

suite('Issue 25: real-code shapes in the editor', function () {
  this.timeout(120_000);

  suiteSetup(async () => {
    const ext = vscode.extensions.getExtension<TTLWorkbenchApi>(EXTENSION_ID);
    assert.ok(ext);
    api = await ext.activate();
    const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    assert.ok(root, 'the runner opens a workspace folder');
    folder = path.join(root, 'realcode-fixtures');
    fs.rmSync(folder, { recursive: true, force: true });
    fs.cpSync(FIXTURES, folder, { recursive: true });
  });

  test('Issue 25: live diagnostics of NestJS, Typegoose, Mongoose path-level, decorator-heavy and TypeORM files equal ttl-workbench check --json', async () => {
    const checked = fromCheck();
    assert.deepEqual([...checked.keys()].sort(), Object.keys(EXPECTED).sort(), 'check reports on every fixture');
    for (const [name, codes] of Object.entries(EXPECTED)) {
      const doc = await open(name);
      const live = fromEditor(await diagnosticsWith(doc, codes));
      assert.deepEqual(live, checked.get(name), `${name}: the editor and check differ`);
    }
  });

  test('Issue 25: quick fixes apply in the editor (path-level expires in ms, default computed once, misspelled option) and their problems go away', async () => {
    const token = await open('verification-token.js');
    await diagnosticsWith(token, ['TTL014']);
    await applyFix(token, 'TTL014', 'Use 86400');
    assert.equal(token.lineAt(5).text, '  createdAt: { type: Date, default: Date.now, index: { expires: 86400 } },');
    assert.deepEqual(await diagnosticsWith(token, []), []);
    await restore(token, 'verification-token.js');

    const session = await open('login-session.schema.ts');
    await diagnosticsWith(session, ['TTL014', 'TTL019']);
    await applyFix(session, 'TTL019', 'Use default: Date.now');
    assert.equal(session.lineAt(13).text, '  @Prop({ type: Date, default: Date.now, expires: 60 * 60 * 24 })');
    await diagnosticsWith(session, ['TTL014']);
    await restore(session, 'login-session.schema.ts');

    const invites = await open('invites.controller.ts');
    await diagnosticsWith(invites, ['TTL001', 'TTL018']);
    await applyFix(invites, 'TTL018', 'Rename expiresAfterSeconds to expireAfterSeconds');
    assert.match(invites.lineAt(21).text, /createIndex\(\{ sentAt: 1 \}, \{ expireAfterSeconds: 7 \* 86400 \}\);$/);
    await diagnosticsWith(invites, ['TTL001']);
    await restore(invites, 'invites.controller.ts');
  });
});
