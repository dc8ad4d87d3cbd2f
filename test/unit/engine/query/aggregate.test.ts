import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Decimal128, Int32, Long } from 'bson';
import {
  compilePipeline,
  pipelineWrites,
  runPipeline,
  unsupportedPipelineStage,
} from '../../../../src/engine/query/aggregate';
import { Engine } from '../../../../src/engine';
import type { Document } from '../../../../src/engine/values/types';
import { expectError } from '../../helpers/expect-error';
import { isInt32, isLong } from '../../helpers/bson-assert';

const NOW = new Date('2030-06-01T12:00:00Z');

function run(input: Document[], pipeline: Document[]): Document[] {
  return runPipeline(input, pipeline, { now: NOW });
}

const people: Document[] = [
  { _id: 1, name: 'ann', age: 30, city: 'Oslo', tags: ['a', 'b'] },
  { _id: 2, name: 'bob', age: 25, city: 'Rome', tags: [] },
  { _id: 3, name: 'cid', age: 35, city: 'Oslo' },
  { _id: 4, name: 'dee', age: 25, city: null, tags: 'solo' },
];

describe('pipeline structure', () => {
  test('an empty pipeline returns copies of the input', () => {
    const input = [{ _id: 1, a: { b: [1] } }];
    const out = run(input, []);
    assert.deepEqual(out, input);
    assert.notEqual(out[0], input[0]);
    assert.notEqual(out[0].a, input[0].a);
  });

  test('an unknown stage is error 40324', () => {
    expectError(() => run([], [{ $bogus: 1 }]), 40324, /Unrecognized pipeline stage name: '\$bogus'/);
  });

  test('a stage with two fields is error 40323', () => {
    expectError(() => run([], [{ $match: {}, $limit: 1 }]), 40323, /exactly one field/);
  });

  test('an empty stage object is error 40323', () => {
    expectError(() => run([], [{}]), 40323);
  });

  test('stages are validated before any document is read', () => {
    let pulled = 0;
    function* input(): Iterable<Document> {
      pulled++;
      yield { a: 1 };
    }
    expectError(() => run(Array.from(input()), [{ $limit: 1 }, { $bogus: 1 }]), 40324);
    assert.throws(() => compilePipeline([{ $skip: -1 }], { now: NOW }));
    assert.equal(pulled, 1);
  });

  test('$out and $merge can only be the final stage (40601)', () => {
    expectError(
      () => run([], [{ $out: 'x' }, { $match: {} }]),
      40601,
      '$out can only be the final stage in the pipeline',
    );
    expectError(() => run([], [{ $merge: { into: 'x' } }, { $limit: 1 }]), 40601);
  });

  test('unsupportedPipelineStage finds stages the engine refuses, even in $facet; pipelineWrites finds $out/$merge', () => {
    assert.equal(unsupportedPipelineStage([{ $match: {} }, { $out: 'x' }]), undefined);
    assert.equal(unsupportedPipelineStage([{ $match: {} }, { $lookup: {} }]), undefined);
    assert.equal(unsupportedPipelineStage([{ $facet: { a: [{ $search: {} }] } }]), '$search');
    assert.equal(pipelineWrites([{ $merge: { into: 'x' } }]), true);
    assert.equal(pipelineWrites([{ $match: {} }, { $out: 'x' }]), true);
    assert.equal(pipelineWrites([{ $lookup: {} }]), false);
  });

  test('the input documents are never modified', () => {
    const input = [{ _id: 1, a: { b: 1 }, arr: [1, 2] }];
    const snapshot = JSON.stringify(input);
    run(input, [
      { $addFields: { 'a.c': 2 } },
      { $set: { a: { d: 3 } } },
      { $unwind: { path: '$arr', includeArrayIndex: 'a.i' } },
      { $unset: 'a.b' },
    ]);
    assert.equal(JSON.stringify(input), snapshot);
  });

  test('let variables are visible as $$name in every stage', () => {
    const out = runPipeline([{ _id: 1, a: 2 }], [{ $project: { x: { $multiply: ['$a', '$$factor'] } } }], {
      now: NOW,
      let: { factor: { $add: [1, 2] } },
    });
    assert.deepEqual(out, [{ _id: 1, x: 6 }]);
    expectError(() => runPipeline([], [], { now: NOW, let: { Bad: 1 } }), 16867);
  });

  test('$$NOW is the context clock', () => {
    const [doc] = run([{ _id: 1 }], [{ $project: { now: '$$NOW' } }]);
    assert.equal((doc.now as Date).getTime(), NOW.getTime());
  });
});

