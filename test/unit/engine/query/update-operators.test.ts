import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Int32, Long, type Timestamp } from 'bson';
import { applyUpdate, type UpdateContext } from '../../../../src/engine/query/update';
import type { Document } from '../../../../src/engine/values/types';
import { expectError } from '../../helpers/expect-error';

// What each update operator accepts as its argument and the error mongod gives when it does not.

const ctx: UpdateContext = { now: new Date('2024-05-01T12:00:00.000Z'), isInsert: false };

function update(doc: Document, spec: Document) {
  return applyUpdate(doc, spec, ctx);
}

function updated(doc: Document, spec: Document): Document {
  return applyUpdate(doc, spec, ctx).doc;
}

describe('$push modifiers', () => {
  it('a fractional $slice or $position is refused with its value in the message (2)', () => {
    expectError(
      () => update({ _id: 1 }, { $push: { a: { $each: [], $slice: 1.5 } } }),
      2,
      'The value for $slice must be an integral value but was given type: double (1.5)',
    );
    expectError(
      () => update({ _id: 1 }, { $push: { a: { $each: [], $position: 2.5 } } }),
      2,
      'The value for $position must be an integer value, not of type: double (2.5)',
    );
    expectError(
      () => update({ _id: 1 }, { $push: { a: { $each: [], $position: 'x' } } }),
      2,
      'The value for $position must be an integer value, not of type: string',
    );
  });

  it('$slice and $position accept integral values of any numeric type', () => {
    assert.deepEqual(
      updated(
        { _id: 1, a: [1, 2, 3] },
        { $push: { a: { $each: [9], $position: Long.fromNumber(1), $slice: new Int32(3) } } },
      ).a,
      [1, 9, 2],
    );
  });

  it('$sort: -1 as a Long or Int32 orders descending', () => {
    assert.deepEqual(
      updated({ _id: 1, a: [1, 3] }, { $push: { a: { $each: [2], $sort: new Int32(-1) } } }).a,
      [3, 2, 1],
    );
    assert.deepEqual(
      updated({ _id: 1, a: [1, 3] }, { $push: { a: { $each: [2], $sort: Long.fromNumber(1) } } }).a,
      [1, 2, 3],
    );
  });

  it('$sort refuses a field pattern with an empty part or a direction other than 1/-1 (2)', () => {
    expectError(
      () => update({ _id: 1 }, { $push: { a: { $each: [], $sort: { 'x..y': 1 } } } }),
      2,
      'The $sort field is a dotted field but has an empty part: x..y',
    );
    expectError(
      () => update({ _id: 1 }, { $push: { a: { $each: [], $sort: { x: 2 } } } }),
      2,
      'The $sort element value must be either 1 or -1',
    );
    expectError(
      () => update({ _id: 1 }, { $push: { a: { $each: [], $sort: 'x' } } }),
      2,
      'The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} to sort embedded fields',
    );
  });

  it('$slice given a non-number names only its type, with no value after it (2)', () => {
    expectError(
      () => update({ _id: 1 }, { $push: { a: { $each: [], $slice: 'x' } } }),
      2,
      'The value for $slice must be an integral value but was given type: string',
    );
  });

  it('$sort keeps elements that compare equal in the order they had (a stable sort), descending too', () => {
    // 1, NumberLong(1) and NumberInt(1) compare equal, so only stability decides their order.
    const r = updated(
      { _id: 1, a: [new Int32(2), 1] },
      { $push: { a: { $each: [Long.fromNumber(1), 2, new Int32(1)], $sort: -1 } } },
    );
    assert.deepEqual(r.a, [new Int32(2), 2, 1, Long.fromNumber(1), new Int32(1)]);
  });

  it('$sort on a field ties a missing field with null, keeping their order', () => {
    const r = updated(
      { _id: 1, a: [{ x: null, i: 1 }, { i: 2 }, { x: null, i: 3 }, { i: 4 }] },
      { $push: { a: { $each: [], $sort: { x: 1 } } } },
    );
    assert.deepEqual(r.a, [{ x: null, i: 1 }, { i: 2 }, { x: null, i: 3 }, { i: 4 }]);
  });

  it('$sort by several fields breaks ties on the later fields', () => {
    const r = updated(
      { _id: 1, a: [] },
      {
        $push: {
          a: {
            $each: [
              { x: 1, y: 1 },
              { x: 0, y: 5 },
              { x: 1, y: 2 },
            ],
            $sort: { x: 1, y: -1 },
          },
        },
      },
    );
    assert.deepEqual(r.a, [
      { x: 0, y: 5 },
      { x: 1, y: 2 },
      { x: 1, y: 1 },
    ]);
  });

  it('$sort on a dotted field reads embedded documents and array positions; a missing one sorts as null', () => {
    const r = updated(
      { _id: 1, a: [] },
      {
        $push: {
          a: { $each: [{ p: { q: 3 } }, { p: { q: 1 } }, { p: 7 }, { p: { q: 2 } }], $sort: { 'p.q': 1 } },
        },
      },
    );
    assert.deepEqual(r.a, [{ p: 7 }, { p: { q: 1 } }, { p: { q: 2 } }, { p: { q: 3 } }]);
    const byIndex = updated(
      { _id: 1, a: [] },
      { $push: { a: { $each: [{ v: [5, 9] }, { v: [5, 1] }, { v: 'x' }], $sort: { 'v.1': -1 } } } },
    );
    assert.deepEqual(byIndex.a, [{ v: [5, 9] }, { v: [5, 1] }, { v: 'x' }]);
  });
});

