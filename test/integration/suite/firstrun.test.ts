// Issue 19, first run, in the real VS Code host: the walkthrough opens from the palette, the
// Databases view's empty state is what a new engine shows (screenshots for docs/ when the runner
// is given TTL_WORKBENCH_SCREENSHOT_DIR=docs/firstrun), its buttons' commands work, and a TTL
// quick fix applied from the lightbulb reports itself for the walkthrough's step. Each step's real
// action also takes that step's image, cropped (walkthrough-<step>.png): scripts/walkthrough-screenshots.js
// keeps them in media/walkthrough/. This host runs
// trusted (the runner passes --disable-workspace-trust); Restricted Mode is not covered here.
import * as assert from 'node:assert/strict';
import { suite, suiteSetup, test } from 'mocha';
import * as vscode from 'vscode';
import type { TTLWorkbenchApi } from '../../../src/extension/api';
import { canDriveUi, driveUi, driveUiReading, screenshot, type UiStep } from './index';
import { until } from './wait';

const EXTENSION_ID = 'ttl-workbench.ttl-workbench';
const NOTEBOOK_TYPE = 'ttl-workbench-playground';
/** The Databases view's welcome content, and its buttons (a link alone on its line is drawn as a button). */
const WELCOME = '.welcome-view-content';
const WELCOME_BUTTONS = `${WELCOME} .button-container .monaco-button`;
const welcomeButton = (label: string) => `${WELCOME_BUTTONS}:has-text("${label}")`;
/** A walkthrough step in the Welcome editor: data-step-id ends with the step's id, aria-checked says done. */
const STEP = 'button.getting-started-step';

/**
 * Runs a command as a user does, from the command palette, then `then` in its boxes. Commands run
 * there go through the workbench, which is what a walkthrough's onCommand completion listens to
 * (an extension's own executeCommand stays in the extension host).
 */
async function fromPalette(title: string, then: UiStep[], andThen?: () => Promise<void>): Promise<void> {
  try {
    await vscode.commands.executeCommand('workbench.action.showCommands');
    const palette = await driveUi([{ waitForInput: '' }, { type: title }, { waitForShown: PALETTE_ROWS, text: title }]);
    assert.ok(
      palette!.items[0]?.includes(title),
      `${title} comes first: ${JSON.stringify(palette!.items.slice(0, 3))}`,
    );
    await driveUi([{ press: 'Enter' }, ...then]);
    await andThen?.();
  } finally {
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
  }
}
const PALETTE_ROWS = '.quick-input-widget .quick-input-list .monaco-list-row';
/**
 * The walkthrough's step images (media/walkthrough/, retaken by scripts/walkthrough-screenshots.js):
 * each cropped to what its step shows.
 */
const CROP = {
  view: { selector: '.part.sidebar .composite.title, .part.sidebar .monaco-list-row', pad: 4 },
  welcome: { selector: '.part.sidebar .composite.title, .part.sidebar .welcome-view-content', pad: 4 },
  quickInput: { selector: '.quick-input-widget', pad: 4 },
  // The example's first code cell, with its Apply to engine CodeLens (every KB counts in the .vsix).
  playground: { selector: '.notebookOverlay .monaco-list-row[data-index="1"]', pad: 2, within: '.part.editor' },
  quickFix: { selector: '.part.panel .monaco-list-row', pad: 2 },
  statusBar: { selector: '.part.statusbar .left-items', pad: 0 },
};
let api: TTLWorkbenchApi;

interface Result {
  ok: boolean;
  [key: string]: unknown;
}