describe('$match, $limit, $skip, $sort', () => {
  test('$match filters with query semantics', () => {
    assert.deepEqual(
      run(people, [{ $match: { city: 'Oslo' } }]).map((d) => d._id),
      [1, 3],
    );
  });

  test('$match requires an object (15959)', () => {
    expectError(() => run(people, [{ $match: 5 }]), 15959);
  });

  test('$sort then $skip then $limit', () => {
    const out = run(people, [{ $sort: { age: -1, _id: 1 } }, { $skip: 1 }, { $limit: 2 }]);
    assert.deepEqual(
      out.map((d) => d._id),
      [1, 2],
    );
  });

  test('$limit stops pulling from upstream', () => {
    let pulled = 0;
    const input = {
      *[Symbol.iterator](): Iterator<Document> {
        for (let i = 0; i < 1000; i++) {
          pulled++;
          yield { _id: i };
        }
      },
    };
    const out = runPipeline(input, [{ $match: {} }, { $limit: 3 }], { now: NOW });
    assert.equal(out.length, 3);
    assert.ok(pulled <= 4, `pulled ${pulled}`);
  });

  test('$limit: 0 is error 15958', () => {
    expectError(() => run(people, [{ $limit: 0 }]), 15958, /the limit must be positive/);
  });

  test('$limit rejects negatives, fractions and non-numbers with 5107201', () => {
    expectError(() => run(people, [{ $limit: -1 }]), 5107201, /Expected a non-negative number/);
    expectError(() => run(people, [{ $limit: 1.5 }]), 5107201);
    expectError(() => run(people, [{ $limit: 'a' }]), 5107201, /Expected a number/);
  });

  test('$limit accepts Int32 and Long', () => {
    assert.equal(run(people, [{ $limit: new Int32(2) }]).length, 2);
    assert.equal(run(people, [{ $limit: Long.fromNumber(3) }]).length, 3);
  });

  test('$skip rejects negatives with 5107200 and accepts 0', () => {
    expectError(() => run(people, [{ $skip: -1 }]), 5107200);
    expectError(() => run(people, [{ $skip: 'x' }]), 5107200);
    assert.equal(run(people, [{ $skip: 0 }]).length, 4);
    assert.equal(run(people, [{ $skip: 10 }]).length, 0);
  });

  test('$sort requires a non-empty object', () => {
    expectError(() => run(people, [{ $sort: {} }]), 15976);
    expectError(() => run(people, [{ $sort: 1 }]), 15973);
  });
});

