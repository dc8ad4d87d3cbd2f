/**
 * How single values meet operands: wrapped numbers (Int32, Long, Double, Decimal128) on either
 * side, NaN, null and missing, symbols, dates, type-6 undefined, and the refusals mongod gives
 * while parsing an operator (src/mongo/db/matcher/expression_parser.cpp). Double wrappers reach
 * the matcher as operands and in documents a pipeline stage builds ({$addFields: {x: Double(2.5)}}
 * before a $match); stored documents hold plain numbers.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BSONSymbol, Decimal128, Double, Int32, Long, ObjectId } from 'bson';
import { Engine } from '../../../../src/engine';
import { ErrorCode } from '../../../../src/engine/errors';
import { compileFilter } from '../../../../src/engine/query/matcher';
import { BSON_UNDEFINED } from '../../../../src/engine/values/bson-undefined';
import type { Document } from '../../../../src/engine/values/types';
import { expectError } from '../../helpers/expect-error';

/** Which of `values` (by index) the filter {a: <condition>} selects in documents {a: value}. */
function selects(condition: unknown, values: unknown[]): number[] {
  const pred = compileFilter({ a: condition });
  return values.flatMap((v, i) => (pred({ a: v }) ? [i] : []));
}

describe('matcher: refusals while parsing a field condition', () => {
  test('a regex under $ne is refused with BadValue', () => {
    expectError(() => compileFilter({ a: { $ne: /x/ } }), 2, "Can't have regex as arg to $ne.", 'BadValue');
  });

  test('a regex under $gt/$gte/$lt/$lte is refused naming the field path, as mongod does', () => {
    const message = (path: string) => `Can't have RegEx as arg to predicate over field '${path}'.`;
    expectError(() => compileFilter({ 'a.b': { $gt: /x/ } }), 2, message('a.b'), 'BadValue');
    expectError(() => compileFilter({ a: { $not: { $lte: /x/ } } }), 2, message('a'), 'BadValue');
    // $elemMatch's value form parses its operators with no path of their own.
    expectError(() => compileFilter({ a: { $elemMatch: { $lt: /x/ } } }), 2, message(''), 'BadValue');
  });

  test('$near, $nearSphere and $geoIntersects are refused as not supported (QueryFeatureNotAllowed), not as unknown', () => {
    for (const op of ['$near', '$nearSphere', '$geoIntersects']) {
      const point = { $geometry: { type: 'Point', coordinates: [0, 0] } };
      expectError(
        () => compileFilter({ loc: { [op]: point } }),
        ErrorCode.QueryFeatureNotAllowed,
        `${op} is not supported yet`,
      );
    }
  });

  test('a type-6 undefined operand is refused for equality as for ranges, saying how to find stored undefined values', () => {
    const message = 'cannot compare to undefined: query for {$type: "undefined"} to find stored undefined values.';
    expectError(() => compileFilter({ a: BSON_UNDEFINED }), 2, message, 'BadValue');
    expectError(() => compileFilter({ a: { $eq: BSON_UNDEFINED } }), 2, message, 'BadValue');
    expectError(() => compileFilter({ a: { $gt: BSON_UNDEFINED } }), 2, message, 'BadValue');
  });
});

describe('matcher: $size and $exists', () => {
  test('$size measures the array the path reaches, not arrays nested in it', () => {
    assert.deepEqual(selects({ $size: 1 }, [[[5], 6], [[5]], [7]]), [1, 2]);
    const pred = compileFilter({ 'a.b': { $size: 1 } });
    assert.equal(pred({ a: [{ b: [1, 2] }, { b: [3] }] }), true, 'arrays on the way to the leaf are still walked');
  });

  test('$exists reads its argument by BSON truthiness: JS undefined (sent as null) and type-6 undefined are false', () => {
    const docs: Document[] = [{ a: 1 }, {}];
    const pick = (arg: unknown) => docs.flatMap((d, i) => (compileFilter({ a: { $exists: arg } })(d) ? [i] : []));
    assert.deepEqual(pick(undefined), [1]);
    assert.deepEqual(pick(BSON_UNDEFINED), [1]);
    assert.deepEqual(pick(null), [1]);
    assert.deepEqual(pick(new Int32(0)), [1]);
    assert.deepEqual(pick(''), [0], 'a string, even empty, is true');
    assert.deepEqual(pick(new Date(0)), [0], 'a date, even the epoch, is true');
  });
});

describe('matcher: NaN', () => {
  const values = [NaN, 'x', { b: 1 }, null, new Decimal128('NaN'), new Double(NaN), 1];

  test('a NaN operand equals only NaN values, of any numeric type', () => {
    assert.deepEqual(selects(NaN, values), [0, 4, 5]);
  });

  test('a wrapped NaN operand (Double or Decimal128) equals the same NaN values', () => {
    assert.deepEqual(selects(new Double(NaN), values), [0, 4, 5]);
    assert.deepEqual(selects(new Decimal128('NaN'), values), [0, 4, 5]);
  });

  test('a Double NaN in a document equals no number and is neither above nor below one', () => {
    const nan = [new Double(NaN)];
    assert.deepEqual(selects(5, nan), []);
    assert.deepEqual(selects({ $gte: 5 }, nan), []);
    assert.deepEqual(selects({ $lte: 5 }, nan), []);
  });
});

