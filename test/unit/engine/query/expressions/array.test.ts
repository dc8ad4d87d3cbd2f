import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { expectError } from '../../../helpers/expect-error';
import { aggregate, assertInt, ev, int } from './helpers';

const lit = (v: unknown): unknown => ({ $literal: v });

describe('$objectToArray and $arrayToObject', () => {
  test('$objectToArray lists {k, v} pairs in field order; null answers null; non-documents are 40390', () => {
    assert.deepEqual(ev({ $objectToArray: '$o' }, { o: { a: 1, b: { c: 2 } } }), [
      { k: 'a', v: 1 },
      { k: 'b', v: { c: 2 } },
    ]);
    assert.equal(ev({ $objectToArray: '$nope' }), null);
    expectError(() => ev({ $objectToArray: [[1]] }), 40390, '$objectToArray requires a document input, found: array');
  });

  test('$arrayToObject takes [k, v] pairs or {k, v} documents; a repeated key keeps the last value', () => {
    assert.deepEqual(
      ev({
        $arrayToObject: lit([
          ['a', 1],
          ['b', 2],
          ['a', 3],
        ]),
      }),
      { a: 3, b: 2 },
    );
    assert.deepEqual(ev({ $arrayToObject: lit([{ k: 'x', v: true }]) }), { x: true });
    assert.deepEqual(ev({ $arrayToObject: lit([]) }), {});
    assert.equal(ev({ $arrayToObject: null }), null);
  });

  test('$arrayToObject refuses mixed and malformed input with mongod codes', () => {
    expectError(() => ev({ $arrayToObject: 'x' }), 40386, '$arrayToObject requires an array input, found: string');
    expectError(() => ev({ $arrayToObject: lit([1]) }), 40398);
    expectError(() => ev({ $arrayToObject: lit([['a', 1], { k: 'b', v: 2 }]) }), 40396);
    expectError(() => ev({ $arrayToObject: lit([['a']]) }), 40397);
    expectError(() => ev({ $arrayToObject: lit([[1, 2]]) }), 40395);
    expectError(() => ev({ $arrayToObject: lit([{ k: 'a', v: 1 }, ['b', 2]]) }), 40391);
    expectError(() => ev({ $arrayToObject: lit([{ k: 'a' }]) }), 40392);
    expectError(() => ev({ $arrayToObject: lit([{ k: 'a', x: 1 }]) }), 40393);
    expectError(() => ev({ $arrayToObject: lit([{ k: 1, v: 1 }]) }), 40394);
    expectError(() => ev({ $arrayToObject: lit([['a\0b', 1]]) }), 4940400);
  });
});

