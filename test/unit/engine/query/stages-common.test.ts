/** $bucket, $bucketAuto, $sample, $redact, $setWindowFields and collection-less $documents. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Int32 } from 'bson';
import { Engine, type Document } from '../../../../src/engine';
import { runPipeline } from '../../../../src/engine/query/aggregate';
import { expectError } from '../../helpers/expect-error';

const NOW = new Date('2030-06-01T12:00:00Z');
const run = (input: Document[], pipeline: Document[]): Document[] => runPipeline(input, pipeline, { now: NOW });
const nums = (...xs: number[]): Document[] => xs.map((x, i) => ({ _id: i, x }));

describe('$bucket and $bucketAuto', () => {
  it('$bucket: documents fall in [lower, upper) ranges, others in default; empty buckets are left out', () => {
    const out = run(nums(1, 5, 10, 25, 100), [
      {
        $bucket: {
          groupBy: '$x',
          boundaries: [0, 10, 20, 30],
          default: 'other',
          output: { n: { $sum: 1 }, xs: { $push: '$x' } },
        },
      },
    ]);
    assert.deepEqual(out, [
      { _id: 0, n: 2, xs: [1, 5] },
      { _id: 10, n: 1, xs: [10] },
      { _id: 20, n: 1, xs: [25] },
      { _id: 'other', n: 1, xs: [100] },
    ]);
  });

  it('$bucket: without output the count is an int; no default and no bucket is error 40066', () => {
    assert.deepEqual(run(nums(1), [{ $bucket: { groupBy: '$x', boundaries: [0, 5] } }]), [
      { _id: 0, count: new Int32(1) },
    ]);
    expectError(() => run(nums(9), [{ $bucket: { groupBy: '$x', boundaries: [0, 5] } }]), 40066);
  });

  it('$bucket: unsorted boundaries (40194), one boundary (40192) and a default inside the range (40199) are refused', () => {
    expectError(() => run([], [{ $bucket: { groupBy: '$x', boundaries: [5, 1] } }]), 40194);
    expectError(() => run([], [{ $bucket: { groupBy: '$x', boundaries: [5] } }]), 40192);
    expectError(() => run([], [{ $bucket: { groupBy: '$x', boundaries: [0, 10], default: 5 } }]), 40199);
  });

  it('$bucketAuto: splits sorted values into buckets of about equal size; the last max is the largest value', () => {
    const out = run(nums(4, 1, 3, 2, 6, 5), [{ $bucketAuto: { groupBy: '$x', buckets: 3 } }]);
    assert.deepEqual(out, [
      { _id: { min: 1, max: 3 }, count: new Int32(2) },
      { _id: { min: 3, max: 5 }, count: new Int32(2) },
      { _id: { min: 5, max: 6 }, count: new Int32(2) },
    ]);
  });

  it('$bucketAuto: equal values never straddle two buckets', () => {
    const out = run(nums(1, 1, 1, 2), [{ $bucketAuto: { groupBy: '$x', buckets: 2 } }]);
    assert.deepEqual(out[0], { _id: { min: 1, max: 2 }, count: new Int32(3) });
  });
});

describe('$sample and $redact', () => {
  it('$sample: returns size distinct input documents (all of them when fewer)', () => {
    const input = nums(...Array.from({ length: 50 }, (_, i) => i));
    const out = run(input, [{ $sample: { size: 10 } }]);
    assert.equal(out.length, 10);
    assert.equal(new Set(out.map((d) => d._id)).size, 10);
    assert.equal(run(nums(1, 2), [{ $sample: { size: 5 } }]).length, 2);
    expectError(() => run([], [{ $sample: { size: -1 } }]), 28747);
    expectError(() => run([], [{ $sample: {} }]), 28749);
  });

  it('$redact: $$PRUNE removes a level, $$DESCEND keeps looking, $$KEEP keeps a level whole', () => {
    const doc = { _id: 1, level: 1, a: { level: 5, secret: 1 }, b: [{ level: 1, ok: 1 }, { level: 9 }] };
    const out = run([doc], [{ $redact: { $cond: [{ $gt: ['$level', 3] }, '$$PRUNE', '$$DESCEND'] } }]);
    assert.deepEqual(out, [{ _id: 1, level: 1, b: [{ level: 1, ok: 1 }] }]);
    assert.deepEqual(run([doc], [{ $redact: '$$KEEP' }]), [doc]);
    expectError(() => run([doc], [{ $redact: 'x' }]), 17053);
  });
});

describe('$setWindowFields', () => {
  const sales = [
    { _id: 1, s: 'A', d: 1, q: 10 },
    { _id: 2, s: 'A', d: 2, q: 20 },
    { _id: 3, s: 'A', d: 3, q: 20 },
    { _id: 4, s: 'B', d: 1, q: 5 },
  ];

  it('$setWindowFields: a running sum over documents [unbounded, current], per partition, in sortBy order', () => {
    const out = run([...sales].reverse(), [
      {
        $setWindowFields: {
          partitionBy: '$s',
          sortBy: { d: 1 },
          output: { run: { $sum: '$q', window: { documents: ['unbounded', 'current'] } } },
        },
      },
    ]);
    assert.deepEqual(
      out.map((d) => [d._id, d.run]),
      [
        [1, 10],
        [2, 30],
        [3, 50],
        [4, 5],
      ],
    );
  });

  it('$setWindowFields: without a window the whole partition is used; a moving average over [-1, 1]', () => {
    const out = run(sales, [
      {
        $setWindowFields: {
          partitionBy: '$s',
          sortBy: { d: 1 },
          output: { total: { $sum: '$q' }, avg: { $avg: '$q', window: { documents: [-1, 1] } } },
        },
      },
    ]);
    assert.deepEqual(
      out.map((d) => [d.total, d.avg]),
      [
        [50, 15],
        [50, 50 / 3],
        [50, 20],
        [5, 5],
      ],
    );
  });

  it('$setWindowFields: range windows use the sortBy values', () => {
    const out = run(nums(1, 2, 4, 8), [
      { $setWindowFields: { sortBy: { x: 1 }, output: { near: { $push: '$x', window: { range: [-2, 0] } } } } },
    ]);
    assert.deepEqual(
      out.map((d) => d.near),
      [[1], [1, 2], [2, 4], [8]],
    );
  });

  it('$setWindowFields: $rank leaves gaps after ties, $denseRank does not, $documentNumber counts', () => {
    const out = run(sales.slice(0, 3), [
      {
        $setWindowFields: {
          sortBy: { q: 1 },
          output: { r: { $rank: {} }, dr: { $denseRank: {} }, n: { $documentNumber: {} } },
        },
      },
    ]);
    assert.deepEqual(
      out.map((d) => [d.r, d.dr, d.n]),
      [
        [new Int32(1), new Int32(1), new Int32(1)],
        [new Int32(2), new Int32(2), new Int32(2)],
        [new Int32(2), new Int32(2), new Int32(3)],
      ],
    );
    const four = run(nums(1, 2, 2, 3), [
      { $setWindowFields: { sortBy: { x: 1 }, output: { r: { $rank: {} }, dr: { $denseRank: {} } } } },
    ]);
    assert.deepEqual(
      four.map((d) => [d.r, d.dr]),
      [
        [new Int32(1), new Int32(1)],
        [new Int32(2), new Int32(2)],
        [new Int32(2), new Int32(2)],
        [new Int32(4), new Int32(3)],
      ],
    );
  });

  it('$setWindowFields: $shift reads a neighbour or the default; $locf carries the last value; $linearFill interpolates', () => {
    const input = [
      { _id: 1, t: 1, v: 10 },
      { _id: 2, t: 2, v: null },
      { _id: 3, t: 4, v: 40 },
    ];
    const out = run(input, [
      {
        $setWindowFields: {
          sortBy: { t: 1 },
          output: {
            prev: { $shift: { output: '$v', by: -1, default: 'none' } },
            carried: { $locf: '$v' },
            filled: { $linearFill: '$v' },
          },
        },
      },
    ]);
    assert.deepEqual(
      out.map((d) => [d.prev, d.carried, d.filled]),
      [
        ['none', 10, 10],
        [10, 10, 20],
        [null, 40, 40],
      ],
    );
  });

  it('$setWindowFields: $stdDevPop, $derivative and $integral over numeric sortBy values', () => {
    const out = run(nums(0, 2, 4), [
      {
        $setWindowFields: {
          sortBy: { _id: 1 },
          output: {
            sd: { $stdDevPop: '$x' },
            slope: { $derivative: { input: '$x' }, window: { documents: ['unbounded', 'current'] } },
            area: { $integral: { input: '$x' }, window: { documents: ['unbounded', 'current'] } },
          },
        },
      },
    ]);
    assert.equal(out[0].sd, Math.sqrt(8 / 3));
    assert.deepEqual(
      out.map((d) => [d.slope, d.area]),
      [
        [null, 0],
        [2, 1],
        [2, 4],
      ],
    );
  });

  it('$setWindowFields: an unknown window function is 5397900; $rank without one sortBy field is refused', () => {
    expectError(() => run([], [{ $setWindowFields: { output: { a: { $bogus: 1 } } } }]), 5397900);
    expectError(() => run([], [{ $setWindowFields: { output: { a: { $rank: {} } } } }]), 5371602);
  });
});

describe('$documents', () => {
  it('$documents: {aggregate: 1} runs over the given documents; it must come first (40602)', () => {
    const engine = new Engine();
    const reply = engine.runCommand('app', {
      aggregate: 1,
      pipeline: [{ $documents: [{ a: 1 }, { a: 2 }] }, { $match: { a: 2 } }],
      cursor: {},
    });
    assert.deepEqual((reply.cursor as Document).firstBatch, [{ a: 2 }]);
    expectError(() => run([], [{ $match: {} }, { $documents: [] }]), 40602);
    expectError(() => run([], [{ $documents: 5 }]), 5858203);
  });
});

describe('$_internalSplitPipeline', () => {
  it('$_internalSplitPipeline: on one server documents pass through; the spec is still checked', () => {
    for (const mergeType of ['localOnly', 'anyShard', 'mongos'])
      assert.deepEqual(run(nums(3, 1), [{ $_internalSplitPipeline: { mergeType } }, { $sort: { x: 1 } }]), [
        { _id: 1, x: 1 },
        { _id: 0, x: 3 },
      ]);
    assert.deepEqual(run(nums(3), [{ $_internalSplitPipeline: {} }]), [{ _id: 0, x: 3 }]);
    expectError(() => run([], [{ $_internalSplitPipeline: 1 }]), 14);
    expectError(() => run([], [{ $_internalSplitPipeline: { mergeType: 'nowhere' } }]), 2);
    expectError(() => run([], [{ $_internalSplitPipeline: { other: 1 } }]), 2);
    expectError(() => run([], [{ $_internalSplitPipeline: { mergeType: { specificShard: 's0' } } }]), 7958301);
    expectError(() => run([], [{ $_internalSplitPipeline: { mergeType: { specificShard: 1 } } }]), 7958300);
  });
});

describe('dependency analysis', () => {
  it("$match: a path part starting with '$' after $limit, $skip or $sample fails with 16410 once a later stage names its outputs", () => {
    const docs = [{ _id: 1, a: 1 }];
    for (const barrier of [{ $limit: 10 }, { $skip: 0 }, { $sample: { size: 5 } }])
      expectError(
        () => run(docs, [barrier, { $match: { 'a.$c': 4 } }, { $project: { x: '$dummy' } }]),
        16410,
        /FieldPath field names may not start with '\$'/,
      );
    expectError(
      () => run(docs, [{ $limit: 1 }, { $match: { $or: [{ 'a.$c': 4 }] } }, { $group: { _id: null } }]),
      16410,
    );
    // Taken by the query layer (first), or with every field still needed: no projection, no error.
    assert.deepEqual(run(docs, [{ $match: { 'a.$c': 4 } }, { $project: { x: 1 } }]), []);
    assert.deepEqual(run(docs, [{ $limit: 10 }, { $match: { 'a.$c': 4 } }]), []);
    assert.deepEqual(run(docs, [{ $limit: 10 }, { $match: { 'a.$c': 4 } }, { $project: { a: 0 } }]), []);
  });
});
