import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ACCUMULATOR_NAMES, REFUSED_ACCUMULATOR_OPERATORS } from '../../../../../src/engine/query/expressions';
import { parseAccumulator } from '../../../../../src/engine/query/stages/accumulators';
import type { Document } from '../../../../../src/engine/values/types';
import { expectError } from '../../../helpers/expect-error';
import { aggregate, assertDouble, ev, int } from './helpers';

const scores: Document[] = [
  { _id: 1, team: 'a', player: 'p1', score: int(10) },
  { _id: 2, team: 'a', player: 'p2', score: int(30) },
  { _id: 3, team: 'a', player: 'p3', score: int(20) },
  { _id: 4, team: 'b', player: 'p4', score: null },
  { _id: 5, team: 'b', player: 'p5', score: int(5) },
];

function group(spec: Document): Document[] {
  return aggregate(scores, [{ $group: { _id: '$team', ...spec } }, { $sort: { _id: 1 } }]);
}

describe('$group accumulators with a specification', () => {
  test('$topN / $bottomN keep n outputs in sortBy order; $top / $bottom one', () => {
    const [a, b] = group({
      best: { $topN: { n: 2, sortBy: { score: -1 }, output: '$player' } },
      worst: { $bottomN: { n: 2, sortBy: { score: -1 }, output: '$player' } },
      top: { $top: { sortBy: { score: -1 }, output: ['$player', '$score'] } },
      bottom: { $bottom: { sortBy: { score: -1 }, output: '$player' } },
    });
    assert.deepEqual([a.best, a.worst, a.bottom], [['p2', 'p3'], ['p3', 'p1'], 'p1']);
    assert.deepEqual(a.top, ['p2', int(30)]);
    // null sorts lowest: with score descending it comes last.
    assert.deepEqual([b.best, b.bottom], [['p5', 'p4'], 'p4']);
  });

  test('$firstN / $lastN keep arrival order, missing as null; $minN / $maxN skip null', () => {
    const [a, b] = group({
      first: { $firstN: { n: 2, input: '$score' } },
      last: { $lastN: { n: 5, input: '$nope' } },
      max: { $maxN: { n: 2, input: '$score' } },
      min: { $minN: { n: 2, input: '$score' } },
    });
    assert.deepEqual(a.first, [int(10), int(30)]);
    assert.deepEqual(a.last, [null, null, null]);
    assert.deepEqual(a.max, [int(30), int(20)]);
    assert.deepEqual(b.min, [int(5)]);
  });

  test('$median and $percentile (approximate) answer doubles from the numeric values', () => {
    const [a, b] = group({
      median: { $median: { input: '$score', method: 'approximate' } },
      pct: { $percentile: { input: '$score', p: [0, 0.5, 0.9, 1], method: 'approximate' } },
    });
    assertDouble(a.median, 20);
    assert.deepEqual(a.pct, [10, 20, 30, 30]);
    assertDouble(b.median, 5);
  });

  test('$stdDevPop and $stdDevSamp ignore non-numbers; too few values answer null', () => {
    const [a, b] = group({ pop: { $stdDevPop: '$score' }, samp: { $stdDevSamp: '$score' }, n: { $count: {} } });
    assertDouble(a.pop, Math.sqrt(200 / 3), 1e-12);
    assertDouble(a.samp, 10, 1e-12);
    assert.equal(b.samp, null);
    assertDouble(b.pop, 0);
    assert.deepEqual(b.n, int(2));
  });

  test("'n' may use the group key when the stage passes it to make", () => {
    const spec = parseAccumulator('xs', { $firstN: { n: '$_id', input: '$v' } });
    const acc = spec.make(int(2));
    for (const v of [1, 2, 3]) acc.add(spec.input({ v }));
    assert.deepEqual(acc.result(), [1, 2]);
  });

  test('specification errors: 5787900/5787906 (n forms), 5788001-5788005 (top/bottom), 40414/7750301-7750303 and 2 (percentile)', () => {
    expectError(() => group({ x: { $firstN: 3 } }), 5787900);
    expectError(() => group({ x: { $maxN: { input: '$score' } } }), 5787906);
    expectError(() => group({ x: { $firstN: { n: 0, input: '$score' } } }), 5787908);
    expectError(() => group({ x: { $topN: 1 } }), 5788001);
    expectError(() => group({ x: { $top: { n: 1, sortBy: { a: 1 }, output: 1 } } }), 5788002);
    expectError(() => group({ x: { $topN: { sortBy: { a: 1 }, output: 1 } } }), 5788003);
    expectError(() => group({ x: { $topN: { n: 1, sortBy: { a: 1 } } } }), 5788004);
    expectError(() => group({ x: { $bottomN: { n: 1, output: 1 } } }), 5788005);
    expectError(() => group({ x: { $median: { input: '$score' } } }), 40414);
    expectError(() => group({ x: { $percentile: { input: '$score', p: [], method: 'approximate' } } }), 7750301);
    expectError(() => group({ x: { $percentile: { input: '$score', p: ['a'], method: 'approximate' } } }), 7750302);
    expectError(() => group({ x: { $percentile: { input: '$score', p: [1.5], method: 'approximate' } } }), 7750303);
    expectError(() => group({ x: { $median: { input: '$score', method: 'exact' } } }), 2);
  });

  test('$accumulator is refused with 31264: no server-side JavaScript', () => {
    expectError(() => group({ x: { $accumulator: { init: 'function() {}' } } }), 31264, /javascript/);
    assert.deepEqual(
      REFUSED_ACCUMULATOR_OPERATORS.map((r) => r.name),
      ['$accumulator'],
    );
  });

  test('ACCUMULATOR_NAMES lists every $group accumulator', () => {
    for (const name of [
      '$sum',
      '$count',
      '$topN',
      '$bottom',
      '$firstN',
      '$minN',
      '$median',
      '$percentile',
      '$stdDevSamp',
      '$mergeObjects',
    ])
      assert.ok(ACCUMULATOR_NAMES.includes(name), name);
    assert.ok(!ACCUMULATOR_NAMES.includes('$accumulator'));
  });
});

describe('accumulators as window functions and expressions', () => {
  test('$topN over a $setWindowFields window', () => {
    const out = aggregate(scores.slice(0, 3), [
      {
        $setWindowFields: {
          sortBy: { _id: 1 },
          output: {
            best: { $topN: { n: 1, sortBy: { score: -1 }, output: '$player' }, window: { documents: [-1, 0] } },
          },
        },
      },
    ]);
    assert.deepEqual(
      out.map((d) => d.best),
      [['p1'], ['p2'], ['p2']],
    );
  });

  test('$stdDevPop, $median and $percentile as expressions over an array', () => {
    assertDouble(ev({ $stdDevPop: [{ $literal: [2, 4, 4, 4, 5, 5, 7, 9] }] }), 2);
    assertDouble(ev({ $median: { input: { $literal: [3, 'x', 1, 2] }, method: 'approximate' } }), 2);
    assert.deepEqual(ev({ $percentile: { input: 7, p: [0.1, 0.9], method: 'approximate' } }), [7, 7]);
    assert.deepEqual(ev({ $percentile: { input: { $literal: [] }, p: [0.5], method: 'approximate' } }), [null]);
  });
});