describe('$indexOfArray, $range, $reverseArray, $slice', () => {
  test('$indexOfArray finds the first equal element in [start, end), -1 when absent, as an int', () => {
    assertInt(ev({ $indexOfArray: [lit([1, 2, 3, 2]), 2] }), 1);
    assertInt(ev({ $indexOfArray: [lit([1, 2, 3, 2]), 2, 2] }), 3);
    assertInt(ev({ $indexOfArray: [lit([1, 2, 3, 2]), 2, 2, 3] }), -1);
    assertInt(ev({ $indexOfArray: [lit([1, int(2)]), 2] }), 1);
    assert.equal(ev({ $indexOfArray: [null, 2] }), null);
  });

  test('$indexOfArray errors: 40090 not an array, 40096 non-integral index, 40097 negative, 28667 arity', () => {
    expectError(() => ev({ $indexOfArray: ['x', 1] }), 40090);
    expectError(() => ev({ $indexOfArray: [lit([1]), 1, 1.5] }), 40096);
    expectError(() => ev({ $indexOfArray: [lit([1]), 1, -1] }), 40097);
    expectError(() => ev({ $indexOfArray: [lit([1])] }), 28667);
  });

  test('$range counts up or down by the step, answering ints', () => {
    const r = ev({ $range: [0, 10, 3] }) as unknown[];
    assert.deepEqual(
      r.map((x) => (x as { value: number }).value),
      [0, 3, 6, 9],
    );
    assertInt(r[0], 0);
    assert.deepEqual(
      (ev({ $range: [5, 0, -2] }) as { value: number }[]).map((x) => x.value),
      [5, 3, 1],
    );
    assert.deepEqual(ev({ $range: [5, 0] }), []);
  });

  test('$range errors: 34443/34444 start, 34445/34446 end, 34447/34448/34449 step', () => {
    expectError(() => ev({ $range: ['a', 1] }), 34443);
    expectError(() => ev({ $range: [0.5, 1] }), 34444);
    expectError(() => ev({ $range: [0, 'b'] }), 34445);
    expectError(() => ev({ $range: [0, 2 ** 40] }), 34446);
    expectError(() => ev({ $range: [0, 1, 'c'] }), 34447);
    expectError(() => ev({ $range: [0, 1, 0.5] }), 34448);
    expectError(() => ev({ $range: [0, 1, 0] }), 34449, '$range requires a non-zero step value');
  });

  test('$reverseArray reverses, null answers null, a non-array is 34435', () => {
    assert.deepEqual(ev({ $reverseArray: lit([1, 2, 3]) }), [3, 2, 1]);
    assert.equal(ev({ $reverseArray: '$nope' }), null);
    expectError(() => ev({ $reverseArray: 1 }), 34435);
  });

  test('$slice takes n from the front (or -n from the back), or n from a position', () => {
    const a = lit([1, 2, 3, 4, 5]);
    assert.deepEqual(ev({ $slice: [a, 2] }), [1, 2]);
    assert.deepEqual(ev({ $slice: [a, -2] }), [4, 5]);
    assert.deepEqual(ev({ $slice: [a, 1, 2] }), [2, 3]);
    assert.deepEqual(ev({ $slice: [a, -2, 5] }), [4, 5]);
    assert.deepEqual(ev({ $slice: [a, 10, 1] }), []);
    assert.equal(ev({ $slice: [null, 1] }), null);
  });

  test('$slice errors: 28724 array, 28725/28726 position, 28727/28728/28729 count', () => {
    expectError(() => ev({ $slice: ['x', 1] }), 28724);
    expectError(() => ev({ $slice: [lit([1]), 'x'] }), 28725);
    expectError(() => ev({ $slice: [lit([1]), 1.5] }), 28726);
    expectError(() => ev({ $slice: [lit([1]), 0, 'x'] }), 28727);
    expectError(() => ev({ $slice: [lit([1]), 0, 1.5] }), 28728);
    expectError(() => ev({ $slice: [lit([1]), 0, 0] }), 28729);
  });
});

describe('$reduce and $zip', () => {
  test('$reduce folds with $$value and $$this; null input answers null', () => {
    assert.equal(ev({ $reduce: { input: lit([1, 2, 3]), initialValue: 0, in: { $add: ['$$value', '$$this'] } } }), 6);
    assert.equal(
      ev({ $reduce: { input: lit(['a', 'b']), initialValue: '', in: { $concat: ['$$value', '$$this'] } } }),
      'ab',
    );
    assert.equal(ev({ $reduce: { input: null, initialValue: 0, in: 1 } }), null);
  });

  test('$reduce errors: 40075 not an object, 40076 unknown field, 40077 missing field, 40080 not an array', () => {
    expectError(() => ev({ $reduce: 1 }), 40075);
    expectError(() => ev({ $reduce: { input: [], initialValue: 0, in: 1, x: 1 } }), 40076);
    expectError(() => ev({ $reduce: { input: [], in: 1 } }), 40078);
    expectError(() => ev({ $reduce: { input: 'x', initialValue: 0, in: 1 } }), 40080);
  });

  test('$zip transposes to the shortest input, or the longest with defaults', () => {
    assert.deepEqual(ev({ $zip: { inputs: [lit([1, 2]), lit(['a'])] } }), [[1, 'a']]);
    assert.deepEqual(ev({ $zip: { inputs: [lit([1, 2]), lit(['a'])], useLongestLength: true } }), [
      [1, 'a'],
      [2, null],
    ]);
    assert.deepEqual(ev({ $zip: { inputs: [lit([1, 2]), lit(['a'])], useLongestLength: true, defaults: [0, 'z'] } }), [
      [1, 'a'],
      [2, 'z'],
    ]);
    assert.equal(ev({ $zip: { inputs: [lit([1]), '$nope'] } }), null);
  });

  test('$zip errors', () => {
    expectError(() => ev({ $zip: [] }), 34460);
    expectError(() => ev({ $zip: { inputs: 1 } }), 34461);
    expectError(() => ev({ $zip: { inputs: [lit([1])], defaults: [1] } }), 34466);
    expectError(() => ev({ $zip: { inputs: [lit([1])], useLongestLength: true, defaults: [1, 2] } }), 34467);
    expectError(() => ev({ $zip: { inputs: [1] } }), 34468);
  });

  test('$reduce: each missing argument has its own code (input 40077, initialValue 40078, in 40079)', () => {
    expectError(() => ev({ $reduce: { initialValue: 0, in: 0 } }), 40077);
    expectError(() => ev({ $reduce: { input: lit([]), in: 0 } }), 40078);
    expectError(() => ev({ $reduce: { input: lit([]), initialValue: 0 } }), 40079);
  });

  test('$zip: each field is checked in the order given before how they fit together (defaults not an array: 34462)', () => {
    expectError(() => ev({ $zip: { inputs: [lit([1])], defaults: { a: 'b' } } }), 34462);
    expectError(() => ev({ $zip: { inputs: [lit([1])], defaults: ['A'], useLongestLength: 1 } }), 34463);
    expectError(() => ev({ $zip: { defaults: 1, inputs: 1 } }), 34462);
  });
});

