/**
 * Catalog commands: create, drop, dropDatabase, renameCollection, listDatabases, listCollections,
 * namespace validation and implicit creation. Expectations are mongod 7.0/8.0 behaviour.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Binary, calculateObjectSize, Long } from 'bson';
import { Engine, EngineError, type Document } from '../../../../src/engine';
import { expectError } from '../../helpers/expect-error';

// ---- helpers ----------------------------------------------------------------------------------

function cursorOf(reply: Document): Document {
  return reply.cursor as Document;
}

/** All documents of a cursor reply, following getMore until the cursor is exhausted. */
function drain(engine: Engine, db: string, reply: Document, collection: string): Document[] {
  const cursor = cursorOf(reply);
  const out = [...(cursor.firstBatch as Document[])];
  let id = cursor.id as Long;
  while (!Long.fromValue(id).isZero()) {
    const more = cursorOf(engine.runCommand(db, { getMore: id, collection }));
    out.push(...(more.nextBatch as Document[]));
    id = more.id as Long;
  }
  return out;
}

function listCollections(engine: Engine, db: string, extra: Document = {}): Document[] {
  return drain(engine, db, engine.runCommand(db, { listCollections: 1, ...extra }), '$cmd.listCollections');
}

function collectionInfo(engine: Engine, db: string, name: string): Document | undefined {
  return listCollections(engine, db, { filter: { name } })[0];
}

function listIndexes(engine: Engine, db: string, coll: string): Document[] {
  return drain(engine, db, engine.runCommand(db, { listIndexes: coll }), coll);
}

function findAll(engine: Engine, db: string, coll: string, filter: Document = {}): Document[] {
  return drain(engine, db, engine.runCommand(db, { find: coll, filter }), coll);
}

function databaseNames(engine: Engine): string[] {
  const reply = engine.runCommand('admin', { listDatabases: 1, nameOnly: true });
  return (reply.databases as Document[]).map((d) => d.name as string);
}

// ---- create ------------------------------------------------------------------------------------

