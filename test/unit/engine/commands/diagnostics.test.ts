/**
 * Diagnostic commands: currentOp (the $currentOp aggregation it stands for), dbHash (MD5s of the
 * documents' BSON in `_id` order), hostInfo (mongod's reply shape).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Binary, calculateObjectSize, serialize } from 'bson';
import { Engine, type Document } from '../../../../src/engine';
import { VirtualClock } from '../../../../src/engine/clock';
import { expectError } from '../../helpers/expect-error';

function fresh(): Engine {
  return new Engine({ clock: new VirtualClock(new Date(0)) });
}

describe('currentOp command', () => {
  it('lists the operations in progress, itself included, as one inprog array', () => {
    const engine = fresh();
    const reply = engine.runCommand('admin', { currentOp: 1 });
    const inprog = reply.inprog as Document[];
    assert.ok(inprog.some((op) => (op.command as Document | undefined)?.currentOp === 1));
    assert.equal(reply.ok, 1);
  });

  it('filters by the fields past the first, leaving out its own options and generic arguments', () => {
    const engine = fresh();
    const matching = engine.runCommand('admin', { currentOp: 1, $all: true, command: { $exists: true }, comment: 'x' });
    assert.ok((matching.inprog as Document[]).length > 0);
    const none = engine.runCommand('admin', { currentOp: 1, dummyCurOpField: { exists: true } });
    assert.deepEqual(none.inprog, []);
  });

  it('runs only against the admin database (Unauthorized, 13)', () => {
    expectError(() => fresh().runCommand('test', { currentOp: 1 }), 13, /admin database/);
  });
});

describe('dbHash command', () => {
  it('hashes each collection as the MD5 of its documents in _id order, whatever the insertion order', () => {
    const engine = fresh();
    engine.runCommand('a', {
      insert: 'c',
      documents: [
        { _id: 2, x: 'b' },
        { _id: 1, x: 'a' },
      ],
    });
    engine.runCommand('b', {
      insert: 'c',
      documents: [
        { _id: 1, x: 'a' },
        { _id: 2, x: 'b' },
      ],
    });
    const a = engine.runCommand('a', { dbHash: 1 });
    const b = engine.runCommand('b', { dbhash: 1 });
    const expected = createHash('md5')
      .update(serialize({ _id: 1, x: 'a' }))
      .update(serialize({ _id: 2, x: 'b' }))
      .digest('hex');
    assert.equal((a.collections as Document).c, expected);
    assert.equal(a.md5, b.md5);
    assert.equal(a.md5, createHash('md5').update(expected).digest('hex'));
  });

  it('changes when a document changes, and lists only the collections asked for', () => {
    const engine = fresh();
    engine.runCommand('a', { insert: 'c', documents: [{ _id: 1 }] });
    engine.runCommand('a', { insert: 'd', documents: [{ _id: 1 }] });
    const before = engine.runCommand('a', { dbHash: 1 });
    engine.runCommand('a', { update: 'c', updates: [{ q: { _id: 1 }, u: { $set: { y: 1 } } }] });
    const after = engine.runCommand('a', { dbHash: 1, collections: ['c'] });
    assert.notEqual((after.collections as Document).c, (before.collections as Document).c);
    assert.deepEqual(Object.keys(after.collections as Document), ['c']);
    expectError(() => engine.runCommand('a', { dbHash: 1, collections: [1] }), 2, /have to be strings/);
  });

  it('an empty database answers the MD5 of nothing; a string in the first field is an invalid namespace', () => {
    const engine = fresh();
    const reply = engine.runCommand('empty', { dbHash: 1 });
    assert.deepEqual(reply.collections, {});
    assert.equal(reply.md5, createHash('md5').digest('hex'));
    expectError(() => engine.runCommand('test', { dbhash: '' }), 73);
  });
});

describe('hostInfo command', () => {
  it('answers system, os and extra as mongod shapes them', () => {
    const reply = fresh().runCommand('admin', { hostInfo: 1 });
    const system = reply.system as Document;
    const os = reply.os as Document;
    assert.ok(['Linux', 'Darwin', 'Windows', 'BSD'].includes(os.type as string) || typeof os.type === 'string');
    assert.ok(typeof system.hostname === 'string' && system.hostname !== '');
    assert.ok(system.currentTime instanceof Date);
    assert.ok([32, 64].includes(Number(system.cpuAddrSize)));
    assert.ok(Number(system.numCores) > 0);
    assert.ok(Number(system.memSizeMB) > 0);
    assert.equal(typeof system.numaEnabled, 'boolean');
    assert.ok(typeof reply.extra === 'object');
  });
});

describe('dataSize command', () => {
  function withDocs(): Engine {
    const engine = fresh();
    const documents = Array.from({ length: 20 }, (_, i) => ({ _id: i, s: 'x'.repeat(i) }));
    engine.runCommand('test', { insert: 'c', documents });
    return engine;
  }
  const size = (docs: Document[]) => docs.reduce((n, d) => n + calculateObjectSize(d), 0);

  it('measures the whole namespace from any database', () => {
    const engine = withDocs();
    const all = Array.from({ length: 20 }, (_, i) => ({ _id: i, s: 'x'.repeat(i) }));
    const reply = engine.runCommand('admin', { dataSize: 'test.c' });
    assert.equal(reply.numObjects, 20);
    assert.equal(reply.size, size(all));
  });

  it('measures the documents whose key is in [min, max) of an index with that key pattern', () => {
    const engine = withDocs();
    const reply = engine.runCommand('test', {
      dataSize: 'test.c',
      keyPattern: { _id: 1 },
      min: { _id: 5 },
      max: { _id: 8 },
    });
    assert.equal(reply.numObjects, 3);
    assert.equal(reply.size, size([5, 6, 7].map((i) => ({ _id: i, s: 'x'.repeat(i) }))));
  });

  it('stops past maxObjects, counting the document that passed it', () => {
    const engine = withDocs();
    const reply = engine.runCommand('test', {
      datasize: 'test.c',
      keyPattern: { _id: 1 },
      min: { _id: 0 },
      max: { _id: 20 },
      maxObjects: 4,
    });
    assert.equal(reply.numObjects, 5);
    assert.equal(reply.maxReached, true);
  });

  it('answers zeros for a missing collection; needs an index for the key pattern; needs a full namespace', () => {
    const engine = withDocs();
    const missing = engine.runCommand('test', { dataSize: 'test.nothing' });
    assert.equal(missing.numObjects, 0);
    assert.equal(missing.size, 0);
    expectError(() => engine.runCommand('test', { dataSize: 'test.c', keyPattern: { s: 1 }, min: { s: '' } }), 27);
    expectError(() => engine.runCommand('test', { dataSize: 'c' }), 73);
  });
});

describe('serverStatus and dbStats fields', () => {
  it('serverStatus names its storage engine (persistent only with durable storage) and estimates uptime in seconds', () => {
    const clock = new VirtualClock(new Date(0));
    const engine = new Engine({ clock });
    clock.advance(5500);
    const status = engine.runCommand('admin', { serverStatus: 1 });
    const storage = status.storageEngine as Document;
    assert.equal(storage.name, (engine.runCommand('admin', { buildInfo: 1 }).storageEngines as string[])[0]);
    assert.equal(storage.persistent, false);
    assert.equal(Number(status.uptimeEstimate), 5);
  });

  it('dbStats reports storage, index and total sizes in units of scale', () => {
    const engine = fresh();
    engine.runCommand('test', { insert: 'c', documents: [{ _id: 1, s: 'x'.repeat(2000) }] });
    const bytes = engine.runCommand('test', { dbStats: 1 });
    const kb = engine.runCommand('test', { dbStats: 1, scale: 1024 });
    assert.equal(bytes.dataSize, calculateObjectSize({ _id: 1, s: 'x'.repeat(2000) }));
    assert.equal(kb.dataSize, Math.floor(bytes.dataSize / 1024));
    assert.equal(bytes.totalSize, (bytes.storageSize as number) + (bytes.indexSize as number));
    assert.equal(kb.scaleFactor, 1024);
  });
});

describe('unacknowledged writes (w: 0)', () => {
  it('insert, update and delete answer {ok: 1} alone, yet write', () => {
    const engine = fresh();
    const w0 = { writeConcern: { w: 0 } };
    assert.deepEqual(engine.runCommand('test', { insert: 'c', documents: [{ _id: 1 }], ...w0 }), { ok: 1 });
    assert.deepEqual(
      engine.runCommand('test', { update: 'c', updates: [{ q: { _id: 1 }, u: { $set: { a: 1 } } }], ...w0 }),
      { ok: 1 },
    );
    assert.equal(engine.runCommand('test', { count: 'c', query: { a: 1 } }).n, 1);
    assert.deepEqual(engine.runCommand('test', { delete: 'c', deletes: [{ q: {}, limit: 0 }], ...w0 }), { ok: 1 });
    assert.equal(engine.runCommand('test', { count: 'c' }).n, 0);
  });

  it('errors are not reported either, while w: 1 or j: true still reports them', () => {
    const engine = fresh();
    engine.runCommand('test', { insert: 'c', documents: [{ _id: 1 }] });
    const dup = { insert: 'c', documents: [{ _id: 1 }] };
    assert.deepEqual(engine.runCommand('test', { ...dup, writeConcern: { w: 0 } }), { ok: 1 });
    assert.deepEqual(
      engine.runCommand('test', { delete: 'c', deletes: [{ q: {}, limit: 2 }], writeConcern: { w: 0 } }),
      { ok: 1 },
    );
    const acknowledged = engine.runCommand('test', { ...dup, writeConcern: { w: 0, j: true } });
    assert.equal((acknowledged.writeErrors as Document[])[0].code, 11000);
  });
});

describe('getMore', () => {
  it('refuses maxTimeMS for a cursor that awaits no data (BadValue), as mongod does', () => {
    const engine = fresh();
    engine.runCommand('test', { insert: 'c', documents: [{ _id: 1 }, { _id: 2 }, { _id: 3 }] });
    const id = (engine.runCommand('test', { find: 'c', batchSize: 1 }).cursor as Document).id;
    expectError(() => engine.runCommand('test', { getMore: id, collection: 'c', maxTimeMS: 60000 }), 2, /awaitData/);
    const more = engine.runCommand('test', { getMore: id, collection: 'c' });
    assert.equal(((more.cursor as Document).nextBatch as Document[]).length, 2);
  });
});

describe('filemd5 command', () => {
  function withChunks(): Engine {
    const engine = fresh();
    engine.runCommand('test', {
      insert: 'fs.chunks',
      documents: [
        { files_id: 1, n: 1, data: new Binary(Buffer.from('world')) },
        { files_id: 1, n: 0, data: new Binary(Buffer.from('hello ')) },
        { files_id: 2, n: 1, data: new Binary(Buffer.from('late')) },
      ],
    });
    return engine;
  }

  it('needs the {files_id: 1, n: 1} index (BadValue), then hashes the chunks in n order', () => {
    const engine = withChunks();
    expectError(() => engine.runCommand('test', { filemd5: 1, root: 'fs' }), 2, /files_id: 1, n: 1/);
    engine.runCommand('test', { createIndexes: 'fs.chunks', indexes: [{ key: { files_id: 1, n: 1 }, name: 'fn' }] });
    const reply = engine.runCommand('test', { filemd5: 1 });
    assert.equal(reply.numChunks, 2);
    assert.equal(reply.md5, createHash('md5').update('hello world').digest('hex'));
  });

  it('a gap fails unless partialOk; a chunk without data is 50848, with non-BinData data 50849; md5state must be BinData (50847)', () => {
    const engine = withChunks();
    engine.runCommand('test', { createIndexes: 'fs.chunks', indexes: [{ key: { files_id: 1, n: 1 }, name: 'fn' }] });
    expectError(() => engine.runCommand('test', { filemd5: 2 }), 2, /out of order/);
    assert.equal(engine.runCommand('test', { filemd5: 2, partialOk: true }).numChunks, 0);
    expectError(() => engine.runCommand('test', { filemd5: 1, partialOk: 1, md5state: 5 }), 50847);
    engine.runCommand('test', { insert: 'fs.chunks', documents: [{ files_id: 3, n: 0 }] });
    expectError(() => engine.runCommand('test', { filemd5: 3 }), 50848);
    engine.runCommand('test', { update: 'fs.chunks', updates: [{ q: { files_id: 3 }, u: { $set: { data: 5 } } }] });
    expectError(() => engine.runCommand('test', { filemd5: 3 }), 50849);
  });
});

describe('filemd5 without a chunks collection', () => {
  it('answers an empty file (no chunks, the MD5 of nothing)', () => {
    const reply = fresh().runCommand('test', { filemd5: 1, root: 'none' });
    assert.equal(reply.numChunks, 0);
    assert.equal(reply.md5, createHash('md5').digest('hex'));
  });
});