describe('$project', () => {
  const doc = { _id: 7, a: 1, b: { c: 2, d: 3 }, e: [{ f: 1, g: 2 }, { f: 3 }, 5], h: 'x' };

  test('inclusion keeps _id and the named fields in document order', () => {
    assert.deepEqual(run([doc], [{ $project: { h: 1, a: true } }]), [{ _id: 7, a: 1, h: 'x' }]);
  });

  test('inclusion with _id: 0 drops _id', () => {
    assert.deepEqual(run([doc], [{ $project: { _id: 0, a: 1 } }]), [{ a: 1 }]);
  });

  test('nested inclusion by dotted path and by sub-object', () => {
    assert.deepEqual(run([doc], [{ $project: { 'b.c': 1 } }]), [{ _id: 7, b: { c: 2 } }]);
    assert.deepEqual(run([doc], [{ $project: { b: { d: 1 } } }]), [{ _id: 7, b: { d: 3 } }]);
  });

  test('nested inclusion through an array keeps documents and drops scalars', () => {
    assert.deepEqual(run([doc], [{ $project: { _id: 0, 'e.f': 1 } }]), [{ e: [{ f: 1 }, { f: 3 }] }]);
  });

  test('exclusion removes the named fields and keeps the rest', () => {
    assert.deepEqual(run([doc], [{ $project: { b: 0, e: 0, h: 0 } }]), [{ _id: 7, a: 1 }]);
    assert.deepEqual(run([doc], [{ $project: { 'b.c': 0, 'e.g': 0, _id: 0, a: 0, h: 0 } }]), [
      { b: { d: 3 }, e: [{ f: 1 }, { f: 3 }, 5] },
    ]);
  });

  test('_id: 0 alone is an exclusion projection', () => {
    assert.deepEqual(run([{ _id: 1, a: 1 }], [{ $project: { _id: 0 } }]), [{ a: 1 }]);
  });

  test('computed fields come after included fields and missing results are omitted', () => {
    const out = run(
      [doc],
      [{ $project: { total: { $add: ['$a', '$b.c'] }, a: 1, gone: '$nope', lit: { $literal: 1 } } }],
    );
    assert.deepEqual(out, [{ _id: 7, a: 1, total: 3, lit: 1 }]);
  });

  test('a string value is an expression: field path or literal', () => {
    assert.deepEqual(run([doc], [{ $project: { _id: 0, x: '$h', y: 'plain' } }]), [{ x: 'x', y: 'plain' }]);
  });

  test('a computed nested field creates the subdocument and can set _id', () => {
    assert.deepEqual(run([doc], [{ $project: { _id: '$a', 'p.q': '$h' } }]), [{ _id: 1, p: { q: 'x' } }]);
  });

  test('a computed dotted path through an array applies to each document element; scalars drop out', () => {
    assert.deepEqual(run([{ _id: 1, e: [{ f: 1 }, 2] }], [{ $project: { 'e.k': 'v' } }]), [
      { _id: 1, e: [{ k: 'v' }] },
    ]);
  });

  test('mixing inclusion and exclusion is an error', () => {
    expectError(
      () => run([doc], [{ $project: { a: 1, b: 0 } }]),
      31254,
      /Cannot do exclusion on field b in inclusion projection/,
    );
    expectError(
      () => run([doc], [{ $project: { b: 0, a: 1 } }]),
      31253,
      /Cannot do inclusion on field a in exclusion projection/,
    );
    expectError(() => run([doc], [{ $project: { b: 0, x: '$a' } }]), 31252);
  });

  test('an empty projection is error 51272; an empty sub-projection 51270', () => {
    expectError(() => run([doc], [{ $project: {} }]), 51272);
    expectError(() => run([doc], [{ $project: { a: {} } }]), 51270);
  });

  test('a path given twice is a path collision', () => {
    expectError(() => run([doc], [{ $project: { 'b.c': 1, b: 1 } }]), 31250);
  });

  test('$project: a path below a field already projected is 31249, naming the path past its first field', () => {
    expectError(
      () => run([doc], [{ $project: { b: 1, 'b.c': 1 } }]),
      31249,
      /Path collision at b\.c remaining portion c$/,
    );
    expectError(
      () => run([doc], [{ $project: { 'x.y': 1, 'x.y.z': 1 } }]),
      31249,
      /Path collision at x\.y\.z remaining portion y\.z$/,
    );
    expectError(() => run([doc], [{ $project: { x: { $add: [1] }, 'x.b': 1 } }]), 31249);
  });

  test('output shares no structure with the input', () => {
    const input = [{ _id: 1, b: { c: [1] } }];
    const [out] = run(input, [{ $project: { b: 1 } }]);
    (out.b as { c: number[] }).c.push(2);
    assert.deepEqual(input[0].b.c, [1]);
  });
});