describe('matcher: a Decimal128 operand no double equals', () => {
  // 0.1 has no exact double, so these conditions take the exact comparison.
  const tenth = new Decimal128('0.1');

  test('null, missing, strings and a NaN are neither equal to it, above nor below it', () => {
    const values = [null, 'x', new Decimal128('NaN'), NaN, { b: 1 }];
    assert.deepEqual(selects(tenth, values), []);
    assert.deepEqual(selects({ $lt: tenth }, values), []);
    assert.deepEqual(selects({ $gte: tenth }, values), []);
    assert.equal(compileFilter({ a: { $lt: tenth } })({}), false);
  });

  test('Long, Int32 and Double wrappers compare with it by exact value', () => {
    const values = [new Long(1), new Int32(0), new Double(1), new Double(0.05), 0.1, new Decimal128('0.10')];
    // The double nearest 0.1 is 0.1000000000000000055…, a little above it.
    assert.deepEqual(selects({ $gt: tenth }, values), [0, 2, 4]);
    assert.deepEqual(selects({ $lt: tenth }, values), [1, 3]);
    assert.deepEqual(selects(tenth, values), [5]);
  });
});

describe('matcher: wrapped numbers in documents against a plain number', () => {
  test('an Int32 below, at and above the operand', () => {
    const values = [new Int32(3), new Int32(5), new Int32(7)];
    assert.deepEqual(selects({ $lt: 5 }, values), [0]);
    assert.deepEqual(selects({ $lte: 5 }, values), [0, 1]);
    assert.deepEqual(selects({ $gt: 5 }, values), [2]);
    assert.deepEqual(selects(5, values), [1]);
  });

  test('a Double wrapper compares by its value', () => {
    const values = [new Double(2.5), new Double(3)];
    assert.deepEqual(selects(2.5, values), [0]);
    assert.deepEqual(selects({ $gt: 2.5 }, values), [1]);
  });

  test('a Double wrapper a pipeline stage puts in a document is matched by its value', () => {
    const engine = new Engine();
    engine.runCommand('db', { insert: 'c', documents: [{ _id: 1 }] });
    const reply = engine.runCommand('db', {
      aggregate: 'c',
      pipeline: [{ $addFields: { x: new Double(2.5) } }, { $match: { x: 2.5 } }],
      cursor: {},
    });
    assert.deepEqual((reply.cursor as Document).firstBatch, [{ _id: 1, x: 2.5 }]);
  });

  test('dates, documents and ObjectIds are neither below nor above a number', () => {
    const values = [new Date(0), { b: 1 }, new ObjectId('0123456789abcdef01234567')];
    assert.deepEqual(selects({ $lt: 5 }, values), []);
    assert.deepEqual(selects({ $gte: 5 }, values), []);
  });
});

describe('matcher: wrapped number operands', () => {
  test('an Int32 operand equals the same value held as any numeric type, and no other value', () => {
    const values = [new Int32(5), new Long(5), 5, new Decimal128('5'), 6, new Int32(6), '5'];
    assert.deepEqual(selects(new Int32(5), values), [0, 1, 2, 3]);
  });
});

describe('matcher: missing, strings, symbols and dates', () => {
  test('a missing field is not compared as a document: {$gte: {}} and {$lte: {}} do not select it', () => {
    assert.equal(compileFilter({ a: { $gte: {} } })({}), false);
    assert.equal(compileFilter({ a: { $lte: {} } })({}), false);
    assert.equal(compileFilter({ a: { $gte: {} } })({ a: { b: 1 } }), true);
  });

  test('a string operand equals a symbol with the same text', () => {
    assert.deepEqual(selects('x', [new BSONSymbol('x'), new BSONSymbol('y'), 'x']), [0, 2]);
  });

  test('a date operand equals only the same instant, and other types are not errors', () => {
    const t = new Date(1000);
    assert.deepEqual(selects(t, [1000, 'x', null, new Date(1000), new Date(2000), { b: 1 }]), [3]);
  });
});

describe('matcher: $in with numbers past 2^53', () => {
  test('a double operand that is exactly a large Long matches that Long, as equality does', () => {
    const big = 2 ** 60;
    const values = [Long.fromNumber(big), Long.fromNumber(2 ** 53), Long.fromBigInt(2n ** 60n + 1n), big];
    assert.deepEqual(selects({ $in: [big, 2 ** 53] }, values), [0, 1, 3]);
    assert.deepEqual(selects(big, values), [0, 3]);
    assert.deepEqual(selects({ $in: [Long.fromNumber(big)] }, values), [0, 3]);
  });
});
