/**
 * The official MongoDB driver against the wire endpoint (startServer, in this process, port 0):
 * what an application's test suite does, with real replies checked. No fakes: the driver speaks
 * the protocol to a real socket.
 */
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { BSON, UUID, type Document } from 'bson';
import { MongoBulkWriteError, MongoClient, MongoServerError } from 'mongodb';
import { startServer, type RunningServer } from '../../../src/wire';

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

  test('cursors over several batches (batchSize), whichever pooled connection each getMore takes', async () => {
    const c = client.db('cur').collection('many');
    await c.insertMany(Array.from({ length: 1000 }, (_, i) => ({ i })));
    // Several cursors at once keep several pooled connections busy: getMores go over any of them.
    const runs = await Promise.all(
      [7, 11, 13].map(async (batchSize) => {
        const seen: number[] = [];
        for await (const d of c.find({}, { batchSize }).sort({ i: 1 })) seen.push(d.i as number);
        return seen;
      }),
    );
    for (const seen of runs) {
      assert.equal(seen.length, 1000);
      assert.deepEqual(seen.slice(0, 3), [0, 1, 2]);
    }
  });

  test("a cursor belongs to its session: another session's getMore is refused (50738), as on mongod", async () => {
    const session = client.startSession();
    const stranger = client.startSession();
    try {
      const first = await client.db('cur').command({ find: 'many', batchSize: 2 }, { session });
      const id = (first.cursor as { id: unknown }).id;
      await assert.rejects(
        client.db('cur').command({ getMore: id, collection: 'many' }, { session: stranger }),
        (e: unknown) => {
          assert.equal((e as MongoServerError).code, 50738);
          assert.match((e as MongoServerError).message, /which was created in session \w+, in session \w+/);
          return true;
        },
      );
      const more = await client.db('cur').command({ getMore: id, collection: 'many', batchSize: 3 }, { session });
      assert.equal((more.cursor as { nextBatch: unknown[] }).nextBatch.length, 3);
      await client.db('cur').command({ killCursors: 'many', cursors: [id] }, { session });
    } finally {
      await session.endSession();
      await stranger.endSession();
    }
  });

  test('raw connections: a session continues its cursor on another connection; ending the session kills it', async () => {
    const a = await RawConnection.open(server.port);
    const b = await RawConnection.open(server.port);
    try {
      const lsid = { id: new UUID() };
      const first = await a.command({ find: 'many', batchSize: 2, lsid, $db: 'cur' });
      const id = first.cursor.id;
      a.close(); // the cursor lives on: it belongs to the session, not to the connection
      const more = await b.command({ getMore: id, collection: 'many', batchSize: 2, lsid, $db: 'cur' });
      assert.equal(more.cursor.nextBatch.length, 2);
      const noSession = await b.command({ getMore: id, collection: 'many', $db: 'cur' });
      assert.equal(noSession.code, 50737);
      await b.command({ endSessions: [lsid], $db: 'admin' });
      const gone = await b.command({ getMore: id, collection: 'many', lsid, $db: 'cur' });
      assert.equal(gone.code, 43);
      // Outside any session a cursor dies with its connection.
      const c = await RawConnection.open(server.port);
      const before = server.engine.cursors.count;
      await c.command({ find: 'many', batchSize: 1, $db: 'cur' });
      assert.equal(server.engine.cursors.count, before + 1);
      c.close();
      for (let i = 0; i < 50 && server.engine.cursors.count > before; i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(server.engine.cursors.count, before);
    } finally {
      a.close();
      b.close();
    }
  });

  test("a client's cursors die when it closes (the driver ends its sessions)", async () => {
    const before = server.engine.cursors.count;
    const other = new MongoClient(server.uri, { maxPoolSize: 1 });
    await other.db('cur').command({ find: 'many', batchSize: 1 });
    assert.equal(server.engine.cursors.count, before + 1);
    await other.close();
    for (let i = 0; i < 50 && server.engine.cursors.count > before; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(server.engine.cursors.count, before);
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

  test("the driver's server monitor: awaitable hellos stream every heartbeat, and the pool is never cleared", async () => {
    // Before: a string topologyVersion.processId and an immediate answer without moreToCome made
    // every heartbeat fail and clear the pool (operations in flight failed with MongoPoolClearedError).
    const watched = new MongoClient(server.uri, { heartbeatFrequencyMS: 500 });
    const events: string[] = [];
    for (const name of ['serverHeartbeatSucceeded', 'serverHeartbeatFailed', 'connectionPoolCleared'] as const)
      watched.on(name, (e: { awaited?: boolean }) =>
        events.push(name === 'serverHeartbeatSucceeded' && e.awaited ? 'awaited' : name),
      );
    try {
      await watched.connect();
      const started = Date.now();
      await new Promise((r) => setTimeout(r, 1300));
      assert.deepEqual(
        events.filter((e) => e !== 'awaited' && e !== 'serverHeartbeatSucceeded'),
        [],
        'no failed heartbeat, no cleared pool',
      );
      const awaited = events.filter((e) => e === 'awaited').length;
      assert.ok(awaited >= 2, `streamed answers arrive (${awaited})`);
      assert.ok(
        awaited <= Math.ceil((Date.now() - started) / 500) + 2,
        `one per heartbeat, not a busy loop (${awaited})`,
      );
      assert.equal((await watched.db('admin').command({ ping: 1 })).ok, 1);
    } finally {
      await watched.close();
    }
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

function crc32c(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const b of bytes) {
    crc ^= b;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? 0x82f63b78 ^ (crc >>> 1) : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** One raw socket speaking OP_MSG: commands with exactly the fields given (lsid or none). */
class RawConnection {
  private buffered = Buffer.alloc(0);
  private waiting: ((reply: any) => void) | undefined;
  private nextRequest = 1;

  private constructor(private readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      if (this.buffered.length >= 4 && this.buffered.length >= this.buffered.readInt32LE(0)) {
        const length = this.buffered.readInt32LE(0);
        const frame = this.buffered.subarray(0, length);
        this.buffered = this.buffered.subarray(length);
        this.waiting?.(BSON.deserialize(frame.subarray(21)));
      }
    });
  }

  static async open(port: number): Promise<RawConnection> {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    return new RawConnection(socket);
  }

  command(doc: Document): Promise<any> {
    const body = BSON.serialize(doc);
    const head = Buffer.alloc(21);
    head.writeInt32LE(21 + body.length, 0);
    head.writeInt32LE(this.nextRequest++, 4);
    head.writeInt32LE(2013, 12);
    return new Promise((resolve) => {
      this.waiting = resolve;
      this.socket.write(Buffer.concat([head, Buffer.from(body)]));
    });
  }

  close(): void {
    this.socket.destroy();
  }
}