describe('create', () => {
  it('creates a plain collection: {ok: 1}, listed with type "collection", empty options, _id index', () => {
    const engine = new Engine();
    const reply = engine.runCommand('app', { create: 'events' });
    assert.deepEqual(reply, { ok: 1 });
    const info = collectionInfo(engine, 'app', 'events');
    assert.ok(info, 'collection is listed');
    assert.equal(info.name, 'events');
    assert.equal(info.type, 'collection');
    assert.deepEqual(info.options, {});
    assert.deepEqual(info.idIndex, { v: 2, key: { _id: 1 }, name: '_id_' });
    const i = info.info as Document;
    assert.equal(i.readOnly, false);
    assert.ok(i.uuid instanceof Binary, 'info.uuid is a BSON Binary');
    assert.equal(i.uuid.sub_type, Binary.SUBTYPE_UUID);
    assert.deepEqual(listIndexes(engine, 'app', 'events'), [{ v: 2, key: { _id: 1 }, name: '_id_' }]);
  });

  it('gives every collection its own uuid', () => {
    const engine = new Engine();
    engine.runCommand('app', { create: 'a' });
    engine.runCommand('app', { create: 'b' });
    const a = (collectionInfo(engine, 'app', 'a')!.info as Document).uuid as Binary;
    const b = (collectionInfo(engine, 'app', 'b')!.info as Document).uuid as Binary;
    assert.notDeepEqual(a.toString('hex'), b.toString('hex'));
  });

  it('is idempotent when the collection already exists with the same options (mongod 7.0+, SERVER-60064)', () => {
    const engine = new Engine();
    engine.runCommand('app', { create: 'events' });
    engine.runCommand('app', { insert: 'events', documents: [{ _id: 1 }] });
    assert.deepEqual(engine.runCommand('app', { create: 'events' }), { ok: 1 });
    assert.equal(findAll(engine, 'app', 'events').length, 1, 'existing data is untouched');
  });

  it('refuses an existing collection with different options: 48 NamespaceExists', () => {
    const engine = new Engine();
    engine.runCommand('app', { create: 'events' });
    expectError(() => engine.runCommand('app', { create: 'events', capped: true, size: 4096 }), 48);
    const info = collectionInfo(engine, 'app', 'events')!;
    assert.deepEqual(info.options, {}, 'the existing collection keeps its options');
  });

  it('refuses an implicitly created collection re-created as capped: 48 NamespaceExists', () => {
    const engine = new Engine();
    engine.runCommand('app', { insert: 'events', documents: [{ a: 1 }] });
    expectError(() => engine.runCommand('app', { create: 'events', capped: true, size: 4096 }), 48);
  });

  it('refuses unknown create options with 40415', () => {
    const engine = new Engine();
    expectError(() => engine.runCommand('app', { create: 'events', bogus: true }), 40415);
    assert.equal(collectionInfo(engine, 'app', 'events'), undefined);
  });

  it('refuses an invalid validator and creates nothing (validators themselves: validation.test.ts)', () => {
    const engine = new Engine();
    expectError(() => engine.runCommand('app', { create: 'events', validator: { $where: 'true' } }), 224);
    expectError(() => engine.runCommand('app', { create: 'events', validationLevel: 'loose' }), 2);
    assert.equal(collectionInfo(engine, 'app', 'events'), undefined);
    assert.deepEqual(databaseNames(engine), []);
  });

  describe('capped', () => {
    it('requires size: 72 InvalidOptions', () => {
      const engine = new Engine();
      expectError(() => engine.runCommand('app', { create: 'log', capped: true }), 72);
      assert.equal(collectionInfo(engine, 'app', 'log'), undefined);
    });

    it('lists capped, size and max in listCollections options (no 256-byte rounding since 6.2)', () => {
      const engine = new Engine();
      engine.runCommand('app', { create: 'log', capped: true, size: 4096, max: 3 });
      const options = collectionInfo(engine, 'app', 'log')!.options as Document;
      assert.equal(options.capped, true);
      assert.equal(Number(options.size), 4096);
      assert.equal(Number(options.max), 3);
    });

    it('keeps a size that is not a multiple of 256 as given (featureFlagCappedCollectionsRelaxedSize, 7.0/8.0)', () => {
      const engine = new Engine();
      engine.runCommand('app', { create: 'log', capped: true, size: 1000 });
      const options = collectionInfo(engine, 'app', 'log')!.options as Document;
      assert.equal(Number(options.size), 1000);
    });

    it('evicts the oldest documents beyond max, keeping insertion order', () => {
      const engine = new Engine();
      engine.runCommand('app', { create: 'log', capped: true, size: 1 << 20, max: 3 });
      for (let i = 1; i <= 5; i++) engine.runCommand('app', { insert: 'log', documents: [{ _id: i }] });
      assert.deepEqual(
        findAll(engine, 'app', 'log').map((d) => d._id),
        [3, 4, 5],
      );
      assert.equal(engine.runCommand('app', { count: 'log' }).n, 3);
    });

    it('evicts the oldest documents beyond max within one multi-document insert', () => {
      const engine = new Engine();
      engine.runCommand('app', { create: 'log', capped: true, size: 1 << 20, max: 2 });
      const reply = engine.runCommand('app', {
        insert: 'log',
        documents: [{ _id: 'a' }, { _id: 'b' }, { _id: 'c' }, { _id: 'd' }],
      });
      assert.equal(reply.n, 4, 'every insert succeeded');
      assert.deepEqual(
        findAll(engine, 'app', 'log').map((d) => d._id),
        ['c', 'd'],
      );
    });

    it('evicts the oldest documents beyond size bytes', () => {
      const engine = new Engine();
      const doc = (i: number) => ({ _id: `d${String(i).padStart(2, '0')}`, pad: 'x'.repeat(200) });
      const docSize = calculateObjectSize(doc(0));
      assert.equal(docSize, 228, 'test precondition: each document is 228 BSON bytes');
      engine.runCommand('app', { create: 'log', capped: true, size: 1000 });
      for (let i = 0; i < 10; i++) engine.runCommand('app', { insert: 'log', documents: [doc(i)] });
      const ids = findAll(engine, 'app', 'log').map((d) => d._id);
      // 4 × 228 = 912 <= 1000 < 5 × 228: the 4 newest documents remain.
      assert.deepEqual(ids, ['d06', 'd07', 'd08', 'd09']);
    });

    it('keeps the index consistent with evicted documents', () => {
      const engine = new Engine();
      engine.runCommand('app', { create: 'log', capped: true, size: 1 << 20, max: 2 });
      engine.runCommand('app', { createIndexes: 'log', indexes: [{ key: { k: 1 }, name: 'k_1' }] });
      for (let i = 1; i <= 4; i++) engine.runCommand('app', { insert: 'log', documents: [{ _id: i, k: i }] });
      const viaIndex = drain(
        engine,
        'app',
        engine.runCommand('app', { find: 'log', filter: { k: { $gte: 0 } }, hint: 'k_1' }),
        'log',
      );
      assert.deepEqual(
        viaIndex.map((d) => d._id),
        [3, 4],
      );
      assert.deepEqual(findAll(engine, 'app', 'log', { k: 1 }), []);
    });
  });

  describe('timeseries', () => {
    it('is listed with type "timeseries" and the normalized options (granularity seconds, bucketMaxSpanSeconds 3600)', () => {
      const engine = new Engine();
      engine.runCommand('app', { create: 'weather', timeseries: { timeField: 't', metaField: 'm' } });
      const info = collectionInfo(engine, 'app', 'weather')!;
      assert.equal(info.type, 'timeseries');
      const ts = (info.options as Document).timeseries as Document;
      assert.equal(ts.timeField, 't');
      assert.equal(ts.metaField, 'm');
      assert.equal(ts.granularity, 'seconds');
      assert.equal(Number(ts.bucketMaxSpanSeconds), 3600);
      assert.equal(ts.bucketRoundingSeconds, undefined, 'no bucketRoundingSeconds when a granularity is used');
      assert.equal(info.idIndex, undefined, 'time-series collections have no idIndex');
    });

    it('derives bucketMaxSpanSeconds from the granularity (minutes 86400, hours 2592000)', () => {
      const engine = new Engine();
      engine.runCommand('app', { create: 'm', timeseries: { timeField: 't', granularity: 'minutes' } });
      engine.runCommand('app', { create: 'h', timeseries: { timeField: 't', granularity: 'hours' } });
      const m = (collectionInfo(engine, 'app', 'm')!.options as Document).timeseries as Document;
      const h = (collectionInfo(engine, 'app', 'h')!.options as Document).timeseries as Document;
      assert.equal(m.granularity, 'minutes');
      assert.equal(Number(m.bucketMaxSpanSeconds), 86400);
      assert.equal(h.granularity, 'hours');
      assert.equal(Number(h.bucketMaxSpanSeconds), 2592000);
    });

    it('lists custom bucketing (bucketMaxSpanSeconds = bucketRoundingSeconds) without a granularity', () => {
      const engine = new Engine();
      engine.runCommand('app', {
        create: 'w',
        timeseries: { timeField: 't', bucketMaxSpanSeconds: 600, bucketRoundingSeconds: 600 },
      });
      const ts = (collectionInfo(engine, 'app', 'w')!.options as Document).timeseries as Document;
      assert.equal(ts.granularity, undefined);
      assert.equal(Number(ts.bucketMaxSpanSeconds), 600);
      assert.equal(Number(ts.bucketRoundingSeconds), 600);
    });

    it('shows the collection-level expireAfterSeconds as a Long in options (rule 5.6 / 6.1)', () => {
      const engine = new Engine();
      engine.runCommand('app', { create: 'weather', timeseries: { timeField: 't' }, expireAfterSeconds: 3600 });
      const options = collectionInfo(engine, 'app', 'weather')!.options as Document;
      assert.ok(options.expireAfterSeconds instanceof Long, 'expireAfterSeconds is a Long');
      assert.equal(options.expireAfterSeconds.toNumber(), 3600);
    });

    it('requires timeField: 40414', () => {
      const engine = new Engine();
      expectError(() => engine.runCommand('app', { create: 'w', timeseries: { metaField: 'm' } }), 40414);
    });

    it('creates the {meta: 1, time: 1} index when a metaField is given, and no _id index', () => {
      const engine = new Engine();
      engine.runCommand('app', { create: 'withMeta', timeseries: { timeField: 't', metaField: 'm' } });
      engine.runCommand('app', { create: 'noMeta', timeseries: { timeField: 't' } });
      assert.deepEqual(listIndexes(engine, 'app', 'withMeta'), [{ v: 2, key: { m: 1, t: 1 }, name: 'm_1_t_1' }]);
      assert.deepEqual(listIndexes(engine, 'app', 'noMeta'), []);
    });

    it('refuses a measurement without a Date in timeField (write error 2 BadValue)', () => {
      const engine = new Engine();
      engine.runCommand('app', { create: 'w', timeseries: { timeField: 't' } });
      const reply = engine.runCommand('app', { insert: 'w', documents: [{ t: 'yesterday' }, { v: 1 }] });
      assert.equal(reply.n, 0);
      const errors = reply.writeErrors as Document[];
      assert.equal(errors.length, 1, 'ordered insert stops at the first error');
      assert.equal(errors[0].index, 0);
      assert.equal(errors[0].code, 2);
      const ok = engine.runCommand('app', { insert: 'w', documents: [{ t: new Date(0), v: 1 }] });
      assert.equal(ok.n, 1);
    });

    it('cannot be capped', () => {
      const engine = new Engine();
      assert.throws(
        () => engine.runCommand('app', { create: 'w', capped: true, size: 4096, timeseries: { timeField: 't' } }),
        EngineError,
      );
      assert.equal(collectionInfo(engine, 'app', 'w'), undefined);
    });
  });

  describe('clusteredIndex', () => {
    it('creates a clustered collection: options.clusteredIndex {v: 2, key: {_id: 1}, name: "_id_", unique: true}, no idIndex', () => {
      const engine = new Engine();
      engine.runCommand('app', { create: 'c', clusteredIndex: { key: { _id: 1 }, unique: true } });
      const info = collectionInfo(engine, 'app', 'c')!;
      const ci = (info.options as Document).clusteredIndex as Document;
      assert.equal(Number(ci.v), 2);
      assert.deepEqual(ci.key, { _id: 1 });
      assert.equal(ci.name, '_id_');
      assert.equal(ci.unique, true);
      assert.equal(info.idIndex, undefined, 'clustered collections have no separate idIndex');
    });

    it('lists the clustered _id index with clustered: true and unique: true', () => {
      const engine = new Engine();
      engine.runCommand('app', { create: 'c', clusteredIndex: { key: { _id: 1 }, unique: true } });
      const [idIndex] = listIndexes(engine, 'app', 'c');
      assert.deepEqual(idIndex.key, { _id: 1 });
      assert.equal(idIndex.name, '_id_');
      assert.equal(idIndex.unique, true);
      assert.equal(idIndex.clustered, true);
    });

    it('returns documents in _id order (the natural order of a clustered collection)', () => {
      const engine = new Engine();
      engine.runCommand('app', { create: 'c', clusteredIndex: { key: { _id: 1 }, unique: true } });
      engine.runCommand('app', { insert: 'c', documents: [{ _id: 3 }, { _id: 1 }, { _id: 2 }] });
      assert.deepEqual(
        findAll(engine, 'app', 'c').map((d) => d._id),
        [1, 2, 3],
      );
    });

    it('requires unique: true: 5979700', () => {
      const engine = new Engine();
      expectError(() => engine.runCommand('app', { create: 'c', clusteredIndex: { key: { _id: 1 } } }), 5979700);
      expectError(
        () => engine.runCommand('app', { create: 'c', clusteredIndex: { key: { _id: 1 }, unique: false } }),
        5979700,
      );
      assert.equal(collectionInfo(engine, 'app', 'c'), undefined);
    });

    it('requires the key {_id: 1}: 197 InvalidIndexSpecificationOption', () => {
      const engine = new Engine();
      expectError(
        () => engine.runCommand('app', { create: 'c', clusteredIndex: { key: { a: 1 }, unique: true } }),
        197,
      );
      expectError(
        () => engine.runCommand('app', { create: 'c', clusteredIndex: { key: { _id: -1 }, unique: true } }),
        197,
      );
      expectError(
        () => engine.runCommand('app', { create: 'c', clusteredIndex: { key: { _id: 1, a: 1 }, unique: true } }),
        197,
      );
      assert.equal(collectionInfo(engine, 'app', 'c'), undefined);
    });

    it('shows a collection-level expireAfterSeconds as a Long (rule 5.6)', () => {
      const engine = new Engine();
      engine.runCommand('app', {
        create: 'c',
        clusteredIndex: { key: { _id: 1 }, unique: true },
        expireAfterSeconds: 60,
      });
      const options = collectionInfo(engine, 'app', 'c')!.options as Document;
      assert.ok(options.expireAfterSeconds instanceof Long);
      assert.equal(options.expireAfterSeconds.toNumber(), 60);
    });
  });

  it('rule 5.2: expireAfterSeconds without clusteredIndex or timeseries → 72 InvalidOptions', () => {
    const engine = new Engine();
    expectError(() => engine.runCommand('app', { create: 'c', expireAfterSeconds: 60 }), 72, /clustering/);
    assert.equal(collectionInfo(engine, 'app', 'c'), undefined);
  });
});

