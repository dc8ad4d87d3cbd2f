/**
 * The "Databases" view's data: children through a slow asynchronous backend, stable node objects
 * per id (expansion state survives refreshes), rows in words, and which nodes an event batch
 * makes stale.
 */
import { describe, it } from 'node:test';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import assert from 'node:assert/strict';
import { EmbeddedBackend } from '../../../src/extension/backend/embedded-backend';
import { TreeModel } from '../../../src/extension/tree/model';
import { collectionId, databaseId, MONITOR_ID, type TreeNode } from '../../../src/extension/tree/nodes';
import {
  engineFacts,
  indexTooltip,
  presentCollection,
  presentEngine,
  presentIndex,
  presentMonitor,
  presentProblem,
  storageDamageLabel,
} from '../../../src/extension/tree/presentation';

const NOW = Date.parse('2030-01-01T00:00:00Z');

async function setup() {
  // 5 ms per answer: nothing may assume synchronous answers.
  const backend = new EmbeddedBackend({}, { startMs: NOW, latencyMs: 5 });
  await backend.runCommand('app', {
    insert: 'events',
    documents: [{ t: new Date(NOW - 7200_000) }, { t: new Date(NOW + 60_000) }],
  });
  await backend.runCommand('app', {
    createIndexes: 'events',
    indexes: [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 3600 }],
  });
  await backend.runCommand('app', {
    create: 'logs',
    clusteredIndex: { key: { _id: 1 }, unique: true },
    expireAfterSeconds: 86400,
  });
  return { backend, model: new TreeModel(backend) };
}

const find = (nodes: TreeNode[], type: TreeNode['type']) => nodes.find((n) => n.type === type)!;

