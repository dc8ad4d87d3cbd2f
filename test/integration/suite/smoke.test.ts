// Smoke test of the integration harness itself: a real VS Code, a workspace folder the tests can
// write to, and (once package.json declares the extension) the extension activating.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import { screenshot } from './index';

// out/test/integration/suite -> the repository root, which is the extension under test.
const root = path.resolve(__dirname, '..', '..', '..', '..');

interface Manifest {
  name?: string;
  publisher?: string;
  main?: string;
  engines?: { vscode?: string };
}

suite('Smoke: the integration host', () => {
  test('runs inside a real VS Code extension host', () => {
    assert.match(vscode.version, /^1\.\d+\.\d+/);
    assert.equal(typeof vscode.commands.executeCommand, 'function');
    console.log(
      `[smoke] VS Code ${vscode.version} (${vscode.env.appName}, ui ${vscode.UIKind[vscode.env.uiKind]}, ` +
        `remote ${vscode.env.remoteName ?? 'none'}), extension host on Node ${process.version}`,
    );
  });

  test('has a workspace folder open that tests can write files in', async () => {
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'no workspace folder is open');
    const uri = vscode.Uri.joinPath(folder.uri, 'smoke-check.txt');
    await vscode.workspace.fs.writeFile(uri, Buffer.from('written by the smoke test'));
    const doc = await vscode.workspace.openTextDocument(uri);
    assert.equal(doc.getText(), 'written by the smoke test');
    await vscode.workspace.fs.delete(uri);
  });

  test('activates the extension that package.json declares', async function () {
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as Manifest;
    if (!manifest.publisher || !manifest.main || !manifest.engines?.vscode) {
      console.log('[smoke] package.json declares no extension yet (publisher, main, engines.vscode): skipped');
      this.skip();
    }
    const id = `${manifest.publisher}.${manifest.name}`;
    const extension = vscode.extensions.getExtension(id);
    assert.ok(
      extension,
      `extension ${id} is not loaded: is engines.vscode (${manifest.engines.vscode}) satisfied by VS Code ${vscode.version}?`,
    );
    await extension.activate();
    assert.ok(extension.isActive, `extension ${id} did not activate`);
  });

  if (process.env.TTL_WORKBENCH_SMOKE_SCREENSHOT === '1') {
    test('takes a screenshot of the workbench (TTL_WORKBENCH_SMOKE_SCREENSHOT=1)', async () => {
      await vscode.commands.executeCommand('workbench.view.explorer');
      const file = await screenshot('smoke-workbench.png');
      if (file) assert.ok(fs.statSync(file).size > 10_000, `${file} is too small to be a screenshot`);
    });
  }

  if (process.env.TTL_WORKBENCH_SMOKE_FAIL === '1') {
    test('fails on purpose (TTL_WORKBENCH_SMOKE_FAIL=1 checks that failures fail the run)', () => {
      assert.fail('failing on purpose because TTL_WORKBENCH_SMOKE_FAIL=1');
    });
  }
});
