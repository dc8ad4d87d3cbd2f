/**
 * What the endpoint answers itself, seen through the official driver: error replies in mongod's
 * shape, the process and replica set commands mongosh's helpers send (db.serverCmdLineOpts(),
 * db.hostInfo(), rs.status(), `show logs`), and the control command's legacy-index actions.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Binary, Double, Int32, Long } from 'bson';
import { MongoServerError } from 'mongodb';
import { driverOnServer } from './driver-on-server';

const T0 = '2026-01-01T00:00:00.000Z';

describe('wire endpoint: server commands and error replies', () => {
  const live = driverOnServer({ now: T0 });

  test('an error reply has only the fields mongod sends (no `info: null`)', async () => {
    await assert.rejects(live.client.db('admin').command({ noSuchCommand: 1 }), (e: unknown) => {
      assert.ok(e instanceof MongoServerError);
      assert.deepEqual(Object.keys(e.errorResponse).sort(), ['code', 'codeName', 'errmsg', 'ok']);
      assert.equal(e.code, 59);
      return true;
    });
  });

  test("a command's DuplicateKey has keyPattern and keyValue at the top level, as on mongod", async () => {
    const c = live.client.db('errs').collection('dups');
    await c.insertMany([{ email: 'a@x' }, { email: 'a@x' }]);
    await assert.rejects(c.createIndex({ email: 1 }, { unique: true }), (e: unknown) => {
      assert.ok(e instanceof MongoServerError);
      assert.equal(e.code, 11000);
      assert.deepEqual(e.errorResponse.keyPattern, { email: 1 });
      assert.deepEqual(e.errorResponse.keyValue, { email: 'a@x' });
      assert.equal('info' in e.errorResponse, false);
      return true;
    });
  });

  test('whatsmyuri, getCmdLineOpts (admin only) and hostInfo describe this connection and server', async () => {
    const admin = live.client.db('admin');
    const me = await admin.command({ whatsmyuri: 1 });
    assert.match(me.you as string, /^127\.0\.0\.1:\d+$/);
    const opts = await admin.command({ getCmdLineOpts: 1 });
    assert.deepEqual(opts.parsed, { net: { bindIp: '127.0.0.1', port: live.server.port } });
    assert.equal((opts.argv as string[])[0], 'ttl-workbench');
    await assert.rejects(live.client.db('app').command({ getCmdLineOpts: 1 }), { code: 13 });
    const host = await admin.command({ hostInfo: 1 });
    const system = host.system as Record<string, unknown>;
    assert.equal((system.currentTime as Date).toISOString(), T0, 'the engine clock');
    assert.match(system.hostname as string, new RegExp(`:${live.server.port}$`));
    assert.equal(typeof system.numCores, 'number');
    assert.equal(typeof (host.os as Record<string, unknown>).type, 'string');
  });

  test('replica set commands answer NoReplicationEnabled (76), as a standalone mongod does', async () => {
    for (const command of [{ replSetGetStatus: 1 }, { replSetGetConfig: 1 }]) {
      await assert.rejects(live.client.db('admin').command(command), (e: unknown) => {
        assert.ok(e instanceof MongoServerError);
        assert.equal(e.code, 76);
        assert.equal(e.codeName, 'NoReplicationEnabled');
        assert.match(e.message, /^not running with --replSet/);
        return true;
      });
    }
  });

  test('listCommands names the commands the endpoint answers itself', async () => {
    const list = await live.client.db('admin').command({ listCommands: 1 });
    const names = Object.keys(list.commands as object);
    for (const name of ['ttlWorkbench', 'whatsmyuri', 'getCmdLineOpts', 'hostInfo', 'replSetGetStatus', 'find'])
      assert.ok(names.includes(name), name);
  });

  test('getLog "*" names the logs (mongosh `show logs`)', async () => {
    const logs = await live.client.db('admin').command({ getLog: '*' });
    assert.deepEqual(logs.names, ['global', 'startupWarnings']);
  });

  test('control: advanceClock takes milliseconds as any BSON number (Int32, Double, Long), as mongosh sends them', async () => {
    const admin = live.client.db('admin');
    const start = live.server.clock.now().getTime();
    await admin.command({ ttlWorkbench: 'advanceClock', by: 60_000 });
    await admin.command({ ttlWorkbench: 'advanceClock', by: new Double(1500) });
    const moved = await admin.command({ ttlWorkbench: 'advanceClock', by: Long.fromNumber(500) });
    assert.equal((moved.now as Date).getTime() - start, 62_000);
    await assert.rejects(admin.command({ ttlWorkbench: 'advanceClock', by: -1 }), { code: 2 });
  });

  test('startSession answers a new session id', async () => {
    const reply = await live.client.db('admin').command({ startSession: 1 });
    assert.ok((reply.id as { id: unknown }).id instanceof Binary);
    assert.equal(reply.timeoutMinutes, 30);
  });

  test('control: loadLegacyIndex puts a NaN index in the catalog; invalidTTLIndexes finds it, listIndexes cannot', async () => {
    const admin = live.client.db('admin');
    await live.client
      .db('legacy')
      .collection('events')
      .insertOne({ createdAt: new Date('2020-01-01T00:00:00Z') });
    const loaded = await admin.command({
      ttlWorkbench: 'loadLegacyIndex',
      db: 'legacy',
      collection: 'events',
      spec: { v: 2, key: { createdAt: 1 }, name: 'createdAt_1', expireAfterSeconds: NaN },
    });
    assert.equal(loaded.name, 'createdAt_1');
    const listed = await live.client.db('legacy').collection('events').listIndexes().toArray();
    assert.equal(listed.find((i) => i.name === 'createdAt_1')?.expireAfterSeconds, 2147483647);
    const invalid = await admin.command({ ttlWorkbench: 'invalidTTLIndexes' });
    const found = (invalid.indexes as Array<Record<string, unknown>>).filter((i) => i.db === 'legacy');
    assert.equal(found.length, 1);
    assert.equal(found[0].problem, 'NaN');
    assert.ok(Number.isNaN(found[0].expireAfterSeconds));
    // The monitor skips it: a pass deletes nothing, and says what it visited.
    const pass = await admin.command({ ttlWorkbench: 'runTTLPass' });
    assert.equal(pass.deleted, 0);
    assert.ok(pass.startedAt instanceof Date);
    assert.ok(Array.isArray(pass.visits));
    await assert.rejects(admin.command({ ttlWorkbench: 'loadLegacyIndex', db: 'legacy' }), { code: 2 });
  });

  test('control: forecast answers what a TTL index deletes per bucket, with numbers as the driver sends them', async () => {
    const admin = live.client.db('admin');
    const coll = live.client.db('forecast').collection('sessions');
    const status = await admin.command({ ttlWorkbench: 'status' });
    const now = (status.now as Date).getTime();
    await coll.insertMany([10, 20, 90].map((m) => ({ at: new Date(now + m * 60_000) })));
    await coll.createIndex({ at: 1 }, { expireAfterSeconds: 0 });
    const f = await admin.command({
      ttlWorkbench: 'forecast',
      db: 'forecast',
      collection: 'sessions',
      horizon: '1h',
      buckets: 2,
    });
    assert.equal(f.index, 'at_1');
    assert.deepEqual(
      (f.buckets as Array<{ count: number }>).map((b) => b.count),
      [2, 0],
    );
    assert.equal(f.later, 1);
    assert.equal(f.total, 3);
    const g = await admin.command({
      ttlWorkbench: 'forecast',
      db: 'forecast',
      collection: 'sessions',
      expireAfterSeconds: new Int32(3600),
      horizon: new Long(3 * 3600_000),
      buckets: 3,
    });
    assert.deepEqual(
      (g.buckets as Array<{ count: number }>).map((b) => b.count),
      [0, 2, 1],
    );
    await assert.rejects(admin.command({ ttlWorkbench: 'forecast', db: 'forecast' }), { code: 2 });
    await assert.rejects(admin.command({ ttlWorkbench: 'forecast', db: 'forecast', collection: 'missing' }), {
      code: 26,
    });
  });
});
