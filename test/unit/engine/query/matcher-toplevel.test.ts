import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EngineError, ErrorCode } from '../../../../src/engine/errors';
import { compileFilter, isMatchAll } from '../../../../src/engine/query/matcher';
import type { Document } from '../../../../src/engine/values/types';
import { expectError } from '../../helpers/expect-error';

function selected(filter: Document, docs: Document[]): number[] {
  const pred = compileFilter(filter);
  return docs.flatMap((d, i) => (pred(d) ? [i] : []));
}

function assertCode(filter: Document, code: number, message: RegExp): void {
  expectError(() => compileFilter(filter), code, message);
}

describe('matcher: top-level operators', () => {
  test('isMatchAll: no filter at all (null or undefined) matches every document', () => {
    assert.equal(isMatchAll(null), true);
    assert.equal(isMatchAll(undefined), true);
    assert.equal(isMatchAll({ $comment: 'c', a: 1 }), false);
  });

  test('implicit $and of two and of three conditions: each one can reject the document', () => {
    const two = { a: 1, b: 1 };
    assert.deepEqual(
      selected(two, [
        { a: 1, b: 1 },
        { a: 0, b: 1 },
        { a: 1, b: 0 },
      ]),
      [0],
    );
    const three = { a: 1, b: 1, c: 1 };
    assert.deepEqual(
      selected(three, [
        { a: 1, b: 1, c: 1 },
        { a: 0, b: 1, c: 1 },
        { a: 1, b: 0, c: 1 },
        { a: 1, b: 1, c: 0 },
      ]),
      [0],
    );
  });

  test('$or of three clauses: any one clause suffices', () => {
    const f = { $or: [{ a: 1 }, { b: 1 }, { c: 1 }] };
    assert.deepEqual(selected(f, [{ a: 1 }, { b: 1 }, { c: 1 }, { a: 0, b: 0, c: 0 }]), [0, 1, 2]);
  });

  test('$alwaysTrue and $alwaysFalse take the integer 1 of any numeric type, nothing else (FailedToParse)', () => {
    assert.deepEqual(selected({ $alwaysFalse: 1 }, [{}, { a: 1 }]), []);
    assert.deepEqual(selected({ $alwaysTrue: 1.0 }, [{}, { a: 1 }]), [0, 1]);
    assertCode({ $alwaysFalse: 2 }, ErrorCode.FailedToParse, /\$alwaysFalse must be an integer value of 1/);
    assertCode({ $alwaysTrue: '1' }, ErrorCode.FailedToParse, /\$alwaysTrue must be an integer value of 1/);
  });

  test('$expr reads the variables given where the filter is compiled, and only there', () => {
    const withVars = compileFilter({ $expr: { $eq: ['$a', '$$x'] } }, { x: 5 });
    assert.equal(withVars({ a: 5 }), true);
    assert.equal(withVars({ a: 6 }), false);
    // A filter compiled afterwards without variables must not see the earlier scope.
    const without = compileFilter({ $expr: { $eq: ['$a', '$$x'] } });
    let sawFive: boolean;
    try {
      sawFive = without({ a: 5 });
    } catch {
      sawFive = false;
    }
    assert.equal(sawFive, false);
  });

  test('$expr is true by aggregation truthiness: 0, null, false and missing are false', () => {
    assert.deepEqual(
      selected({ $expr: '$a' }, [{ a: 1 }, { a: 0 }, { a: null }, { a: false }, {}, { a: 'x' }, { a: [] }]),
      [0, 5, 6],
    );
  });

  test('$jsonSchema selects the documents the schema accepts', () => {
    assert.deepEqual(
      selected({ $jsonSchema: { required: ['a'], properties: { a: { bsonType: 'number' } } } }, [
        { a: 1 },
        {},
        { a: 'x' },
      ]),
      [0],
    );
  });

  test('$where and $text at the top level are QueryFeatureNotAllowed and say why', () => {
    assertCode({ $where: 'true' }, ErrorCode.QueryFeatureNotAllowed, /does not execute JavaScript/);
    assertCode({ $text: { $search: 'x' } }, ErrorCode.QueryFeatureNotAllowed, /has no text indexes/);
  });

  test('$and/$or/$nor: a non-array or an empty array is BadValue', () => {
    assertCode({ $or: { a: 1 } }, ErrorCode.BadValue, /^\$or must be an array$/);
    assertCode({ $nor: [] }, ErrorCode.BadValue, /\$and\/\$or\/\$nor must be a nonempty array/);
  });

  test('a filter that is no object is TypeMismatch naming the type it got', () => {
    assert.throws(
      () => compileFilter([1] as unknown as Document),
      (err: unknown) =>
        err instanceof EngineError &&
        err.code === ErrorCode.TypeMismatch &&
        /query filter must be an object, but got array/.test(err.message),
    );
  });

  test('an unknown top-level operator points to $getField for $-prefixed field names', () => {
    assertCode({ $foo: 1 }, ErrorCode.BadValue, /consider using \$getField or \$setField\.$/);
  });

  test('a DBRef-shaped filter ({$ref, $id, $db}) names those fields; its other $ keys stay operators', () => {
    const ref = { $ref: 'c', $id: 1, $db: 'd' };
    assert.deepEqual(selected(ref, [ref, { $ref: 'c', $id: 1, $db: 'e' }, { $ref: 'c', $id: 1 }]), [0]);
    const commented = { $ref: 'c', $id: 1, $comment: 'why' };
    assert.deepEqual(selected(commented, [{ $ref: 'c', $id: 1 }]), [0], '$comment is no field to match');
  });

  test('$ref without $id is no DBRef: an unknown top-level operator', () => {
    assertCode({ $ref: 'c' }, ErrorCode.BadValue, /unknown top level operator: \$ref/);
  });
});