suite('Issue 19: first run', () => {
  suiteSetup(async () => {
    const ext = vscode.extensions.getExtension<TTLWorkbenchApi>(EXTENSION_ID);
    assert.ok(ext, 'the extension is installed');
    api = await ext.activate();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('Issue 19: an empty engine leaves the Databases view without rows, so its welcome shows with its three buttons; the engine facts stay in the view description', async () => {
    const reset = await vscode.commands.executeCommand<Result>('ttlWorkbench.resetEngine', { quiet: true });
    assert.ok(reset?.ok, JSON.stringify(reset));
    await vscode.commands.executeCommand('ttlWorkbench.databases.focus');
    await api.whenIdle();
    assert.deepEqual(await api.backend.listDatabases(), []);
    assert.deepEqual(await api.treeProvider.getChildren(), [], 'no rows: VS Code shows the viewsWelcome content');
    assert.equal((await api.treeProvider.topRows())[0]?.type, 'engine', 'the engine row is only hidden');
    assert.match(api.treeView.description ?? '', /^MongoDB \S+ · (virtual|system) clock · (in memory|data folder)$/);
    if (!canDriveUi()) return; // the welcome is drawn by the workbench: only the code-server route reaches it
    const { reads } = await driveUiReading([
      { waitForShown: WELCOME, text: 'The embedded engine holds no database yet' },
      { read: WELCOME_BUTTONS },
    ]);
    assert.deepEqual(reads[0].texts, [
      'Insert Sample Documents',
      'New Playground Notebook',
      'Open Example Playgrounds',
    ]);
    await screenshot('screenshot-empty-state.png', 1500);
    await screenshot('walkthrough-empty-state.png', 300, CROP.welcome);
  });

  test('Issue 19: the welcome buttons New Playground Notebook and Open Example Playgrounds open notebooks (the example picked in its picker)', async function () {
    if (!canDriveUi()) this.skip();
    const playgrounds = () => vscode.workspace.notebookDocuments.filter((n) => n.notebookType === NOTEBOOK_TYPE);
    const before = new Set(playgrounds());
    await driveUi([{ click: welcomeButton('New Playground Notebook') }]);
    const fresh = await until('a new playground notebook opens', () => playgrounds().find((n) => !before.has(n)));
    assert.equal(fresh.uri.scheme, 'untitled');
    before.add(fresh);
    try {
      const picker = await driveUi([
        { click: welcomeButton('Open Example Playgrounds') },
        { waitForInput: 'Open an example playground' },
      ]);
      assert.ok(picker!.items.length >= 5, `the examples are offered: ${JSON.stringify(picker!.items)}`);
      await driveUi([{ press: 'Enter' }, { waitForClosed: true }]);
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    }
    const example = await until('the example opens', () => playgrounds().find((n) => !before.has(n)));
    assert.equal(example.uri.scheme, 'untitled', 'an untitled copy: the shipped file stays as it is');
    assert.ok(example.cellCount > 1, `the example's cells: ${example.cellCount}`);
    await vscode.window.showNotebookDocument(example);
    await driveUi([{ waitForShown: '.notebookOverlay .monaco-list-row' }]);
    await screenshot('walkthrough-playground.png', 2000, CROP.playground);
    // Untitled notebooks with cells ask to be saved when closed: revert them instead.
    for (const nb of [example, fresh]) {
      await vscode.window.showNotebookDocument(nb);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
    assert.deepEqual(await api.backend.listDatabases(), [], 'opening notebooks ran nothing');
  });

  test('Issue 19: the welcome button Insert Sample Documents fills app.sessions, and the rows come back in place of the welcome', async function () {
    if (!canDriveUi()) this.skip();
    try {
      await driveUi([
        { click: welcomeButton('Insert Sample Documents') },
        { waitForInput: 'Sample documents for app.sessions' },
        { press: 'Control+A' },
        { type: '20' },
        { press: 'Enter' },
        { waitForClosed: true },
      ]);
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    }
    const count = await until('20 documents in app.sessions', async () => {
      const r = await api.backend.runCommand('app', { count: 'sessions' });
      return r.n === 20 ? r.n : undefined;
    });
    assert.equal(count, 20);
    const roots = await until('the engine row returns', async () => {
      await api.whenIdle();
      const r = await api.treeProvider.getChildren();
      return r.length ? r : undefined;
    });
    assert.equal(roots[0].type, 'engine');
    await driveUi([{ waitForHidden: WELCOME }]);
    // Open the rows down to app.sessions' indexes, as a user would with the keyboard (the click on
    // the engine's row folds it).
    await driveUi([
      { click: '.part.sidebar .monaco-list-row' },
      { press: 'ArrowRight' },
      { press: 'ArrowDown' },
      { press: 'ArrowDown' },
      { press: 'ArrowRight' },
      { press: 'ArrowDown' },
      { press: 'ArrowRight' },
    ]);
    await screenshot('walkthrough-insert-sample.png', 1500, CROP.view);
  });

  test('Issue 19: Create TTL Index and Advance Clock from the command palette, answered in their boxes, do their work', async function () {
    if (!canDriveUi()) this.skip();
    await fromPalette(
      'TTL Workbench: Create TTL Index',
      [
        { waitForInput: 'Pick a collection' },
        { press: 'Enter' },
        { waitForInput: 'Create TTL Index on app.sessions' },
        { type: 'lastModifiedDate' },
        { press: 'Enter' },
        { waitForInput: 'step 2/3' },
        { press: 'Enter' },
        { waitForInput: 'step 3/3' },
      ],
      async () => {
        await screenshot('walkthrough-ttl-index.png', 800, CROP.quickInput);
        await driveUi([{ press: 'Enter' }, { waitForClosed: true }]);
      },
    );
    const index = await until('the TTL index on lastModifiedDate', async () =>
      (await api.backend.listIndexes('app', 'sessions')).find((i) => i.name === 'lastModifiedDate_1'),
    );
    assert.equal(Number(index.spec.expireAfterSeconds), 3600);
    const before = (await api.backend.clock()).now.getTime();
    await fromPalette('TTL Workbench: Advance Clock', [{ waitForInput: 'Advance the virtual clock' }], async () => {
      await screenshot('walkthrough-clock.png', 800, CROP.quickInput);
      await driveUi([{ press: 'Enter' }, { waitForClosed: true }]);
    });
    await until('the clock moved', async () => ((await api.backend.clock()).now.getTime() > before ? true : undefined));
  });

  test('Issue 19: Start Local Endpoint from the command palette serves the engine (on a free port)', async function () {
    if (!canDriveUi()) this.skip();
    const config = vscode.workspace.getConfiguration('ttlWorkbench');
    await config.update('localEndpoint.port', 0, vscode.ConfigurationTarget.Global);
    try {
      await fromPalette('TTL Workbench: Start Local Endpoint', []);
      const endpoint = await until('the endpoint listens', () => api.localEndpoint());
      assert.match(endpoint.uri, /^mongodb:\/\/127\.0\.0\.1:\d+/);
      await screenshot('walkthrough-endpoint.png', 1500, CROP.statusBar);
    } finally {
      await vscode.commands.executeCommand('ttlWorkbench.stopLocalEndpoint', { quiet: true });
      await config.update('localEndpoint.port', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  test('Issue 19: Get Started with TTL Workbench opens the walkthrough', async () => {
    await vscode.commands.executeCommand('ttlWorkbench.openWalkthrough');
    await until('an editor opens', () => vscode.window.tabGroups.activeTabGroup.activeTab);
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab!;
    assert.ok(!(tab.input instanceof vscode.TabInputText), `the walkthrough, not a file: ${tab.label}`);
    console.log(`walkthrough tab: ${tab.label}`);
    await screenshot('screenshot-walkthrough.png', 2500);
  });

  test('Issue 19: a TTL quick fix applied from the code actions runs the walkthrough step command', async () => {
    const doc = await vscode.workspace.openTextDocument({
      language: 'javascript',
      content: 'db.events.createIndex({ user: 1, createdAt: 1 }, { expireAfterSeconds: 3600 });\n',
    });
    await vscode.window.showTextDocument(doc);
    const d = await until('TTL006 on the compound key', () =>
      vscode.languages.getDiagnostics(doc.uri).find((x) => String((x.code as { value?: string })?.value) === 'TTL006'),
    );
    assert.match(d.message, /create \{createdAt: 1\} with expireAfterSeconds \(createdAt is named like a date field\)/);
    if (canDriveUi()) {
      // The problem in the Problems panel, for the walkthrough's step.
      await vscode.commands.executeCommand('workbench.actions.view.problems');
      await driveUi([{ waitForShown: '.part.panel .monaco-list-row', text: 'TTL006' }]);
      await screenshot('walkthrough-quick-fix.png', 1500, CROP.quickFix);
      await vscode.commands.executeCommand('workbench.action.closePanel');
    }
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
      'vscode.executeCodeActionProvider',
      doc.uri,
      d.range,
    );
    const preferred = actions.find((a) => a.isPreferred && a.title.startsWith('Split: a TTL index on createdAt'));
    assert.ok(preferred?.edit, `the preferred split: ${actions.map((a) => a.title).join(' | ')}`);
    assert.equal(preferred.command?.command, 'ttlWorkbench.quickFixApplied');
    assert.ok(await vscode.workspace.applyEdit(preferred.edit));
    await vscode.commands.executeCommand(preferred.command.command, ...(preferred.command.arguments ?? []));
    assert.match(doc.getText(), /^db\.events\.createIndex\(\{ createdAt: 1 \}, \{ expireAfterSeconds: 3600 \}\);/);
    assert.ok(api.lifecycleLog().some((l) => /Quick fix applied \(TTL006\)/.test(l)));
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });
  test('Issue 19: every walkthrough step shows as done after its real action (the view opened, the buttons and palette commands run, the quick fix applied)', async function () {
    if (!canDriveUi()) this.skip();
    await vscode.commands.executeCommand('ttlWorkbench.openWalkthrough');
    const { reads } = await driveUiReading([
      { waitForShown: STEP },
      { read: STEP, attribute: 'data-step-id' },
      { read: STEP, attribute: 'aria-checked' },
    ]);
    const state = Object.fromEntries(reads[0].texts.map((id, i) => [id.split('#').pop(), reads[1].texts[i]]));
    console.log(`walkthrough steps: ${JSON.stringify(state)}`);
    assert.deepEqual(state, {
      openDatabases: 'true',
      insertSample: 'true',
      createTTLIndex: 'true',
      advanceClock: 'true',
      examplePlayground: 'true',
      quickFix: 'true',
      localEndpoint: 'true',
    });
    await screenshot('walkthrough-done.png', 1500);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