describe('TreeModel', () => {
  it('walks engine → monitor and databases → collections → indexes', async () => {
    const { backend, model } = await setup();
    const [engine] = await model.children();
    assert.equal(engine.type, 'engine');
    const top = await model.children(engine);
    assert.deepEqual(
      top.map((n) => n.type),
      ['monitor', 'database'],
    );
    const colls = await model.children(find(top, 'database'));
    assert.deepEqual(
      colls.map((n) => n.type === 'collection' && n.info.name),
      ['events', 'logs'],
    );
    const events = colls[0];
    const indexes = await model.children(events);
    assert.deepEqual(
      indexes.map((n) => n.type === 'index' && n.info.name),
      ['_id_', 't_1'],
    );
    const logs = await model.children(colls[1]);
    assert.equal(logs[0].type, 'collectionTTL');
    const details = await model.children(find(top, 'monitor'));
    assert.deepEqual(
      details.map((n) => n.type === 'detail' && n.label),
      ['Enabled', 'Sleep', 'Last pass', 'Next pass', 'Metrics'],
    );
    backend.dispose();
  });

  it('keeps one node object per id across refreshes (so VS Code keeps expansion state)', async () => {
    const { backend, model } = await setup();
    const [engine] = await model.children();
    const db1 = find(await model.children(engine), 'database');
    const events1 = (await model.children(db1))[0];
    await backend.runCommand('app', { insert: 'events', documents: [{ t: new Date(NOW) }] });
    const db2 = find(await model.children(engine), 'database');
    const events2 = (await model.children(db2))[0];
    assert.equal(db1, db2);
    assert.equal(events1, events2);
    assert.equal(events2.type === 'collection' && events2.info.count, 3, 'the same object carries the fresh count');
    assert.equal(model.get(collectionId('app', 'events')), events1);
    backend.dispose();
  });

  it('a view is a row of its own: described by what it reads, an eye icon, no count, no children, no collection menus', async () => {
    const { backend, model } = await setup();
    await backend.runCommand('app', { create: 'recent', viewOn: 'events', pipeline: [{ $match: { t: { $gt: 0 } } }] });
    const [engine] = await model.children();
    const db = find(await model.children(engine), 'database');
    const view = (await model.children(db)).find((n) => n.type === 'collection' && n.info.name === 'recent')!;
    assert.ok(view.type === 'collection');
    assert.equal(view.info.kind, 'view');
    assert.equal(view.info.type, 'view');
    assert.deepEqual(await model.children(view), [], 'no listIndexes on a view (mongod refuses it)');
    const p = presentCollection(view.info);
    assert.equal(p.description, 'view on events · 1 stage');
    assert.equal(p.icon?.id, 'eye');
    assert.equal(p.contextValue, 'view');
    assert.equal(p.collapsible, 'none');
    assert.match(String(p.tooltip), /read-only view on `events`/);
    assert.doesNotMatch(String(p.tooltip), /document/);
  });

  it('plans refreshes: counts refresh the database, indexes the collection, clock and resets everything', async () => {
    const { backend, model } = await setup();
    const [engine] = await model.children();
    const db = find(await model.children(engine), 'database');
    await model.children(db);
    const docs = model.planRefresh([
      { kind: 'documentsInserted', db: 'app', collection: 'events', count: 3, cause: 'command' },
    ]);
    assert.deepEqual(
      docs.nodes.map((n) => n.id),
      [databaseId('app')],
    );
    const ttl = model.planRefresh([
      { kind: 'documentsDeleted', db: 'app', collection: 'events', count: 3, cause: 'ttl' },
    ]);
    assert.deepEqual(ttl.nodes.map((n) => n.id).sort(), [databaseId('app'), MONITOR_ID].sort());
    const ix = model.planRefresh([{ kind: 'indexChanged', db: 'app', collection: 'events', names: ['t_1'] }]);
    assert.deepEqual(
      ix.nodes.map((n) => n.id),
      [collectionId('app', 'events')],
    );
    assert.equal(model.planRefresh([{ kind: 'clockChanged' }]).root, true);
    assert.equal(
      model.planRefresh([{ kind: 'documentsInserted', db: 'other', collection: 'x', count: 1, cause: 'command' }]).root,
      true,
    );
    backend.dispose();
  });

  it('presents rows in words, with counts in the index tooltip', async () => {
    const { backend, model } = await setup();
    const [engine] = await model.children();
    const top = await model.children(engine);
    const colls = await model.children(find(top, 'database'));
    const ttlNode = (await model.children(colls[0]))[1];
    assert.ok(ttlNode.type === 'index');
    const p = presentIndex(ttlNode.info, ttlNode.collectionInfo);
    assert.equal(`${p.label} — ${p.description}`, 't_1 — TTL 1 h after t');
    assert.match(p.contextValue, /\bttl\b/);
    assert.match(p.contextValue, /\bvisible\b/);
    const counts = await backend.expiryCounts(ttlNode.info, 3600);
    const tip = indexTooltip(ttlNode.info, ttlNode.collectionInfo, counts);
    assert.match(tip, /\*\*Expired now:\*\* 1 —/);
    assert.match(tip, /\*\*Due in the next 1 h:\*\* 0/);
    assert.ok(colls[1].type === 'collection');
    assert.equal(presentCollection(colls[1].info).description, '0 docs · TTL 1 d after _id');
    assert.equal(presentCollection(colls[1].info).icon?.id, 'layers');
    const engineRow = presentEngine(await backend.info(), await backend.clock());
    assert.equal(engineRow.label, 'MongoDB 8.0.4');
    assert.equal(engineRow.description, 'embedded engine · virtual clock · 2030-01-01 00:00:00 UTC');
    assert.match(engineRow.tooltip ?? '', /\*\*Embedded engine\*\*/);
    const monitorRow = presentMonitor(await backend.monitorStatus(), (await backend.clock()).now);
    assert.equal(monitorRow.description, 'every 1 min · next in 1 min · 0 deleted');
    backend.dispose();
  });

  it('a data folder recovered from damage shows a warning row above the monitor, with what was kept, until acknowledged (then the engine node refreshes)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-tree-damage-'));
    const first = new EmbeddedBackend({}, { startMs: NOW, dataDir: dir });
    for (let i = 0; i < 40; i++)
      await first.runCommand('app', { insert: 'events', documents: [{ _id: i, pad: 'x'.repeat(200) }] });
    first.dispose();
    const journal = path.join(dir, 'journal-0.ttlj');
    const bytes = fs.readFileSync(journal);
    bytes.writeUInt32LE(0xdeadbeef, Math.floor(bytes.length / 2));
    fs.writeFileSync(journal, bytes);
    for (let open = 0; open < 2; open++) {
      // Shown at the open that recovered, and still at the next one.
      const backend = new EmbeddedBackend({}, { startMs: NOW, dataDir: dir, latencyMs: 2 });
      const model = new TreeModel(backend);
      const [engine] = await model.children();
      const top = await model.children(engine);
      assert.deepEqual(
        top.map((n) => n.type),
        ['message', 'monitor', 'database'],
        `open ${open}`,
      );
      const row = top[0] as Extract<TreeNode, { type: 'message' }>;
      assert.equal(row.command, 'ttlWorkbench.acknowledgeStorageDamage');
      assert.equal(row.icon, 'warning');
      assert.equal(row.label, 'Data folder damage recovered');
      assert.equal(row.description, 'review and acknowledge');
      assert.match(row.tooltip ?? '', /kept app\.events: \d+/);
      assert.match(row.tooltip ?? '', /journal-0\.ttlj: damaged at byte offset \d+/);
      if (open === 1) {
        const events: unknown[] = [];
        backend.onDidChange((e) => events.push(...e));
        await backend.acknowledgeStorageDamage();
        const plan = model.planRefresh(events as never);
        assert.deepEqual(
          plan.nodes.map((n) => n.id),
          [engine.id],
          'the engine node refreshes',
        );
        assert.deepEqual(
          (await model.children(engine)).map((n) => n.type),
          ['monitor', 'database'],
        );
      }
      backend.dispose();
    }
    const after = new EmbeddedBackend({}, { startMs: NOW, dataDir: dir });
    assert.equal((await after.storageInfo()).damage, undefined, 'acknowledged for good');
    assert.ok(
      fs.readdirSync(dir).some((f) => f.startsWith('journal-0.ttlj.damaged-')),
      'the damaged copy stays',
    );
    after.dispose();
  });

  it('issue 19: an engine without a database is empty, so the view shows its welcome; a database or an audit with problems fills it', async () => {
    const backend = new EmbeddedBackend({}, { startMs: NOW, latencyMs: 2 });
    const model = new TreeModel(backend);
    assert.equal(await model.isEmpty(), true, 'a new engine');
    await backend.runCommand('app', { insert: 'events', documents: [{ t: new Date(NOW) }] });
    assert.equal(await model.isEmpty(), false, 'after an insert');
    await backend.runCommand('app', { dropDatabase: 1 });
    assert.equal(await model.isEmpty(), true, 'after the last database is dropped');
    model.setProblems([]);
    assert.equal(await model.isEmpty(), true, 'an audit that found nothing adds nothing to read');
    model.setProblems([
      { db: 'app', collection: 'events', index: 't_1', key: { t: 1 }, expireAfterSeconds: NaN, problem: 'NaN' },
    ]);
    assert.equal(await model.isEmpty(), false, 'an audit with problems stays in view');
    backend.dispose();
  });

  it('issue 19: damage recovered from the data folder keeps the view out of its welcome until acknowledged', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-tree-empty-damage-'));
    const first = new EmbeddedBackend({}, { startMs: NOW, dataDir: dir });
    for (let i = 0; i < 40; i++)
      await first.runCommand('app', { insert: 'events', documents: [{ _id: i, pad: 'x'.repeat(200) }] });
    first.dispose();
    const journal = path.join(dir, 'journal-0.ttlj');
    const bytes = fs.readFileSync(journal);
    bytes.writeUInt32LE(0xdeadbeef, Math.floor(bytes.length / 2));
    fs.writeFileSync(journal, bytes);
    const backend = new EmbeddedBackend({}, { startMs: NOW, dataDir: dir });
    const model = new TreeModel(backend);
    await backend.runCommand('app', { dropDatabase: 1 });
    assert.deepEqual(await backend.listDatabases(), []);
    assert.equal(await model.isEmpty(), false, 'the damage report is still to be read');
    await backend.acknowledgeStorageDamage();
    assert.equal(await model.isEmpty(), true);
    backend.dispose();
  });

  it("issue 19: the view's description holds the engine's facts (flavor, clock mode, storage) while its row is hidden", async () => {
    const info = {
      kind: 'embedded',
      label: 'Embedded engine',
      flavor: 'mongodb',
      serverVersion: '8.0',
      version: '8.0.4',
    };
    const virtual = { mode: 'virtual', now: new Date(NOW), aheadMs: 0, canAdvance: true } as const;
    const system = { mode: 'system', now: new Date(NOW), aheadMs: 0, canAdvance: false } as const;
    const storage = {
      mode: 'memory' as const,
      readOnly: false,
      journalBytes: 0,
      notes: [] as string[],
      restoredDocuments: 0,
    };
    assert.equal(engineFacts(info as never, virtual, storage), 'MongoDB 8.0.4 · virtual clock · in memory');
    assert.equal(
      engineFacts(info as never, system, { ...storage, mode: 'folder' }),
      'MongoDB 8.0.4 · system clock · data folder',
    );
    assert.equal(
      engineFacts({ ...info, flavor: 'cosmos', serverVersion: '7.0' } as never, virtual, {
        ...storage,
        mode: 'folder',
        readOnly: true,
      }),
      'Cosmos DB 7.0 · virtual clock · data folder, read-only',
    );
  });

  it('labels fit the sidebar at its default width: the short name first, the detail in the description and the tooltip (issue 18.11)', () => {
    // About 30 characters of label fit beside the icon and indentation at the default width.
    const LABEL_MAX = 30;
    const cosmos = presentEngine(
      { kind: 'embedded', label: 'Embedded engine', flavor: 'cosmos', serverVersion: '7.0', version: '7.0.16' },
      { mode: 'system', now: new Date(NOW), aheadMs: 90_000, canAdvance: false },
    );
    assert.equal(cosmos.label, 'Cosmos DB 7.0');
    assert.equal(cosmos.description, 'embedded engine · system clock (+1 min 30 s) · 2030-01-01 00:00:00 UTC');
    assert.match(cosmos.tooltip ?? '', /Cosmos DB for MongoDB flavor \(7\.0\)/);
    const problem = presentProblem({
      db: 'analytics_production',
      collection: 'page_view_events_2030',
      index: 'lastSeenAt_1',
      key: { lastSeenAt: 1 },
      expireAfterSeconds: NaN,
      problem: 'NaN',
    });
    assert.equal(problem.label, 'lastSeenAt_1');
    assert.equal(problem.description, 'analytics_production.page_view_events_2030 · NaN — ignored by the monitor');
    assert.match(problem.tooltip ?? '', /analytics_production\.page_view_events_2030 › lastSeenAt_1/);
    const damage = storageDamageLabel([
      { at: 'a', notes: [], documents: {} },
      { at: 'b', notes: [], documents: {} },
    ]);
    assert.deepEqual(damage, {
      label: 'Data folder damage recovered',
      description: '2 times · review and acknowledge',
    });
    for (const label of [cosmos.label, problem.label, damage.label])
      assert.ok(label.length <= LABEL_MAX, `"${label}" is longer than ${LABEL_MAX} characters`);
  });
});
