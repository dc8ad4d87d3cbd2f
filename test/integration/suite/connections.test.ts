/**
 * Issue 21 in the real host: a connection to a `serve` endpoint (startServer with SCRAM auth, in
 * the extension host's process) added by code, its node expanded next to the embedded engine,
 * Create TTL Index with its eligibility preview run on it, and the password nowhere: not in
 * settings, the notifications/log, the rows' tooltips or the results.
 */
import * as assert from 'node:assert/strict';
import { suite, suiteSetup, suiteTeardown, test } from 'mocha';
import { MongoClient } from 'mongodb';
import * as vscode from 'vscode';
import type { TTLWorkbenchApi } from '../../../src/extension/api';
import { revealRow } from '../../../src/extension/tree/reveal';
import { startServer, type RunningServer } from '../../../src/wire';
import { canDriveUi, driveUiReading, screenshot } from './index';
import { treeRows } from './tree-rows';
import { delay, until } from './wait';

const PASSWORD = 'it-pw-5d4c3b2a';
/** The side bar: the view's title and its rows (docs/screenshot-tree-connection.png is this crop). */
const SIDE_BAR = { selector: '.part.sidebar .composite.title, .part.sidebar .monaco-list-row', pad: 4 };
const ROWS = '.part.sidebar .monaco-list-row';
let api: TTLWorkbenchApi;
let server: RunningServer;

