/**
 * $lookup, $unionWith and $graphLookup through the aggregate command: they read other collections
 * of the same engine, through the planner (an index on the foreign field is used).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Int32, Long } from 'bson';
import { Engine, type Document } from '../../../../src/engine';
import { expectError } from '../../helpers/expect-error';

const DB = 'app';

function agg(engine: Engine, coll: string, pipeline: Document[]): Document[] {
  const reply = engine.runCommand(DB, { aggregate: coll, pipeline, cursor: {} });
  return (reply.cursor as Document).firstBatch as Document[];
}

function seed(engine: Engine, coll: string, docs: Document[]): void {
  engine.runCommand(DB, { insert: coll, documents: docs });
}

function ids(docs: unknown): unknown[] {
  return (docs as Document[]).map((d) => d._id);
}

function nullSemanticsEngine(): Engine {
  const engine = new Engine();
  seed(engine, 'local', [{ _id: 0 }, { _id: 1, a: null }, { _id: 2, a: 9 }, { _id: 3, a: [null, 9] }]);
  seed(engine, 'foreign', [
    { _id: 0 },
    { _id: 1, b: null },
    { _id: 3, b: 9 },
    { _id: 4, b: [null, 9] },
    { _id: 5, b: 42 },
    { _id: 7, b: [9, 10] },
  ]);
  return engine;
}

describe('$lookup, equality form', () => {
  it('$lookup: null and missing local values find null, missing and arrays holding null', () => {
    const engine = nullSemanticsEngine();
    const out = agg(engine, 'local', [
      { $lookup: { from: 'foreign', localField: 'a', foreignField: 'b', as: 'r' } },
      { $sort: { _id: 1 } },
    ]);
    assert.deepEqual(ids(out[0].r), [0, 1, 4]);
    assert.deepEqual(ids(out[1].r), [0, 1, 4]);
    assert.deepEqual(ids(out[2].r), [3, 4, 7]);
    // An array on the local side matches by its elements.
    assert.deepEqual(ids(out[3].r).sort(), [0, 1, 3, 4, 7]);
  });

  it('$lookup: the same answers with an index on the foreign field, and the index is used (no scan)', () => {
    const engine = nullSemanticsEngine();
    engine.runCommand(DB, { createIndexes: 'foreign', indexes: [{ key: { b: 1 }, name: 'b_1' }] });
    const coll = engine.getCollection(DB, 'foreign')!;
    const scan = coll.scanRecords.bind(coll);
    let scans = 0;
    coll.scanRecords = () => {
      scans++;
      return scan();
    };
    const out = agg(engine, 'local', [
      { $lookup: { from: 'foreign', localField: 'a', foreignField: 'b', as: 'r' } },
      { $sort: { _id: 1 } },
    ]);
    assert.deepEqual(ids(out[2].r).sort(), [3, 4, 7]);
    assert.deepEqual(ids(out[0].r).sort(), [0, 1, 4]);
    assert.equal(scans, 0, 'the foreign collection was scanned');
  });

  it('$lookup: a document with no match gets an empty array, and a missing foreign collection matches nothing', () => {
    const engine = new Engine();
    seed(engine, 'orders', [{ _id: 1, item: 'x' }]);
    const out = agg(engine, 'orders', [
      { $lookup: { from: 'nothere', localField: 'item', foreignField: 'sku', as: 'inv' } },
    ]);
    assert.deepEqual(out, [{ _id: 1, item: 'x', inv: [] }]);
  });

  it('$lookup: a dotted "as" creates the path, replacing a scalar on it', () => {
    const engine = new Engine();
    seed(engine, 'l', [{ _id: 1, k: 2, x: 5 }]);
    seed(engine, 'f', [{ _id: 7, k: 2 }]);
    const out = agg(engine, 'l', [{ $lookup: { from: 'f', localField: 'k', foreignField: 'k', as: 'x.y' } }]);
    assert.deepEqual(out, [{ _id: 1, k: 2, x: { y: [{ _id: 7, k: 2 }] } }]);
  });

  it('$lookup: a regex local value is compared as a value, not used as a pattern', () => {
    const engine = new Engine();
    seed(engine, 'l', [{ _id: 1, k: [/^a/, 'zz'] }]);
    seed(engine, 'f', [
      { _id: 1, k: 'abc' },
      { _id: 2, k: /^a/ },
      { _id: 3, k: 'zz' },
    ]);
    const out = agg(engine, 'l', [{ $lookup: { from: 'f', localField: 'k', foreignField: 'k', as: 'r' } }]);
    assert.deepEqual(ids(out[0].r).sort(), [2, 3]);
  });
});

describe('$lookup, pipeline forms', () => {
  function engineWithOrders(): Engine {
    const engine = new Engine();
    seed(engine, 'orders', [
      { _id: 1, item: 'almonds', qty: 2 },
      { _id: 2, item: 'pecans', qty: 20 },
    ]);
    seed(engine, 'stock', [
      { _id: 1, sku: 'almonds', instock: 1 },
      { _id: 2, sku: 'almonds', instock: 10 },
      { _id: 3, sku: 'pecans', instock: 30 },
    ]);
    return engine;
  }

  it('$lookup: an inner $let, $map or nested $lookup `let` may redefine an outer let variable', () => {
    const engine = engineWithOrders();
    const out = agg(engine, 'orders', [
      { $match: { _id: 1 } },
      {
        $lookup: {
          from: 'stock',
          let: { v: '$qty' },
          pipeline: [
            { $match: { _id: 1 } },
            {
              $project: {
                _id: 0,
                outer: '$$v',
                shadowedByLet: { $let: { vars: { v: 'inner' }, in: '$$v' } },
                shadowedByMap: { $map: { input: [7], as: 'v', in: '$$v' } },
              },
            },
            {
              $lookup: {
                from: 'orders',
                let: { v: 'nested' },
                pipeline: [{ $match: { _id: 1 } }, { $project: { _id: 0, v: '$$v' } }],
                as: 'deeper',
              },
            },
          ],
          as: 'r',
        },
      },
    ]);
    assert.deepEqual(out[0].r, [{ outer: 2, shadowedByLet: 'inner', shadowedByMap: [7], deeper: [{ v: 'nested' }] }]);
  });

  it('$lookup: let variables reach a correlated sub-pipeline through $expr', () => {
    const engine = engineWithOrders();
    const out = agg(engine, 'orders', [
      {
        $lookup: {
          from: 'stock',
          let: { want: '$item', need: '$qty' },
          pipeline: [
            { $match: { $expr: { $and: [{ $eq: ['$sku', '$$want'] }, { $gte: ['$instock', '$$need'] }] } } },
            { $project: { _id: 1 } },
          ],
          as: 'ok',
        },
      },
    ]);
    assert.deepEqual(
      out.map((d) => d.ok),
      [[{ _id: 2 }], [{ _id: 3 }]],
    );
  });

  it('$lookup: an uncorrelated pipeline gives every document the same results', () => {
    const engine = engineWithOrders();
    const out = agg(engine, 'orders', [
      { $lookup: { from: 'stock', pipeline: [{ $match: { instock: { $gt: 5 } } }, { $count: 'n' }], as: 'c' } },
    ]);
    assert.deepEqual(
      out.map((d) => d.c),
      [[{ n: new Int32(2) }], [{ n: new Int32(2) }]],
    );
  });

  it('$lookup: localField/foreignField with a pipeline applies the equality first, then the pipeline', () => {
    const engine = engineWithOrders();
    const out = agg(engine, 'orders', [
      {
        $lookup: {
          from: 'stock',
          localField: 'item',
          foreignField: 'sku',
          let: { need: '$qty' },
          pipeline: [{ $match: { $expr: { $gte: ['$instock', '$$need'] } } }],
          as: 'ok',
        },
      },
    ]);
    assert.deepEqual(
      out.map((d) => ids(d.ok)),
      [[2], [3]],
    );
  });

  it('$lookup: without "from", the sub-pipeline starts with $documents', () => {
    const engine = engineWithOrders();
    const out = agg(engine, 'orders', [
      { $match: { _id: 1 } },
      { $lookup: { pipeline: [{ $documents: [{ x: 1 }, { x: 2 }] }], as: 'd' } },
    ]);
    assert.deepEqual(out[0].d, [{ x: 1 }, { x: 2 }]);
    expectError(
      () => agg(engine, 'orders', [{ $lookup: { pipeline: [{ $match: {} }], as: 'd' } }]),
      9,
      /\$documents as first stage/,
    );
  });

  it('$lookup: $out and $merge are refused inside its pipeline with 51047', () => {
    const engine = engineWithOrders();
    expectError(
      () => agg(engine, 'orders', [{ $lookup: { from: 'stock', pipeline: [{ $out: 'x' }], as: 'r' } }]),
      51047,
      "$out is not allowed within a $lookup's sub-pipeline",
    );
  });

  it("$lookup: a $merge or $out that is not the sub-pipeline's last stage is 40601 before it is 51047", () => {
    const engine = engineWithOrders();
    for (const write of [{ $out: 'x' }, { $merge: { into: 'x', on: '_id' } }]) {
      const pipeline = [write, { $match: { x: true } }];
      expectError(() => agg(engine, 'orders', [{ $lookup: { from: 'stock', pipeline, as: 'r' } }]), 40601);
      expectError(() => agg(engine, 'orders', [{ $unionWith: { coll: 'stock', pipeline } }]), 40601);
      expectError(() => agg(engine, 'orders', [{ $lookup: { from: 'stock', pipeline: [write], as: 'r' } }]), 51047);
    }
  });

  it('$lookup: malformed specifications fail with FailedToParse before any document is read', () => {
    const engine = engineWithOrders();
    expectError(() => agg(engine, 'orders', [{ $lookup: 'stock' }]), 9, /must be an Object/);
    expectError(
      () => agg(engine, 'orders', [{ $lookup: { from: 'stock', localField: 'a', foreignField: 'b' } }]),
      9,
      /must specify 'as'/,
    );
    expectError(
      () => agg(engine, 'orders', [{ $lookup: { from: 'stock', localField: 'a', as: 'r' } }]),
      9,
      /requires either 'pipeline' or both/,
    );
    expectError(
      () =>
        agg(engine, 'orders', [{ $lookup: { from: 'stock', localField: 'a', foreignField: 'b', let: {}, as: 'r' } }]),
      9,
      /'let' argument must also specify 'pipeline'/,
    );
    expectError(
      () =>
        agg(engine, 'orders', [
          { $lookup: { from: 'stock', localField: 'a', foreignField: 'b', as: 'r', bogus: 'x' } },
        ]),
      9,
      /unknown argument to \$lookup: bogus/,
    );
    expectError(
      () => agg(engine, 'orders', [{ $lookup: { from: 1, localField: 'a', foreignField: 'b', as: 'r' } }]),
      9,
      /'from' field must be a string/,
    );
  });
});

describe('sub-pipeline depth', () => {
  function nested(from: string, levels: number): Document[] {
    let pipeline: Document[] = [{ $lookup: { from, pipeline: [], as: 'same' } }];
    for (let i = 1; i < levels; i++) pipeline = [{ $lookup: { from, pipeline, as: 'same' } }];
    return pipeline;
  }

  it('$lookup: 20 nested sub-pipelines run, 21 are refused with 232 MaxSubPipelineDepthExceeded', () => {
    const engine = new Engine();
    seed(engine, 'c', [{ _id: 1 }]);
    assert.equal(agg(engine, 'c', nested('c', 20)).length, 1);
    expectError(() => agg(engine, 'c', nested('c', 21)), 232, /Limit is 20/);
    expectError(() => agg(engine, 'c', [{ $unionWith: { coll: 'c', pipeline: nested('c', 20) } }]), 232);
  });

  it('$lookup and $unionWith: a pipeline that is not an array is 14 TypeMismatch', () => {
    const engine = new Engine();
    for (const pipeline of [1, {}]) {
      expectError(
        () => agg(engine, 'c', [{ $lookup: { from: 'c', pipeline, as: 'x' } }]),
        14,
        /must be specified as an array/,
      );
      expectError(() => agg(engine, 'c', [{ $unionWith: { coll: 'c', pipeline } }]), 14);
    }
  });

  it('$lookup: the pipelines of views it reads count toward the depth of 20', () => {
    const engine = new Engine();
    seed(engine, 'c', [{ _id: 1 }]);
    engine.runCommand(DB, { create: 'v1', viewOn: 'c', pipeline: nested('c', 10) });
    engine.runCommand(DB, { create: 'v2', viewOn: 'v1', pipeline: nested('v1', 10) });
    assert.equal(agg(engine, 'v2', []).length, 1);
    engine.runCommand(DB, { create: 'v3', viewOn: 'v2', pipeline: nested('v2', 1) });
    expectError(() => agg(engine, 'v3', []), 232);
    // Counted while parsing, as mongod resolves views: even over an empty collection.
    engine.runCommand(DB, { delete: 'c', deletes: [{ q: {}, limit: 0 }] });
    expectError(() => agg(engine, 'v3', []), 232);
  });
});

describe('$unionWith', () => {
  it('$unionWith: the other collection’s documents follow the input, through its pipeline', () => {
    const engine = new Engine();
    seed(engine, 'a', [{ _id: 1, v: 1 }]);
    seed(engine, 'b', [
      { _id: 2, v: 2 },
      { _id: 3, v: 3 },
    ]);
    assert.deepEqual(ids(agg(engine, 'a', [{ $unionWith: 'b' }])), [1, 2, 3]);
    assert.deepEqual(ids(agg(engine, 'a', [{ $unionWith: { coll: 'b', pipeline: [{ $match: { v: 3 } }] } }])), [1, 3]);
  });

  it('$unionWith: a missing collection adds nothing; $documents alone needs no collection', () => {
    const engine = new Engine();
    seed(engine, 'a', [{ _id: 1 }]);
    assert.deepEqual(ids(agg(engine, 'a', [{ $unionWith: 'none' }])), [1]);
    assert.deepEqual(agg(engine, 'a', [{ $unionWith: { pipeline: [{ $documents: [{ z: 1 }] }] } }]), [
      { _id: 1 },
      { z: 1 },
    ]);
  });

  it('$unionWith: $out inside is refused with 31441, an unknown field with 40415', () => {
    const engine = new Engine();
    seed(engine, 'a', [{ _id: 1 }]);
    expectError(() => agg(engine, 'a', [{ $unionWith: { coll: 'b', pipeline: [{ $out: 'c' }] } }]), 31441);
    expectError(() => agg(engine, 'a', [{ $unionWith: { coll: 'b', x: 1 } }]), 40415);
  });
});

describe('$graphLookup', () => {
  function employees(): Engine {
    const engine = new Engine();
    seed(engine, 'emp', [
      { _id: 1, name: 'Dev' },
      { _id: 2, name: 'Eliot', reportsTo: 'Dev' },
      { _id: 3, name: 'Ron', reportsTo: 'Eliot' },
      { _id: 4, name: 'Andrew', reportsTo: 'Eliot' },
      { _id: 5, name: 'Asya', reportsTo: 'Ron' },
      { _id: 6, name: 'Dan', reportsTo: 'Andrew' },
    ]);
    return engine;
  }
  const base = {
    from: 'emp',
    startWith: '$reportsTo',
    connectFromField: 'reportsTo',
    connectToField: 'name',
    as: 'chain',
  };

  it('$graphLookup: follows connectFromField to connectToField until the chain ends', () => {
    const out = agg(employees(), 'emp', [{ $match: { _id: 5 } }, { $graphLookup: base }]);
    assert.deepEqual(ids(out[0].chain), [3, 2, 1]);
  });

  it('$graphLookup: maxDepth 0 stops after the first lookup; depthField records the depth as a long', () => {
    const out = agg(employees(), 'emp', [
      { $match: { _id: 5 } },
      { $graphLookup: { ...base, maxDepth: 1, depthField: 'd' } },
    ]);
    assert.deepEqual(
      (out[0].chain as Document[]).map((d) => [d._id, d.d]),
      [
        [3, Long.fromNumber(0)],
        [2, Long.fromNumber(1)],
      ],
    );
    const zero = agg(employees(), 'emp', [{ $match: { _id: 5 } }, { $graphLookup: { ...base, maxDepth: 0 } }]);
    assert.deepEqual(ids(zero[0].chain), [3]);
  });

  it('$graphLookup: restrictSearchWithMatch filters every step, and a cycle ends the search', () => {
    const engine = employees();
    const out = agg(engine, 'emp', [
      { $match: { _id: 5 } },
      { $graphLookup: { ...base, restrictSearchWithMatch: { name: { $ne: 'Eliot' } } } },
    ]);
    assert.deepEqual(ids(out[0].chain), [3]);
    seed(engine, 'ring', [
      { _id: 1, n: 'a', next: 'b' },
      { _id: 2, n: 'b', next: 'a' },
    ]);
    const ring = agg(engine, 'ring', [
      { $match: { _id: 1 } },
      { $graphLookup: { from: 'ring', startWith: '$next', connectFromField: 'next', connectToField: 'n', as: 'r' } },
    ]);
    assert.deepEqual(ids(ring[0].r), [2, 1]);
  });

  it('$graphLookup: argument errors carry mongod’s codes', () => {
    const engine = employees();
    expectError(() => agg(engine, 'emp', [{ $graphLookup: { ...base, maxDepth: -1 } }]), 40101);
    expectError(() => agg(engine, 'emp', [{ $graphLookup: { ...base, maxDepth: 'x' } }]), 40100);
    expectError(() => agg(engine, 'emp', [{ $graphLookup: { ...base, bogus: 1 } }]), 40104);
    expectError(() => agg(engine, 'emp', [{ $graphLookup: { from: 'emp', as: 'x' } }]), 40105);
    expectError(() => agg(engine, 'emp', [{ $graphLookup: { ...base, restrictSearchWithMatch: 1 } }]), 40185);
  });
});
