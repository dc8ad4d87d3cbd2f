/**
 * Read-only views: create/createView, reads through the view's pipeline (find, aggregate, count,
 * distinct), views on views, collMod, listCollections, drop, storage, and mongod's refusals
 * (166 CommandNotSupportedOnView, GraphContainsCycle, ViewDepthLimitExceeded, $out in a view).
 * Cycle and depth cases follow mongod's jstests/core/views/views_validation.js.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine, VirtualClock, type Document } from '../../../../src/engine';
import { closeStoredEngine, openStoredEngine } from '../../../../src/storage/engine-store';
import { expectError } from '../../helpers/expect-error';
import { harness, plain } from '../../shell/helpers';

const T0 = Date.UTC(2026, 0, 1);

function firstBatch(reply: Document): Document[] {
  return (reply.cursor as Document).firstBatch as Document[];
}

function setUp(): Engine {
  const engine = new Engine({ clock: new VirtualClock(T0) });
  engine.runCommand('db', {
    insert: 'orders',
    documents: [
      { _id: 1, item: 'a', qty: 5, status: 'open', tags: ['x'] },
      { _id: 2, item: 'b', qty: 15, status: 'open', tags: ['y', 'x'] },
      { _id: 3, item: 'c', qty: 25, status: 'closed' },
      { _id: 4, item: 'd', qty: 35, status: 'open' },
    ],
  });
  engine.runCommand('db', {
    create: 'open',
    viewOn: 'orders',
    pipeline: [{ $match: { status: 'open' } }, { $project: { status: 0 } }],
  });
  return engine;
}

const ids = (docs: Document[]) => docs.map((d) => d._id);

describe('views: reads run the view pipeline first', () => {
  it("find translates filter, sort, skip, limit and projection after the view's pipeline", () => {
    const engine = setUp();
    assert.deepEqual(ids(firstBatch(engine.runCommand('db', { find: 'open' }))), [1, 2, 4]);
    const r = engine.runCommand('db', {
      find: 'open',
      filter: { qty: { $gt: 1 } },
      sort: { qty: -1 },
      skip: 1,
      limit: 1,
      projection: { item: 1, _id: 0 },
    });
    assert.deepEqual(firstBatch(r), [{ item: 'b' }]);
    assert.equal((r.cursor as Document).ns, 'db.open');
    // The view's $project removed status: filtering on it finds nothing.
    assert.deepEqual(firstBatch(engine.runCommand('db', { find: 'open', filter: { status: 'open' } })), []);
    engine.close();
  });

  it('aggregate, count and distinct on a view', () => {
    const engine = setUp();
    const agg = engine.runCommand('db', {
      aggregate: 'open',
      pipeline: [{ $group: { _id: null, total: { $sum: '$qty' } } }],
      cursor: {},
    });
    assert.deepEqual(firstBatch(agg), [{ _id: null, total: 55 }]);
    assert.equal(engine.runCommand('db', { count: 'open' }).n, 3);
    assert.equal(engine.runCommand('db', { count: 'open', query: { qty: { $gte: 15 } } }).n, 2);
    assert.equal(engine.runCommand('db', { count: 'open', skip: 1, limit: 1 }).n, 1);
    assert.deepEqual(engine.runCommand('db', { distinct: 'open', key: 'tags' }).values, ['x', 'y']);
    assert.deepEqual(engine.runCommand('db', { distinct: 'open', key: 'item', query: { qty: 5 } }).values, ['a']);
    engine.close();
  });

  it('a view on a view runs both pipelines, the lower one first; $lookup can read a view', () => {
    const engine = setUp();
    engine.runCommand('db', { create: 'bigOpen', viewOn: 'open', pipeline: [{ $match: { qty: { $gt: 10 } } }] });
    assert.deepEqual(ids(firstBatch(engine.runCommand('db', { find: 'bigOpen' }))), [2, 4]);
    engine.runCommand('db', { insert: 'items', documents: [{ _id: 'b' }] });
    const joined = engine.runCommand('db', {
      aggregate: 'items',
      pipeline: [{ $lookup: { from: 'bigOpen', localField: '_id', foreignField: 'item', as: 'orders' } }],
      cursor: {},
    });
    assert.deepEqual(ids(firstBatch(joined)[0].orders as Document[]), [2]);
    engine.close();
  });

  it('a view on a collection that does not exist yet reads nothing, then sees it once created', () => {
    const engine = new Engine();
    engine.runCommand('db', { create: 'v', viewOn: 'later' });
    assert.deepEqual(firstBatch(engine.runCommand('db', { find: 'v' })), []);
    engine.runCommand('db', { insert: 'later', documents: [{ _id: 1 }] });
    assert.deepEqual(firstBatch(engine.runCommand('db', { find: 'v' })), [{ _id: 1 }]);
    engine.close();
  });
});

describe('views: the catalog', () => {
  it('listCollections shows type "view", options {viewOn, pipeline} and info {readOnly: true}', () => {
    const engine = setUp();
    const listed = firstBatch(engine.runCommand('db', { listCollections: 1, filter: { type: 'view' } }));
    assert.deepEqual(listed, [
      {
        name: 'open',
        type: 'view',
        options: { viewOn: 'orders', pipeline: [{ $match: { status: 'open' } }, { $project: { status: 0 } }] },
        info: { readOnly: true },
      },
    ]);
    const stats = engine.runCommand('db', { dbStats: 1 });
    assert.equal(stats.views, 1);
    // orders and system.views, which holds the view's definition.
    assert.equal(stats.collections, 2);
    engine.close();
  });

  it('create again with the same definition is a no-op, with another one NamespaceExists', () => {
    const engine = setUp();
    const def = { viewOn: 'orders', pipeline: [{ $match: { status: 'open' } }, { $project: { status: 0 } }] };
    assert.equal(engine.runCommand('db', { create: 'open', ...def }).ok, 1);
    expectError(() => engine.runCommand('db', { create: 'open', viewOn: 'orders' }), 48);
    expectError(() => engine.runCommand('db', { create: 'open' }), 48);
    engine.close();
  });

  it('drop removes the view (reply {ns, ok}) and leaves its collection', () => {
    const engine = setUp();
    assert.deepEqual(engine.runCommand('db', { drop: 'open' }), { ns: 'db.open', ok: 1 });
    assert.equal(engine.getCollection('db', 'open'), undefined);
    assert.equal(engine.runCommand('db', { count: 'orders' }).n, 4);
    engine.close();
  });

  it('collMod changes viewOn and pipeline, either alone (the other kept, as mongod without auth); other options are refused', () => {
    const engine = setUp();
    engine.runCommand('db', { collMod: 'open', viewOn: 'orders', pipeline: [{ $match: { status: 'closed' } }] });
    assert.deepEqual(ids(firstBatch(engine.runCommand('db', { find: 'open' }))), [3]);
    engine.runCommand('db', { collMod: 'open', viewOn: 'nonexistent' });
    assert.deepEqual(ids(firstBatch(engine.runCommand('db', { find: 'open' }))), []);
    engine.runCommand('db', { collMod: 'open', viewOn: 'orders' });
    assert.deepEqual(ids(firstBatch(engine.runCommand('db', { find: 'open' }))), [3], 'the pipeline was kept');
    engine.runCommand('db', { collMod: 'open', pipeline: [] });
    assert.equal(firstBatch(engine.runCommand('db', { find: 'open' })).length, 4, 'viewOn was kept');
    expectError(() => engine.runCommand('db', { collMod: 'open' }), 72, /'viewOn', 'pipeline' or both/);
    expectError(() => engine.runCommand('db', { collMod: 'open', viewOn: 'orders', pipeline: {} }), 72);
    expectError(() => engine.runCommand('db', { collMod: 'open', validator: { a: 1 } }), 72, /not supported on a view/);
    expectError(
      () => engine.runCommand('db', { collMod: 'orders', viewOn: 'x', pipeline: [] }),
      72,
      /only supported on a view/,
    );
    engine.close();
  });

  it('views survive a restart of a stored engine, and so does a collMod of one', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-views-'));
    const open = () => openStoredEngine(dir, { engine: { clock: new VirtualClock(T0) } });
    let o = open();
    o.engine.runCommand('db', {
      insert: 'orders',
      documents: [
        { _id: 1, qty: 5 },
        { _id: 2, qty: 50 },
      ],
    });
    o.engine.runCommand('db', { create: 'small', viewOn: 'orders', pipeline: [{ $match: { qty: { $lt: 10 } } }] });
    o.engine.runCommand('db', { create: 'big', viewOn: 'orders', pipeline: [] });
    o.engine.runCommand('db', { collMod: 'big', viewOn: 'orders', pipeline: [{ $match: { qty: { $gt: 10 } } }] });
    closeStoredEngine(o);
    o = open();
    assert.deepEqual(ids(firstBatch(o.engine.runCommand('db', { find: 'small' }))), [1]);
    assert.deepEqual(ids(firstBatch(o.engine.runCommand('db', { find: 'big' }))), [2]);
    assert.equal(o.engine.getCollection('db', 'small')?.indexes.size, 0, 'a restored view has no _id index');
    expectError(() => o.engine.runCommand('db', { insert: 'small', documents: [{ _id: 3 }] }), 166);
    closeStoredEngine(o);
  });
});

describe('views: refusals', () => {
  it('writes to a view: 166 CommandNotSupportedOnView for insert, update, delete, findAndModify and bulkWrite', () => {
    const engine = setUp();
    const writes: Document[] = [
      { insert: 'open', documents: [{ _id: 9 }] },
      { update: 'open', updates: [{ q: {}, u: { $set: { a: 1 } } }] },
      { delete: 'open', deletes: [{ q: {}, limit: 0 }] },
      { findAndModify: 'open', query: {}, remove: true },
    ];
    for (const cmd of writes)
      expectError(
        () => engine.runCommand('db', cmd),
        166,
        /Namespace db\.open is a view, not a collection/,
        'CommandNotSupportedOnView',
      );
    const bw = engine.runCommand('admin', {
      bulkWrite: 1,
      ops: [{ insert: 0, document: { _id: 9 } }],
      nsInfo: [{ ns: 'db.open' }],
    });
    assert.equal(((bw.cursor as Document).firstBatch as Document[])[0].code, 166);
    assert.equal(engine.runCommand('db', { count: 'orders' }).n, 4, 'nothing was written');
    engine.close();
  });

  it('indexes on a view, collStats, validate and renameCollection: 166', () => {
    const engine = setUp();
    expectError(
      () => engine.runCommand('db', { createIndexes: 'open', indexes: [{ key: { a: 1 }, name: 'a_1' }] }),
      166,
    );
    expectError(() => engine.runCommand('db', { listIndexes: 'open' }), 166);
    expectError(() => engine.runCommand('db', { dropIndexes: 'open', index: '*' }), 166);
    expectError(() => engine.runCommand('db', { collStats: 'open' }), 166);
    expectError(() => engine.runCommand('db', { validate: 'open' }), 166, 'Cannot validate a view');
    expectError(() => engine.runCommand('admin', { renameCollection: 'db.open', to: 'db.open2' }), 166);
    engine.close();
  });

  it('$out and $merge into a view: 166; $out or $merge inside a view definition: 167, 51047, 40600', () => {
    const engine = setUp();
    expectError(() => engine.runCommand('db', { aggregate: 'orders', pipeline: [{ $out: 'open' }], cursor: {} }), 166);
    expectError(
      () => engine.runCommand('db', { aggregate: 'orders', pipeline: [{ $merge: { into: 'open' } }], cursor: {} }),
      166,
    );
    expectError(() => engine.runCommand('db', { create: 'w', viewOn: 'orders', pipeline: [{ $out: 'x' }] }), 167);
    expectError(
      () =>
        engine.runCommand('db', {
          create: 'w',
          viewOn: 'orders',
          pipeline: [{ $lookup: { from: 'o', pipeline: [{ $out: 'x' }], as: 'r' } }],
        }),
      51047,
    );
    expectError(
      () => engine.runCommand('db', { create: 'w', viewOn: 'orders', pipeline: [{ $facet: { f: [{ $out: 'x' }] } }] }),
      40600,
    );
    assert.equal(engine.getCollection('db', 'w'), undefined);
    engine.close();
  });

  it('bad definitions: viewOn not a string (14) or empty (2), pipeline without viewOn (2), other options (72), bad stage', () => {
    const engine = new Engine();
    expectError(() => engine.runCommand('db', { create: 'v', viewOn: 1 }), 14);
    expectError(() => engine.runCommand('db', { create: 'v', viewOn: '' }), 2);
    expectError(() => engine.runCommand('db', { create: 'v', pipeline: [] }), 2);
    expectError(() => engine.runCommand('db', { create: 'v', viewOn: 'c', capped: true, size: 10 }), 72);
    expectError(() => engine.runCommand('db', { create: 'v', viewOn: 'c', pipeline: [{ $bogus: 1 }] }), 40324);
    expectError(() => engine.runCommand('db', { create: 'system.v', viewOn: 'c' }), 73);
    engine.close();
  });
});

describe('views: cycles and the depth limit (mongod views_validation.js)', () => {
  it('a view on itself, or reading itself through $lookup, $graphLookup or $facet: GraphContainsCycle', () => {
    const engine = new Engine();
    expectError(
      () => engine.runCommand('db', { create: 'a', viewOn: 'a' }),
      5,
      /View cycle detected/,
      'GraphContainsCycle',
    );
    const lookup = (from: string) => ({ $lookup: { from, localField: 'x', foreignField: 'y', as: 'r' } });
    expectError(() => engine.runCommand('db', { create: 'a', viewOn: 'b', pipeline: [lookup('a')] }), 5);
    engine.runCommand('db', { create: 'a', viewOn: 'b' });
    expectError(() => engine.runCommand('db', { create: 'b', viewOn: 'a' }), 5);
    expectError(() => engine.runCommand('db', { create: 'b', viewOn: 'c', pipeline: [lookup('a')] }), 5);
    const graph = {
      $graphLookup: { from: 'a', startWith: '$x', connectFromField: 'x', connectToField: 'y', as: 'r' },
    };
    expectError(() => engine.runCommand('db', { create: 'b', viewOn: 'c', pipeline: [graph] }), 5);
    expectError(
      () => engine.runCommand('db', { create: 'b', viewOn: 'c', pipeline: [{ $facet: { f: [lookup('a')] } }] }),
      5,
    );
    engine.runCommand('db', { create: 'b', viewOn: 'c' });
    expectError(() => engine.runCommand('db', { create: 'c', viewOn: 'a' }), 5, /db\.c => db\.a => db\.b => db\.c/);
    // collMod checks the new definition the same way.
    expectError(() => engine.runCommand('db', { collMod: 'b', viewOn: 'a', pipeline: [] }), 5);
    engine.close();
  });

  it('a chain of 20 views is allowed; a 21st above or below it is ViewDepthLimitExceeded; one in the middle is fine', () => {
    const engine = new Engine();
    for (let i = 1; i <= 20; i++) engine.runCommand('db', { create: `v${i}`, viewOn: `v${i + 1}` });
    expectError(
      () => engine.runCommand('db', { create: 'v21', viewOn: 'v22' }),
      165,
      /Maximum depth is 20/,
      'ViewDepthLimitExceeded',
    );
    expectError(() => engine.runCommand('db', { create: 'v0', viewOn: 'v1' }), 165);
    expectError(
      () =>
        engine.runCommand('db', {
          create: 'v0',
          viewOn: 'ok',
          pipeline: [{ $lookup: { from: 'v1', localField: 'x', foreignField: 'y', as: 'r' } }],
        }),
      165,
    );
    engine.runCommand('db', { create: 'vMid', viewOn: 'v10' });
    engine.close();
  });
});

describe('views in the shell', () => {
  it('db.createView(name, source, pipeline) creates a view that db.<view>.find() reads', () => {
    const h = harness();
    h.value('db.orders.insertMany([{ _id: 1, qty: 5 }, { _id: 2, qty: 50 }])');
    assert.deepEqual(plain(h.value('db.createView("big", "orders", [{ $match: { qty: { $gt: 10 } } }])')), { ok: 1 });
    assert.deepEqual(plain(h.value('db.big.find().toArray()')), [{ _id: 2, qty: 50 }]);
    const infos = plain(h.value('db.getCollectionInfos({ type: "view" })')) as Document[];
    assert.equal(infos[0].name, 'big');
    const failed = h.failure('db.big.insertOne({ _id: 3 })');
    assert.match(String(failed.error?.message), /is a view, not a collection/);
  });
});

describe('find on a view is an aggregate', () => {
  it('find on a view refuses a find-only projection operator ($elemMatch) as $project does (168)', () => {
    const engine = setUp();
    expectError(
      () => engine.runCommand('db', { find: 'open', projection: { tags: { $elemMatch: { $eq: 'x' } } } }),
      168,
      /\$elemMatch/,
    );
    const reply = engine.runCommand('db', { find: 'open', filter: { _id: 1 }, projection: { item: 1 } });
    assert.deepEqual(firstBatch(reply), [{ _id: 1, item: 'a' }]);
  });
});

describe('find options an aggregate cannot honour', () => {
  it('find on a view refuses readOnce, returnKey, showRecordId, min, max, tailable and singleBatch past limit 1 (168)', () => {
    const engine = setUp();
    for (const extra of [
      { readOnce: true },
      { returnKey: true },
      { showRecordId: true },
      { min: { _id: 1 } },
      { max: { _id: 3 } },
      { noCursorTimeout: true },
      { allowPartialResults: true },
      { tailable: true },
      { singleBatch: true },
      { singleBatch: true, limit: 2 },
    ])
      expectError(() => engine.runCommand('db', { find: 'open', ...extra }), 168, /not supported in aggregation/);
    // A findOne (limit 1 with singleBatch) is a $limit of 1; options left unset are no refusal.
    const one = engine.runCommand('db', { find: 'open', limit: 1, singleBatch: true, readOnce: false, min: {} });
    assert.equal(firstBatch(one).length, 1);
  });
});