// ---- drop / dropDatabase -------------------------------------------------------------------------

describe('drop', () => {
  it('drops an existing collection: {nIndexesWas, ns, ok: 1}', () => {
    const engine = new Engine();
    engine.runCommand('app', { insert: 'events', documents: [{ a: 1 }] });
    engine.runCommand('app', { createIndexes: 'events', indexes: [{ key: { a: 1 }, name: 'a_1' }] });
    engine.runCommand('app', { insert: 'other', documents: [{}] });
    const reply = engine.runCommand('app', { drop: 'events' });
    assert.equal(reply.ok, 1);
    assert.equal(Number(reply.nIndexesWas), 2);
    assert.equal(reply.ns, 'app.events');
    assert.equal(collectionInfo(engine, 'app', 'events'), undefined);
    assert.deepEqual(findAll(engine, 'app', 'events'), []);
    assert.ok(collectionInfo(engine, 'app', 'other'), 'other collections are untouched');
  });

  it('succeeds on a missing collection (7.0+: no NamespaceNotFound)', () => {
    const engine = new Engine();
    assert.deepEqual(engine.runCommand('app', { drop: 'nothing' }), { ok: 1 });
  });

  it('removes the database once its last collection is dropped', () => {
    const engine = new Engine();
    engine.runCommand('app', { create: 'only' });
    assert.deepEqual(databaseNames(engine), ['app']);
    engine.runCommand('app', { drop: 'only' });
    assert.deepEqual(databaseNames(engine), []);
  });

  it('re-creating a dropped collection starts empty with only the _id index', () => {
    const engine = new Engine();
    engine.runCommand('app', { insert: 'c', documents: [{ a: 1 }] });
    engine.runCommand('app', { createIndexes: 'c', indexes: [{ key: { a: 1 }, name: 'a_1' }] });
    engine.runCommand('app', { drop: 'c' });
    engine.runCommand('app', { insert: 'c', documents: [{ a: 2 }] });
    assert.equal(findAll(engine, 'app', 'c').length, 1);
    assert.deepEqual(
      listIndexes(engine, 'app', 'c').map((i) => i.name),
      ['_id_'],
    );
  });
});

