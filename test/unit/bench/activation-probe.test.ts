/**
 * The bench's extension section, small: `npm run bench` once ended with exit code 1 because
 * activation read a member the bench's stand-in `vscode` lacked (context.storageUri) and the
 * stand-in answered a function that reached path.join. These run the activation probe once (a
 * fresh process over dist/extension.js, bundled by scripts/test-unit.js; durable storage in a
 * temporary folder) and the extension section at a tiny size, and fail if either throws or reports
 * an error; and check that the stand-in names a member it lacks instead of answering garbage.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { probe, runExtensionBench } from '../../../bench/extension-bench';
import { fakeExtensionContext, installVscodeShim, MissingShimMemberError } from '../../../bench/vscode-shim';

const root = path.resolve(__dirname, '../../../..');

test('the activation probe activates the bundled extension, then starts its engine on durable storage in a temporary folder, without errors', () => {
  const result = probe(root, 'extension'); // throws if the probe failed or reported an error
  assert.deepEqual(result.errors, []);
  assert.deepEqual(result.warnings, []);
  assert.ok(result.loadMs > 0 && result.activateMs > 0, JSON.stringify(result));
  assert.ok(result.engineStartMs! > 0 && result.engineReadyMs! >= result.engineStartMs!, JSON.stringify(result));
  assert.equal(result.startedBy, 'the extension API');
  assert.equal(typeof result.reported, 'number');
  assert.equal(result.storage?.mode, 'folder');
  assert.equal(result.storage?.readOnly, false);
  const dir = result.storage.dir!;
  assert.match(dir, /ttl-bench-probe-[^/\\]+[/\\]workspace[/\\]engine$/);
  assert.equal(
    fs.existsSync(path.dirname(path.dirname(dir))),
    false,
    'the temporary storage folder is removed afterwards',
  );
});

test('a data command run before the engine started starts it through its stand-in and runs (activation in steps)', () => {
  // The probe fails (and probe() throws) if activation started the engine, or if the command's
  // stand-in did not hand the call to the real command once the engine had started.
  const result = probe(root, 'extension', 'command');
  assert.equal(result.startedBy, 'the command ttlWorkbench.runTTLPass');
  assert.equal(result.storage?.mode, 'folder');
});

test('a start that fails is reported, answers {ok: false}, and the next command starts the engine', () => {
  // dist/workbench.js is missing at first (a broken install); the probe fails if the command did
  // not answer {ok: false}, if the engine counted as started, or if the retry did not run.
  const result = probe(root, 'extension', 'failing-start');
  assert.ok(
    result.reportedFailure!.some((e) => /TTL Workbench could not start its engine: Cannot find module/.test(e)),
    JSON.stringify(result.reportedFailure),
  );
  assert.equal(result.startedBy, 'the command ttlWorkbench.runTTLPass');
});

test('the extension section runs to the end at a tiny size', async () => {
  let out = '';
  await runExtensionBench({
    root,
    documents: 1000,
    indexes: 3,
    collections: 5,
    activationRuns: 1,
    write: (text) => void (out += text),
  });
  assert.match(out, /## Activation of the bundled extension/);
  assert.match(out, /## The Databases tree/);
  assert.doesNotMatch(out, /Warning logged or shown/);
});

test('the stand-in vscode names a member it lacks rather than answering a stub', () => {
  installVscodeShim();
  const vscode = require('vscode') as Record<string, Record<string, unknown>>;
  const missing = (fn: () => unknown, member: string) =>
    assert.throws(
      fn,
      (err: unknown) =>
        err instanceof MissingShimMemberError && err.member === member && err.message.includes(`\`${member}\``),
    );
  missing(() => vscode.window.createWebviewPanel, 'vscode.window.createWebviewPanel');
  missing(() => vscode.debug.activeDebugSession, 'vscode.debug.activeDebugSession');
  missing(() => String(vscode.debug), 'vscode.debug');
  missing(() => (vscode.tasks as unknown as () => unknown)(), 'vscode.tasks');
  const context = fakeExtensionContext(root, path.join(root, 'no-such-folder'));
  missing(() => context.environmentVariableCollection, 'context.environmentVariableCollection');
  assert.equal(typeof (context.storageUri as { fsPath: unknown }).fsPath, 'string');
  assert.equal(typeof (context.globalStorageUri as { fsPath: unknown }).fsPath, 'string');
});