describe('$addToSet arguments', () => {
  it('a document whose first field is not $each is added as a value', () => {
    assert.deepEqual(updated({ _id: 1, a: [] }, { $addToSet: { a: { x: 1, $each: [2] } } }).a, [{ x: 1, $each: [2] }]);
  });

  it('refuses a non-array $each with TypeMismatch (14) and fields after $each with BadValue (2)', () => {
    expectError(
      () => update({ _id: 1 }, { $addToSet: { a: { $each: 1 } } }),
      14,
      'The argument to $each in $addToSet must be an array but it was of type double',
    );
    expectError(
      () => update({ _id: 1 }, { $addToSet: { a: { $each: [1], x: 1 } } }),
      2,
      'Found unexpected fields after $each in $addToSet: { $each: [ 1 ], x: 1 }',
    );
  });
});

describe('$pull conditions', () => {
  it('a condition starting with $or is a query on document elements, not on values', () => {
    const r = updated(
      { _id: 1, a: [{ b: 1 }, { b: 2 }, { b: 3 }, 1] },
      { $pull: { a: { $or: [{ b: 1 }, { b: 3 }] } } },
    );
    assert.deepEqual(r.a, [{ b: 2 }, 1]);
  });

  it('a condition starting with $and, $nor or $expr is a query on document elements', () => {
    const a = [{ b: 1 }, { b: 2 }, 1];
    assert.deepEqual(updated({ _id: 1, a }, { $pull: { a: { $and: [{ b: { $gt: 1 } }] } } }).a, [{ b: 1 }, 1]);
    assert.deepEqual(updated({ _id: 1, a }, { $pull: { a: { $nor: [{ b: 1 }] } } }).a, [{ b: 1 }, 1]);
    assert.deepEqual(updated({ _id: 1, a }, { $pull: { a: { $expr: { $eq: ['$b', 2] } } } }).a, [{ b: 1 }, 1]);
  });

  it('a condition starting with $comment, $jsonSchema, $alwaysTrue or $alwaysFalse is a query on document elements', () => {
    const a = [{ b: 1 }, { c: 2 }, 1];
    assert.deepEqual(updated({ _id: 1, a }, { $pull: { a: { $comment: 'all documents' } } }).a, [1]);
    assert.deepEqual(updated({ _id: 1, a }, { $pull: { a: { $jsonSchema: { required: ['b'] } } } }).a, [{ c: 2 }, 1]);
    assert.deepEqual(updated({ _id: 1, a }, { $pull: { a: { $alwaysTrue: 1 } } }).a, [1]);
    assert.deepEqual(update({ _id: 1, a }, { $pull: { a: { $alwaysFalse: 1 } } }).changed, false);
  });

  it('a condition starting with $where or $text is a query, refused as the engine refuses those operators (224)', () => {
    expectError(
      () => update({ _id: 1, a: [{ b: 1 }] }, { $pull: { a: { $where: 'this.b == 1' } } }),
      224,
      /^\$where is not supported/,
    );
    expectError(
      () => update({ _id: 1, a: [{ b: 1 }] }, { $pull: { a: { $text: { $search: 'x' } } } }),
      224,
      /^\$text is not supported/,
    );
  });

  it('an empty document condition removes every embedded document and keeps the other elements', () => {
    assert.deepEqual(updated({ _id: 1, a: [{ b: 1 }, {}, 1, [2], 'x'] }, { $pull: { a: {} } }).a, [1, [2], 'x']);
  });

  it('a scalar condition removes equal elements only, not arrays that hold the value', () => {
    assert.deepEqual(updated({ _id: 1, a: [5, [5], [1, 5], 6] }, { $pull: { a: 5 } }).a, [[5], [1, 5], 6]);
  });

  it('$pullAll matches values of any numeric type', () => {
    assert.deepEqual(updated({ _id: 1, a: [1, 2, 3] }, { $pullAll: { a: [new Int32(2)] } }).a, [1, 3]);
  });
});

