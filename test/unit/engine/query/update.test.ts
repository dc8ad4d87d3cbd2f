import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DBRef, Decimal128, Double, Int32, Long, ObjectId, Timestamp } from 'bson';
import { compareValues } from '../../../../src/engine/values/compare';
import {
  applyReplacement,
  applyUpdate,
  compileUpdate,
  isOperatorUpdate,
  upsertSeed,
  type UpdateContext,
} from '../../../../src/engine/query/update';
import type { Document } from '../../../../src/engine/values/types';
import { expectError } from '../../helpers/expect-error';

const NOW = new Date('2024-05-01T12:00:00.000Z');
const ctx: UpdateContext = { now: NOW, isInsert: false };
const insertCtx: UpdateContext = { now: NOW, isInsert: true };

function update(doc: Document, spec: Document, c: UpdateContext = ctx) {
  return applyUpdate(doc, spec, c);
}

function updated(doc: Document, spec: Document, c: UpdateContext = ctx): Document {
  return applyUpdate(doc, spec, c).doc;
}

/** Deep copy for "was the input mutated?" checks (bson values are immutable, shared). */
function snapshot(doc: Document): string {
  return JSON.stringify(doc, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
}

describe('isOperatorUpdate', () => {
  it('is true for a document of update operators', () => {
    assert.equal(isOperatorUpdate({ $set: { a: 1 }, $inc: { b: 1 } }), true);
  });

  it('is false for a replacement document and for {}', () => {
    assert.equal(isOperatorUpdate({ a: 1, b: 2 }), false);
    assert.equal(isOperatorUpdate({}), false);
  });

  it('rejects a plain field after operators as an unknown modifier (9)', () => {
    expectError(
      () => isOperatorUpdate({ $set: { a: 1 }, b: 2 }),
      9,
      'Unknown modifier: b. Expected a valid update modifier or pipeline-style update specified as an array',
    );
  });

  it('rejects a $-field inside a replacement document as mongod does (52)', () => {
    expectError(
      () => isOperatorUpdate({ a: 1, $set: { b: 1 } }),
      52,
      /The dollar \(\$\) prefixed field '\$set' in '\$set' is not allowed/,
    );
  });
});

describe('applyUpdate: parsing', () => {
  it('rejects an unknown modifier with mongod message (9)', () => {
    expectError(
      () => update({ _id: 1 }, { $foo: { a: 1 } }),
      9,
      'Unknown modifier: $foo. Expected a valid update modifier or pipeline-style update specified as an array',
    );
  });

  it('rejects an operator whose argument is not a document (9)', () => {
    expectError(
      () => update({ _id: 1 }, { $set: 'x' }),
      9,
      /Modifiers operate on fields but we found type string instead.*\{\$set: "x"\}/,
    );
  });

  it('accepts an empty operator ({$set: {}}) as a no-op', () => {
    const doc = { _id: 1, a: 1 };
    const r = update(doc, { $set: {} });
    assert.equal(r.changed, false);
    assert.deepEqual(r.doc, { _id: 1, a: 1 });
  });

  it('reports two operators on the same path as ConflictingUpdateOperators (40)', () => {
    expectError(
      () => update({ _id: 1 }, { $set: { a: 1 }, $inc: { a: 1 } }),
      40,
      "Updating the path 'a' would create a conflict at 'a'",
    );
  });

  it('reports a path under another updated path as a conflict at the shorter path', () => {
    expectError(
      () => update({ _id: 1 }, { $set: { a: 1 }, $inc: { 'a.b': 1 } }),
      40,
      "Updating the path 'a.b' would create a conflict at 'a'",
    );
    expectError(
      () => update({ _id: 1 }, { $set: { 'a.b': 1 }, $unset: { a: 1 } }),
      40,
      "Updating the path 'a' would create a conflict at 'a'",
    );
  });

  it('reports conflicts within one operator too', () => {
    expectError(() => update({ _id: 1 }, { $set: { 'a.b': 1, a: 2 } }), 40);
  });

  it('does not treat sibling paths sharing a prefix string as a conflict', () => {
    assert.deepEqual(updated({ _id: 1 }, { $set: { a: 1, ab: 2, 'c.d': 3, 'c.e': 4 } }), {
      _id: 1,
      a: 1,
      ab: 2,
      c: { d: 3, e: 4 },
    });
  });

  it('positional parts: $ needs the matched position, $[] updates every element, $[x] needs its filter (2)', () => {
    expectError(
      () => update({ _id: 1, a: [1] }, { $set: { 'a.$': 2 } }),
      2,
      'The positional operator did not find the match needed from the query.',
    );
    assert.deepEqual(updated({ _id: 1, a: [1, 3] }, { $set: { 'a.$[]': 2 } }), { _id: 1, a: [2, 2] });
    expectError(
      () => update({ _id: 1, a: [1] }, { $inc: { 'a.$[x].b': 2 } }),
      2,
      "No array filter found for identifier 'x' in path 'a.$[x].b'",
    );
  });

  it('refuses empty paths and empty path components (56)', () => {
    expectError(() => update({ _id: 1 }, { $set: { '': 1 } }), 56, 'An empty update path is not valid.');
    expectError(
      () => update({ _id: 1 }, { $set: { 'a..b': 1 } }),
      56,
      "The update path 'a..b' contains an empty field name, which is not allowed.",
    );
  });

  it('refuses $-prefixed field names in update paths (52)', () => {
    expectError(() => update({ _id: 1 }, { $set: { 'a.$b': 1 } }), 52, /'\$b' in 'a\.\$b'/);
  });

  it("updates a DBRef's $ref, $id and $db below the top of the document; at the top they stay refused (52)", () => {
    const ref = { $ref: 'a', $id: 'b' };
    assert.deepEqual(updated({ _id: 1, a: ref }, { $set: { 'a.$id': 2 } }), { _id: 1, a: { $ref: 'a', $id: 2 } });
    assert.deepEqual(updated({ _id: 1, a: ref }, { $set: { 'a.$ref': 'c' } }), { _id: 1, a: { $ref: 'c', $id: 'b' } });
    assert.deepEqual(updated({ _id: 1, a: [{ b: { $ref: 'old', $id: 0 } }] }, { $set: { 'a.0.b.$ref': 'new' } }), {
      _id: 1,
      a: [{ b: { $ref: 'new', $id: 0 } }],
    });
    const stored = updated({ _id: 1, a: new DBRef('a', 'b' as never) }, { $set: { 'a.$id': 2 } }).a as DBRef;
    assert.equal(stored._bsontype, 'DBRef', 'a stored DBRef stays a DBRef');
    assert.deepEqual([stored.collection, stored.oid], ['a', 2]);
    for (const field of ['$id', '$ref', '$db'])
      expectError(() => update({ _id: 1, a: ref }, { $set: { [field]: 3 } }), 52, new RegExp(`'\\${field}'`));
    // A DBRef field outside a DBRef leaves an invalid one: InvalidDBRef (55).
    expectError(() => update({ _id: 1 }, { $set: { 'b.$id': 2 } }), 55, /\$id field without a \$ref before it/);
    expectError(() => update({ _id: 1 }, { $set: { 'b.$ref': 2 } }), 55, /\$ref field must be a String/);
  });

  it('compileUpdate reports a malformed update before any document is seen', () => {
    expectError(() => compileUpdate({ $inc: { a: 'x' } }), 14);
    const compiled = compileUpdate({ $inc: { n: 1 } });
    assert.deepEqual(compiled.apply({ _id: 1, n: 1 }, ctx).doc, { _id: 1, n: 2 });
    assert.deepEqual(compiled.apply({ _id: 2 }, ctx).doc, { _id: 2, n: 1 });
  });
});

describe('applyUpdate: no mutation and no sharing', () => {
  it('leaves the input document untouched and returns a new one', () => {
    const doc = { _id: 1, a: { b: [1, 2], c: { d: 1 } }, e: [{ f: 1 }] };
    const before = snapshot(doc);
    const r = update(doc, { $set: { 'a.c.d': 2, 'e.0.f': 5 }, $push: { 'a.b': 3 }, $unset: { x: 1 } });
    assert.equal(snapshot(doc), before);
    assert.deepEqual(r.doc, { _id: 1, a: { b: [1, 2, 3], c: { d: 2 } }, e: [{ f: 5 }] });
    assert.notEqual(r.doc, doc);
    assert.notEqual(r.doc.a, doc.a);
  });

  it('shares untouched subtrees but copies every container on a written path', () => {
    const doc = { _id: 1, keep: { deep: [1] }, edit: { x: 1 } };
    const r = updated(doc, { $set: { 'edit.y': 2 } });
    assert.equal(r.keep, doc.keep);
    assert.notEqual(r.edit, doc.edit);
    assert.deepEqual(doc.edit, { x: 1 });
  });

  it('clones values taken from the update so later changes to the update do not leak', () => {
    const value = { list: [1, 2] };
    const spec = { $set: { a: value }, $push: { b: { $each: [{ z: 1 }] } } };
    const r1 = updated({ _id: 1 }, spec);
    const r2 = updated({ _id: 2 }, spec);
    value.list.push(3);
    (spec.$push.b.$each[0] as Document).z = 99;
    assert.deepEqual(r1.a, { list: [1, 2] });
    assert.deepEqual(r1.b, [{ z: 1 }]);
    assert.notEqual(r1.a, r2.a);
    assert.notEqual(r1.b, r2.b);
  });

  it('returns changed: false and the same document when nothing changes', () => {
    const doc = { _id: 1, a: 1, b: [1, 2] };
    const r = update(doc, { $set: { a: 1 }, $addToSet: { b: 2 }, $unset: { zz: 1 }, $pull: { c: 7 } });
    assert.equal(r.changed, false);
    assert.equal(r.doc, doc);
  });
});

describe('$set', () => {
  it('sets a top-level field and reports a change', () => {
    const r = update({ _id: 1, a: 1 }, { $set: { a: 2 } });
    assert.equal(r.changed, true);
    assert.deepEqual(r.doc, { _id: 1, a: 2 });
  });

  it('is a no-op when the value is binary-identical', () => {
    assert.equal(update({ _id: 1, a: { x: 1, y: [1] } }, { $set: { a: { x: 1, y: [1] } } }).changed, false);
  });

  it('counts a change of numeric type (1.0 -> NumberInt(1)) as a modification', () => {
    const r = update({ _id: 1, a: 1 }, { $set: { a: new Int32(1) } });
    assert.equal(r.changed, true);
    assert.ok(r.doc.a instanceof Int32);
  });

  it('counts a change of field order in an embedded document as a modification', () => {
    assert.equal(update({ _id: 1, a: { x: 1, y: 2 } }, { $set: { a: { y: 2, x: 1 } } }).changed, true);
  });

  it('creates intermediate documents for a dotted path', () => {
    assert.deepEqual(updated({ _id: 1 }, { $set: { 'a.b.c': 1 } }), { _id: 1, a: { b: { c: 1 } } });
  });

  it('treats a numeric component on a document as a field name', () => {
    assert.deepEqual(updated({ _id: 1, a: {} }, { $set: { 'a.0': 'x' } }), { _id: 1, a: { 0: 'x' } });
  });

  it('indexes into arrays with numeric components', () => {
    assert.deepEqual(updated({ _id: 1, a: [1, 2, 3] }, { $set: { 'a.1': 9 } }), { _id: 1, a: [1, 9, 3] });
    assert.deepEqual(updated({ _id: 1, a: [{ b: 1 }, { b: 2 }] }, { $set: { 'a.1.b': 5 } }), {
      _id: 1,
      a: [{ b: 1 }, { b: 5 }],
    });
  });

  it('pads an array with nulls when setting past its end', () => {
    assert.deepEqual(updated({ _id: 1, a: [1] }, { $set: { 'a.3': 4 } }), { _id: 1, a: [1, null, null, 4] });
    assert.deepEqual(updated({ _id: 1, a: [] }, { $set: { 'a.2.b': 1 } }), { _id: 1, a: [null, null, { b: 1 }] });
  });

  it('fails with PathNotViable (28) through a scalar', () => {
    expectError(
      () => update({ _id: 1, a: 'str' }, { $set: { 'a.b': 1 } }),
      28,
      'Cannot create field \'b\' in element {a: "str"}',
    );
    expectError(
      () => update({ _id: 1, a: null }, { $set: { 'a.b': 1 } }),
      28,
      "Cannot create field 'b' in element {a: null}",
    );
  });

  it('fails with PathNotViable (28) for a field name on an array', () => {
    expectError(
      () => update({ _id: 1, a: ['x', 'y'] }, { $set: { 'a.b': 1 } }),
      28,
      'Cannot create field \'b\' in element {a: [ "x", "y" ]}',
    );
  });

  it('adds new fields in lexicographic order, like mongod', () => {
    const r = updated({ _id: 1, m: 0 }, { $set: { z: 1, b: 1 }, $inc: { a: 1 } });
    assert.deepEqual(Object.keys(r), ['_id', 'm', 'a', 'b', 'z']);
  });

  it('keeps an existing field in place when overwriting it', () => {
    assert.deepEqual(Object.keys(updated({ _id: 1, a: 1, b: 2 }, { $set: { a: 5 } })), ['_id', 'a', 'b']);
  });

  it('stores a JS undefined as null and a bson Double as a plain number', () => {
    const r = updated({ _id: 1 }, { $set: { u: undefined, d: new Double(2.5) } });
    assert.equal(r.u, null);
    assert.equal(r.d, 2.5);
  });

  it('allows setting _id to its current value', () => {
    const r = update({ _id: 1, a: 1 }, { $set: { _id: 1, a: 2 } });
    assert.deepEqual(r.doc, { _id: 1, a: 2 });
  });

  it('refuses changing _id with ImmutableField (66)', () => {
    expectError(
      () => update({ _id: 1 }, { $set: { _id: 2 } }),
      66,
      "Performing an update on the path '_id' would modify the immutable field '_id'",
    );
    expectError(
      () => update({ _id: { x: 1 } }, { $set: { '_id.x': 2 } }),
      66,
      /path '_id\.x' would modify the immutable field '_id'/,
    );
  });

  it('refuses changing the type of _id even to an equal value (binary comparison)', () => {
    expectError(() => update({ _id: 1 }, { $set: { _id: new Int32(1) } }), 66);
  });

  it('lets an upsert set _id when the seed has none', () => {
    assert.deepEqual(updated({}, { $set: { _id: 7 } }, insertCtx), { _id: 7 });
  });
});

describe('$set: array padding', () => {
  it('$set may pad an array with up to 1,500,000 nulls; one more is refused with 34', () => {
    assert.equal((updated({ a: [] }, { $set: { 'a.1500000': 1 } }).a as unknown[]).length, 1500001);
    expectError(() => update({ a: [] }, { $set: { 'a.1500001': 1 } }), 34, /can't backfill/);
    expectError(() => update({ a: [] }, { $set: { 'a.1000000000': 1 } }), 34);
  });
});

describe('$unset', () => {
  it('removes a field and keeps the order of the others', () => {
    const r = updated({ _id: 1, a: 1, b: 2, c: 3 }, { $unset: { b: '' } });
    assert.deepEqual(r, { _id: 1, a: 1, c: 3 });
    assert.deepEqual(Object.keys(r), ['_id', 'a', 'c']);
  });

  it('removes a nested field', () => {
    assert.deepEqual(updated({ _id: 1, a: { b: 1, c: 2 } }, { $unset: { 'a.b': 1 } }), { _id: 1, a: { c: 2 } });
  });

  it('is a no-op for a missing field or a path through a scalar', () => {
    assert.equal(update({ _id: 1, a: 1 }, { $unset: { x: 1, 'a.b': 1 } }).changed, false);
  });

  it('sets an array element to null instead of removing it', () => {
    assert.deepEqual(updated({ _id: 1, a: [1, 2, 3] }, { $unset: { 'a.1': 1 } }), { _id: 1, a: [1, null, 3] });
  });

  it('refuses unsetting _id (66)', () => {
    expectError(() => update({ _id: 1 }, { $unset: { _id: 1 } }), 66);
  });
});

describe('$inc', () => {
  it('keeps NumberInt + NumberInt as NumberInt', () => {
    const r = updated({ _id: 1, n: new Int32(5) }, { $inc: { n: new Int32(2) } });
    assert.ok(r.n instanceof Int32);
    assert.equal(r.n.value, 7);
  });

  it('promotes NumberInt overflow to NumberLong', () => {
    const r = updated({ _id: 1, n: new Int32(2147483647) }, { $inc: { n: new Int32(1) } });
    assert.ok(r.n instanceof Long);
    assert.equal(r.n.toString(), '2147483648');
  });

  it('gives NumberLong for NumberInt + NumberLong', () => {
    const r = updated({ _id: 1, n: new Int32(1) }, { $inc: { n: Long.fromNumber(2) } });
    assert.ok(r.n instanceof Long);
    assert.equal(r.n.toNumber(), 3);
  });

  it('gives a double for NumberLong + double', () => {
    const r = updated({ _id: 1, n: Long.fromNumber(10) }, { $inc: { n: 0.5 } });
    assert.equal(r.n, 10.5);
  });

  it('gives a double for double + NumberInt', () => {
    const r = updated({ _id: 1, n: 1.5 }, { $inc: { n: new Int32(1) } });
    assert.equal(r.n, 2.5);
  });

  it('adds Decimal128 exactly', () => {
    const r = updated({ _id: 1, n: Decimal128.fromString('1.5') }, { $inc: { n: Decimal128.fromString('2') } });
    assert.ok(r.n instanceof Decimal128);
    assert.equal(r.n.toString(), '3.5');
    const tenths = updated(
      { _id: 1, n: Decimal128.fromString('0.1') },
      { $inc: { n: Decimal128.fromString('0.2') } },
    ).n;
    assert.equal(compareValues(tenths, Decimal128.fromString('0.3')), 0);
  });

  it('gives Decimal128 for int + Decimal128', () => {
    const r = updated({ _id: 1, n: new Int32(1) }, { $inc: { n: Decimal128.fromString('1.5') } });
    assert.ok(r.n instanceof Decimal128);
    assert.equal(r.n.toString(), '2.5');
  });

  it('creates a missing field with the increment, keeping its type', () => {
    const r = updated({ _id: 1 }, { $inc: { 'a.n': new Int32(3) } });
    assert.deepEqual(r, { _id: 1, a: { n: new Int32(3) } });
  });

  it('is a no-op when incrementing by zero of the same type', () => {
    assert.equal(update({ _id: 1, n: 5 }, { $inc: { n: 0 } }).changed, false);
    assert.equal(update({ _id: 1, n: new Int32(5) }, { $inc: { n: new Int32(0) } }).changed, false);
  });

  it('counts a type change caused by a zero increment as a modification', () => {
    const r = update({ _id: 1, n: new Int32(5) }, { $inc: { n: Long.fromNumber(0) } });
    assert.equal(r.changed, true);
    assert.ok(r.doc.n instanceof Long);
  });

  it('fails with BadValue (2) when NumberLong overflows', () => {
    expectError(
      () => update({ _id: 'k', n: Long.MAX_VALUE }, { $inc: { n: new Int32(1) } }),
      2,
      'Failed to apply $inc operations to current value ((NumberLong)9223372036854775807) for document {_id: "k"}',
    );
  });

  it('refuses a non-numeric increment with TypeMismatch (14)', () => {
    expectError(
      () => update({ _id: 1 }, { $inc: { a: 'x' } }),
      14,
      'Cannot increment with non-numeric argument: {a: "x"}',
    );
  });

  it('refuses incrementing a non-numeric field with TypeMismatch (14)', () => {
    expectError(
      () => update({ _id: 'k', a: 'x' }, { $inc: { a: 1 } }),
      14,
      'Cannot apply $inc to a value of non-numeric type. {_id: "k"} has the field \'a\' of non-numeric type string',
    );
    expectError(
      () => update({ _id: new ObjectId('65f000000000000000000001'), a: { b: null } }, { $inc: { 'a.b': 1 } }),
      14,
      "Cannot apply $inc to a value of non-numeric type. {_id: ObjectId('65f000000000000000000001')} has the field 'b' of non-numeric type null",
    );
  });
});

describe('$mul', () => {
  it('multiplies keeping NumberInt', () => {
    const r = updated({ _id: 1, n: new Int32(6) }, { $mul: { n: new Int32(7) } });
    assert.deepEqual(r.n, new Int32(42));
  });

  it('promotes NumberInt overflow to NumberLong', () => {
    const r = updated({ _id: 1, n: new Int32(65536) }, { $mul: { n: new Int32(65536) } });
    assert.ok(r.n instanceof Long);
    assert.equal(r.n.toString(), '4294967296');
  });

  it('multiplies doubles', () => {
    assert.equal(updated({ _id: 1, n: 2.5 }, { $mul: { n: 2 } }).n, 5);
  });

  it('creates a missing field as zero of the multiplier type', () => {
    assert.deepEqual(updated({ _id: 1 }, { $mul: { n: new Int32(5) } }).n, new Int32(0));
    const l = updated({ _id: 1 }, { $mul: { n: Long.fromNumber(5) } }).n;
    assert.ok(l instanceof Long);
    assert.equal(l.toNumber(), 0);
    assert.equal(updated({ _id: 1 }, { $mul: { n: 5 } }).n, 0);
  });

  it('refuses a non-numeric multiplier and field (14)', () => {
    expectError(
      () => update({ _id: 1 }, { $mul: { a: true } }),
      14,
      'Cannot multiply with non-numeric argument: {a: true}',
    );
    expectError(
      () => update({ _id: 1, a: [1] }, { $mul: { a: 2 } }),
      14,
      /Cannot apply \$mul to a value of non-numeric type.*of non-numeric type array/,
    );
  });
});

describe('$min and $max', () => {
  it('$min replaces only with a smaller value', () => {
    assert.equal(updated({ _id: 1, a: 5 }, { $min: { a: 3 } }).a, 3);
    assert.equal(update({ _id: 1, a: 5 }, { $min: { a: 8 } }).changed, false);
  });

  it('$max replaces only with a larger value', () => {
    assert.equal(updated({ _id: 1, a: 5 }, { $max: { a: 8 } }).a, 8);
    assert.equal(update({ _id: 1, a: 5 }, { $max: { a: 3 } }).changed, false);
  });

  it('treats equal values of different numeric types as a no-op', () => {
    const r = update({ _id: 1, a: 5 }, { $max: { a: new Int32(5) } });
    assert.equal(r.changed, false);
    assert.equal(r.doc.a, 5);
  });

  it('compares across types by BSON order', () => {
    assert.equal(updated({ _id: 1, a: null }, { $max: { a: 1 } }).a, 1);
    assert.equal(updated({ _id: 1, a: 'str' }, { $min: { a: 100 } }).a, 100);
    const d = new Date(5);
    assert.equal((updated({ _id: 1, a: new Date(10) }, { $min: { a: d } }).a as Date).getTime(), 5);
  });

  it('sets a missing field', () => {
    assert.deepEqual(updated({ _id: 1 }, { $min: { 'a.b': 2 } }), { _id: 1, a: { b: 2 } });
  });
});

describe('$rename', () => {
  it('moves a field to a new name', () => {
    assert.deepEqual(updated({ _id: 1, a: 1, b: 2 }, { $rename: { a: 'c' } }), { _id: 1, b: 2, c: 1 });
  });

  it('moves into and out of embedded documents', () => {
    assert.deepEqual(updated({ _id: 1, a: { b: 1 } }, { $rename: { 'a.b': 'x.y' } }), { _id: 1, a: {}, x: { y: 1 } });
  });

  it('overwrites an existing target', () => {
    assert.deepEqual(updated({ _id: 1, a: 1, b: 2 }, { $rename: { a: 'b' } }), { _id: 1, b: 1 });
  });

  it('is a no-op when the source is missing', () => {
    assert.equal(update({ _id: 1, b: 2 }, { $rename: { a: 'c' } }).changed, false);
  });

  it('refuses the same source and target (2)', () => {
    expectError(
      () => update({ _id: 1, a: 1 }, { $rename: { a: 'a' } }),
      2,
      'The source and target field for $rename must differ: a: "a"',
    );
  });

  it('refuses a source and target on the same path (2)', () => {
    expectError(() => update({ _id: 1, a: 1 }, { $rename: { a: 'a.b' } }), 2, /must not be on the same path/);
  });

  it('refuses a non-string target (2)', () => {
    expectError(
      () => update({ _id: 1, a: 1 }, { $rename: { a: true } }),
      2,
      "The 'to' field for $rename must be a string: a: true",
    );
  });

  it('refuses a source inside an array (2)', () => {
    expectError(
      () => update({ _id: 1, a: [{ b: 1 }] }, { $rename: { 'a.0.b': 'c' } }),
      2,
      /The source field cannot be an array element, 'a\.0\.b'/,
    );
  });

  it('refuses a source path through an array or a scalar (28), where a missing source is a no-op', () => {
    expectError(
      () => update({ _id: 1, d: [{ e: 3 }] }, { $rename: { 'd.e': 'f' } }),
      28,
      /Cannot create field 'e' in element \{d: /,
    );
    expectError(() => update({ _id: 1, d: [{ e: 3 }] }, { $rename: { 'd.f': 'd.e' } }), 28);
    expectError(() => update({ _id: 1, f: 4 }, { $rename: { 'f.g': 'a' } }), 28);
    assert.deepEqual(updated({ _id: 1, f: 4 }, { $rename: { 'x.y': 'a' } }), { _id: 1, f: 4 });
  });

  it('refuses a target inside an array (2)', () => {
    expectError(
      () => update({ _id: 1, a: 1, t: [] }, { $rename: { a: 't.x' } }),
      2,
      /The destination field cannot be an array element/,
    );
  });

  it('conflicts with another operator on its source or target (40)', () => {
    expectError(() => update({ _id: 1, a: 1 }, { $rename: { a: 'b' }, $set: { b: 1 } }), 40);
    expectError(() => update({ _id: 1, a: 1 }, { $rename: { a: 'b' }, $set: { a: 2 } }), 40);
  });

  it('refuses renaming _id (66)', () => {
    expectError(() => update({ _id: 1 }, { $rename: { _id: 'x' } }), 66);
  });
});

describe('$push', () => {
  it('appends to an array', () => {
    assert.deepEqual(updated({ _id: 1, a: [1] }, { $push: { a: 2 } }).a, [1, 2]);
  });

  it('creates a missing array', () => {
    assert.deepEqual(updated({ _id: 1 }, { $push: { 'x.a': 1 } }), { _id: 1, x: { a: [1] } });
  });

  it('pushes an array value as one element', () => {
    assert.deepEqual(updated({ _id: 1, a: [] }, { $push: { a: [1, 2] } }).a, [[1, 2]]);
  });

  it('pushes a document without $each as a literal', () => {
    assert.deepEqual(updated({ _id: 1, a: [] }, { $push: { a: { $slice: 1 } } }).a, [{ $slice: 1 }]);
  });

  it('appends every $each element', () => {
    assert.deepEqual(updated({ _id: 1, a: [1] }, { $push: { a: { $each: [2, 3] } } }).a, [1, 2, 3]);
  });

  it('inserts at $position, counting negative positions from the end', () => {
    assert.deepEqual(updated({ _id: 1, a: [1, 2, 3] }, { $push: { a: { $each: [9], $position: 0 } } }).a, [9, 1, 2, 3]);
    assert.deepEqual(
      updated({ _id: 1, a: [1, 2, 3] }, { $push: { a: { $each: [9], $position: -1 } } }).a,
      [1, 2, 9, 3],
    );
    assert.deepEqual(updated({ _id: 1, a: [1, 2] }, { $push: { a: { $each: [9], $position: 10 } } }).a, [1, 2, 9]);
  });

  it('sorts whole elements with $sort: 1 / -1', () => {
    assert.deepEqual(updated({ _id: 1, a: [3, 1] }, { $push: { a: { $each: [2], $sort: 1 } } }).a, [1, 2, 3]);
    assert.deepEqual(updated({ _id: 1, a: [3, 1] }, { $push: { a: { $each: [2], $sort: -1 } } }).a, [3, 2, 1]);
  });

  it('sorts documents by a field pattern', () => {
    const r = updated(
      { _id: 1, a: [{ s: 3 }, { s: 1 }] },
      { $push: { a: { $each: [{ s: 2 }, { t: 0 }], $sort: { s: -1 } } } },
    );
    assert.deepEqual(r.a, [{ s: 3 }, { s: 2 }, { s: 1 }, { t: 0 }]);
  });

  it('keeps the first n or last n elements with $slice after sorting', () => {
    assert.deepEqual(updated({ _id: 1, a: [5, 1] }, { $push: { a: { $each: [3], $sort: 1, $slice: 2 } } }).a, [1, 3]);
    assert.deepEqual(updated({ _id: 1, a: [1, 2] }, { $push: { a: { $each: [3], $slice: -2 } } }).a, [2, 3]);
    assert.deepEqual(updated({ _id: 1, a: [1, 2] }, { $push: { a: { $each: [], $slice: 0 } } }).a, []);
  });

  it('is a no-op when $each is empty and nothing else changes', () => {
    assert.equal(update({ _id: 1, a: [1, 2] }, { $push: { a: { $each: [], $slice: 5 } } }).changed, false);
  });

  it('refuses a non-array field with BadValue (2)', () => {
    expectError(
      () => update({ _id: 'k', a: 'x' }, { $push: { a: 1 } }),
      2,
      'The field \'a\' must be an array but is of type string in document {_id: "k"}',
    );
  });

  it('refuses a non-array $each, an unknown clause and bad $slice/$position/$sort (2)', () => {
    expectError(
      () => update({ _id: 1 }, { $push: { a: { $each: 1 } } }),
      2,
      /The argument to \$each in \$push must be an array/,
    );
    expectError(
      () => update({ _id: 1 }, { $push: { a: { $each: [], $foo: 1 } } }),
      2,
      'Unrecognized clause in $push: $foo',
    );
    expectError(
      () => update({ _id: 1 }, { $push: { a: { $each: [], $slice: 'x' } } }),
      2,
      /\$slice must be an integral value/,
    );
    expectError(
      () => update({ _id: 1 }, { $push: { a: { $each: [], $slice: 1.5 } } }),
      2,
      /\$slice must be an integral value/,
    );
    expectError(
      () => update({ _id: 1 }, { $push: { a: { $each: [], $position: 'x' } } }),
      2,
      /\$position must be an integer/,
    );
    expectError(() => update({ _id: 1 }, { $push: { a: { $each: [], $sort: 2 } } }), 2, /The \$sort is invalid/);
    expectError(() => update({ _id: 1 }, { $push: { a: { $each: [], $sort: {} } } }), 2, /pattern is empty/);
  });
});

describe('$addToSet', () => {
  it('adds a value that is not present', () => {
    assert.deepEqual(updated({ _id: 1, a: [1] }, { $addToSet: { a: 2 } }).a, [1, 2]);
  });

  it('does not add a value equal to an element (1 vs NumberInt(1))', () => {
    const r = update({ _id: 1, a: [1] }, { $addToSet: { a: new Int32(1) } });
    assert.equal(r.changed, false);
  });

  it('compares documents including field order', () => {
    assert.equal(
      (updated({ _id: 1, a: [{ x: 1, y: 2 }] }, { $addToSet: { a: { y: 2, x: 1 } } }).a as unknown[]).length,
      2,
    );
  });

  it('adds each new $each element once', () => {
    assert.deepEqual(updated({ _id: 1, a: [1] }, { $addToSet: { a: { $each: [1, 2, 2, 3] } } }).a, [1, 2, 3]);
  });

  it('creates a missing array', () => {
    assert.deepEqual(updated({ _id: 1 }, { $addToSet: { a: { $each: [1, 1] } } }).a, [1]);
  });

  it('refuses a non-array field (2)', () => {
    expectError(
      () => update({ _id: 1, a: 5 }, { $addToSet: { a: 1 } }),
      2,
      "Cannot apply $addToSet to non-array field. Field named 'a' has non-array type double",
    );
  });
});

describe('$pull and $pullAll', () => {
  it('removes elements equal to a value', () => {
    assert.deepEqual(updated({ _id: 1, a: [1, 2, 1, 3] }, { $pull: { a: 1 } }).a, [2, 3]);
  });

  it('removes scalar elements matching a condition', () => {
    assert.deepEqual(updated({ _id: 1, a: [1, 5, 7, 3] }, { $pull: { a: { $gte: 5 } } }).a, [1, 3]);
    assert.deepEqual(updated({ _id: 1, a: [1, 2, 3] }, { $pull: { a: { $in: [1, 3] } } }).a, [2]);
  });

  it('removes documents matching a query and leaves non-documents alone', () => {
    const r = updated({ _id: 1, a: [{ b: 1, c: 1 }, { b: 2 }, 1, 'x'] }, { $pull: { a: { b: 1 } } });
    assert.deepEqual(r.a, [{ b: 2 }, 1, 'x']);
    const r2 = updated({ _id: 1, a: [{ n: 1 }, { n: 9 }] }, { $pull: { a: { n: { $gt: 5 } } } });
    assert.deepEqual(r2.a, [{ n: 1 }]);
  });

  it('removes strings matching a regex', () => {
    assert.deepEqual(updated({ _id: 1, a: ['apple', 'banana', 'avocado'] }, { $pull: { a: /^a/ } }).a, ['banana']);
  });

  it('removes array elements equal to an array value', () => {
    assert.deepEqual(
      updated(
        {
          _id: 1,
          a: [
            [1, 2],
            [2, 1],
          ],
        },
        { $pull: { a: [1, 2] } },
      ).a,
      [[2, 1]],
    );
  });

  it('is a no-op on a missing field', () => {
    assert.equal(update({ _id: 1 }, { $pull: { a: 1 } }).changed, false);
  });

  it('refuses a non-array field (2)', () => {
    expectError(() => update({ _id: 1, a: 1 }, { $pull: { a: 1 } }), 2, 'Cannot apply $pull to a non-array value');
  });

  it('$pullAll removes every listed value', () => {
    assert.deepEqual(updated({ _id: 1, a: [1, 2, 3, 2, 4] }, { $pullAll: { a: [2, 4] } }).a, [1, 3]);
  });

  it('$pullAll requires an array argument (2)', () => {
    expectError(
      () => update({ _id: 1, a: [1] }, { $pullAll: { a: 1 } }),
      2,
      '$pullAll requires an array argument but was given a double',
    );
  });
});

describe('$pop', () => {
  it('removes the last element with 1 and the first with -1', () => {
    assert.deepEqual(updated({ _id: 1, a: [1, 2, 3] }, { $pop: { a: 1 } }).a, [1, 2]);
    assert.deepEqual(updated({ _id: 1, a: [1, 2, 3] }, { $pop: { a: -1 } }).a, [2, 3]);
  });

  it('is a no-op on an empty array or a missing field', () => {
    assert.equal(update({ _id: 1, a: [] }, { $pop: { a: 1 } }).changed, false);
    assert.equal(update({ _id: 1 }, { $pop: { a: 1 } }).changed, false);
  });

  it('refuses values other than 1 / -1 (9)', () => {
    expectError(() => update({ _id: 1, a: [1] }, { $pop: { a: 2 } }), 9, /\$pop expects 1 or -1/);
    expectError(() => update({ _id: 1, a: [1] }, { $pop: { a: 'x' } }), 9, 'Expected a number in: a: "x"');
  });

  it('refuses a non-array field with TypeMismatch (14)', () => {
    expectError(
      () => update({ _id: 1, a: { b: 1 } }, { $pop: { a: 1 } }),
      14,
      "Path 'a' contains an element of non-array type 'object'",
    );
  });

  it('refuses a path blocked by a scalar or an array with PathNotViable (28), unlike $pull', () => {
    expectError(() => update({ _id: 1, a: { b: 1 } }, { $pop: { 'a.b.c': 1 } }), 28);
    expectError(() => update({ _id: 1, a: { b: [1, 2] } }, { $pop: { 'a.b.c': 1 } }), 28);
    assert.equal(update({ _id: 1, a: { b: 1 } }, { $pull: { 'a.b.c': 1 } }).changed, false);
  });
});

describe('$currentDate', () => {
  it('sets a date with true', () => {
    const r = updated({ _id: 1 }, { $currentDate: { at: true } });
    assert.ok(r.at instanceof Date);
    assert.equal(r.at.getTime(), NOW.getTime());
  });

  it('sets a date with {$type: "date"}', () => {
    assert.equal(
      (updated({ _id: 1 }, { $currentDate: { at: { $type: 'date' } } }).at as Date).getTime(),
      NOW.getTime(),
    );
  });

  it('sets a timestamp with {$type: "timestamp"}, distinct within one second', () => {
    const t1 = updated({ _id: 1 }, { $currentDate: { ts: { $type: 'timestamp' } } }).ts as Timestamp;
    const t2 = updated({ _id: 1 }, { $currentDate: { ts: { $type: 'timestamp' } } }).ts as Timestamp;
    assert.ok(t1 instanceof Timestamp);
    assert.equal(t1.t, Math.floor(NOW.getTime() / 1000));
    assert.ok(t2.i > t1.i || t2.t > t1.t);
  });

  it('does not share the Date object between documents', () => {
    const a = updated({ _id: 1 }, { $currentDate: { at: true } }).at;
    const b = updated({ _id: 2 }, { $currentDate: { at: true } }).at;
    assert.notEqual(a, b);
    assert.notEqual(a, NOW);
  });

  it('refuses other specifications (2)', () => {
    expectError(() => update({ _id: 1 }, { $currentDate: { at: 1 } }), 2, /is not valid type for \$currentDate/);
    expectError(
      () => update({ _id: 1 }, { $currentDate: { at: { $type: 'int' } } }),
      2,
      /required to be 'date' or 'timestamp'/,
    );
    expectError(
      () => update({ _id: 1 }, { $currentDate: { at: { type: 'date' } } }),
      2,
      /The only valid field of the option is '\$type'/,
    );
  });
});

describe('$setOnInsert', () => {
  it('is ignored when updating an existing document', () => {
    const r = update({ _id: 1 }, { $setOnInsert: { a: 1 } });
    assert.equal(r.changed, false);
    assert.deepEqual(r.doc, { _id: 1 });
  });

  it('applies when an upsert inserts', () => {
    assert.deepEqual(updated({ _id: 1 }, { $setOnInsert: { a: 1 }, $set: { b: 2 } }, insertCtx), {
      _id: 1,
      a: 1,
      b: 2,
    });
  });

  it('still conflicts with other operators on the same path (40)', () => {
    expectError(() => update({ _id: 1 }, { $setOnInsert: { a: 1 }, $set: { a: 2 } }), 40);
  });
});

describe('$bit', () => {
  it('applies and / or / xor to NumberInt', () => {
    assert.deepEqual(
      updated({ _id: 1, n: new Int32(0b1100) }, { $bit: { n: { and: new Int32(0b1010) } } }).n,
      new Int32(0b1000),
    );
    assert.deepEqual(
      updated({ _id: 1, n: new Int32(0b1100) }, { $bit: { n: { or: new Int32(0b0011) } } }).n,
      new Int32(0b1111),
    );
    assert.deepEqual(
      updated({ _id: 1, n: new Int32(0b1100) }, { $bit: { n: { xor: new Int32(0b0110) } } }).n,
      new Int32(0b1010),
    );
  });

  it('gives NumberLong when a long is involved', () => {
    const r = updated({ _id: 1, n: new Int32(1) }, { $bit: { n: { or: Long.fromNumber(2) } } });
    assert.ok(r.n instanceof Long);
    assert.equal(r.n.toNumber(), 3);
  });

  it('refuses doubles (2)', () => {
    expectError(() => update({ _id: 1, n: new Int32(1) }, { $bit: { n: { and: 1 } } }), 2, /must be an Integer/);
    expectError(() => update({ _id: 1, n: 1.5 }, { $bit: { n: { and: new Int32(1) } } }), 2, /non-integral type/);
  });

  it('refuses an empty operation document (2): at least one of and / or / xor', () => {
    expectError(() => update({ _id: 1, n: new Int32(1) }, { $bit: { n: {} } }), 2, /at least one bitwise operation/);
  });
});

describe('applyReplacement', () => {
  it('replaces every field but keeps _id first', () => {
    const r = applyReplacement({ _id: 1, a: 1, b: 2 }, { c: 3 });
    assert.deepEqual(r, { _id: 1, c: 3 });
    assert.deepEqual(Object.keys(r), ['_id', 'c']);
  });

  it('accepts the same _id anywhere in the replacement', () => {
    const r = applyReplacement({ _id: 1, a: 1 }, { c: 3, _id: 1 });
    assert.deepEqual(Object.keys(r), ['_id', 'c']);
  });

  it('refuses a different _id with ImmutableField (66)', () => {
    expectError(
      () => applyReplacement({ _id: 'one' }, { _id: 'two' }),
      66,
      'After applying the update, the (immutable) field \'_id\' was found to have been altered to _id: "two"',
    );
  });

  it('refuses $-prefixed top-level fields (52)', () => {
    expectError(() => applyReplacement({ _id: 1 }, { a: 1, $set: { b: 1 } }), 52);
  });

  it('does not share structure with the replacement or mutate the original', () => {
    const original = { _id: 1, a: [1] };
    const replacement = { list: [1, 2], sub: { x: 1 } };
    const r = applyReplacement(original, replacement);
    replacement.list.push(3);
    replacement.sub.x = 2;
    assert.deepEqual(r, { _id: 1, list: [1, 2], sub: { x: 1 } });
    assert.deepEqual(original, { _id: 1, a: [1] });
  });

  it('takes the replacement _id when the original has none (upsert)', () => {
    assert.deepEqual(applyReplacement({}, { _id: 5, a: 1 }), { _id: 5, a: 1 });
  });
});

describe('upsertSeed', () => {
  it('an equality to a DBRef-shaped document ({$ref, $id}) seeds the field: it is a value, not operators', () => {
    const pic = { $ref: 'foo', $id: 7 };
    assert.deepEqual(upsertSeed({ name: 'first', pic }), { name: 'first', pic });
  });

  it('keeps top-level equality fields and drops operator conditions', () => {
    assert.deepEqual(upsertSeed({ a: 1, b: { $gt: 5 }, c: 'x' }), { a: 1, c: 'x' });
  });

  it('uses $eq and a single-value $in as equalities', () => {
    assert.deepEqual(upsertSeed({ a: { $eq: 2 }, b: { $in: [3] }, c: { $in: [1, 2] } }), { a: 2, b: 3 });
  });

  it('takes equalities from top-level $and and a one-clause $or', () => {
    assert.deepEqual(upsertSeed({ $and: [{ a: 1 }, { b: { $lt: 1 } }, { c: 2 }], $or: [{ d: 4 }] }), {
      a: 1,
      c: 2,
      d: 4,
    });
    assert.deepEqual(upsertSeed({ $or: [{ a: 1 }, { b: 2 }] }), {});
  });

  it('expands dotted paths into embedded documents', () => {
    assert.deepEqual(upsertSeed({ 'a.b': 1, 'a.c': 2, 'x.y.z': 3 }), { a: { b: 1, c: 2 }, x: { y: { z: 3 } } });
  });

  it('keeps an embedded document value as a whole', () => {
    assert.deepEqual(upsertSeed({ a: { b: 1, c: [1] } }), { a: { b: 1, c: [1] } });
  });

  it('puts _id first', () => {
    const seed = upsertSeed({ b: 1, _id: 7, a: 2 });
    assert.equal(Object.keys(seed)[0], '_id');
    assert.deepEqual(seed, { _id: 7, a: 2, b: 1 });
  });

  it('ignores regex conditions and $-operators such as $expr', () => {
    assert.deepEqual(upsertSeed({ a: /x/, $expr: { $eq: ['$a', 1] }, b: 1 }), { b: 1 });
  });

  it('refuses the same path matched twice (54)', () => {
    expectError(
      () => upsertSeed({ a: 1, $and: [{ a: 2 }] }),
      54,
      "cannot infer query fields to set, path 'a' is matched twice",
    );
  });

  it('refuses overlapping paths (54)', () => {
    expectError(
      () => upsertSeed({ a: { x: 1 }, 'a.b': 2 }),
      54,
      "cannot infer query fields to set, both paths 'a' and 'a.b' are matched",
    );
  });

  it('reads $all as one equality per element: one element seeds the field, two conflict (54)', () => {
    assert.deepEqual(upsertSeed({ _id: { $all: [1] }, x: { $all: [[1, 2]] } }), { _id: 1, x: [1, 2] });
    assert.deepEqual(upsertSeed({ x: { $all: [/a/, { $elemMatch: { y: 1 } }] } }), {});
    expectError(
      () => upsertSeed({ x: { $all: [1, 2] } }),
      54,
      "cannot infer query fields to set, path 'x' is matched twice",
    );
  });

  it('a replacement upsert takes only _id from the query, so other paths may conflict', () => {
    assert.deepEqual(upsertSeed({ _id: 1, x: { $all: [1, 2] }, 'x.x': 1 }, { replacement: true }), { _id: 1 });
    expectError(() => upsertSeed({ _id: { $all: [1, 2] } }, { replacement: true }), 54);
  });

  it('a replacement upsert refuses an _id given only by sub-paths (111)', () => {
    expectError(() => upsertSeed({ '_id.x': 1, '_id.y': 2 }, { replacement: true }), 111);
    assert.deepEqual(upsertSeed({ '_id.x': 1, '_id.y': 2 }), { _id: { x: 1, y: 2 } });
  });

  it('clones the filter values', () => {
    const filter = { a: { b: [1] } };
    const seed = upsertSeed(filter);
    filter.a.b.push(2);
    assert.deepEqual(seed, { a: { b: [1] } });
  });

  it('gives a seed that an upsert update builds on', () => {
    const seed = upsertSeed({ _id: 'k', n: new Int32(1) });
    const r = applyUpdate(seed, { $inc: { n: new Int32(1) }, $setOnInsert: { created: true } }, insertCtx);
    assert.deepEqual(r.doc, { _id: 'k', n: new Int32(2), created: true });
  });
});
