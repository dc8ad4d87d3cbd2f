/**
 * A connection's part of the Databases view: the tree's own model over a DriverBackend (the wire
 * endpoint with SCRAM authentication, the real driver), with ids of its own beside the embedded
 * engine's, the connection's name on every node, the monitor saying where TTL deletes happen, and
 * no password in any row's label, description or tooltip.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DriverBackend } from '../../../src/extension/backend/driver-backend';
import { redactText } from '../../../src/extension/connections/connection-string';
import { presentConnection, presentServer } from '../../../src/extension/tree/connection-presentation';
import { TreeModel } from '../../../src/extension/tree/model';
import { collectionId, connectionScope } from '../../../src/extension/tree/nodes';
import { presentCollection, presentIndex, indexTooltip } from '../../../src/extension/tree/presentation';
import { startServer } from '../../../src/wire';

const PASSWORD = 'pw-9f8e7d6c';

describe("a connection's nodes in the Databases view", () => {
  test('scoped ids, the connection on every node, where TTL deletes run, and no password anywhere', async () => {
    const server = await startServer({ auth: { user: 'app', password: PASSWORD } });
    const uri = `mongodb://app:${PASSWORD}@127.0.0.1:${server.port}/?authSource=admin`;
    const backend = new DriverBackend({
      uri,
      label: 'staging',
      redact: (s) => redactText(s, uri, PASSWORD),
      monitorRefreshMs: 0,
    });
    try {
      await backend.connect();
      await backend.runCommand('app', { insert: 'events', documents: [{ t: new Date() }] });
      await backend.runCommand('app', {
        createIndexes: 'events',
        indexes: [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 3600 }],
      });
      const model = new TreeModel(backend, 'staging');
      const [top] = await model.children();
      assert.equal(top.id, `${connectionScope('staging')}engine`);
      assert.equal(top.connection, 'staging');
      const rows = await model.children(top);
      const db = rows.find((n) => n.type === 'database' && n.db === 'app');
      assert.ok(db && db.parentId === top.id && db.connection === 'staging');
      const [coll] = await model.children(db);
      assert.equal(coll.id, connectionScope('staging') + collectionId('app', 'events'));
      const indexes = await model.children(coll);
      assert.deepEqual(
        indexes.map((n) => n.connection),
        ['staging', 'staging'],
      );
      const monitor = rows.find((n) => n.type === 'monitor')!;
      const details = await model.children(monitor);
      assert.ok(details.some((d) => d.type === 'detail' && /TTL deletes run on this server/.test(d.description ?? '')));
      // An index change on the server refreshes this collection's row (ids looked up in scope).
      const plan = model.planRefresh([{ kind: 'indexesCreated', db: 'app', collection: 'events', names: ['x'] }]);
      assert.deepEqual(
        plan.nodes.map((n) => n.id),
        [coll.id],
      );

      const [info, clock] = await Promise.all([backend.info(), backend.clock()]);
      const texts: string[] = [];
      const add = (p: { label: string; description?: string; tooltip?: string }) =>
        texts.push(p.label, p.description ?? '', p.tooltip ?? '');
      add(presentServer(info, clock, true));
      add(presentConnection({ name: 'staging', production: true, error: 'x' }));
      if (coll.type === 'collection') add(presentCollection(coll.info));
      for (const n of indexes)
        if (n.type === 'index') {
          add(presentIndex(n.info, n.collectionInfo));
          texts.push(indexTooltip(n.info, n.collectionInfo, await backend.expiryCounts(n.info, 3600)));
        }
      for (const t of texts) assert.ok(!t.includes(PASSWORD), t);
      const server0 = presentServer(info, clock, true);
      assert.match(server0.contextValue, /\bproduction\b/);
      assert.equal(server0.icon?.color, 'list.warningForeground');
      assert.match(server0.tooltip ?? '', /every write asks for confirmation/);
    } finally {
      backend.dispose();
      await server.stop();
    }
  });
});
