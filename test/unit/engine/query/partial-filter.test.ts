import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EngineError } from '../../../../src/engine/errors';
import { PARTIAL_FILTER_MAX_DEPTH, validatePartialFilterExpression } from '../../../../src/engine/query/partial-filter';

function assertRejected(filter: unknown, code: number, message?: RegExp): void {
  assert.throws(
    () => validatePartialFilterExpression(filter),
    (err: unknown) => {
      assert.ok(err instanceof EngineError, `expected EngineError, got ${String(err)}`);
      assert.equal(err.code, code, err.message);
      if (message) assert.match(err.message, message);
      return true;
    },
  );
}

const unsupported = /^Expression not supported in partial index: /;

describe('partialFilterExpression: rule 8.1 allowed expressions', () => {
  test('rule 8.1: implicit equality is allowed', () => {
    assert.doesNotThrow(() => validatePartialFilterExpression({ status: 'active' }));
  });

  test('rule 8.1: equality with null and with a document is allowed', () => {
    assert.doesNotThrow(() => validatePartialFilterExpression({ a: null, b: { x: 1 } }));
  });

  test('rule 8.1: $eq, $gt, $gte, $lt, $lte are allowed', () => {
    for (const op of ['$eq', '$gt', '$gte', '$lt', '$lte']) {
      assert.doesNotThrow(() => validatePartialFilterExpression({ n: { [op]: 5 } }), op);
    }
  });

  test('rule 8.1: a range of two operators on one field is allowed', () => {
    assert.doesNotThrow(() => validatePartialFilterExpression({ n: { $gt: 1, $lt: 10 } }));
  });

  test('rule 8.1: $exists: true is allowed', () => {
    assert.doesNotThrow(() => validatePartialFilterExpression({ expireAt: { $exists: true } }));
    assert.doesNotThrow(() => validatePartialFilterExpression({ expireAt: { $exists: 1 } }));
  });

  test('rule 8.1: $type is allowed', () => {
    assert.doesNotThrow(() => validatePartialFilterExpression({ expireAt: { $type: 'date' } }));
    assert.doesNotThrow(() => validatePartialFilterExpression({ n: { $type: ['int', 'long'] } }));
  });

  test('rule 8.1: $in is allowed, even with regex members', () => {
    assert.doesNotThrow(() => validatePartialFilterExpression({ s: { $in: ['a', 'b'] } }));
    assert.doesNotThrow(() => validatePartialFilterExpression({ s: { $in: [/^a/] } }));
  });

  test('rule 8.1: $geoWithin is allowed', () => {
    assert.doesNotThrow(() =>
      validatePartialFilterExpression({
        loc: {
          $geoWithin: {
            $box: [
              [0, 0],
              [1, 1],
            ],
          },
        },
      }),
    );
  });

  test('rule 8.1: implicit top-level $and of several fields is allowed', () => {
    assert.doesNotThrow(() => validatePartialFilterExpression({ a: 1, b: { $gt: 2 }, c: { $exists: true } }));
  });

  test('rule 8.1: explicit $and and $or are allowed, also nested', () => {
    assert.doesNotThrow(() => validatePartialFilterExpression({ $and: [{ a: 1 }, { b: 2 }] }));
    assert.doesNotThrow(() => validatePartialFilterExpression({ $or: [{ a: 1 }, { b: { $lt: 2 } }] }));
    assert.doesNotThrow(() => validatePartialFilterExpression({ $or: [{ $and: [{ a: 1 }, { b: 2 }] }, { c: 3 }] }));
  });

  test('rule 8.1: $comment adds no expression and is allowed', () => {
    assert.doesNotThrow(() => validatePartialFilterExpression({ a: 1, $comment: 'ttl only for drafts' }));
  });

  test('rule 8.1: the empty filter is allowed', () => {
    assert.doesNotThrow(() => validatePartialFilterExpression({}));
  });
});

