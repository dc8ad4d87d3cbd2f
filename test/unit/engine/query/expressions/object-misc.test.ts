import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Binary, calculateObjectSize, Double, Timestamp } from 'bson';
import {
  EXPRESSION_OPERATORS,
  REFUSED_EXPRESSION_OPERATORS,
  isExpressionOperator,
} from '../../../../../src/engine/query/expressions';
import { expectError } from '../../../helpers/expect-error';
import { aggregate, assertInt, assertLong, ev } from './helpers';

describe('$getField, $setField, $unsetField', () => {
  test('$getField reads names a path cannot spell, from $$CURRENT or an input', () => {
    assert.equal(ev({ $getField: 'a.b' }, { 'a.b': 1, a: { b: 2 } }), 1);
    assert.equal(ev({ $getField: { field: { $literal: '$price' }, input: '$o' } }, { o: { $price: 5 } }), 5);
    assert.equal(ev({ $getField: 'x' }, {}), undefined);
    assert.equal(ev({ $getField: { field: 'x', input: null } }), null);
  });

  test('$getField errors: 3041701, 3041702, 5654601, 5654602, 3041705', () => {
    expectError(() => ev({ $getField: { field: 'a', y: 1 } }), 3041701);
    expectError(() => ev({ $getField: { input: {} } }), 3041702);
    expectError(() => ev({ $getField: '$a' }), 5654601);
    expectError(() => ev({ $getField: 5 }), 5654602);
    expectError(() => ev({ $getField: { field: 'a', input: 5 } }), 3041705);
  });

  test('$setField replaces in place or appends; $$REMOVE and $unsetField remove', () => {
    assert.deepEqual(ev({ $setField: { field: 'a', input: { $literal: { a: 1, b: 2 } }, value: 9 } }), { a: 9, b: 2 });
    assert.deepEqual(ev({ $setField: { field: 'a.b', input: { $literal: { x: 1 } }, value: 2 } }), { x: 1, 'a.b': 2 });
    assert.deepEqual(ev({ $setField: { field: 'x', input: { $literal: { x: 1, y: 2 } }, value: '$$REMOVE' } }), {
      y: 2,
    });
    assert.deepEqual(ev({ $unsetField: { field: 'x', input: { $literal: { x: 1, y: 2 } } } }), { y: 2 });
    assert.equal(ev({ $unsetField: { field: 'x', input: null } }), null);
  });

  test('$setField errors: 4161100 … 4161106', () => {
    expectError(() => ev({ $setField: 1 }), 4161100);
    expectError(() => ev({ $setField: { field: 'a', input: {}, value: 1, z: 1 } }), 4161101);
    expectError(() => ev({ $setField: { input: {}, value: 1 } }), 4161102);
    expectError(() => ev({ $setField: { field: 'a', value: 1 } }), 4161103);
    expectError(() => ev({ $setField: { field: 'a', input: {} } }), 4161104);
    expectError(() => ev({ $setField: { field: 'a', input: 1, value: 1 } }), 4161105);
    expectError(() => ev({ $unsetField: { field: 1, input: {} } }), 4161106);
  });
});

describe('data size, timestamps, randomness', () => {
  test('$bsonSize is the document BSON size; $binarySize counts bytes', () => {
    const doc = { a: 'héllo', b: [1, 2] };
    // The engine holds JS numbers as doubles (8 bytes each), as storage and the wire write them.
    assertInt(ev({ $bsonSize: '$$ROOT' }, doc), calculateObjectSize({ a: 'héllo', b: [new Double(1), new Double(2)] }));
    assertInt(ev({ $binarySize: 'é' }), 2);
    assertInt(ev({ $binarySize: new Binary(Buffer.from([1, 2, 3])) }), 3);
    assert.equal(ev({ $bsonSize: null }), null);
    expectError(() => ev({ $bsonSize: 1 }), 31393);
    expectError(() => ev({ $binarySize: 1 }), 51276);
  });

  test('$tsSecond and $tsIncrement answer longs; non-timestamps are 5687301/5687302', () => {
    const ts = new Timestamp({ t: 1700000000, i: 7 });
    assertLong(ev({ $tsSecond: ts }), 1700000000);
    assertLong(ev({ $tsIncrement: ts }), 7);
    assert.equal(ev({ $tsSecond: null }), null);
    expectError(() => ev({ $tsSecond: 1 }), 5687301);
    expectError(() => ev({ $tsIncrement: new Date() }), 5687302);
  });

  test('$rand answers doubles in [0, 1) that vary; $sampleRate keeps about its share', () => {
    const values = Array.from({ length: 200 }, () => ev({ $rand: {} }) as number);
    assert.ok(values.every((v) => typeof v === 'number' && v >= 0 && v < 1));
    assert.ok(new Set(values).size > 150);
    const kept = Array.from({ length: 2000 }, () => ev({ $sampleRate: 0.25 })).filter(Boolean).length;
    assert.ok(kept > 350 && kept < 650, `kept ${kept} of 2000 at rate 0.25`);
    assert.equal(ev({ $sampleRate: 0 }), false);
    expectError(() => ev({ $rand: { x: 1 } }), 3040501);
    expectError(() => ev({ $sampleRate: 2 }), 31181);
  });
});

describe('refused operators and the name registry', () => {
  test('$function is refused with 31264: no server-side JavaScript', () => {
    expectError(() => ev({ $function: { body: 'function() {}', args: [], lang: 'js' } }), 31264, /javascript/);
  });

  test('$meta and $toHashedIndexKey are refused with NotImplemented and a reason', () => {
    expectError(() => ev({ $meta: 'textScore' }), 238, /no text-search/, 'NotImplemented');
    expectError(() => ev({ $toHashedIndexKey: 'x' }), 238, /hashed index keys/);
  });

  test('EXPRESSION_OPERATORS lists every operator the compiler evaluates, and no refused one', () => {
    for (const name of [
      '$add',
      '$sqrt',
      '$atan2',
      '$bitXor',
      '$zip',
      '$setEquals',
      '$switch',
      '$regexFindAll',
      '$dateTrunc',
      '$convert',
      '$toUUID',
      '$getField',
      '$tsIncrement',
      '$median',
    ])
      assert.ok(EXPRESSION_OPERATORS.includes(name), name);
    for (const name of EXPRESSION_OPERATORS) assert.ok(isExpressionOperator(name), name);
    const refused = REFUSED_EXPRESSION_OPERATORS.map((r) => r.name);
    assert.deepEqual(refused.sort(), ['$function', '$meta', '$toHashedIndexKey']);
    assert.ok(refused.every((n) => !EXPRESSION_OPERATORS.includes(n)));
    assert.deepEqual([...EXPRESSION_OPERATORS].sort(), EXPRESSION_OPERATORS);
  });

  test('end to end: $getField of a dotted name in a pipeline on a real collection', () => {
    const out = aggregate([{ _id: 1, 'price.usd': 5 }], [{ $project: { p: { $getField: 'price.usd' } } }]);
    assert.deepEqual(out, [{ _id: 1, p: 5 }]);
  });
});
