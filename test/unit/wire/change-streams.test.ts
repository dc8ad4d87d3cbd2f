/**
 * Change streams in replica-set mode, through the official driver's watch() on a real socket:
 * the events and their shapes, the scopes (collection, database, deployment), fullDocument
 * options, resume tokens, awaiting getMores, TTL deletes and transactions.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Timestamp, type Document } from 'bson';
import { MongoClient, type ChangeStream } from 'mongodb';
import { startServer } from '../../../src/wire';
import { driverOnServer } from './driver-on-server';

const T0 = '2026-01-01T00:00:00.000Z';

type Doc = any;

/**
 * A stream whose aggregate has run: the driver opens it on first use, and only changes after
 * that are its events (as on mongod).
 */
async function opened(stream: ChangeStream<Doc>): Promise<ChangeStream<Doc>> {
  assert.equal(await stream.tryNext(), null);
  return stream;
}

/** The next `n` events of a stream. */
async function take(stream: ChangeStream<Doc>, n: number): Promise<Document[]> {
  const out: Document[] = [];
  while (out.length < n) out.push((await stream.next()) as Document);
  return out;
}

describe('change streams through the driver', () => {
  const live = driverOnServer({ now: T0, replSet: 'rs0' });

  test('collection.watch(): insert, update with updateDescription, replace and delete, in order, as mongod shapes them', async () => {
    const c = live.client.db('cs').collection<Doc>('events');
    const stream = await opened(c.watch([], { maxAwaitTimeMS: 20 }));
    try {
      await c.insertOne({ _id: 1, a: 1, sub: { x: 1, y: 2 }, arr: [1, 2, 3], gone: true });
      await c.updateOne({ _id: 1 }, { $set: { a: 2, 'sub.x': 5 }, $unset: { gone: '' }, $pop: { arr: 1 } });
      await c.replaceOne({ _id: 1 }, { b: 1 });
      await c.deleteOne({ _id: 1 });
      const [ins, upd, rep, del] = await take(stream, 4);
      assert.equal(ins.operationType, 'insert');
      assert.deepEqual(ins.fullDocument, { _id: 1, a: 1, sub: { x: 1, y: 2 }, arr: [1, 2, 3], gone: true });
      assert.deepEqual(ins.ns, { db: 'cs', coll: 'events' });
      assert.deepEqual(ins.documentKey, { _id: 1 });
      assert.ok(ins.clusterTime instanceof Timestamp);
      assert.ok(ins.wallTime instanceof Date);
      assert.equal(typeof (ins._id as Document)._data, 'string');
      assert.equal(upd.operationType, 'update');
      assert.equal(upd.fullDocument, undefined, 'no fullDocument without updateLookup');
      assert.deepEqual(upd.updateDescription, {
        updatedFields: { a: 2, 'sub.x': 5 },
        removedFields: ['gone'],
        truncatedArrays: [{ field: 'arr', newSize: 2 }],
      });
      assert.equal(rep.operationType, 'replace');
      assert.deepEqual(rep.fullDocument, { _id: 1, b: 1 });
      assert.equal(del.operationType, 'delete');
      assert.deepEqual(del.documentKey, { _id: 1 });
      assert.equal(del.fullDocument, undefined);
      assert.equal(ins.clusterTime.compare(del.clusterTime), -1, 'cluster times grow');
    } finally {
      await stream.close();
    }
  });

  test('fullDocument "updateLookup" gives the document as it is when the event is read; fullDocumentBeforeChange the one before', async () => {
    const c = live.client.db('cs').collection<Doc>('lookup');
    await c.insertOne({ _id: 1, n: 0 });
    const stream = await opened(
      c.watch([], { fullDocument: 'updateLookup', fullDocumentBeforeChange: 'whenAvailable', maxAwaitTimeMS: 20 }),
    );
    try {
      await c.updateOne({ _id: 1 }, { $inc: { n: 1 } });
      await c.updateOne({ _id: 1 }, { $inc: { n: 1 } });
      const [first, second] = await take(stream, 2);
      assert.deepEqual(first.fullDocument, { _id: 1, n: 2 }, 'looked up now: both updates applied');
      assert.deepEqual(first.fullDocumentBeforeChange, { _id: 1, n: 0 });
      assert.deepEqual(second.fullDocumentBeforeChange, { _id: 1, n: 1 });
    } finally {
      await stream.close();
    }
  });

  test('a pipeline after $changeStream filters and reshapes events; a stage it does not allow is refused', async () => {
    const c = live.client.db('cs').collection<Doc>('filtered');
    const stream = await opened(
      c.watch([{ $match: { operationType: 'delete' } }, { $project: { documentKey: 1 } }], { maxAwaitTimeMS: 20 }),
    );
    try {
      await c.insertOne({ _id: 7 });
      await c.deleteOne({ _id: 7 });
      const [del] = await take(stream, 1);
      assert.deepEqual(Object.keys(del).sort(), ['_id', 'documentKey']);
      assert.deepEqual(del.documentKey, { _id: 7 });
    } finally {
      await stream.close();
    }
    await assert.rejects(
      live.client
        .db('cs')
        .command({ aggregate: 'filtered', pipeline: [{ $changeStream: {} }, { $group: { _id: 1 } }], cursor: {} }),
      { code: 20 },
    );
  });

  test('db.watch() sees every collection of its database and no other; client.watch() sees the deployment', async () => {
    const dbStream = await opened(live.client.db('csdb').watch([], { maxAwaitTimeMS: 20 }));
    const all = await opened(live.client.watch([], { maxAwaitTimeMS: 20 }));
    try {
      await live.client.db('csdb').collection<Doc>('a').insertOne({ _id: 'a' });
      await live.client.db('other').collection<Doc>('b').insertOne({ _id: 'b' });
      await live.client.db('csdb').collection<Doc>('c').insertOne({ _id: 'c' });
      const seen = (await take(dbStream, 2)).map(
        (e) => `${(e.ns as Document).coll}:${(e.documentKey as Document)._id}`,
      );
      assert.deepEqual(seen, ['a:a', 'c:c']);
      const everywhere = (await take(all, 3)).map((e) => `${(e.ns as Document).db}.${(e.ns as Document).coll}`);
      assert.deepEqual(everywhere, ['csdb.a', 'other.b', 'csdb.c']);
    } finally {
      await dbStream.close();
      await all.close();
    }
  });

  test('dropping the watched collection gives drop then invalidate, and the stream ends', async () => {
    const c = live.client.db('cs').collection<Doc>('dropped');
    await c.insertOne({ _id: 1 });
    const stream = await opened(c.watch([], { maxAwaitTimeMS: 20 }));
    try {
      await c.drop();
      const [drop, invalidate] = await take(stream, 2);
      assert.equal(drop.operationType, 'drop');
      assert.deepEqual(drop.ns, { db: 'cs', coll: 'dropped' });
      assert.equal(invalidate.operationType, 'invalidate');
      // startAfter an invalidate opens a new stream after it; resumeAfter refuses it (260).
      const again = await opened(c.watch([], { startAfter: invalidate._id, maxAwaitTimeMS: 20 }));
      await c.insertOne({ _id: 2 });
      assert.equal((await again.next()).operationType, 'insert');
      await again.close();
      await assert.rejects(
        live.client.db('cs').command({
          aggregate: 'dropped',
          pipeline: [{ $changeStream: { resumeAfter: invalidate._id } }],
          cursor: {},
        }),
        { code: 260, codeName: 'InvalidResumeToken' },
      );
    } finally {
      await stream.close();
    }
  });

  test('renaming the watched collection gives rename (with to) then invalidate', async () => {
    const c = live.client.db('cs').collection<Doc>('renamed');
    await c.insertOne({ _id: 1 });
    const stream = await opened(c.watch([], { maxAwaitTimeMS: 20 }));
    try {
      await c.rename('renamed2');
      const [rename, invalidate] = await take(stream, 2);
      assert.equal(rename.operationType, 'rename');
      assert.deepEqual(rename.to, { db: 'cs', coll: 'renamed2' });
      assert.equal(invalidate.operationType, 'invalidate');
    } finally {
      await stream.close();
    }
  });

  test('resumeAfter a token gives the events after it; startAtOperationTime the ones from that time', async () => {
    const c = live.client.db('cs').collection<Doc>('resume');
    const stream = await opened(c.watch([], { maxAwaitTimeMS: 20 }));
    let tokens: Document[];
    let times: Timestamp[];
    try {
      await c.insertMany([{ _id: 1 }, { _id: 2 }, { _id: 3 }]);
      const events = await take(stream, 3);
      tokens = events.map((e) => e._id as Document);
      times = events.map((e) => e.clusterTime as Timestamp);
    } finally {
      await stream.close();
    }
    const resumed = c.watch([], { resumeAfter: tokens[0] });
    assert.deepEqual(
      (await take(resumed, 2)).map((e) => (e.documentKey as Document)._id),
      [2, 3],
    );
    await resumed.close();
    const fromTime = c.watch([], { startAtOperationTime: times[2] });
    assert.deepEqual(
      (await take(fromTime, 1)).map((e) => (e.documentKey as Document)._id),
      [3],
    );
    await fromTime.close();
    await assert.rejects(
      live.client.db('cs').command({
        aggregate: 'resume',
        pipeline: [{ $changeStream: { resumeAfter: { _data: 'nope' } } }],
        cursor: {},
      }),
      { code: 260 },
    );
    await assert.rejects(
      live.client.db('cs').command({
        aggregate: 'resume',
        pipeline: [{ $changeStream: { startAtOperationTime: new Timestamp({ t: 1, i: 1 }) } }],
        cursor: {},
      }),
      { code: 286, codeName: 'ChangeStreamHistoryLost' },
    );
  });

  test('a getMore with no event waits for one: an insert made while it waits is its answer', async () => {
    const c = live.client.db('cs').collection<Doc>('await');
    const stream = c.watch([], { maxAwaitTimeMS: 60_000 });
    try {
      const streams = live.server.engine.replication!.changeStreams;
      const before = streams.count;
      const next = stream.next();
      // Written once the stream is open on the server (its getMore then waits, or finds it at once).
      while (streams.count === before) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, 20));
      await c.insertOne({ _id: 'late' });
      const event = (await next) as Document;
      assert.deepEqual(event.documentKey, { _id: 'late' });
    } finally {
      await stream.close();
    }
  });

  test('an idle getMore answers an empty batch with a postBatchResumeToken to resume from', async () => {
    const db = live.client.db('cs');
    const opened = await db.command({ aggregate: 'idle', pipeline: [{ $changeStream: {} }], cursor: {} });
    assert.deepEqual(opened.cursor.firstBatch, []);
    assert.equal(typeof opened.cursor.postBatchResumeToken._data, 'string');
    const more = await db.command({ getMore: opened.cursor.id, collection: 'idle', maxTimeMS: 10 });
    assert.deepEqual(more.cursor.nextBatch, []);
    await db.collection<Doc>('idle').insertOne({ _id: 1 });
    const resumed = await db.command({
      aggregate: 'idle',
      pipeline: [{ $changeStream: { resumeAfter: more.cursor.postBatchResumeToken } }],
      cursor: {},
    });
    assert.deepEqual(
      resumed.cursor.firstBatch.map((e: Document) => e.documentKey),
      [{ _id: 1 }],
    );
    await db.command({ killCursors: 'idle', cursors: [opened.cursor.id, resumed.cursor.id] });
  });

  test('TTL deletions are ordinary delete events (rule 7.11)', async () => {
    const c = live.client.db('cs').collection<Doc>('ttl');
    await c.createIndex({ at: 1 }, { expireAfterSeconds: 60 });
    const stream = await opened(c.watch([], { maxAwaitTimeMS: 20 }));
    try {
      await c.insertOne({ _id: 1, at: new Date(Date.parse(T0) - 3_600_000) });
      live.server.ttl.runPass();
      const [ins, del] = await take(stream, 2);
      assert.equal(ins.operationType, 'insert');
      assert.equal(del.operationType, 'delete');
      assert.deepEqual(del.documentKey, { _id: 1 });
    } finally {
      await stream.close();
    }
  });

  test("a transaction's events appear at its commit, share one clusterTime and carry lsid and txnNumber", async () => {
    const c = live.client.db('cs').collection<Doc>('txn');
    const stream = await opened(c.watch([], { maxAwaitTimeMS: 20 }));
    const session = live.client.startSession();
    try {
      session.startTransaction();
      await c.insertOne({ _id: 1 }, { session });
      await c.updateOne({ _id: 1 }, { $set: { v: 1 } }, { session });
      assert.equal(await stream.tryNext(), null, 'nothing before the commit');
      await session.commitTransaction();
      const [ins, upd] = await take(stream, 2);
      assert.equal(ins.operationType, 'insert');
      assert.equal(upd.operationType, 'update');
      assert.equal(ins.clusterTime.compare(upd.clusterTime), 0);
      assert.ok(ins.lsid && ins.txnNumber !== undefined);
      assert.notDeepEqual(ins._id, upd._id, 'each event has its own resume token');
    } finally {
      await session.endSession();
      await stream.close();
    }
  });
});

describe('change streams on a standalone', () => {
  test('watch() is refused with 40573, as a standalone mongod refuses it', async () => {
    const server = await startServer({ now: T0 });
    const client = new MongoClient(server.uri);
    try {
      await client.connect();
      await assert.rejects(client.db('a').command({ aggregate: 'c', pipeline: [{ $changeStream: {} }], cursor: {} }), {
        code: 40573,
      });
    } finally {
      await client.close();
      await server.stop();
    }
  });
});
