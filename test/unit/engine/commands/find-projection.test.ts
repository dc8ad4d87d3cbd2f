/**
 * Aggregation expressions in find and findAndModify projections (MongoDB 4.4+), through the
 * commands (the path the shell and the wire endpoint share), the shell's helpers and the official
 * driver over the wire endpoint.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MongoClient, MongoServerError } from 'mongodb';
import { Engine, type Document } from '../../../../src/engine';
import { VirtualClock } from '../../../../src/engine/clock';
import { startServer, type RunningServer } from '../../../../src/wire';
import { expectError } from '../../helpers/expect-error';
import { harness, plain } from '../../shell/helpers';

const T0 = '2026-01-01T00:00:00.000Z';

function seeded(): Engine {
  const engine = new Engine({ clock: new VirtualClock(Date.parse(T0)) });
  engine.runCommand('app', {
    insert: 'c',
    documents: [
      { _id: 1, v: 3, tags: ['a', 'b', 'c'], name: 'one' },
      { _id: 2, v: 10, tags: ['c'], name: 'two' },
    ],
  });
  return engine;
}

function firstBatch(reply: Document): Document[] {
  return (reply.cursor as Document).firstBatch as Document[];
}

describe('find command: expression projections', () => {
  it('computes {c: {$add: ["$v", 2]}}, literals and $-paths per document', () => {
    const reply = seeded().runCommand('app', {
      find: 'c',
      filter: {},
      sort: { _id: 1 },
      projection: { c: { $add: ['$v', 2] }, kind: 'doc', who: '$name', _id: 0 },
    });
    assert.deepEqual(firstBatch(reply), [
      { c: 5, kind: 'doc', who: 'one' },
      { c: 12, kind: 'doc', who: 'two' },
    ]);
  });

  it('$$NOW is the engine clock', () => {
    const reply = seeded().runCommand('app', { find: 'c', filter: { _id: 1 }, projection: { t: '$$NOW' } });
    assert.deepEqual(firstBatch(reply), [{ _id: 1, t: new Date(T0) }]);
  });

  it('the positional operator projects the element the filter matched', () => {
    const reply = seeded().runCommand('app', { find: 'c', filter: { tags: 'b' }, projection: { 'tags.$': 1 } });
    assert.deepEqual(firstBatch(reply), [{ _id: 1, tags: ['b'] }]);
  });

  it('refuses a bad projection with mongod codes, even when the collection does not exist', () => {
    const engine = seeded();
    expectError(() => engine.runCommand('app', { find: 'c', projection: { a: 0, b: 'x' } }), 31310);
    expectError(() => engine.runCommand('app', { find: 'none', projection: { a: 1, 'a.b': '$v' } }), 31249);
    expectError(() => engine.runCommand('app', { find: 'c', projection: { 'tags.$': 1 } }), 31277);
  });

  it('a projection error at run time fails the command (51246)', () => {
    expectError(
      () =>
        seeded().runCommand('app', {
          find: 'c',
          filter: { $or: [{ tags: 'z' }, { v: 3 }] },
          projection: { 'tags.$': 1 },
        }),
      51246,
    );
  });
});

describe('findAndModify command: expression projections', () => {
  it('projects the document after the update with `fields` and new: true', () => {
    const reply = seeded().runCommand('app', {
      findAndModify: 'c',
      query: { _id: 1 },
      update: { $inc: { v: 1 } },
      new: true,
      fields: { doubled: { $multiply: ['$v', 2] }, _id: 0 },
    });
    assert.deepEqual(reply.value, { doubled: 8 });
  });

  it('projects the document before the update with `projection`, positional from the query', () => {
    const reply = seeded().runCommand('app', {
      findAndModify: 'c',
      query: { tags: 'c', v: 10 },
      update: { $set: { v: 0 } },
      projection: { 'tags.$': 1, was: '$v' },
    });
    assert.deepEqual(reply.value, { _id: 2, tags: ['c'], was: 10 });
  });

  it('refuses mixing inclusion and exclusion (31254) before changing anything', () => {
    const engine = seeded();
    expectError(
      () =>
        engine.runCommand('app', {
          findAndModify: 'c',
          query: { _id: 1 },
          update: { $set: { v: 99 } },
          fields: { x: { $literal: 1 }, v: 0 },
        }),
      31254,
    );
    assert.equal(firstBatch(engine.runCommand('app', { find: 'c', filter: { _id: 1 } }))[0].v, 3);
  });
});

describe('shell: expression projections', () => {
  it('find(q, projection) and findOneAndUpdate(…, {projection}) evaluate expressions', () => {
    const h = harness();
    h.value('db.c.insertMany([{_id: 1, v: 3}, {_id: 2, v: 4}])');
    assert.deepEqual(plain(h.value('db.c.find({}, {c: {$add: ["$v", 2]}, label: "x"}).toArray()')), [
      { _id: 1, c: 5, label: 'x' },
      { _id: 2, c: 6, label: 'x' },
    ]);
    assert.deepEqual(
      plain(
        h.value(
          'db.c.findOneAndUpdate({_id: 2}, {$inc: {v: 1}}, {returnDocument: "after", projection: {_id: 0, sq: {$multiply: ["$v", "$v"]}}})',
        ),
      ),
      { sq: 25 },
    );
  });
});

describe('wire endpoint: expression projections through the official driver', () => {
  let server: RunningServer;
  let client: MongoClient;

  before(async () => {
    server = await startServer({ now: T0 });
    client = new MongoClient(server.uri, { serverSelectionTimeoutMS: 5000 });
    await client.connect();
  });

  after(async () => {
    await client.close();
    await server.stop();
  });

  it('find and findOneAndUpdate return computed fields; mongod codes come back as MongoServerError', async () => {
    const coll = client.db('app').collection('c');
    await coll.insertMany([
      { _id: 1, v: 3 },
      { _id: 2, v: 4 },
    ] as unknown as Document[]);
    const found = await coll.find({}, { projection: { c: { $add: ['$v', 2] }, _id: 0 }, sort: { _id: 1 } }).toArray();
    assert.deepEqual(found, [{ c: 5 }, { c: 6 }]);
    const updated = await coll.findOneAndUpdate(
      { _id: 1 } as Document,
      { $set: { v: 7 } },
      { returnDocument: 'after', projection: { plus: { $add: ['$v', 1] } } },
    );
    assert.deepEqual(updated, { _id: 1, plus: 8 });
    await assert.rejects(
      coll.find({}, { projection: { a: 0, b: 'x' } }).toArray(),
      (err: unknown) => err instanceof MongoServerError && err.code === 31310,
    );
  });
});