describe('dropDatabase', () => {
  it('drops every collection of the database: {dropped: <db>, ok: 1}', () => {
    const engine = new Engine();
    engine.runCommand('app', { insert: 'a', documents: [{}] });
    engine.runCommand('app', { insert: 'b', documents: [{}] });
    engine.runCommand('keep', { insert: 'c', documents: [{}] });
    const reply = engine.runCommand('app', { dropDatabase: 1 });
    assert.equal(reply.ok, 1);
    assert.equal(reply.dropped, 'app');
    assert.deepEqual(listCollections(engine, 'app'), []);
    assert.deepEqual(databaseNames(engine), ['keep']);
    assert.equal(findAll(engine, 'keep', 'c').length, 1);
  });

  it('succeeds on a database that does not exist, with no dropped field (nothing was dropped)', () => {
    const engine = new Engine();
    assert.deepEqual(engine.runCommand('nothing', { dropDatabase: 1 }), { ok: 1 });
  });
});

// ---- renameCollection ----------------------------------------------------------------------------

describe('renameCollection', () => {
  it('renames within a database, keeping documents and indexes', () => {
    const engine = new Engine();
    engine.runCommand('app', {
      insert: 'old',
      documents: [
        { _id: 1, a: 1 },
        { _id: 2, a: 2 },
      ],
    });
    engine.runCommand('app', { createIndexes: 'old', indexes: [{ key: { a: 1 }, name: 'a_1', unique: true }] });
    assert.deepEqual(engine.runCommand('admin', { renameCollection: 'app.old', to: 'app.new' }), { ok: 1 });
    assert.equal(collectionInfo(engine, 'app', 'old'), undefined);
    assert.deepEqual(
      findAll(engine, 'app', 'new').map((d) => d._id),
      [1, 2],
    );
    assert.deepEqual(
      listIndexes(engine, 'app', 'new').map((i) => i.name),
      ['_id_', 'a_1'],
    );
    // The unique index still works under the new name.
    const dup = engine.runCommand('app', { insert: 'new', documents: [{ _id: 3, a: 1 }] });
    assert.equal((dup.writeErrors as Document[])[0].code, 11000);
    assert.match((dup.writeErrors as Document[])[0].errmsg as string, /collection: app\.new index: a_1/);
  });

  it('renames across databases', () => {
    const engine = new Engine();
    engine.runCommand('src', { insert: 'c', documents: [{ _id: 1 }] });
    engine.runCommand('admin', { renameCollection: 'src.c', to: 'dst.d' });
    assert.deepEqual(
      findAll(engine, 'dst', 'd').map((d) => d._id),
      [1],
    );
    assert.deepEqual(databaseNames(engine), ['dst'], 'the emptied source database disappears');
  });

  it('may only run against admin: 13 Unauthorized', () => {
    const engine = new Engine();
    engine.runCommand('app', { create: 'old' });
    expectError(() => engine.runCommand('app', { renameCollection: 'app.old', to: 'app.new' }), 13);
    assert.ok(collectionInfo(engine, 'app', 'old'));
  });

  it('missing source: 26 NamespaceNotFound', () => {
    const engine = new Engine();
    expectError(() => engine.runCommand('admin', { renameCollection: 'app.none', to: 'app.new' }), 26);
    assert.equal(collectionInfo(engine, 'app', 'new'), undefined);
  });

  it('existing target without dropTarget: 48 NamespaceExists, both collections unchanged', () => {
    const engine = new Engine();
    engine.runCommand('app', { insert: 'a', documents: [{ _id: 'from-a' }] });
    engine.runCommand('app', { insert: 'b', documents: [{ _id: 'from-b' }] });
    expectError(() => engine.runCommand('admin', { renameCollection: 'app.a', to: 'app.b' }), 48);
    assert.deepEqual(
      findAll(engine, 'app', 'a').map((d) => d._id),
      ['from-a'],
    );
    assert.deepEqual(
      findAll(engine, 'app', 'b').map((d) => d._id),
      ['from-b'],
    );
  });

  it('dropTarget: true replaces an existing target', () => {
    const engine = new Engine();
    engine.runCommand('app', { insert: 'a', documents: [{ _id: 'from-a' }] });
    engine.runCommand('app', { insert: 'b', documents: [{ _id: 'from-b' }] });
    engine.runCommand('app', { createIndexes: 'b', indexes: [{ key: { x: 1 }, name: 'x_1' }] });
    assert.equal(engine.runCommand('admin', { renameCollection: 'app.a', to: 'app.b', dropTarget: true }).ok, 1);
    assert.equal(collectionInfo(engine, 'app', 'a'), undefined);
    assert.deepEqual(
      findAll(engine, 'app', 'b').map((d) => d._id),
      ['from-a'],
    );
    assert.deepEqual(
      listIndexes(engine, 'app', 'b').map((i) => i.name),
      ['_id_'],
      "the target's indexes went with it",
    );
  });

  it('renaming to itself is refused (20 IllegalOperation)', () => {
    const engine = new Engine();
    engine.runCommand('app', { create: 'a' });
    expectError(() => engine.runCommand('admin', { renameCollection: 'app.a', to: 'app.a' }), 20);
  });

  it('an invalid target name: 73 InvalidNamespace', () => {
    const engine = new Engine();
    engine.runCommand('app', { create: 'a' });
    expectError(() => engine.runCommand('admin', { renameCollection: 'app.a', to: 'app.b$c' }), 73);
    assert.ok(collectionInfo(engine, 'app', 'a'));
  });
});