describe('$addFields / $set / $unset', () => {
  test('$addFields appends new fields and replaces existing ones in place', () => {
    const out = run([{ _id: 1, a: 1, b: 2 }], [{ $addFields: { a: 'new', c: { $multiply: ['$b', 10] } } }]);
    assert.deepEqual(out, [{ _id: 1, a: 'new', b: 2, c: 20 }]);
    assert.deepEqual(Object.keys(out[0]), ['_id', 'a', 'b', 'c']);
  });

  test('$set is an alias of $addFields', () => {
    assert.deepEqual(run([{ _id: 1 }], [{ $set: { x: 1 } }]), [{ _id: 1, x: 1 }]);
  });

  test('a nested object merges into an existing subdocument', () => {
    assert.deepEqual(run([{ _id: 1, a: { b: 1 } }], [{ $addFields: { a: { c: 2 } } }]), [
      { _id: 1, a: { b: 1, c: 2 } },
    ]);
    assert.deepEqual(run([{ _id: 1, a: { b: 1 } }], [{ $addFields: { 'a.c': 2 } }]), [{ _id: 1, a: { b: 1, c: 2 } }]);
  });

  test('numbers and booleans are literal values in $addFields, not flags', () => {
    assert.deepEqual(run([{ _id: 1 }], [{ $addFields: { one: 1, no: false, empty: {} } }]), [
      { _id: 1, one: 1, no: false, empty: {} },
    ]);
  });

  test('$$REMOVE removes a field', () => {
    assert.deepEqual(run([{ _id: 1, a: 1, b: 2 }], [{ $addFields: { a: '$$REMOVE' } }]), [{ _id: 1, b: 2 }]);
  });

  test('$addFields on a dotted path through an array sets the field in every element', () => {
    assert.deepEqual(run([{ _id: 1, e: [{ f: 1 }, 2] }], [{ $addFields: { 'e.k': 'v' } }]), [
      { _id: 1, e: [{ f: 1, k: 'v' }, { k: 'v' }] },
    ]);
  });

  test('$addFields replaces a scalar on a dotted path with a subdocument', () => {
    assert.deepEqual(run([{ _id: 1, a: 5 }], [{ $addFields: { 'a.b': 1 } }]), [{ _id: 1, a: { b: 1 } }]);
  });

  test('$unset removes fields by name or dotted path', () => {
    const input = [{ _id: 1, a: 1, b: { c: 1, d: 2 }, e: 3 }];
    assert.deepEqual(run(input, [{ $unset: 'a' }]), [{ _id: 1, b: { c: 1, d: 2 }, e: 3 }]);
    assert.deepEqual(run(input, [{ $unset: ['b.c', 'e', '_id'] }]), [{ a: 1, b: { d: 2 } }]);
  });

  test('$unset validates its specification', () => {
    expectError(() => run([], [{ $unset: [] }]), 31119);
    expectError(() => run([], [{ $unset: 5 }]), 31119);
    expectError(() => run([], [{ $unset: ['a', 1] }]), 31120);
  });
});

