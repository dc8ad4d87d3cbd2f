// Activation in steps, in a real VS Code: a JavaScript file with a TTL mistake gets its
// diagnostics from the source analysis alone (the engine and its worker thread do not start),
// and the Databases view starting the engine. This file runs first (the suite files run in name
// order), while nothing has activated the extension yet; it logs the activation time and the
// extension host's memory at each step (the numbers the note reports).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import type { TTLWorkbenchApi } from '../../../src/extension/api';
import { delay, until } from './wait';

const EXTENSION_ID = 'ttl-workbench.ttl-workbench';
const FIXTURES = path.resolve(__dirname, '../../../../test/integration/fixtures/diagnostics');

function memory(): string {
  const m = process.memoryUsage();
  const mb = (n: number) => `${(n / 2 ** 20).toFixed(1)} MB`;
  return `rss ${mb(m.rss)}, heap used ${mb(m.heapUsed)}`;
}

suite('Activation in steps', function () {
  this.timeout(120_000);
  let api: TTLWorkbenchApi;

  test('opening a JavaScript file with a TTL mistake shows its diagnostic without starting the engine', async () => {
    const ext = vscode.extensions.getExtension<TTLWorkbenchApi>(EXTENSION_ID);
    assert.ok(ext);
    assert.equal(ext.isActive, false, 'the extension is not active before the first suite');
    console.log(`[ttl-workbench] extension host before activation: ${memory()}`);
    const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    assert.ok(root, 'the runner opens a workspace folder');
    const file = path.join(root, 'activation-fixture', 'values.js');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.copyFileSync(path.join(FIXTURES, 'values.js'), file);

    // What onLanguage:javascript does: load the bundle and call activate().
    const t0 = performance.now();
    api = await ext.activate();
    const outside = performance.now() - t0;
    await delay(1000); // what activation starts in the background has started
    const activated = memory();
    const t1 = performance.now();
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    await vscode.window.showTextDocument(doc);
    const shown = performance.now() - t1;
    const problems = await until(
      'the diagnostics of values.js',
      () => {
        const list = vscode.languages.getDiagnostics(doc.uri).filter((d) => d.source === 'TTL Workbench');
        return list.length ? list : undefined;
      },
      20_000,
      20,
    );
    const firstDiagnostics = performance.now() - t1;
    await delay(2000); // what starts in the background has started
    console.log(
      `[ttl-workbench] activation for a JavaScript file: activate() ${api.activationMs.toFixed(1)} ms inside, ` +
        `${outside.toFixed(1)} ms with loading the bundle; extension host after activation: ${activated}; first diagnostics ${firstDiagnostics.toFixed(0)} ms after opening (the editor showed at ${shown.toFixed(0)} ms); ` +
        `extension host with the file open (VS Code's TypeScript features activate too): ${memory()}`,
    );
    assert.ok(
      problems.some((d) => String(typeof d.code === 'object' ? d.code.value : d.code) === 'TTL003'),
      'the negative expireAfterSeconds is reported',
    );
    assert.equal(api.engineStartedBy(), undefined, 'the engine did not start for a JavaScript file');
    // Check Workspace reads source files only: it runs without starting the engine.
    const checked = await vscode.commands.executeCommand<{ files: number; problems: number }>(
      'ttlWorkbench.checkWorkspace',
      { quiet: true },
    );
    assert.ok(checked.files >= 1 && checked.problems >= 5, JSON.stringify(checked));
    assert.equal(api.engineStartedBy(), undefined, 'Check Workspace did not start the engine');
    assert.ok(
      !api.lifecycleLog().some((l) => l.includes('Engine started')),
      `no "Engine started" line in the log: ${api.lifecycleLog().join(' | ')}`,
    );
  });

  test('showing the Databases view starts the engine', async () => {
    api = await vscode.extensions.getExtension<TTLWorkbenchApi>(EXTENSION_ID)!.activate();
    await vscode.commands.executeCommand('workbench.view.extension.ttlWorkbench');
    const reason = await until('the engine to start', () => api.engineStartedBy());
    assert.equal(reason, 'the Databases view');
    await until('the engine line of the tree', async () => {
      await api.whenIdle();
      const roots = await api.treeProvider.topRows();
      return roots.length ? roots : undefined;
    });
    assert.ok(api.lifecycleLog().some((l) => l.includes('Engine started (the Databases view)')));
    await delay(2000);
    console.log(`[ttl-workbench] extension host with the engine started: ${memory()}`);
  });
});