// ---- listDatabases / listCollections ----------------------------------------------------------------

describe('listDatabases', () => {
  it('may only run against admin: 13 Unauthorized', () => {
    const engine = new Engine();
    expectError(() => engine.runCommand('app', { listDatabases: 1 }), 13);
  });

  it('lists databases with name, sizeOnDisk (Long), empty, plus totalSize/totalSizeMb (Long)', () => {
    const engine = new Engine();
    engine.runCommand('beta', { insert: 'c', documents: [{ a: 1 }] });
    engine.runCommand('alpha', { insert: 'c', documents: [{ a: 1 }] });
    const reply = engine.runCommand('admin', { listDatabases: 1 });
    assert.equal(reply.ok, 1);
    const dbs = reply.databases as Document[];
    assert.deepEqual(dbs.map((d) => d.name).sort(), ['alpha', 'beta']);
    for (const d of dbs) {
      assert.ok(d.sizeOnDisk instanceof Long, 'sizeOnDisk is a Long');
      assert.equal(typeof d.empty, 'boolean');
    }
    assert.ok(reply.totalSize instanceof Long);
    assert.ok(reply.totalSizeMb instanceof Long);
  });

  it('nameOnly: true returns only names and no totals', () => {
    const engine = new Engine();
    engine.runCommand('app', { create: 'c' });
    const reply = engine.runCommand('admin', { listDatabases: 1, nameOnly: true });
    assert.deepEqual(reply.databases, [{ name: 'app' }]);
    assert.equal(reply.totalSize, undefined);
  });

  it('filter selects databases', () => {
    const engine = new Engine();
    for (const db of ['app1', 'app2', 'other']) engine.runCommand(db, { create: 'c' });
    const reply = engine.runCommand('admin', {
      listDatabases: 1,
      nameOnly: true,
      filter: { name: { $regex: '^app' } },
    });
    assert.deepEqual((reply.databases as Document[]).map((d) => d.name).sort(), ['app1', 'app2']);
    const one = engine.runCommand('admin', { listDatabases: 1, filter: { name: 'other' } });
    assert.deepEqual(
      (one.databases as Document[]).map((d) => d.name),
      ['other'],
    );
  });
});