describe('$group', () => {
  const sales: Document[] = [
    { _id: 1, item: 'a', qty: new Int32(2), price: 10, day: new Date('2024-01-01T10:00:00Z') },
    { _id: 2, item: 'b', qty: new Int32(1), price: 20, day: new Date('2024-01-01T11:00:00Z') },
    { _id: 3, item: 'a', qty: new Int32(5), price: 5.5, day: new Date('2024-01-02T10:00:00Z') },
    { _id: 4, item: null, qty: new Int32(3) },
    { _id: 5, qty: Long.fromNumber(4) },
  ];

  test('groups by a field path; null and missing keys share the null group', () => {
    const out = run(sales, [{ $group: { _id: '$item', n: { $count: {} } } }]);
    assert.deepEqual(
      out.map((d) => d._id),
      ['a', 'b', null],
    );
    isInt32(out[0].n, 2);
    isInt32(out[2].n, 2);
  });

  test('$group: null and missing group together, through the aggregate command and $sortByCount', () => {
    const engine = new Engine();
    engine.runCommand('app', { insert: 'g', documents: [{ _id: 1, k: null }, { _id: 2 }, { _id: 3, k: 'x' }] });
    const agg = (pipeline: Document[]) =>
      (engine.runCommand('app', { aggregate: 'g', pipeline, cursor: {} }).cursor as Document).firstBatch as Document[];
    assert.deepEqual(agg([{ $group: { _id: '$k', ids: { $push: '$_id' } } }, { $sort: { _id: 1 } }]), [
      { _id: null, ids: [1, 2] },
      { _id: 'x', ids: [3] },
    ]);
    assert.deepEqual(
      agg([{ $sortByCount: '$k' }]).map((d) => d._id),
      [null, 'x'],
    );
  });

  test('$group: a one-field _id document merges null and missing into {k: null}; with two fields a missing one is left out', () => {
    const engine = new Engine();
    engine.runCommand('app', {
      insert: 'g',
      documents: [
        { _id: 1, k: null, b: 1 },
        { _id: 2, b: 1 },
        { _id: 3, k: 'x', b: 1 },
      ],
    });
    const agg = (pipeline: Document[]) =>
      (engine.runCommand('app', { aggregate: 'g', pipeline, cursor: {} }).cursor as Document).firstBatch as Document[];
    assert.deepEqual(agg([{ $group: { _id: { k: '$k' }, n: { $sum: 1 } } }, { $sort: { _id: 1 } }]), [
      { _id: { k: null }, n: 2 },
      { _id: { k: 'x' }, n: 1 },
    ]);
    // Groups come out in order of first appearance.
    assert.deepEqual(
      agg([{ $group: { _id: { k: '$k', b: '$b' } } }]).map((d) => d._id),
      [{ k: null, b: 1 }, { b: 1 }, { k: 'x', b: 1 }],
    );
  });

  test('_id: null makes one group over all documents', () => {
    const [only, ...rest] = run(sales, [{ $group: { _id: null, total: { $sum: '$qty' } } }]);
    assert.equal(rest.length, 0);
    assert.equal(only._id, null);
    isLong(only.total, 15n);
  });

  test('$sum of Int32s stays Int32', () => {
    const out = run(sales.slice(0, 3), [{ $group: { _id: '$item', q: { $sum: '$qty' } } }]);
    isInt32(out[0].q, 7);
    isInt32(out[1].q, 1);
  });

  test('$sum of Int32s that overflows int becomes Long', () => {
    const docs = [{ v: new Int32(2147483647) }, { v: new Int32(2147483647) }];
    const [g] = run(docs, [{ $group: { _id: null, s: { $sum: '$v' } } }]);
    isLong(g.s, 4294967294n);
  });

  test('$sum with doubles is a double; of nothing numeric is Int32 0', () => {
    const [g] = run(sales, [{ $group: { _id: null, p: { $sum: '$price' }, z: { $sum: '$nope' } } }]);
    assert.equal(g.p, 35.5);
    isInt32(g.z, 0);
  });

  test('$sum with a decimal is a decimal', () => {
    const [g] = run(
      [{ v: Decimal128.fromString('1.25') }, { v: new Int32(2) }],
      [{ $group: { _id: null, s: { $sum: '$v' } } }],
    );
    assert.ok(g.s instanceof Decimal128);
    assert.equal(g.s.toString(), '3.25');
  });

  test('$avg is a double, ignores non-numbers, and is null with no numbers', () => {
    const [g] = run(sales, [
      { $group: { _id: null, a: { $avg: '$qty' }, p: { $avg: '$price' }, n: { $avg: '$item' } } },
    ]);
    assert.equal(g.a, 3);
    assert.equal(typeof g.a, 'number');
    assert.equal(g.p, 35.5 / 3);
    assert.equal(g.n, null);
  });

  test('$min / $max ignore null and missing', () => {
    const [g] = run(sales, [
      { $group: { _id: null, lo: { $min: '$price' }, hi: { $max: '$item' }, none: { $max: '$nope' } } },
    ]);
    assert.equal(g.lo, 5.5);
    assert.equal(g.hi, 'b');
    assert.equal(g.none, null);
  });

  test('$first / $last take values in input order, missing becomes null', () => {
    const out = run(sales, [
      { $sort: { _id: 1 } },
      { $group: { _id: null, f: { $first: '$item' }, l: { $last: '$item' } } },
    ]);
    assert.deepEqual(out, [{ _id: null, f: 'a', l: null }]);
  });

  test('$push keeps duplicates and skips missing; $addToSet dedupes by BSON equality', () => {
    const docs = [{ v: 1 }, { v: new Int32(1) }, {}, { v: null }, { v: [1] }, { v: [1] }];
    const [g] = run(docs, [{ $group: { _id: null, p: { $push: '$v' }, s: { $addToSet: '$v' } } }]);
    assert.equal((g.p as unknown[]).length, 5);
    assert.deepEqual(g.s, [1, null, [1]]);
  });

  test('compound _id objects group by every field; numerically equal keys group together', () => {
    const docs = [
      { a: 1, b: 'x' },
      { a: new Int32(1), b: 'x' },
      { a: Long.fromNumber(1), b: 'y' },
    ];
    const out = run(docs, [{ $group: { _id: { a: '$a', b: '$b' }, n: { $sum: new Int32(1) } } }]);
    assert.deepEqual(
      out.map((d) => d._id),
      [
        { a: 1, b: 'x' },
        { a: Long.fromNumber(1), b: 'y' },
      ],
    );
    isInt32(out[0].n, 2);
  });

  test('_id can be a computed expression such as a date part', () => {
    const out = run(sales.slice(0, 3), [
      { $group: { _id: { $dayOfMonth: '$day' }, n: { $count: {} } } },
      { $sort: { _id: 1 } },
    ]);
    assert.equal(out.length, 2);
    isInt32(out[0]._id, 1);
    isInt32(out[0].n, 2);
  });

  test('grouping no documents outputs nothing', () => {
    assert.deepEqual(run([], [{ $group: { _id: null, n: { $sum: 1 } } }]), []);
  });

  test('group validation errors carry mongod codes', () => {
    expectError(() => run([], [{ $group: { n: { $sum: 1 } } }]), 15955);
    expectError(
      () => run([], [{ $group: { _id: null, n: { $bogus: 1 } } }]),
      15952,
      /unknown group operator '\$bogus'/,
    );
    expectError(() => run([], [{ $group: { _id: null, n: 1 } }]), 40234);
    expectError(() => run([], [{ $group: { _id: null, 'a.b': { $sum: 1 } } }]), 40235);
    expectError(() => run([], [{ $group: { _id: null, n: { $sum: [1, 2] } } }]), 40237);
    expectError(() => run([], [{ $group: 1 }]), 15947);
  });
});

