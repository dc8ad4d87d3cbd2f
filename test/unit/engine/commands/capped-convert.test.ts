/**
 * cloneCollectionAsCapped and convertToCapped, as mongod 8.0 answers them: the documents copied
 * oldest first into a capped collection of the given size, the source's options kept, its
 * secondary indexes (TTL ones too) not.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';
import { expectError } from '../../helpers/expect-error';

const DB = 'app';

function run(engine: Engine, cmd: Document, db = DB): Document {
  return engine.runCommand(db, cmd);
}

function ids(engine: Engine, coll: string): unknown[] {
  const batch = (run(engine, { find: coll, batchSize: 10000 }).cursor as Document).firstBatch as Document[];
  return batch.map((d) => d._id);
}

function collectionInfo(engine: Engine, name: string): Document {
  const batch = (run(engine, { listCollections: 1, filter: { name } }).cursor as Document).firstBatch as Document[];
  return batch[0];
}

function withDocs(n: number): Engine {
  const engine = new Engine();
  run(engine, { insert: 'src', documents: Array.from({ length: n }, (_, i) => ({ _id: i, pad: 'x'.repeat(40) })) });
  return engine;
}

describe('cloneCollectionAsCapped', () => {
  it('copies every document when they fit, leaving the source as it was', () => {
    const engine = withDocs(100);
    assert.equal(run(engine, { cloneCollectionAsCapped: 'src', toCollection: 'dst', size: 100000 }).ok, 1);
    assert.deepEqual(ids(engine, 'dst'), ids(engine, 'src'));
    assert.equal(ids(engine, 'src').length, 100);
    const options = collectionInfo(engine, 'dst').options as Document;
    assert.equal(options.capped, true);
    assert.equal(options.size, 100000);
  });

  it('keeps the newest documents when they do not fit (the oldest fall out, as inserts into a capped collection)', () => {
    const engine = withDocs(1000);
    run(engine, { cloneCollectionAsCapped: 'src', toCollection: 'dst', size: 1000 });
    const kept = ids(engine, 'dst') as number[];
    assert.ok(kept.length > 0 && kept.length < 1000, `kept ${kept.length}`);
    assert.equal(kept[kept.length - 1], 999);
    assert.deepEqual(
      kept,
      [...kept].sort((a, b) => a - b),
      'natural order kept',
    );
    assert.equal(ids(engine, 'src').length, 1000);
  });

  it('refuses an existing target, a missing source or database, and a view, with mongod’s codes', () => {
    const engine = withDocs(3);
    run(engine, { create: 'taken' });
    expectError(
      () => run(engine, { cloneCollectionAsCapped: 'src', toCollection: 'taken', size: 1024 }),
      48,
      'cloneCollectionAsCapped failed - destination collection app.taken already exists. source collection: app.src',
    );
    expectError(
      () => run(engine, { cloneCollectionAsCapped: 'foo', toCollection: 'bar', size: 1024 }, 'nodb'),
      26,
      'database nodb not found',
    );
    expectError(
      () => run(engine, { cloneCollectionAsCapped: 'foo', toCollection: 'bar', size: 1024 }),
      26,
      'source collection app.foo does not exist',
    );
    run(engine, { create: 'v', viewOn: 'src', pipeline: [] });
    expectError(() => run(engine, { cloneCollectionAsCapped: 'v', toCollection: 'bar', size: 1024 }), 166);
    expectError(() => run(engine, { cloneCollectionAsCapped: 'src', size: 1024 }), 40414);
  });
});

describe('convertToCapped', () => {
  it('makes the collection capped in place, with its documents, options and _id index but not its other indexes', () => {
    const engine = withDocs(10);
    run(engine, {
      collMod: 'src',
      validator: { _id: { $type: 'number' } },
    });
    run(engine, {
      createIndexes: 'src',
      indexes: [{ key: { at: 1 }, name: 'at_1', expireAfterSeconds: 60 }],
    });
    assert.equal(run(engine, { convertToCapped: 'src', size: 1 << 20 }).ok, 1);
    assert.deepEqual(
      ids(engine, 'src'),
      Array.from({ length: 10 }, (_, i) => i),
    );
    const info = collectionInfo(engine, 'src');
    assert.equal((info.options as Document).capped, true);
    assert.deepEqual((info.options as Document).validator, { _id: { $type: 'number' } });
    const indexes = (run(engine, { listIndexes: 'src' }).cursor as Document).firstBatch as Document[];
    assert.deepEqual(
      indexes.map((i) => i.name),
      ['_id_'],
    );
    // No temporary collection is left behind.
    const names = ((run(engine, { listCollections: 1 }).cursor as Document).firstBatch as Document[]).map(
      (c) => c.name,
    );
    assert.deepEqual(names, ['src']);
    assert.equal(run(engine, { collStats: 'src' }).capped, true);
  });

  it('refuses a missing database or collection (26, mongod’s words) and a size out of range (BadValue)', () => {
    const engine = new Engine();
    expectError(() => run(engine, { convertToCapped: 'foo', size: 1024 }), 26, 'database app not found');
    run(engine, { insert: 'coll', documents: [{}] });
    expectError(
      () => run(engine, { convertToCapped: 'foo', size: 1024 }),
      26,
      'source collection app.foo does not exist',
    );
    expectError(() => run(engine, { convertToCapped: 'coll', size: 5.308156746568726e21 }), 2);
    expectError(() => run(engine, { convertToCapped: 'coll', size: 0 }), 2);
    expectError(() => run(engine, { convertToCapped: 'coll' }), 40414);
    assert.equal(
      (collectionInfo(engine, 'coll').options as Document).capped,
      undefined,
      'a refused conversion changes nothing',
    );
  });

  it('is refused by a read-only engine as a write', () => {
    const engine = new Engine({ readOnly: 'held by another process' });
    expectError(() => run(engine, { convertToCapped: 'coll', size: 1024 }), 20);
  });
});
