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
import { startServer, type RunningServer } from '../../../src/wire';
import { treeRows } from './tree-rows';

const PASSWORD = 'it-pw-5d4c3b2a';
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
});
