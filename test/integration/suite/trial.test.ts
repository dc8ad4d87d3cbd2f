// Issue 18, "a new user's trial in the real workbench": data never dropped unasked, the window's
// flavor and clock kept, engine-aware diagnostics only where code runs against the engine, and the
// flows (Create TTL Index, Create Collection, Show Documents, Advance Clock) as a user drives them.
import * as assert from 'node:assert/strict';
import { suite, suiteSetup, test } from 'mocha';
import * as vscode from 'vscode';
import type { TTLWorkbenchApi } from '../../../src/extension/api';
import type { CommandResult } from '../../../src/extension/commands/context';
import { treeRows } from './tree-rows';
import { until } from './wait';

const EXTENSION_ID = 'ttl-workbench.ttl-workbench';
let api: TTLWorkbenchApi;
type Result = CommandResult & Record<string, unknown>;

const run = (id: string, args: Record<string, unknown> = {}) =>
  vscode.commands.executeCommand<Result>(`ttlWorkbench.${id}`, { quiet: true, ...args });

suite('Issue 18: a new user trial', () => {
  suiteSetup(async () => {
    const ext = vscode.extensions.getExtension<TTLWorkbenchApi>(EXTENSION_ID);
    assert.ok(ext);
    api = await ext.activate();
    await run('resetEngine', { flavor: 'mongodb', serverVersion: '8.0' });
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
});