describe('listCollections', () => {
  it('returns a cursor in namespace "<db>.$cmd.listCollections"', () => {
    const engine = new Engine();
    engine.runCommand('app', { create: 'a' });
    const reply = engine.runCommand('app', { listCollections: 1 });
    const cursor = cursorOf(reply);
    assert.equal(cursor.ns, 'app.$cmd.listCollections');
    assert.ok(Long.fromValue(cursor.id as Long).isZero());
    assert.equal((cursor.firstBatch as Document[]).length, 1);
  });

  it('is empty for a database that does not exist', () => {
    const engine = new Engine();
    assert.deepEqual(listCollections(engine, 'nothing'), []);
  });

  it('filter by name and by type', () => {
    const engine = new Engine();
    engine.runCommand('app', { create: 'plain' });
    engine.runCommand('app', { create: 'series', timeseries: { timeField: 't' } });
    engine.runCommand('app', { create: 'other' });
    assert.deepEqual(
      listCollections(engine, 'app', { filter: { name: 'plain' } }).map((c) => c.name),
      ['plain'],
    );
    assert.deepEqual(
      listCollections(engine, 'app', { filter: { type: 'timeseries' } }).map((c) => c.name),
      ['series'],
    );
    assert.deepEqual(
      listCollections(engine, 'app', { filter: { name: { $in: ['plain', 'other'] } } })
        .map((c) => c.name)
        .sort(),
      ['other', 'plain'],
    );
  });

  it('filter on options (capped collections)', () => {
    const engine = new Engine();
    engine.runCommand('app', { create: 'plain' });
    engine.runCommand('app', { create: 'log', capped: true, size: 4096 });
    assert.deepEqual(
      listCollections(engine, 'app', { filter: { 'options.capped': true } }).map((c) => c.name),
      ['log'],
    );
  });

  it('nameOnly: true returns {name, type} only', () => {
    const engine = new Engine();
    engine.runCommand('app', { create: 'a' });
    engine.runCommand('app', { create: 'ts', timeseries: { timeField: 't' } });
    const docs = listCollections(engine, 'app', { nameOnly: true });
    assert.deepEqual(
      docs.sort((x, y) => String(x.name).localeCompare(String(y.name))),
      [
        { name: 'a', type: 'collection' },
        { name: 'ts', type: 'timeseries' },
      ],
    );
  });

  it('honours cursor.batchSize and continues with getMore', () => {
    const engine = new Engine();
    for (const n of ['a', 'b', 'c', 'd', 'e']) engine.runCommand('app', { create: n });
    const reply = engine.runCommand('app', { listCollections: 1, nameOnly: true, cursor: { batchSize: 2 } });
    const cursor = cursorOf(reply);
    assert.equal((cursor.firstBatch as Document[]).length, 2);
    assert.ok(!Long.fromValue(cursor.id as Long).isZero());
    const all = drain(engine, 'app', reply, '$cmd.listCollections');
    assert.deepEqual(all.map((c) => c.name).sort(), ['a', 'b', 'c', 'd', 'e']);
  });
});

