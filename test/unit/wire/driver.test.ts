/**
 * The official MongoDB driver against the wire endpoint (startServer, in this process, port 0):
 * what an application's test suite does, with real replies checked. No fakes: the driver speaks
 * the protocol to a real socket.
 */
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Binary, BSON, BSONRegExp, Long, ObjectId, type Document } from 'bson';
import { MongoBulkWriteError, MongoClient, MongoServerError } from 'mongodb';
import { startServer, type RunningServer } from '../../../src/wire';
import { bson, crc32c, opMsg, opQuery, RawClient } from './raw-client';

const T0 = '2026-01-01T00:00:00.000Z';

describe('wire endpoint: the official driver', () => {
  let server: RunningServer;
  let client: MongoClient;

  before(async () => {
    server = await startServer({ now: T0 });
    client = new MongoClient(server.uri, { serverSelectionTimeoutMS: 5000, maxPoolSize: 50 });
    await client.connect();
  });

  after(async () => {
    await client.close();
    await server.stop();
  });

  test('hello: a standalone 8.0 server (maxWireVersion 25) with mongod limits and this connection id', async () => {
    const hello = await client.db('admin').command({ hello: 1 });
    assert.equal(hello.isWritablePrimary, true);
    assert.equal(hello.maxWireVersion, 25);
    assert.equal(hello.maxBsonObjectSize, 16 * 1024 * 1024);
    assert.equal(hello.maxMessageSizeBytes, 48_000_000);
    assert.equal(hello.maxWriteBatchSize, 100_000);
    assert.equal(hello.logicalSessionTimeoutMinutes, 30);
    assert.equal(typeof hello.connectionId, 'number');
    assert.equal(hello.setName, undefined, 'standalone: no replica set');
    assert.equal(
      (hello.localTime as Date).toISOString(),
      server.clock.now().toISOString(),
      'localTime is the engine clock',
    );
    const build = await client.db('admin').command({ buildInfo: 1 });
    assert.match(build.version as string, /^8\.0\./);
  });

  test("the driver's heartbeats succeed after the first (topologyVersion.processId is an ObjectId)", async () => {
    // The monitor compares each hello's topologyVersion with the last one (processId.equals);
    // a string processId failed every heartbeat after the first and cleared the connection pool.
    const other = new MongoClient(server.uri, { heartbeatFrequencyMS: 500 });
    const failures: string[] = [];
    let succeeded = 0;
    other.on('serverHeartbeatFailed', (e) => failures.push(e.failure.message));
    other.on('serverHeartbeatSucceeded', () => succeeded++);
    try {
      await other.connect();
      for (let i = 0; i < 100 && succeeded < 3; i++) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(failures, []);
      assert.ok(succeeded >= 3, `${succeeded} heartbeats`);
    } finally {
      await other.close();
    }
  });

  test('an awaitable hello waits maxAwaitTimeMS; with exhaustAllowed the answers stream until the client speaks', async () => {
    const raw = await RawClient.connect(server.port);
    try {
      const hello = await raw.request(opMsg({ requestID: 1, body: bson({ hello: 1, $db: 'admin' }) }));
      const topologyVersion = hello.doc.topologyVersion;
      let start = Date.now();
      const awaited = await raw.request(
        opMsg({ requestID: 2, body: bson({ hello: 1, maxAwaitTimeMS: 150, topologyVersion, $db: 'admin' }) }),
      );
      assert.ok(Date.now() - start >= 140, `answered after ${Date.now() - start} ms`);
      assert.equal(awaited.doc.ok, 1);
      assert.equal(awaited.flags & 2, 0, 'no moreToCome without exhaustAllowed');

      // Another server's topologyVersion: answered at once.
      start = Date.now();
      const other = { processId: new ObjectId(), counter: Long.fromNumber(0) };
      await raw.request(
        opMsg({ requestID: 3, body: bson({ hello: 1, maxAwaitTimeMS: 5000, topologyVersion: other, $db: 'admin' }) }),
      );
      assert.ok(Date.now() - start < 1000);

      // exhaustAllowed (flag bit 16): moreToCome answers, each responding to the one before.
      const before = raw.replies.length;
      raw.socket.write(
        opMsg({
          requestID: 4,
          flags: 1 << 16,
          body: bson({ hello: 1, maxAwaitTimeMS: 50, topologyVersion, $db: 'admin' }),
        }),
      );
      assert.ok(await raw.until(() => raw.replies.length >= before + 3, 3000));
      const stream = raw.replies.slice(before);
      assert.equal(stream[0].responseTo, 4);
      for (let i = 1; i < 3; i++) assert.equal(stream[i].responseTo, stream[i - 1].requestID);
      for (const r of stream) assert.equal(r.flags & 2, 2, 'moreToCome');

      // Speaking ends the stream: the ping is answered, and no hello follows it.
      const pong = await raw.request(opMsg({ requestID: 5, body: bson({ ping: 1, $db: 'admin' }) }));
      assert.equal(pong.doc.ok, 1);
      const after = raw.replies.length;
      await new Promise((r) => setTimeout(r, 150));
      assert.equal(raw.replies.length, after);
      assert.equal(raw.closed, false);
    } finally {
      raw.destroy();
    }
  });

  test('CRUD, countDocuments, estimatedDocumentCount and aggregate', async () => {
    const c = client.db('crud').collection<any>('items');
    await c.insertMany([
      { _id: 1, kind: 'a', n: 1 },
      { _id: 2, kind: 'b', n: 2 },
      { _id: 3, kind: 'a', n: 3 },
    ]);
    assert.deepEqual(await c.findOne({ _id: 2 }), { _id: 2, kind: 'b', n: 2 });
    const upd = await c.updateMany({ kind: 'a' }, { $inc: { n: 10 } });
    assert.equal(upd.modifiedCount, 2);
    const del = await c.deleteOne({ _id: 2 });
    assert.equal(del.deletedCount, 1);
    assert.equal(await c.countDocuments({ kind: 'a' }), 2);
    assert.equal(await c.estimatedDocumentCount(), 2);
    const sums = await c.aggregate([{ $group: { _id: '$kind', total: { $sum: '$n' } } }]).toArray();
    assert.deepEqual(sums, [{ _id: 'a', total: 24 }]);
    const fam = await c.findOneAndUpdate({ _id: 1 }, { $set: { n: 0 } }, { returnDocument: 'after' });
    assert.deepEqual(fam, { _id: 1, kind: 'a', n: 0 });
  });

  test('a duplicate key is a MongoServerError with code 11000', async () => {
    const c = client.db('crud').collection<any>('dups');
    await c.insertOne({ _id: 'x' });
    await assert.rejects(c.insertOne({ _id: 'x' }), (e: unknown) => {
      assert.ok(e instanceof MongoServerError);
      assert.equal(e.code, 11000);
      assert.match(e.message, /E11000 duplicate key error/);
      return true;
    });
  });

  test("a command's error carries its extra fields at the top level (findAndModify's DuplicateKey)", async () => {
    const db = client.db('crud');
    await db.collection('fam').createIndex({ u: 1 }, { unique: true });
    await db.collection<{ _id: number; u: number }>('fam').insertOne({ _id: 1, u: 1 });
    await assert.rejects(
      db.command({ findAndModify: 'fam', query: { _id: 2 }, update: { u: 1 }, upsert: true }),
      (e: unknown) => {
        assert.ok(e instanceof MongoServerError);
        assert.equal(e.code, 11000);
        assert.deepEqual(e.errorResponse.keyPattern, { u: 1 });
        assert.deepEqual(e.errorResponse.keyValue, { u: 1 });
        assert.equal(e.errorResponse.info, undefined);
        return true;
      },
    );
  });

  test('a BSON regex keeps its PCRE pattern and options; one that does not compile is an error reply (51091)', async () => {
    const c = client.db('crud').collection('rx');
    await c.insertMany([{ s: 'ab' }, { s: 'AB' }, { s: 'a b' }]);
    const found = async (filter: Document) => (await c.find(filter).sort({ s: 1 }).toArray()).map((d) => d.s as string);
    // x (extended): whitespace and comments in the pattern do not count; a JS RegExp has no x.
    assert.deepEqual(await found({ s: new BSONRegExp('^a b # comment', 'x') }), ['ab']);
    // (?i): PCRE syntax a JS RegExp does not compile.
    assert.deepEqual(await found({ s: new BSONRegExp('(?i)^ab$', '') }), ['AB', 'ab']);
    await assert.rejects(c.find({ s: new BSONRegExp('[', '') }).toArray(), { code: 51091 });
    assert.equal(await c.countDocuments(), 3, 'the connection goes on');
  });

  test('bulkWrite: ordered stops at the first error, unordered goes on; both report writeErrors', async () => {
    const c = client.db('crud').collection<any>('bulk');
    await c.insertOne({ _id: 2 });
    const ops = [1, 2, 3].map((i) => ({ insertOne: { document: { _id: i } } }));
    await assert.rejects(c.bulkWrite(ops, { ordered: true }), (e: unknown) => {
      assert.ok(e instanceof MongoBulkWriteError);
      assert.equal(e.result.insertedCount, 1);
      assert.equal(
        e.writeErrors instanceof Array ? e.writeErrors[0].code : (e.writeErrors as { code: number }).code,
        11000,
      );
      return true;
    });
    await c.deleteMany({ _id: { $ne: 2 } });
    await assert.rejects(c.bulkWrite(ops, { ordered: false }), (e: unknown) => {
      assert.ok(e instanceof MongoBulkWriteError);
      assert.equal(e.result.insertedCount, 2);
      return true;
    });
    assert.equal(await c.countDocuments(), 3);
  });

  test('cursors over several batches (batchSize); a getMore from another session is refused (50738)', async () => {
    const c = client.db('cur').collection('many');
    await c.insertMany(Array.from({ length: 1000 }, (_, i) => ({ i })));
    const seen: number[] = [];
    for await (const d of c.find({}, { batchSize: 7 }).sort({ i: 1 })) seen.push(d.i as number);
    assert.equal(seen.length, 1000);
    assert.deepEqual(seen.slice(0, 3), [0, 1, 2]);

    // The raw commands in one session, to hold the cursor id: another session cannot continue it.
    const session = client.startSession();
    try {
      const first = await client.db('cur').command({ find: 'many', batchSize: 2 }, { session });
      const id = (first.cursor as { id: unknown }).id;
      const other = new MongoClient(server.uri, { maxPoolSize: 1 });
      try {
        await assert.rejects(other.db('cur').command({ getMore: id, collection: 'many' }), (e: unknown) => {
          assert.equal((e as MongoServerError).code, 50738);
          assert.match((e as MongoServerError).message, /which was created in session [0-9a-f]{32}, in session/);
          return true;
        });
      } finally {
        await other.close();
      }
      const more = await client.db('cur').command({ getMore: id, collection: 'many', batchSize: 3 }, { session });
      assert.equal((more.cursor as { nextBatch: unknown[] }).nextBatch.length, 3);
      await client.db('cur').command({ killCursors: 'many', cursors: [id] }, { session });
    } finally {
      await session.endSession();
    }
  });

  test('40 MB of documents come back through a cursor in batches of at most 16 MiB', async () => {
    const monitored = new MongoClient(server.uri, { maxPoolSize: 2, monitorCommands: true });
    const batches: Array<{ docs: number; bytes: number }> = [];
    monitored.on('commandSucceeded', (e) => {
      const cursor = (e.reply as { cursor?: { firstBatch?: Document[]; nextBatch?: Document[] } }).cursor;
      const batch = cursor?.firstBatch ?? cursor?.nextBatch;
      if (batch) batches.push({ docs: batch.length, bytes: BSON.calculateObjectSize({ batch }) });
    });
    try {
      const c = monitored.db('big').collection<{ _id: number; s: string }>('docs');
      const s = 'x'.repeat(1_000_000);
      await c.insertMany(Array.from({ length: 40 }, (_, i) => ({ _id: i, s })));
      batches.length = 0;
      const docs = await c.find({}).sort({ _id: 1 }).toArray();
      assert.equal(docs.length, 40);
      assert.deepEqual(
        docs.map((d) => d._id),
        Array.from({ length: 40 }, (_, i) => i),
      );
      assert.deepEqual(
        batches.map((b) => b.docs),
        [16, 16, 8],
      );
      for (const b of batches) assert.ok(b.bytes <= 16 * 1024 * 1024 + 100, `a batch of ${b.bytes} bytes`);
    } finally {
      await monitored.db('big').dropDatabase();
      await monitored.close();
    }
  });

  test("20 concurrent cursors through a pool of 10: a cursor's getMore goes out on any connection", async () => {
    const c = client.db('cur').collection('pooled');
    await c.insertMany(Array.from({ length: 100 }, (_, i) => ({ i })));
    const pooled = new MongoClient(server.uri, { maxPoolSize: 10 });
    try {
      const coll = pooled.db('cur').collection('pooled');
      const all = await Promise.all(Array.from({ length: 20 }, () => coll.find({}, { batchSize: 5 }).toArray()));
      for (const docs of all) assert.equal(docs.length, 100);
    } finally {
      await pooled.close();
    }
  });

  test("a client's cursors die with its sessions when it closes (endSessions)", async () => {
    const before = server.engine.cursors.count;
    const other = new MongoClient(server.uri, { maxPoolSize: 1 });
    await other.db('cur').command({ find: 'many', batchSize: 1 });
    assert.equal(server.engine.cursors.count, before + 1);
    await other.close();
    for (let i = 0; i < 50 && server.engine.cursors.count > before; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(server.engine.cursors.count, before);
  });

  test('a cursor opened without a session belongs to its connection and dies with it', async () => {
    const before = server.engine.cursors.count;
    const a = await RawClient.connect(server.port);
    const b = await RawClient.connect(server.port);
    try {
      const found = await a.request(opMsg({ requestID: 1, body: bson({ find: 'many', batchSize: 1, $db: 'cur' }) }));
      const id = found.doc.cursor.id;
      assert.equal(server.engine.cursors.count, before + 1);
      const getMore = (requestID: number, extra: Record<string, unknown> = {}) =>
        opMsg({ requestID, body: bson({ getMore: Long.fromValue(id), collection: 'many', ...extra, $db: 'cur' }) });
      assert.equal((await b.request(getMore(2))).doc.code, 43, 'another connection');
      const lsid = { id: new Binary(Buffer.alloc(16, 7), 4) };
      assert.equal((await a.request(getMore(3, { lsid }))).doc.code, 50736, 'in a session');
      assert.equal((await a.request(getMore(4, { batchSize: 1 }))).doc.ok, 1);
      a.destroy();
      for (let i = 0; i < 50 && server.engine.cursors.count > before; i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(server.engine.cursors.count, before);
    } finally {
      a.destroy();
      b.destroy();
    }
  });

  test('a cursor opened in a session is refused a getMore without one (50737)', async () => {
    const raw = await RawClient.connect(server.port);
    try {
      const lsid = { id: new Binary(Buffer.alloc(16, 9), 4) };
      const found = await raw.request(
        opMsg({ requestID: 1, body: bson({ find: 'many', batchSize: 1, lsid, $db: 'cur' }) }),
      );
      const id = Long.fromValue(found.doc.cursor.id);
      const more = await raw.request(
        opMsg({ requestID: 2, body: bson({ getMore: id, collection: 'many', $db: 'cur' }) }),
      );
      assert.equal(more.doc.code, 50737);
      assert.equal(more.doc.codeName, 'Location50737');
      // The session ends: its cursor with it.
      const before = server.engine.cursors.count;
      await raw.request(opMsg({ requestID: 3, body: bson({ endSessions: [lsid], $db: 'admin' }) }));
      assert.equal(server.engine.cursors.count, before - 1);
    } finally {
      raw.destroy();
    }
  });

  test('rule 7.8: a TTL index made through the driver expires documents when the clock moves over the wire', async () => {
    const db = client.db('ttl');
    const c = db.collection('sessions');
    await c.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 1800 });
    await c.insertMany([{ lastSeen: new Date(T0) }, { lastSeen: new Date(Date.parse(T0) + 3_600_000) }]);
    const ix = (await c.listIndexes().toArray()).find((i) => i.name === 'lastSeen_1');
    assert.equal(ix?.expireAfterSeconds, 1800);
    const moved = await client.db('admin').command({ ttlWorkbench: 'advanceClock', by: '31m' });
    assert.equal(moved.deletedDocuments, 1);
    assert.equal(await c.countDocuments(), 1);
    const mod = await db.command({
      collMod: 'sessions',
      index: { keyPattern: { lastSeen: 1 }, expireAfterSeconds: 60 },
    });
    assert.equal(mod.expireAfterSeconds_old, 1800);
    assert.equal(mod.expireAfterSeconds_new, 60);
    const later = server.clock.advance('2h');
    assert.equal(later.deletedDocuments, 1);
    assert.equal(await c.countDocuments(), 0);
  });

  test('the control command refuses what it cannot do, with codes', async () => {
    const admin = client.db('admin');
    await assert.rejects(admin.command({ ttlWorkbench: 'advanceClock', by: 'soon' }), { code: 2 });
    await assert.rejects(admin.command({ ttlWorkbench: 'fly' }), { code: 2 });
    await assert.rejects(client.db('app').command({ ttlWorkbench: 'status' }), { code: 13 });
    const status = await admin.command({ ttlWorkbench: 'status' });
    assert.equal(status.clock, 'virtual');
  });

  test('a transaction is refused as a standalone mongod refuses it (code 20)', async () => {
    const session = client.startSession();
    try {
      await assert.rejects(
        session.withTransaction(async () => {
          await client.db('tx').collection('c').insertOne({ a: 1 }, { session });
        }),
        (e: unknown) => {
          // The driver turns mongod's code 20 "Transaction numbers are only allowed on a replica
          // set member or mongos" into this advice; it does so for that reply only.
          assert.ok(e instanceof MongoServerError);
          assert.match(e.message, /does not support retryable writes/);
          return true;
        },
      );
    } finally {
      await session.endSession();
    }
  });

  test('50 concurrent operations through the connection pool', async () => {
    const c = client.db('pool').collection('c');
    await Promise.all(Array.from({ length: 50 }, (_, i) => c.insertOne({ i }).then(() => c.findOne({ i }))));
    assert.equal(await c.countDocuments(), 50);
  });

  test('a malformed frame closes only its own connection', async () => {
    const socket = net.connect(server.port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    const closed = new Promise((r) => socket.once('close', r));
    const bad = Buffer.alloc(16);
    bad.writeInt32LE(16, 0);
    bad.writeInt32LE(1, 4);
    bad.writeInt32LE(0, 8);
    bad.writeInt32LE(9999, 12); // no such opcode
    socket.write(bad);
    await closed;
    assert.equal((await client.db('admin').command({ ping: 1 })).ok, 1);
  });

  test("document sequences: twice the same (40431) or also in the body (40433) is an error reply; '__proto__' is a name", async () => {
    const raw = await RawClient.connect(server.port);
    try {
      const docs = [bson({ _id: 'seq1' })];
      const twice = await raw.request(
        opMsg({
          requestID: 1,
          body: bson({ insert: 'seqs', $db: 'crud' }),
          sequences: [
            { identifier: 'documents', documents: docs },
            { identifier: 'documents', documents: docs },
          ],
        }),
      );
      assert.equal(twice.doc.code, 40431);
      const both = await raw.request(
        opMsg({
          requestID: 2,
          body: bson({ insert: 'seqs', documents: [{ _id: 'body' }], $db: 'crud' }),
          sequences: [{ identifier: 'documents', documents: docs }],
        }),
      );
      assert.equal(both.doc.code, 40433);
      const proto = await raw.request(
        opMsg({
          requestID: 3,
          body: bson({ insert: 'seqs', $db: 'crud' }),
          sequences: [{ identifier: '__proto__', documents: docs }],
        }),
      );
      assert.equal(proto.doc.ok, 0, 'no documents: the sequence is a field named __proto__, not a prototype');
      const ok = await raw.request(
        opMsg({
          requestID: 4,
          body: bson({ insert: 'seqs', $db: 'crud' }),
          sequences: [{ identifier: 'documents', documents: docs }],
        }),
      );
      assert.equal(ok.doc.n, 1);
      assert.equal(raw.closed, false);
    } finally {
      raw.destroy();
    }
  });

  test('a command nested 20,000 levels deep is an error reply (15 Overflow), not a stack overflow', async () => {
    // {find: 'deep', filter: {a: [[[...]]]}}, written in one pass.
    const depth = 20_000;
    const nested = Buffer.alloc(8 * depth + 5);
    for (let level = depth, p = 0; level > 0; level--, p += 7) {
      nested.writeInt32LE(8 * level + 5, p);
      nested.set([4, 0x30, 0], p + 4);
    }
    nested.writeInt32LE(5, 7 * depth);
    const filter = Buffer.concat([Buffer.alloc(4), Buffer.from([4, 0x61, 0]), nested, Buffer.from([0])]);
    filter.writeInt32LE(filter.length, 0);
    const head = bson({ find: 'deep', $db: 'crud' });
    const body = Buffer.concat([head.subarray(0, -1), Buffer.from('\x03filter\0', 'latin1'), filter, Buffer.from([0])]);
    body.writeInt32LE(body.length, 0);
    const raw = await RawClient.connect(server.port);
    try {
      const reply = await raw.request(opMsg({ requestID: 1, body }));
      assert.equal(reply.doc.code, 15);
      assert.match(reply.doc.errmsg as string, /nests more than 200 levels/);
      assert.equal((await raw.request(opMsg({ requestID: 2, body: bson({ ping: 1, $db: 'admin' }) }))).doc.ok, 1);
    } finally {
      raw.destroy();
    }
  });

  test('OP_QUERY answers only hello and isMaster on <db>.$cmd, as mongod 5.1+ (352 for the rest)', async () => {
    const raw = await RawClient.connect(server.port);
    try {
      const hello = await raw.request(opQuery('admin.$cmd', bson({ $query: { isMaster: 1 } }), 1));
      assert.equal(hello.opCode, 1, 'OP_REPLY');
      assert.equal(hello.doc.ismaster, true);
      const find = await raw.request(opQuery('crud.$cmd', bson({ find: 'seqs' }), 2));
      assert.equal(find.doc.code, 352);
      assert.match(find.doc.errmsg as string, /Unsupported OP_QUERY command: find/);
      const legacy = await raw.request(opQuery('crud.seqs', bson({}), 3));
      assert.equal(legacy.doc.code, 352);
      assert.equal(raw.closed, false);
    } finally {
      raw.destroy();
    }
  });

  test('OP_MSG with a checksum is read; a wrong checksum closes the connection', async () => {
    const body = BSON.serialize({ ping: 1, $db: 'admin' });
    const frame = (checksum: 'right' | 'wrong') => {
      const head = Buffer.alloc(21);
      const length = 21 + body.length + 4;
      head.writeInt32LE(length, 0);
      head.writeInt32LE(7, 4);
      head.writeInt32LE(0, 8);
      head.writeInt32LE(2013, 12);
      head.writeUInt32LE(1, 16); // checksumPresent
      head[20] = 0;
      const unsummed = Buffer.concat([head, Buffer.from(body)]);
      const sum = Buffer.alloc(4);
      sum.writeUInt32LE(checksum === 'right' ? crc32c(unsummed) : 12345, 0);
      return Buffer.concat([unsummed, sum]);
    };
    const socket = net.connect(server.port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    const reply = new Promise<Buffer>((r) => socket.once('data', r));
    socket.write(frame('right'));
    const answer = await reply;
    const doc = BSON.deserialize(answer.subarray(21));
    assert.equal(doc.ok, 1);
    const closed = new Promise((r) => socket.once('close', r));
    socket.write(frame('wrong'));
    await closed;
  });
});

describe('wire endpoint: server versions', () => {
  test('7.0 reports maxWireVersion 21', async () => {
    const server = await startServer({ serverVersion: '7.0' });
    const client = new MongoClient(server.uri);
    try {
      const hello = await client.db('admin').command({ hello: 1 });
      assert.equal(hello.maxWireVersion, 21);
    } finally {
      await client.close();
      await server.stop();
    }
  });
});
