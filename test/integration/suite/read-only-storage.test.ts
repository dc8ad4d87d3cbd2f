// Issue 19, the read-only empty state, in the real VS Code host. Runs only in the pass whose data
// folder another process holds before the window opens:
//   TTL_WORKBENCH_IT_STORAGE_HELD=1 TTL_WORKBENCH_IT_GREP='Read-only storage' npm run test:integration
// (the runner sets ttlWorkbench.storage to "global" and starts `ttl-workbench serve --data` on that
// folder first; see runner/storage-holder.js). In every other run the tests here are skipped.
import * as assert from 'node:assert/strict';
import { suite, suiteSetup, test } from 'mocha';
import * as vscode from 'vscode';
import type { TTLWorkbenchApi } from '../../../src/extension/api';
import { canDriveUi, driveUiReading, screenshot } from './index';

const EXTENSION_ID = 'ttl-workbench.ttl-workbench';
const HELD_DIR = process.env.TTL_WORKBENCH_IT_HELD_DIR;
const HOLDER_PID = process.env.TTL_WORKBENCH_IT_HOLDER_PID;
const WELCOME = '.welcome-view-content';
const WELCOME_BUTTONS = `${WELCOME} .button-container .monaco-button`;
const NOTIFICATIONS = '.notifications-center .notification-list-item-message';

interface Result {
  ok: boolean;
  message?: string;
  error?: { code?: number; codeName?: string };
}

let api: TTLWorkbenchApi;

suite('Issue 19: Read-only storage', function () {
  suiteSetup(async function () {
    if (!HELD_DIR) this.skip();
    api = await vscode.extensions.getExtension<TTLWorkbenchApi>(EXTENSION_ID)!.activate();
  });

  test('Issue 19: Read-only storage: the data folder another process holds opens read-only, and the window says who holds it', async () => {
    const info = await api.backend.storageInfo();
    assert.equal(info.mode, 'folder');
    assert.equal(info.dir, HELD_DIR);
    assert.equal(info.readOnly, true);
    assert.ok(
      info.notes.some((n) => n.includes(`in use by process ${HOLDER_PID}`) && n.includes('changes here are not saved')),
      JSON.stringify(info.notes),
    );
    if (!canDriveUi()) return;
    // The toast may have hidden itself by now: the notification center keeps it.
    await vscode.commands.executeCommand('notifications.showList');
    try {
      const { reads } = await driveUiReading([
        { waitForShown: NOTIFICATIONS, text: 'opened read-only' },
        { read: NOTIFICATIONS },
      ]);
      const shown = reads[0].texts.find((t) => t.includes('opened read-only'));
      assert.match(shown ?? '', new RegExp(`TTL Workbench data folder: .* is in use by process ${HOLDER_PID}`));
    } finally {
      await vscode.commands.executeCommand('notifications.hideList');
    }
  });

  test('Issue 19: Read-only storage: the Databases view shows the read-only welcome with Reveal Data Folder and Insert Sample Documents', async function () {
    await vscode.commands.executeCommand('ttlWorkbench.databases.focus');
    await api.whenIdle();
    assert.deepEqual(await api.backend.listDatabases(), []);
    assert.deepEqual(await api.treeProvider.getChildren(), [], 'no rows: the welcome shows');
    assert.match(api.treeView.description ?? '', /· data folder, read-only$/);
    if (!canDriveUi()) this.skip();
    const { reads } = await driveUiReading([
      { waitForShown: WELCOME, text: 'The data folder is open read-only' },
      { read: WELCOME },
      { read: WELCOME_BUTTONS },
    ]);
    assert.match(
      reads[0].texts.join(' '),
      /another VS Code window or a ttl-workbench process holds it, so nothing done here is saved\. Close the other window \(or stop the process\) and reload this one to write/,
    );
    assert.deepEqual(reads[1].texts, ['Reveal Data Folder', 'Insert Sample Documents']);
    assert.ok(!reads[0].texts.join(' ').includes('holds no database yet'), 'not the empty-engine welcome');
    await screenshot('screenshot-read-only.png', 1500);
  });

  test('Issue 19: Read-only storage: Compact Now is refused with IllegalOperation, naming the holder and what to do', async () => {
    const r = await vscode.commands.executeCommand<Result>('ttlWorkbench.compactNow', {});
    assert.equal(r.ok, false);
    assert.equal(r.error?.code, 20, JSON.stringify(r));
    assert.equal(r.error?.codeName, 'IllegalOperation');
    assert.match(
      String(r.message),
      new RegExp(
        `is open read-only: process ${HOLDER_PID} \\(startServer\\) holds it, so this window cannot compact it\\. Do it there, or close that window \\(stop that process\\) and reload this one\\.`,
      ),
    );
    assert.ok(api.messages().some((m) => m.severity === 'error' && m.text === r.message));
  });
});
