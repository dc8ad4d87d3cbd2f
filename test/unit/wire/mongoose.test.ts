/**
 * Mongoose 9 against startServer(): TTL indexes declared the two Mongoose ways (a path's
 * `expires`, and schema.index with expireAfterSeconds) are built by init()/syncIndexes() with the
 * right expireAfterSeconds, and documents go when the virtual clock moves, from the test
 * (server.clock.advance) or over the wire (the control command). What an application's test
 * suite does, in milliseconds.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import mongoose, { Schema, type Connection } from 'mongoose';
import { startServer, type RunningServer } from '../../../src/wire';

describe('Mongoose against startServer()', () => {
  let server: RunningServer;
  let conn: Connection;

  before(async () => {
    // The clock starts at the current time, so dates the application makes with Date.now()
    // (Mongoose defaults, timestamps) are "now" on the server too.
    server = await startServer();
    conn = await mongoose.createConnection(server.uri, { dbName: 'app' }).asPromise();
  });

  after(async () => {
    await conn.close();
    await server.stop();
  });

  test("a path's `expires: '30m'` is a TTL index of 1800 s; documents go once the clock passes it", async () => {
    const started = performance.now();
    const Session = conn.model(
      'Session',
      new Schema({ user: String, lastSeen: { type: Date, default: Date.now, expires: '30m' } }),
    );
    await Session.init();
    const ttl = (await Session.listIndexes()).find((i) => i.name === 'lastSeen_1');
    assert.equal(ttl?.expireAfterSeconds, 1800);

    await Session.create([{ user: 'a' }, { user: 'b' }, { user: 'old', lastSeen: Date.now() - 20 * 60_000 }]);
    const first = server.clock.advance('11m');
    assert.equal(first.deletedDocuments, 1, 'the session last seen 31 minutes ago');
    assert.deepEqual(
      (await Session.find().sort({ user: 1 })).map((s) => s.user),
      ['a', 'b'],
    );
    server.clock.advance('20m');
    assert.equal(await Session.countDocuments(), 0);
    assert.ok(performance.now() - started < 2000, 'simulated half an hour in milliseconds');
  });

  test('schema.index({at: 1}, {expireAfterSeconds: 60}) via syncIndexes; the clock moved over the wire', async () => {
    const schema = new Schema({ kind: String, at: Date });
    schema.index({ at: 1 }, { expireAfterSeconds: 60 });
    const Event = conn.model('Event', schema);
    await Event.syncIndexes();
    const ttl = (await Event.listIndexes()).find((i) => i.name === 'at_1');
    assert.equal(ttl?.expireAfterSeconds, 60);

    await Event.create([
      { kind: 'now', at: server.clock.now() },
      { kind: 'future', at: new Date(server.clock.now().getTime() + 3_600_000) },
    ]);
    const admin = conn.db!.admin();
    const moved = await admin.command({ ttlWorkbench: 'advanceClock', by: '61s' });
    assert.equal(moved.deletedDocuments, 1);
    assert.deepEqual(
      (await Event.find()).map((e) => e.kind),
      ['future'],
    );
    await admin.command({ ttlWorkbench: 'setClock', to: new Date(server.clock.now().getTime() + 2 * 3_600_000) });
    assert.equal(await Event.countDocuments(), 0);
  });

  test('a changed `expires`: init() meets IndexOptionsConflict (85) as on mongod; syncIndexes() rebuilds the index', async () => {
    const before = conn.model('Cart', new Schema({ at: { type: Date, expires: 600 } }), 'carts');
    await before.init();
    const other = await mongoose.createConnection(server.uri, { dbName: 'app' }).asPromise();
    try {
      const after = other.model('Cart', new Schema({ at: { type: Date, expires: '1h' } }), 'carts');
      await assert.rejects(after.init(), { code: 85, codeName: 'IndexOptionsConflict' });
      assert.deepEqual(await after.syncIndexes(), ['at_1']);
      const ttl = (await after.listIndexes()).find((i) => i.name === 'at_1');
      assert.equal(ttl?.expireAfterSeconds, 3600);
    } finally {
      await other.close();
    }
  });

  test("timestamps: createdAt comes from the application's clock, so this test starts its own server at the current time", async () => {
    // The shared server's clock is hours ahead after the tests above, and Mongoose stamps
    // createdAt with the process's Date: a server started now keeps the two together.
    const own = await startServer();
    const ownConn = await mongoose.createConnection(own.uri, { dbName: 'app' }).asPromise();
    try {
      const schema = new Schema({ token: String }, { timestamps: true });
      schema.index({ createdAt: 1 }, { expireAfterSeconds: 15 * 60 });
      const Token = ownConn.model('Token', schema);
      await Token.init();
      await Token.create({ token: 'x' });
      own.clock.advance('14m');
      await Token.updateOne({ token: 'x' }, { $set: { token: 'y' } }); // updatedAt moves; createdAt does not
      assert.equal(await Token.countDocuments(), 1);
      own.clock.advance('2m');
      assert.equal(await Token.countDocuments(), 0);
    } finally {
      await ownConn.close();
      await own.stop();
    }
  });
});