// ---- namespace validation ----------------------------------------------------------------------------

describe('invalid names → 73 InvalidNamespace', () => {
  const badCollections = ['a$b', '$cmd', '', 'system.mine', '.leading', 'nul\0char'];
  for (const name of badCollections) {
    it(`collection name ${JSON.stringify(name)} is refused by create and by insert`, () => {
      const engine = new Engine();
      expectError(() => engine.runCommand('app', { create: name }), 73);
      expectError(() => engine.runCommand('app', { insert: name, documents: [{ a: 1 }] }), 73);
      assert.deepEqual(databaseNames(engine), [], 'nothing was created');
    });
  }

  // mongod's portable set (Linux): / \ . space " $ NUL, empty, 64+ characters.
  const badDatabases = ['a.b', 'a b', 'a/b', 'a\\b', 'a$b', 'a"b', 'a\0b', '', 'x'.repeat(64)];
  for (const name of badDatabases) {
    it(`database name ${JSON.stringify(name.length > 20 ? `${name.slice(0, 8)}…(${name.length} chars)` : name)} is refused`, () => {
      const engine = new Engine();
      expectError(() => engine.runCommand(name, { insert: 'c', documents: [{ a: 1 }] }), 73);
      expectError(() => engine.runCommand(name, { create: 'c' }), 73);
      assert.deepEqual(databaseNames(engine), []);
    });
  }

  it('a 63-character database name is accepted', () => {
    const engine = new Engine();
    const name = 'd'.repeat(63);
    engine.runCommand(name, { create: 'c' });
    assert.deepEqual(databaseNames(engine), [name]);
  });

  it('dotted collection names are allowed ("a.b")', () => {
    const engine = new Engine();
    assert.equal(engine.runCommand('app', { create: 'a.b' }).ok, 1);
    assert.ok(collectionInfo(engine, 'app', 'a.b'));
  });

  it('a fully qualified namespace longer than 255 bytes is refused', () => {
    const engine = new Engine();
    expectError(() => engine.runCommand('app', { create: 'c'.repeat(260) }), 73);
  });

  it('a non-string collection name in create is refused', () => {
    const engine = new Engine();
    assert.throws(() => engine.runCommand('app', { create: 42 }), EngineError);
  });
});

// ---- implicit creation ----------------------------------------------------------------------------