describe('$sortArray and the n forms', () => {
  test('$sortArray sorts whole values with 1 / -1, documents by fields', () => {
    assert.deepEqual(ev({ $sortArray: { input: lit([3, 'a', 1, null]), sortBy: 1 } }), [null, 1, 3, 'a']);
    assert.deepEqual(ev({ $sortArray: { input: lit([3, 1, 2]), sortBy: -1 } }), [3, 2, 1]);
    assert.deepEqual(
      ev({ $sortArray: { input: lit([{ n: 2, x: 'b' }, { n: 1 }, { n: 2, x: 'a' }]), sortBy: { n: -1, x: 1 } } }),
      [{ n: 2, x: 'a' }, { n: 2, x: 'b' }, { n: 1 }],
    );
    assert.equal(ev({ $sortArray: { input: null, sortBy: 1 } }), null);
  });

  test('$sortArray errors', () => {
    expectError(() => ev({ $sortArray: 1 }), 2942500);
    expectError(() => ev({ $sortArray: { input: [], sortBy: 1, x: 1 } }), 2942501);
    expectError(() => ev({ $sortArray: { sortBy: 1 } }), 2942502);
    expectError(() => ev({ $sortArray: { input: [] } }), 2942503);
    expectError(() => ev({ $sortArray: { input: 'x', sortBy: 1 } }), 2942504);
  });

  test('$firstN, $lastN, $maxN, $minN over an array; $maxN/$minN skip nulls', () => {
    const a = lit([3, null, 1, 5]);
    assert.deepEqual(ev({ $firstN: { n: 2, input: a } }), [3, null]);
    assert.deepEqual(ev({ $lastN: { n: 2, input: a } }), [1, 5]);
    assert.deepEqual(ev({ $maxN: { n: 2, input: a } }), [5, 3]);
    assert.deepEqual(ev({ $minN: { n: 5, input: a } }), [1, 3, 5]);
    assert.equal(ev({ $firstN: { n: 1, input: null } }), null);
  });

  test("the n forms check 'n' (5787902/5787903/5787908) and their fields (5787901/5787906/5787907)", () => {
    expectError(() => ev({ $firstN: { n: 'x', input: [] } }), 5787902);
    expectError(() => ev({ $firstN: { n: 1.5, input: [] } }), 5787903);
    expectError(() => ev({ $lastN: { n: 0, input: [] } }), 5787908, "'n' must be greater than 0, found 0");
    expectError(() => ev({ $maxN: { n: 1, input: [], x: 1 } }), 5787901);
    expectError(() => ev({ $minN: { input: [] } }), 5787906);
    expectError(() => ev({ $minN: { n: 1 } }), 5787907);
  });
});

describe('arrays end to end', () => {
  test('$reduce and $sortArray in $addFields over a real collection', () => {
    const out = aggregate(
      [{ _id: 1, xs: [int(3), int(1), int(2)] }],
      [
        {
          $addFields: {
            total: { $reduce: { input: '$xs', initialValue: int(0), in: { $add: ['$$value', '$$this'] } } },
            sorted: { $sortArray: { input: '$xs', sortBy: 1 } },
          },
        },
      ],
    );
    assertInt(out[0].total, 6);
    assert.deepEqual(
      (out[0].sorted as { value: number }[]).map((x) => x.value),
      [1, 2, 3],
    );
  });
});
