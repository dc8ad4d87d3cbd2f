/**
 * Where a collation applies: query operators, sort, distinct, count, aggregation, writes' query
 * parts, collection and view defaults, index collations (planning and uniqueness), and where it does
 * not ($regex, field names, byte-wise string operators, TTL's date comparisons).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, VirtualClock, type Document } from '../../../../src/engine';
import { expectError } from '../../helpers/expect-error';

const T0 = Date.UTC(2026, 0, 1);
const CI = { locale: 'en', strength: 2 };

function setUp(createOptions: Document = {}): Engine {
  const engine = new Engine({ clock: new VirtualClock(T0) });
  engine.runCommand('db', { create: 'c', ...createOptions });
  engine.runCommand('db', {
    insert: 'c',
    documents: [
      { _id: 1, a: 'café', n: '10' },
      { _id: 2, a: 'CAFÉ', n: '9' },
      { _id: 3, a: 'cafe', n: '2' },
      { _id: 4, a: 'b', n: '1' },
    ],
  });
  return engine;
}

function ids(reply: Document): unknown[] {
  return ((reply.cursor as Document).firstBatch as Document[]).map((d) => d._id);
}

function find(engine: Engine, cmd: Document): unknown[] {
  return ids(engine.runCommand('db', { find: 'c', ...cmd }));
}

describe('collation in operations', () => {
  it('collation: $eq, $in, $ne and $nin compare strings under the find collation', () => {
    const e = setUp();
    assert.deepEqual(find(e, { filter: { a: 'Café' } }), []);
    assert.deepEqual(find(e, { filter: { a: 'Café' }, collation: CI }), [1, 2]);
    assert.deepEqual(find(e, { filter: { a: { $in: ['x', 'CAFE'] } }, collation: CI }), [3]);
    assert.deepEqual(find(e, { filter: { a: { $ne: 'CAFÉ' } }, collation: CI }), [3, 4]);
    assert.deepEqual(find(e, { filter: { a: { $nin: ['CAFÉ', 'B'] } }, collation: CI }), [3]);
    assert.deepEqual(find(e, { filter: { a: 'cafe' }, collation: { locale: 'en', strength: 1 } }), [1, 2, 3]);
  });

  it('collation: $lt/$gte order strings by the collation (numericOrdering: "10" > "9")', () => {
    const e = setUp();
    assert.deepEqual(find(e, { filter: { n: { $gt: '9' } } }), []);
    assert.deepEqual(find(e, { filter: { n: { $gt: '9' } }, collation: { locale: 'en', numericOrdering: true } }), [1]);
  });

  it('collation: $regex is not collation-aware', () => {
    const e = setUp();
    assert.deepEqual(find(e, { filter: { a: { $regex: '^caf' } }, collation: { locale: 'en', strength: 1 } }), [1, 3]);
  });

  it('collation: sort orders strings by the collation', () => {
    const e = setUp();
    assert.deepEqual(find(e, { sort: { n: 1 } }), [4, 1, 3, 2]);
    assert.deepEqual(find(e, { sort: { n: 1 }, collation: { locale: 'en', numericOrdering: true } }), [4, 3, 2, 1]);
  });

  it('collation: distinct and count merge strings the collation holds equal', () => {
    const e = setUp();
    assert.equal((e.runCommand('db', { distinct: 'c', key: 'a' }).values as unknown[]).length, 4);
    assert.deepEqual(e.runCommand('db', { distinct: 'c', key: 'a', collation: CI }).values, ['b', 'cafe', 'café']);
    assert.equal(
      e.runCommand('db', { count: 'c', query: { a: 'CAFE' }, collation: { locale: 'en', strength: 1 } }).n,
      3,
    );
  });

  it('collation: aggregate $match, $group and $sort use the aggregate collation option', () => {
    const e = setUp();
    const reply = e.runCommand('db', {
      aggregate: 'c',
      pipeline: [{ $match: { a: { $ne: 'B' } } }, { $group: { _id: '$a', n: { $sum: 1 } } }, { $sort: { _id: 1 } }],
      cursor: {},
      collation: CI,
    });
    assert.deepEqual((reply.cursor as Document).firstBatch, [
      { _id: 'cafe', n: 1 },
      { _id: 'café', n: 2 },
    ]);
  });

  it('collation: aggregation expressions ($eq, $cmp, $in) compare under the collation; $indexOfBytes does not', () => {
    const e = setUp();
    const reply = e.runCommand('db', {
      aggregate: 'c',
      pipeline: [
        { $match: { _id: 1 } },
        {
          $project: {
            eq: { $eq: ['$a', 'CAFÉ'] },
            cmp: { $cmp: ['$a', 'CAFÉ'] },
            in: { $in: ['CAFÉ', ['$a']] },
            bytes: { $indexOfBytes: ['$a', 'CAF'] },
          },
        },
      ],
      cursor: {},
      collation: CI,
    });
    const [doc] = (reply.cursor as Document).firstBatch as Document[];
    assert.deepEqual(
      { ...doc, cmp: Number(doc.cmp), bytes: Number(doc.bytes) },
      { _id: 1, eq: true, cmp: 0, in: true, bytes: -1 },
    );
  });

  it('collation: $bucket sorts its buckets by _id under the collation, the default bucket among them', () => {
    const e = setUp();
    const reply = e.runCommand('db', {
      aggregate: 'c',
      pipeline: [{ $bucket: { groupBy: '$n', boundaries: ['5', '99'], default: '3' } }],
      cursor: {},
      collation: { locale: 'en', numericOrdering: true },
    });
    // Under numericOrdering "9" and "10" fall in ["5", "99"); "1" and "2" go to the default bucket.
    assert.deepEqual(
      ((reply.cursor as Document).firstBatch as Document[]).map((b) => [b._id, Number(b.count)]),
      [
        ['3', 2],
        ['5', 2],
      ],
    );
  });

  it('collation: $graphLookup tells documents apart by _id as bytes, whatever the collation', () => {
    const e = new Engine({ clock: new VirtualClock(T0) });
    e.runCommand('db', {
      insert: 'g',
      documents: [
        { _id: 1, name: 'erica', friends: ['jeremy'] },
        { _id: 'foo', name: 'JEREMY', friends: ['jimmy'] },
        { _id: 'FOO', name: 'jimmy', friends: [] },
      ],
    });
    const reply = e.runCommand('db', {
      aggregate: 'g',
      pipeline: [
        { $match: { name: 'erica' } },
        {
          $graphLookup: {
            from: 'g',
            startWith: '$friends',
            connectFromField: 'friends',
            connectToField: 'name',
            as: 'found',
          },
        },
      ],
      cursor: {},
      collation: { locale: 'en', strength: 2 },
    });
    const [doc] = (reply.cursor as Document).firstBatch as Document[];
    assert.equal((doc.found as Document[]).length, 2);
  });

  it('collation: update and delete statements match by their own collation', () => {
    const e = setUp();
    const u = e.runCommand('db', {
      update: 'c',
      updates: [
        { q: { a: 'CAFE' }, u: { $set: { hit: true } }, multi: true, collation: { locale: 'en', strength: 1 } },
      ],
    });
    assert.equal(u.n, 3);
    const d = e.runCommand('db', { delete: 'c', deletes: [{ q: { a: 'CAFÉ' }, limit: 0, collation: CI }] });
    assert.equal(d.n, 2);
    assert.deepEqual(find(e, {}), [3, 4]);
  });

  it('collation: findAndModify finds its document by its collation', () => {
    const e = setUp();
    const r = e.runCommand('db', { findAndModify: 'c', query: { a: 'B' }, update: { $set: { x: 1 } }, collation: CI });
    assert.equal((r.value as Document)._id, 4);
  });

  it('collation: a collection default collation applies to operations without their own; "simple" overrides it', () => {
    const e = setUp({ collation: CI });
    assert.deepEqual(find(e, { filter: { a: 'Café' } }), [1, 2]);
    assert.deepEqual(find(e, { filter: { a: 'Café' }, collation: { locale: 'simple' } }), []);
    const info = (e.runCommand('db', { listCollections: 1 }).cursor as Document).firstBatch as Document[];
    assert.equal(((info[0].options as Document).collation as Document).locale, 'en');
  });

  it('collation: an update setting "A" over "a" under a case-insensitive collation still changes the document and its index', () => {
    const e = setUp({ collation: CI });
    e.runCommand('db', {
      createIndexes: 'c',
      indexes: [{ key: { a: 1 }, name: 'a_1', collation: { locale: 'simple' } }],
    });
    const r = e.runCommand('db', { update: 'c', updates: [{ q: { _id: 4 }, u: { $set: { a: 'B' } } }] });
    assert.equal(r.nModified, 1);
    assert.deepEqual(find(e, { filter: { a: 'B' }, collation: { locale: 'simple' }, hint: 'a_1' }), [4]);
    assert.deepEqual(find(e, { filter: { a: 'b' }, collation: { locale: 'simple' }, hint: 'a_1' }), []);
  });

  it('collation: an index inherits the collection default collation; listIndexes echoes it in full', () => {
    const e = setUp({ collation: CI });
    e.runCommand('db', { createIndexes: 'c', indexes: [{ key: { n: 1 }, name: 'n_1' }] });
    e.runCommand('db', {
      createIndexes: 'c',
      indexes: [{ key: { _id: 1, n: 1 }, name: 'plain', collation: { locale: 'simple' } }],
    });
    const specs = (e.runCommand('db', { listIndexes: 'c' }).cursor as Document).firstBatch as Document[];
    const n1 = specs.find((s) => s.name === 'n_1')!;
    assert.equal((n1.collation as Document).locale, 'en');
    assert.equal(Number((n1.collation as Document).strength), 2);
    assert.equal((n1.collation as Document).version, '57.1');
    assert.equal(specs.find((s) => s.name === 'plain')!.collation, undefined);
  });

  it('collation: a strength 2 unique index treats "a" and "A" as duplicates (11000)', () => {
    const e = new Engine({ clock: new VirtualClock(T0) });
    e.runCommand('db', { createIndexes: 'u', indexes: [{ key: { k: 1 }, name: 'k_1', unique: true, collation: CI }] });
    e.runCommand('db', { insert: 'u', documents: [{ k: 'a' }] });
    const r = e.runCommand('db', { insert: 'u', documents: [{ k: 'A' }, { k: 'b' }], ordered: false });
    assert.equal(r.n, 1);
    assert.equal((r.writeErrors as Document[])[0].code, 11000);
  });

  it('collation: an index is used for string bounds only when the query collation matches it', () => {
    const e = new Engine({ clock: new VirtualClock(T0) });
    e.runCommand('db', { createIndexes: 'u', indexes: [{ key: { k: 1 }, name: 'k_1', collation: CI }] });
    e.runCommand('db', { insert: 'u', documents: [{ k: 'a' }, { k: 'A' }, { k: 5 }] });
    const stageOf = (cmd: Document) => {
      const plan = (e.runCommand('db', { explain: { find: 'u', ...cmd } }).queryPlanner as Document)
        .winningPlan as Document;
      return plan.inputStage ? (plan.inputStage as Document).stage : plan.stage;
    };
    assert.equal(stageOf({ filter: { k: 'a' }, collation: CI }), 'IXSCAN');
    assert.equal(stageOf({ filter: { k: 'a' } }), 'COLLSCAN');
    // Numbers order alike under every collation.
    assert.equal(stageOf({ filter: { k: 5 } }), 'IXSCAN');
    assert.equal(
      ids(e.runCommand('db', { find: 'u', filter: { k: 'A' }, collation: CI, projection: { _id: 0, k: 1 } })).length,
      2,
    );
  });

  it('collation: explain shows the collation the query ran under', () => {
    const e = setUp({ collation: CI });
    const qp = e.runCommand('db', { explain: { find: 'c', filter: { a: 'x' } } }).queryPlanner as Document;
    assert.equal(Number((qp.collation as Document).strength), 2);
  });

  it('collation: a view takes its own default collation, which an operation cannot override (167)', () => {
    const e = setUp();
    e.runCommand('db', { create: 'v', viewOn: 'c', pipeline: [], collation: CI });
    assert.deepEqual(ids(e.runCommand('db', { find: 'v', filter: { a: 'Café' } })), [1, 2]);
    expectError(
      () => e.runCommand('db', { find: 'v', collation: { locale: 'fr' } }),
      167,
      /Cannot override a view's default collation/,
    );
    e.runCommand('db', { create: 'plainView', viewOn: 'c' });
    expectError(
      () =>
        e.runCommand('db', {
          aggregate: 'c',
          pipeline: [{ $lookup: { from: 'plainView', localField: 'a', foreignField: 'a', as: 'x' } }],
          cursor: {},
          collation: CI,
        }),
      167,
    );
    expectError(() => e.runCommand('db', { create: 'w', viewOn: 'v' }), 167, /different default collation/);
  });

  it('collation: an invalid collation option fails the operation with the collation error', () => {
    const e = setUp();
    expectError(() => e.runCommand('db', { find: 'c', collation: { locale: 'xx_invalid' } }), 2);
    expectError(() => e.runCommand('db', { create: 'd', collation: { locale: 'en', strength: 9 } }), 9);
    expectError(
      () =>
        e.runCommand('db', { createIndexes: 'c', indexes: [{ key: { a: 1 }, name: 'a', collation: { strength: 1 } }] }),
      4,
    );
  });

  it('rule 7.8: a TTL index with a collation still expires on its dates (date bounds order alike under every collation)', () => {
    const clock = new VirtualClock(T0);
    const e = new Engine({ clock });
    e.runCommand('db', { create: 't', collation: CI });
    e.runCommand('db', { createIndexes: 't', indexes: [{ key: { at: 1 }, name: 'at_1', expireAfterSeconds: 60 }] });
    e.runCommand('db', {
      insert: 't',
      documents: [
        { _id: 'A', at: new Date(T0) },
        { _id: 'b', at: new Date(T0 + 3_600_000) },
      ],
    });
    clock.advance(120_000);
    e.ttl.runPass();
    assert.deepEqual(ids(e.runCommand('db', { find: 't' })), ['b']);
  });
});