describe('$count and $sortByCount', () => {
  test('$count outputs one document with an Int32 count', () => {
    const out = run(people, [{ $count: 'n' }]);
    assert.equal(out.length, 1);
    isInt32(out[0].n, 4);
  });

  test('$count of no documents outputs nothing', () => {
    assert.deepEqual(run(people, [{ $match: { age: 99 } }, { $count: 'n' }]), []);
  });

  test('$count validates the field name', () => {
    expectError(() => run([], [{ $count: '' }]), 40157);
    expectError(() => run([], [{ $count: '$n' }]), 40158);
    expectError(() => run([], [{ $count: 'a.b' }]), 40160);
    expectError(() => run([], [{ $count: 1 }]), 40156);
  });

  test('$sortByCount groups and sorts by descending count', () => {
    const out = run(people, [{ $sortByCount: '$age' }]);
    assert.equal(out[0]._id, 25);
    isInt32(out[0].count, 2);
    assert.equal(out.length, 3);
  });

  test('$sortByCount requires a $-path or an operator expression', () => {
    expectError(() => run([], [{ $sortByCount: 'age' }]), 40148);
    expectError(() => run([], [{ $sortByCount: { a: 1 } }]), 40147);
  });
});

describe('$unwind', () => {
  test('the string form emits one document per element, dropping empty, null, and missing', () => {
    const out = run(people, [{ $unwind: '$tags' }]);
    assert.deepEqual(
      out.map((d) => [d._id, d.tags]),
      [
        [1, 'a'],
        [1, 'b'],
        [4, 'solo'],
      ],
    );
  });

  test('includeArrayIndex adds a Long index (null for non-arrays)', () => {
    const out = run(people, [{ $unwind: { path: '$tags', includeArrayIndex: 'i' } }]);
    isLong(out[0].i, 0n);
    isLong(out[1].i, 1n);
    assert.equal(out[2].i, null);
  });

  test('preserveNullAndEmptyArrays keeps documents: empty arrays lose the field, null stays null', () => {
    const input = [{ _id: 1, t: [] }, { _id: 2, t: null }, { _id: 3 }];
    const out = run(input, [{ $unwind: { path: '$t', preserveNullAndEmptyArrays: true, includeArrayIndex: 'i' } }]);
    assert.deepEqual(out, [
      { _id: 1, i: null },
      { _id: 2, t: null, i: null },
      { _id: 3, i: null },
    ]);
  });

  test('a dotted path unwinds an array inside a subdocument', () => {
    const out = run([{ _id: 1, a: { b: [1, 2], c: 0 } }], [{ $unwind: '$a.b' }]);
    assert.deepEqual(out, [
      { _id: 1, a: { b: 1, c: 0 } },
      { _id: 1, a: { b: 2, c: 0 } },
    ]);
  });

  test('a path through an array of documents is missing (no fan-out)', () => {
    assert.deepEqual(run([{ _id: 1, a: [{ b: [1] }] }], [{ $unwind: '$a.b' }]), []);
  });

  test('unwound documents do not share the element or the parent with each other', () => {
    const out = run([{ _id: 1, a: [{ x: 1 }, { x: 2 }] }], [{ $unwind: '$a' }]);
    (out[0].a as { x: number }).x = 99;
    assert.deepEqual(out[1].a, { x: 2 });
  });

  test('$unwind validates its specification', () => {
    expectError(() => run([], [{ $unwind: 'tags' }]), 28818);
    expectError(() => run([], [{ $unwind: { includeArrayIndex: 'i' } }]), 28812);
    expectError(() => run([], [{ $unwind: { path: '$a', bogus: 1 } }]), 28811);
    expectError(() => run([], [{ $unwind: { path: '$a', preserveNullAndEmptyArrays: 1 } }]), 28809);
    expectError(() => run([], [{ $unwind: { path: '$a', includeArrayIndex: '$i' } }]), 28822);
    expectError(() => run([], [{ $unwind: 5 }]), 15981);
  });
});