suite('Connections (issue 21)', function () {
  this.timeout(120_000);

  suiteSetup(async () => {
    api = await vscode.extensions.getExtension<TTLWorkbenchApi>('ttl-workbench.ttl-workbench')!.activate();
    server = await startServer({ auth: { user: 'app', password: PASSWORD } });
    const client = new MongoClient(`mongodb://app:${PASSWORD}@127.0.0.1:${server.port}/?authSource=admin`);
    const now = server.clock.now().getTime();
    await client
      .db('app')
      .collection('events')
      .insertMany(Array.from({ length: 10 }, (_, i) => ({ t: new Date(now - i * 3_600_000) })));
    await client.close();
  });

  suiteTeardown(async () => {
    await vscode.commands.executeCommand('ttlWorkbench.removeConnection', { name: 'it-serve' });
    await server.stop();
  });

  test('adds a connection to a serve endpoint, expands it, runs Create TTL Index with its preview; no password anywhere', async () => {
    const uri = `mongodb://app:${PASSWORD}@127.0.0.1:${server.port}/?authSource=admin`;
    const added = await vscode.commands.executeCommand<Record<string, unknown>>('ttlWorkbench.addConnection', {
      name: 'it-serve',
      connectionString: uri,
      quiet: true,
    });
    assert.equal(added.ok, true, JSON.stringify(added));
    const top = await treeRows(api);
    const conn = top.find((r) => r.label === 'it-serve');
    assert.ok(conn, top.map((r) => r.label).join(', '));
    assert.equal(top[0].node.type, 'engine', 'the embedded engine stays first');
    assert.match(conn.description, /standalone/);
    const dbs = await treeRows(api, conn.node);
    const app = dbs.find((r) => r.label === 'app');
    assert.ok(app, dbs.map((r) => r.label).join(', '));
    const colls = await treeRows(api, app.node);
    assert.match(colls.find((r) => r.label === 'events')?.description ?? '', /10 docs/);

    const created = await vscode.commands.executeCommand<Record<string, unknown>>('ttlWorkbench.createTTLIndex', {
      connection: 'it-serve',
      db: 'app',
      collection: 'events',
      field: 't',
      expireAfterSeconds: 3 * 3600,
      quiet: true,
      confirm: true,
    });
    assert.equal(created.ok, true, JSON.stringify(created));
    const text = JSON.stringify(created);
    assert.match(text, /"eligible\w*":\s*[67]\b/, `preview of t ≤ now − 3 h among 10 hourly dates: ${text}`);
    const indexes = await treeRows(api, colls.find((r) => r.label === 'events')!.node);
    assert.ok(
      indexes.some((r) => r.label.startsWith('t_1')),
      indexes.map((r) => r.label).join(', '),
    );

    const settings = JSON.stringify(vscode.workspace.getConfiguration('ttlWorkbench').get('connections'));
    assert.ok(settings.includes('it-serve') && !settings.includes(PASSWORD), settings);
    const shown = JSON.stringify(api.messages());
    assert.ok(!shown.includes(PASSWORD));
    for (const r of [conn, ...dbs, ...colls, ...indexes]) {
      const tip = await api.treeProvider.tooltipFor(r.node);
      assert.ok(!(tip ?? '').includes(PASSWORD));
    }
    assert.ok(!JSON.stringify(added).includes(PASSWORD));
  });
  test('a notebook with "connection": "it-serve" runs its cells there through mongosh\'s runtime, printed as mongosh prints; Run On… moves it back to the embedded engine', async () => {
    const decoder = new TextDecoder();
    const code = (text: string) => new vscode.NotebookCellData(vscode.NotebookCellKind.Code, text, 'ttl-mongosh');
    const data = new vscode.NotebookData([
      code("use('app')"),
      code("print('on the server'); db.events.countDocuments()"),
      code('db.events.getIndexes().map(i => i.name)'),
    ]);
    data.metadata = { ttlbook: { header: { title: 'remote', connection: 'it-serve' } } };
    const nb = await vscode.workspace.openNotebookDocument('ttl-workbench-playground', data);
    await vscode.window.showNotebookDocument(nb);
    await vscode.commands.executeCommand('notebook.selectKernel', {
      id: 'ttl-workbench-engine',
      extension: 'ttl-workbench.ttl-workbench',
    });
    const texts = (cell: vscode.NotebookCell) =>
      cell.outputs.flatMap((o) => o.items.map((i) => `${i.mime}: ${decoder.decode(i.data)}`));
    await vscode.commands.executeCommand('notebook.execute', nb.uri);
    await api.notebooks.whenIdle(nb);
    const [, count, names] = nb.getCells();
    assert.deepEqual(
      texts(count).map((t) => t.trim()),
      ['application/vnd.code.notebook.stdout: on the server', 'text/plain: 10'],
      JSON.stringify(texts(count)),
    );
    assert.deepEqual(texts(names), ["text/plain: [ '_id_', 't_1' ]"]);
    assert.equal(api.notebooks.engineFor(nb).connection, 'it-serve');

    const moved = await vscode.commands.executeCommand<Record<string, unknown>>('ttlWorkbench.notebookRunOn', {
      notebook: nb.uri.toString(),
      connection: null,
    });
    assert.equal(moved.ok, true, JSON.stringify(moved));
    assert.equal(api.notebooks.engineFor(nb).connection, undefined);
    await vscode.commands.executeCommand('notebook.execute', nb.uri);
    await api.notebooks.whenIdle(nb);
    assert.deepEqual(
      texts(nb.getCells()[1]).map((t) => t.trim()),
      ['application/vnd.code.notebook.stdout: on the server', 'text/plain: 0'],
      'the embedded engine has no app.events',
    );
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });
  test('above confirmExpiryAbove, Create TTL Index offers the batch-delete playground, bound to the connection; its cells delete the eligible documents', async () => {
    const client = new MongoClient(`mongodb://app:${PASSWORD}@127.0.0.1:${server.port}/?authSource=admin`);
    const now = server.clock.now().getTime();
    await client
      .db('app')
      .collection('sessions')
      .insertMany(Array.from({ length: 5 }, (_, i) => ({ seen: new Date(now - (i + 1) * 3_600_000) })));
    const config = vscode.workspace.getConfiguration('ttlWorkbench');
    await config.update('confirmExpiryAbove', 2, vscode.ConfigurationTarget.Global);
    try {
      const r = await vscode.commands.executeCommand<Record<string, unknown>>('ttlWorkbench.createTTLIndex', {
        connection: 'it-serve',
        db: 'app',
        collection: 'sessions',
        field: 'seen',
        expireAfterSeconds: 60,
        quiet: true,
        batchDeleteSnippet: true,
      });
      assert.equal(r.ok, false, JSON.stringify(r));
      const opened = r.batchDeleteSnippet as { ok: boolean; uri: string; connection: string };
      assert.equal(opened.connection, 'it-serve', JSON.stringify(r));
      const nb = vscode.workspace.notebookDocuments.find((d) => d.uri.toString() === opened.uri)!;
      assert.equal(api.notebooks.engineFor(nb).connection ?? 'not connected yet', 'it-serve');
      await vscode.commands.executeCommand('notebook.execute', nb.uri);
      await api.notebooks.whenIdle(nb);
      const last = nb.getCells().at(-1)!;
      const printed = last.outputs.flatMap((o) => o.items.map((i) => new TextDecoder().decode(i.data))).join('');
      assert.match(printed, /deleted 5 documents/);
      assert.equal(await client.db('app').collection('sessions').countDocuments(), 0);
      const indexes = await client.db('app').collection('sessions').indexes();
      assert.ok(!indexes.some((i) => i.name === 'seen_1'), 'the index itself is not created');
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    } finally {
      await config.update('confirmExpiryAbove', undefined, vscode.ConfigurationTarget.Global);
      await client.close();
    }
  });

  test("a row is revealed right after the view shows rows reloaded while it was hidden, the connection's and the embedded engine's (VS Code's reveal alone fails there: TreeError Data tree node not found)", async () => {
    for (const which of ['it-serve', 'embedded', 'it-serve', 'embedded']) {
      await vscode.commands.executeCommand('workbench.view.explorer');
      // A refresh while the view is hidden (as a connection's connect or disconnect does): the view
      // reloads its rows when it is shown again.
      api.treeProvider.refresh();
      await delay(400);
      await vscode.commands.executeCommand('ttlWorkbench.databases.focus');
      const top = await treeRows(api);
      const row = which === 'embedded' ? top[0] : top.find((r) => r.label === which)!;
      await revealRow(api.treeView, row.node, { select: true, focus: false, expand: false });
      await until(`${which}'s row selected`, () => (api.treeView.selection[0]?.id === row.node.id ? true : undefined));
    }
  });

  test("Create Collection run on a connection reveals the new collection under that connection's row, not the embedded engine's", async () => {
    await vscode.commands.executeCommand('ttlWorkbench.databases.focus');
    // The embedded engine has a database of the same name: the old reveal went there.
    await api.backend.runCommand('app', { create: 'elsewhere' });
    const r = await vscode.commands.executeCommand<Record<string, unknown>>('ttlWorkbench.createCollection', {
      connection: 'it-serve',
      db: 'app',
      name: 'revealed_here',
      reveal: true,
    });
    assert.equal(r.ok, true, JSON.stringify(r));
    assert.equal(r.revealed, true);
    const selected = api.treeView.selection[0];
    assert.equal(selected?.type, 'collection', JSON.stringify(selected));
    assert.equal(selected.connection, 'it-serve', 'selected under the connection it was created on');
    assert.equal(selected.type === 'collection' && selected.info.name, 'revealed_here');
  });

  test("a connection's rows revealed: server, database, collection with its TTL index in words and the TTL monitor shown next to the embedded engine (docs/screenshot-tree-connection.png)", async () => {
    await vscode.commands.executeCommand('notifications.clearAll');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('ttlWorkbench.databases.focus');
    const top = await treeRows(api);
    assert.equal(top[0].node.type, 'engine', 'the embedded engine stays first');
    const conn = top.find((r) => r.label === 'it-serve')!;
    assert.equal(api.treeProvider.getParent(conn.node), undefined, "a connection's server row is a top row");
    const reveal = (node: (typeof top)[number]['node'], last = false) =>
      revealRow(api.treeView, node, { select: last, focus: last, expand: true });
    await reveal(conn.node);
    const below = await treeRows(api, conn.node);
    await reveal(below.find((r) => r.node.type === 'monitor')!.node);
    const app = below.find((r) => r.label === 'app')!;
    await reveal(app.node);
    const events = (await treeRows(api, app.node)).find((r) => r.label === 'events')!;
    await reveal(events.node, true);
    const ttl = (await treeRows(api, events.node)).find((r) => r.label.startsWith('t_1'))!;
    assert.match(ttl.description, /3 h/, 'the TTL index in words');

    if (canDriveUi()) {
      const { reads } = await driveUiReading([{ waitForShown: ROWS, text: 't_1' }, { read: ROWS }]);
      const shown = reads[0].texts.join(' | ');
      for (const text of [top[0].label, 'it-serve', 'TTL Monitor', 'app', 'events', 't_1'])
        assert.ok(shown.includes(text), `${text} is on screen: ${shown}`);
    }
    const saved = await screenshot('screenshot-tree-connection.png', 1500, SIDE_BAR);
    if (process.env.TTL_WORKBENCH_IT_SCREENSHOT_DIR) assert.ok(saved, 'the runner saved the screenshot');
  });
});
