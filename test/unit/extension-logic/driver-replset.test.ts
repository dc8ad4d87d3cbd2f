/**
 * The primary role live (issue 21): DriverBackend through the real driver against the wire endpoint
 * started as a one-member replica set (`startServer({replSet})`, as `ttl-workbench serve --replSet`),
 * so the role comes from the endpoint's own `hello`, not a fixture. Secondaries, arbiters, mongos
 * and Cosmos stay on the fixtures of server-role.test.ts: the endpoint presents one member only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DriverBackend } from '../../../src/extension/backend/driver-backend';
import { startServer, type RunningServer } from '../../../src/wire';

describe('DriverBackend on a one-member replica set (the endpoint with replSet)', () => {
  let server: RunningServer;
  let backend: DriverBackend;

  before(async () => {
    server = await startServer({ replSet: 'rs0' });
    backend = new DriverBackend({
      uri: server.uri,
      label: 'rs',
      redact: (s) => s,
      monitorRefreshMs: 0,
      clientOptions: { serverSelectionTimeoutMS: 3000 },
    });
  });

  after(async () => {
    backend.dispose();
    await server.stop();
  });

  test('the connection reads the primary of set rs0: writes are allowed and TTL deletes run there', async () => {
    const role = await backend.connect();
    assert.equal(role.kind, 'primary');
    assert.equal(role.setName, 'rs0');
    assert.equal(role.flavor, 'mongodb');
    assert.equal(role.canWrite, true);
    assert.equal(role.writesDisabledBecause, undefined);
    assert.equal(role.primary, role.member, 'the member read is the primary hello names');
    assert.ok(role.members.includes(role.member), JSON.stringify(role.members));
    assert.match(role.summary, /rs0/);
    assert.match(role.ttlDeletes, /primary/i);
  });

  test('the monitor node does not say the monitor is stopped, and a write (a TTL index) reaches the primary', async () => {
    const monitor = await backend.monitorStatus();
    assert.equal(monitor.stoppedBecause, null);
    await backend.runCommand('app', {
      createIndexes: 'events',
      indexes: [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 60 }],
    });
    const indexes = await backend.listIndexes('app', 'events');
    assert.ok(indexes.some((i) => i.name === 't_1' && i.spec.expireAfterSeconds === 60));
  });
});