describe('$rename arguments', () => {
  it('refuses a target with an embedded null byte (2)', () => {
    expectError(
      () => update({ _id: 1, a: 1 }, { $rename: { a: 'b\0c' } }),
      2,
      "The 'to' field for $rename cannot contain an embedded null byte",
    );
  });

  it('refuses a target that is a prefix of the source (2)', () => {
    expectError(
      () => update({ _id: 1, a: { b: 1 } }, { $rename: { 'a.b': 'a' } }),
      2,
      'The source and target field for $rename must not be on the same path: a.b: "a"',
    );
  });

  it("a target naming a DBRef's $id is not dynamic: the renamed value becomes the reference's id", () => {
    assert.deepEqual(updated({ _id: 1, x: 5, r: { $ref: 'c', $id: 1 } }, { $rename: { x: 'r.$id' } }), {
      _id: 1,
      r: { $ref: 'c', $id: 5 },
    });
  });

  it('moves a field whose value is an array, and replaces a target that holds an array', () => {
    assert.deepEqual(updated({ _id: 1, a: [1, 2] }, { $rename: { a: 'b' } }), { _id: 1, b: [1, 2] });
    assert.deepEqual(updated({ _id: 1, a: 1, b: [2] }, { $rename: { a: 'b' } }), { _id: 1, b: 1 });
  });

  it('refuses a source or a target inside an array below the first level (2)', () => {
    expectError(
      () => update({ _id: 1, a: { b: [1] } }, { $rename: { 'a.b.0': 'x' } }),
      2,
      "The source field cannot be an array element, 'a.b.0' in doc with _id: 1 has an array field called 'b'",
    );
    expectError(
      () => update({ _id: 1, x: 1, a: { b: [1] } }, { $rename: { x: 'a.b.0' } }),
      2,
      "The destination field cannot be an array element, 'a.b.0' in doc with _id: 1 has an array field called 'b'",
    );
  });

  it('refuses positional parts in the source or the target (2)', () => {
    expectError(
      () => update({ _id: 1, a: [1] }, { $rename: { 'a.$[]': 'b' } }),
      2,
      'The source field for $rename may not be dynamic: a.$[]',
    );
    expectError(
      () => update({ _id: 1, a: 1 }, { $rename: { a: 'b.$' } }),
      2,
      'The destination field for $rename may not be dynamic: b.$',
    );
  });
});