describe('$replaceRoot / $replaceWith', () => {
  test('$replaceRoot promotes a subdocument', () => {
    assert.deepEqual(run([{ _id: 1, a: { b: 2 } }], [{ $replaceRoot: { newRoot: '$a' } }]), [{ b: 2 }]);
  });

  test('$replaceWith takes the expression directly', () => {
    assert.deepEqual(run([{ _id: 1, a: 2 }], [{ $replaceWith: { x: '$a', y: '$$ROOT._id' } }]), [{ x: 2, y: 1 }]);
  });

  test('a non-object new root is error 40228', () => {
    expectError(
      () => run([{ _id: 1, a: 2 }], [{ $replaceRoot: { newRoot: '$a' } }]),
      40228,
      /Type of resulting value: 'double'/,
    );
    expectError(() => run([{ _id: 1 }], [{ $replaceWith: '$nope' }]), 40228, /'missing'/);
  });

  test('$replaceRoot rejects unknown fields and a missing newRoot', () => {
    expectError(() => run([], [{ $replaceRoot: { newRoot: '$a', x: 1 } }]), 40415);
    expectError(() => run([], [{ $replaceRoot: {} }]), 40414);
  });
});

describe('$facet', () => {
  test('runs each sub-pipeline over the same input and outputs one document', () => {
    const out = run(people, [
      { $facet: { count: [{ $count: 'n' }], oslo: [{ $match: { city: 'Oslo' } }, { $project: { _id: 1 } }] } },
    ]);
    assert.equal(out.length, 1);
    isInt32((out[0].count as Document[])[0].n, 4);
    assert.deepEqual(out[0].oslo, [{ _id: 1 }, { _id: 3 }]);
  });

  test('$facet rejects nested $facet and non-array values', () => {
    expectError(() => run([], [{ $facet: { a: [{ $facet: { b: [{ $limit: 1 }] } }] } }]), 40600);
    expectError(() => run([], [{ $facet: { a: 1 } }]), 40170);
    expectError(() => run([], [{ $facet: {} }]), 40169);
  });
});

describe('end-to-end', () => {
  test('a TTL-style report: group expiring documents per day', () => {
    const docs: Document[] = [
      { _id: 1, expireAt: new Date('2030-06-01T01:00:00Z'), size: new Int32(10) },
      { _id: 2, expireAt: new Date('2030-06-01T23:00:00Z'), size: new Int32(5) },
      { _id: 3, expireAt: new Date('2030-06-02T05:00:00Z'), size: new Int32(1) },
      { _id: 4, size: new Int32(100) },
    ];
    const out = run(docs, [
      { $match: { expireAt: { $exists: true } } },
      {
        $group: {
          _id: { $dateToString: { date: '$expireAt', format: '%Y-%m-%d' } },
          bytes: { $sum: '$size' },
          n: { $sum: new Int32(1) },
        },
      },
      { $sort: { _id: 1 } },
      { $project: { _id: 0, day: '$_id', bytes: 1, n: 1 } },
    ]);
    assert.equal(out.length, 2);
    assert.equal(out[0].day, '2030-06-01');
    isInt32(out[0].bytes, 15);
    isInt32(out[0].n, 2);
    assert.deepEqual(Object.keys(out[0]), ['bytes', 'n', 'day']);
  });
});