describe('implicit creation', () => {
  it('insert creates the database and the collection (with its _id index)', () => {
    const engine = new Engine();
    assert.deepEqual(databaseNames(engine), []);
    const reply = engine.runCommand('fresh', { insert: 'things', documents: [{ a: 1 }] });
    assert.equal(reply.n, 1);
    assert.deepEqual(databaseNames(engine), ['fresh']);
    const info = collectionInfo(engine, 'fresh', 'things')!;
    assert.equal(info.type, 'collection');
    assert.deepEqual(info.options, {});
    assert.deepEqual(listIndexes(engine, 'fresh', 'things'), [{ v: 2, key: { _id: 1 }, name: '_id_' }]);
  });

  it('reads (find, count, distinct, aggregate) do not create anything', () => {
    const engine = new Engine();
    engine.runCommand('ghost', { find: 'c', filter: {} });
    engine.runCommand('ghost', { count: 'c' });
    engine.runCommand('ghost', { distinct: 'c', key: 'a' });
    engine.runCommand('ghost', { aggregate: 'c', pipeline: [], cursor: {} });
    assert.deepEqual(databaseNames(engine), []);
  });

  it('update without upsert and delete do not create the collection', () => {
    const engine = new Engine();
    engine.runCommand('ghost', { update: 'c', updates: [{ q: {}, u: { $set: { a: 1 } } }] });
    engine.runCommand('ghost', { delete: 'c', deletes: [{ q: {}, limit: 0 }] });
    assert.deepEqual(databaseNames(engine), []);
  });

  it('an upsert creates the collection', () => {
    const engine = new Engine();
    engine.runCommand('app', { update: 'c', updates: [{ q: { _id: 1 }, u: { $set: { a: 1 } }, upsert: true }] });
    assert.ok(collectionInfo(engine, 'app', 'c'));
  });
});

describe('collStats scale', () => {
  it('reports sizes in units of scale bytes, rounded down, maxSize of a capped collection too; avgObjSize stays in bytes', () => {
    const engine = new Engine();
    engine.runCommand('app', { create: 'c', capped: true, size: 64 * 1024, max: 10 });
    engine.runCommand('app', { insert: 'c', documents: [{ pad: 'x'.repeat(3000) }] });
    const whole = engine.runCommand('app', { collStats: 'c' });
    const kb = engine.runCommand('app', { collStats: 'c', scale: 1000 });
    assert.equal(whole.maxSize, 65536);
    assert.equal(kb.maxSize, 65);
    assert.equal(kb.size, Math.floor((whole.size as number) / 1000));
    assert.equal(kb.totalIndexSize, Math.floor((whole.totalIndexSize as number) / 1000));
    assert.equal(kb.avgObjSize, whole.avgObjSize);
    assert.equal(kb.scaleFactor, 1000);
    expectError(() => engine.runCommand('app', { collStats: 'c', scale: 0 }), 51024);
    expectError(() => engine.runCommand('app', { collStats: 'c', scale: 'kb' }), 14);
  });

  it('a missing collection has zeroed statistics, not an error', () => {
    const engine = new Engine();
    const stats = engine.runCommand('app', { collStats: 'none' });
    assert.equal(stats.ok, 1);
    assert.equal(stats.count, 0);
    assert.equal(stats.size, 0);
    assert.deepEqual(stats.indexSizes, {});
  });
});

describe('create: storageEngine and indexOptionDefaults', () => {
  const name = 'ttl-workbench-memory';
  function listedOptions(engine: Engine, coll: string): Document {
    const reply = engine.runCommand('db', { listCollections: 1, filter: { name: coll } });
    return ((reply.cursor as Document).firstBatch as Document[])[0].options as Document;
  }

  it('takes settings keyed by the registered storage engine and lists them as given', () => {
    const engine = new Engine();
    engine.runCommand('db', { create: 'a', storageEngine: { [name]: {} } });
    engine.runCommand('db', { create: 'b', indexOptionDefaults: { storageEngine: { [name]: {} } } });
    engine.runCommand('db', { create: 'c', storageEngine: {}, indexOptionDefaults: {} });
    assert.deepEqual(listedOptions(engine, 'a'), { storageEngine: { [name]: {} } });
    assert.deepEqual(listedOptions(engine, 'b'), { indexOptionDefaults: { storageEngine: { [name]: {} } } });
    assert.deepEqual(listedOptions(engine, 'c'), { storageEngine: {}, indexOptionDefaults: {} });
  });

  it('refuses a non-document (14), an unknown engine (72), settings that are not a document (2), unknown index defaults (40415)', () => {
    const engine = new Engine();
    expectError(() => engine.runCommand('db', { create: 'x', storageEngine: 'not a document' }), 14);
    expectError(() => engine.runCommand('db', { create: 'x', storageEngine: { unknownStorageEngine: {} } }), 72);
    expectError(() => engine.runCommand('db', { create: 'x', storageEngine: { [name]: 12345 } }), 2);
    expectError(() => engine.runCommand('db', { create: 'x', indexOptionDefaults: 'not a document' }), 14);
    expectError(() => engine.runCommand('db', { create: 'x', indexOptionDefaults: { unknownOption: true } }), 40415);
    expectError(
      () =>
        engine.runCommand('db', { create: 'x', indexOptionDefaults: { storageEngine: { unknownStorageEngine: {} } } }),
      72,
    );
    assert.deepEqual(engine.runCommand('db', { listCollections: 1 }).cursor, {
      ...(engine.runCommand('db', { listCollections: 1 }).cursor as Document),
      firstBatch: [],
    });
  });
});