describe('$pop, $currentDate and $bit arguments', () => {
  it('$pop accepts -1 and 1 of any numeric type', () => {
    assert.deepEqual(updated({ _id: 1, a: [1, 2, 3] }, { $pop: { a: Long.fromNumber(-1) } }).a, [2, 3]);
    assert.deepEqual(updated({ _id: 1, a: [1, 2, 3] }, { $pop: { a: new Int32(1) } }).a, [1, 2]);
  });

  it('$currentDate refuses a non-document, other fields than $type, and other types (2)', () => {
    expectError(
      () => update({ _id: 1 }, { $currentDate: { d: 1 } }),
      2,
      "d: 1 is not valid type for $currentDate. Please use a boolean ('true') or a $type expression ({$type: 'timestamp/date'}).",
    );
    expectError(
      () => update({ _id: 1 }, { $currentDate: { d: { $type: 'date', x: 1 } } }),
      2,
      "The only valid field of the option is '$type': {$type: 'date/timestamp'}. d: { $type: \"date\", x: 1 }",
    );
    expectError(
      () => update({ _id: 1 }, { $currentDate: { d: { x: 'date' } } }),
      2,
      /The only valid field of the option is '\$type'/,
    );
    expectError(
      () => update({ _id: 1 }, { $currentDate: { d: { $type: 'string' } } }),
      2,
      "The '$type' string field is required to be 'date' or 'timestamp': {$currentDate: {field : {$type: 'date'}}}",
    );
  });

  it('$currentDate: false still sets a date', () => {
    assert.ok(updated({ _id: 1 }, { $currentDate: { d: false } }).d instanceof Date);
  });

  it('$bit refuses a non-document, an unknown operation and a non-integer operand (2)', () => {
    expectError(
      () => update({ _id: 1, n: new Int32(1) }, { $bit: { n: 5 } }),
      2,
      'The $bit modifier is not compatible with a double. You must pass in an embedded document: {$bit: {field: {and/or/xor: #}}',
    );
    expectError(
      () => update({ _id: 1, n: new Int32(1) }, { $bit: { n: { nand: new Int32(1) } } }),
      2,
      "The $bit modifier only supports 'and', 'or', and 'xor', not 'nand' which is an unknown operator: {nand: 1}",
    );
    expectError(
      () => update({ _id: 1, n: new Int32(1) }, { $bit: { n: { and: 1.5 } } }),
      2,
      "The $bit modifier field must be an Integer(32/64 bit); a 'double' is not supported here: {and: 1.5}",
    );
  });
});

describe('applying operators at a blocked or immutable path', () => {
  it('$min, $currentDate, $push, $addToSet and $bit through a scalar fail with PathNotViable (28)', () => {
    const doc = { _id: 1, s: 5 };
    for (const spec of [
      { $min: { 's.x': 1 } },
      { $max: { 's.x': 1 } },
      { $currentDate: { 's.x': true } },
      { $push: { 's.x': 1 } },
      { $addToSet: { 's.x': 1 } },
      { $bit: { 's.x': { or: new Int32(1) } } },
      { $inc: { 's.x': 1 } },
    ]) {
      expectError(() => update(doc, spec), 28, /Cannot create field 'x' in element \{s: 5\}/);
    }
  });

  it('$pull, $pop, $addToSet and $push inside _id are refused with ImmutableField (66)', () => {
    const doc = { _id: { a: [1, 2] } };
    for (const spec of [
      { $pull: { '_id.a': 1 } },
      { $pop: { '_id.a': 1 } },
      { $addToSet: { '_id.a': 3 } },
      { $push: { '_id.a': 3 } },
      { $unset: { '_id.a': 1 } },
    ]) {
      expectError(
        () => update(doc, spec),
        66,
        "Performing an update on the path '_id.a' would modify the immutable field '_id'",
      );
    }
  });

  it('a no-op inside _id is allowed: nothing to pull, nothing new to add', () => {
    const doc = { _id: { a: [1, 2] } };
    assert.equal(update(doc, { $pull: { '_id.a': 9 } }).changed, false);
    assert.equal(update(doc, { $addToSet: { '_id.a': 1 } }).changed, false);
  });

  it('$rename into a field of _id is refused (66); a target through a scalar fails with 28', () => {
    expectError(
      () => update({ _id: { x: 1 }, a: 1 }, { $rename: { a: '_id.y' } }),
      66,
      "Performing an update on the path '_id.y' would modify the immutable field '_id'",
    );
    expectError(() => update({ _id: 1, a: 1, t: 5 }, { $rename: { a: 't.x' } }), 28);
  });
});