describe('partialFilterExpression: rule 8.1 rejected expressions (67)', () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['$ne', { a: { $ne: 1 } }],
    ['$nin', { a: { $nin: [1] } }],
    ['$not', { a: { $not: { $gt: 1 } } }],
    ['$exists: false', { a: { $exists: false } }],
    ['$regex operator', { a: { $regex: '^x' } }],
    ['regex literal', { a: /^x/ }],
    ['$elemMatch', { a: { $elemMatch: { b: 1 } } }],
    ['$size', { a: { $size: 1 } }],
    ['$mod', { a: { $mod: [2, 0] } }],
    ['$all', { a: { $all: [1, 2] } }],
    ['$nor', { $nor: [{ a: 1 }] }],
    ['$bitsAllSet', { a: { $bitsAllSet: 1 } }],
    ['$alwaysTrue', { $alwaysTrue: 1 }],
  ];
  for (const [name, filter] of cases) {
    test(`rule 8.1: ${name} is rejected with CannotCreateIndex`, () => {
      assertRejected(filter, 67, unsupported);
    });
  }

  test('rule 8.1: an unsupported operator inside $or is rejected', () => {
    assertRejected({ $or: [{ a: 1 }, { b: { $ne: 2 } }] }, 67, unsupported);
  });

  test('rule 8.1: an unsupported operator beside allowed ones on the same field is rejected', () => {
    assertRejected({ a: { $gt: 1, $ne: 5 } }, 67, unsupported);
  });

  test('rule 8.1: the message names the offending expression', () => {
    assertRejected({ a: 1, qty: { $ne: 5 } }, 67, /qty \$ne 5/);
  });
});

describe('partialFilterExpression: rule 8.2 parse errors from the matcher', () => {
  test('rule 8.2: $expr is refused by the parser', () => {
    assertRejected({ $expr: { $gt: ['$a', 1] } }, 224);
  });

  test('rule 8.2: $where and $text are refused by the parser', () => {
    assertRejected({ $where: 'true' }, 224);
    assertRejected({ $text: { $search: 'x' } }, 224);
  });

  test('rule 8.2: an unknown operator fails to parse with BadValue', () => {
    assertRejected({ a: { $foo: 1 } }, 2, /unknown operator/);
    assertRejected({ $foo: 1 }, 2, /unknown top level operator/);
  });

  test('rule 8.2: a malformed allowed operator fails to parse', () => {
    assertRejected({ a: { $in: 5 } }, 2, /\$in needs an array/);
    assertRejected({ a: { $type: 'nonsense' } }, 2, /Unknown type name alias/);
  });
});

describe('partialFilterExpression: rule 8.3 depth limit', () => {
  test('rule 8.3: the default maximum depth is 4', () => {
    assert.equal(PARTIAL_FILTER_MAX_DEPTH, 4);
  });

  test('rule 8.3: leaves at depth 4 (three logical levels) are accepted', () => {
    const filter = { $and: [{ $or: [{ $and: [{ a: 1 }, { b: 2 }] }, { c: 1 }] }, { d: 1 }] };
    assert.doesNotThrow(() => validatePartialFilterExpression(filter));
  });

  test('rule 8.3: one more level of nesting is rejected with 67', () => {
    const filter = { $and: [{ $or: [{ $and: [{ $or: [{ a: 1 }, { b: 1 }] }, { c: 1 }] }, { d: 1 }] }, { e: 1 }] };
    assertRejected(filter, 67, /partialFilterExpression depth may not exceed 4/);
  });

  test('rule 8.3: an implicit AND of several fields counts as a level', () => {
    // Root AND (1) > $or (2) > $and (3) > implicit AND of a and b (4) > leaves (5).
    const filter = { x: 1, $or: [{ $and: [{ a: 1, b: 1 }, { c: 1 }] }, { d: 1 }] };
    assertRejected(filter, 67, /depth may not exceed/);
  });

  test('rule 8.3: a single-field document does not add a level', () => {
    const filter = { $or: [{ $and: [{ $or: [{ a: 1 }, { b: 1 }] }, { c: 1 }] }, { d: 1 }] };
    assert.doesNotThrow(() => validatePartialFilterExpression(filter));
  });
});

describe('partialFilterExpression: rule 8.4 non-object values', () => {
  for (const value of ['a', 5, true, null, [{ a: 1 }]]) {
    test(`rule 8.4: ${JSON.stringify(value)} is rejected with TypeMismatch`, () => {
      assertRejected(value, 14, /must be an object/);
    });
  }
});