describe('$inc and $mul results', () => {
  it('$inc of a NumberInt by a double gives a double without an overflow error', () => {
    assert.equal(updated({ _id: 1, n: new Int32(2) }, { $inc: { n: 1.5 } }).n, 3.5);
  });

  it('a NumberInt plus a NumberLong that overflows reports the current value as NumberInt (2)', () => {
    expectError(
      () => update({ _id: 'k', n: new Int32(1) }, { $inc: { n: Long.MAX_VALUE } }),
      2,
      'Failed to apply $inc operations to current value ((NumberInt)1) for document {_id: "k"}',
    );
  });

  it('$mul overflowing a NumberLong fails with BadValue (2)', () => {
    expectError(
      () => update({ _id: 'k', n: Long.MAX_VALUE }, { $mul: { n: new Int32(2) } }),
      2,
      'Failed to apply $mul operations to current value ((NumberLong)9223372036854775807) for document {_id: "k"}',
    );
  });
});

describe('$bit results', () => {
  it('$bit on a missing field works on NumberInt 0', () => {
    assert.deepEqual(updated({ _id: 1 }, { $bit: { n: { or: new Int32(5) } } }).n, new Int32(5));
    assert.deepEqual(updated({ _id: 1 }, { $bit: { n: { xor: new Int32(6) } } }).n, new Int32(6));
    assert.deepEqual(updated({ _id: 1 }, { $bit: { n: { and: new Int32(6) } } }), { _id: 1, n: new Int32(0) });
  });

  it('$bit keeps a NumberLong field a NumberLong and applies its operations in order', () => {
    const r = updated(
      { _id: 1, n: Long.fromNumber(0b0110) },
      { $bit: { n: { and: new Int32(0b0100), or: new Int32(0b0001), xor: new Int32(0b1000) } } },
    );
    assert.ok(r.n instanceof Long);
    assert.equal(r.n.toNumber(), 0b1101);
  });

  it('$bit on a NumberInt wraps to 32 bits: or with -1 gives -1', () => {
    assert.deepEqual(updated({ _id: 1, n: new Int32(5) }, { $bit: { n: { or: new Int32(-1) } } }).n, new Int32(-1));
  });

  it('$bit on a non-integer field names the field and its type (2)', () => {
    expectError(
      () => update({ _id: 'k', n: 'x' }, { $bit: { n: { and: new Int32(1) } } }),
      2,
      'Cannot apply $bit to a value of non-integral type._id: "k" has the field n of non-integer type string',
    );
  });
});

describe('$push and $addToSet positions', () => {
  it('a negative $position beyond the array inserts at the front; a negative $slice beyond keeps all', () => {
    assert.deepEqual(updated({ _id: 1, a: [1, 2] }, { $push: { a: { $each: [9], $position: -10 } } }).a, [9, 1, 2]);
    assert.deepEqual(updated({ _id: 1, a: [1, 2] }, { $push: { a: { $each: [3], $slice: -10 } } }).a, [1, 2, 3]);
    assert.deepEqual(updated({ _id: 1, a: [1, 2] }, { $push: { a: { $each: [3], $slice: 10 } } }).a, [1, 2, 3]);
  });

  it('$addToSet with an empty $each creates an empty array on a missing field', () => {
    const r = update({ _id: 1 }, { $addToSet: { a: { $each: [] } } });
    assert.equal(r.changed, true);
    assert.deepEqual(r.doc, { _id: 1, a: [] });
  });
});

describe('$currentDate timestamps', () => {
  it('the increment restarts at 1 in a later second and counts up within it', () => {
    const later = new Date('2099-01-01T00:00:00.000Z');
    const t1 = applyUpdate({ _id: 1 }, { $currentDate: { ts: { $type: 'timestamp' } } }, { ...ctx, now: later }).doc
      .ts as Timestamp;
    const t2 = applyUpdate({ _id: 1 }, { $currentDate: { ts: { $type: 'timestamp' } } }, { ...ctx, now: later }).doc
      .ts as Timestamp;
    assert.equal(t1.t, later.getTime() / 1000);
    assert.equal(t1.i, 1);
    assert.equal(t2.t, t1.t);
    assert.equal(t2.i, 2);
  });
});
