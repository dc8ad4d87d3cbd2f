import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DBRef } from 'bson';
import { applyUpdate, type UpdateContext } from '../../../../src/engine/query/update';
import type { Document } from '../../../../src/engine/values/types';
import { expectError } from '../../helpers/expect-error';

// The update path checks mongod makes while parsing, and how a document without _id is named in
// the errors of applying an operator.

const ctx: UpdateContext = { now: new Date('2024-05-01T12:00:00.000Z'), isInsert: false };

function update(doc: Document, spec: Document) {
  return applyUpdate(doc, spec, ctx);
}

describe('update paths', () => {
  it('an empty path and an empty part are refused with their messages (56)', () => {
    expectError(() => update({ _id: 1 }, { $set: { '': 1 } }), 56, 'An empty update path is not valid.');
    expectError(
      () => update({ _id: 1 }, { $set: { 'a..b': 1 } }),
      56,
      "The update path 'a..b' contains an empty field name, which is not allowed.",
    );
  });

  it('"$[" without its closing bracket is a $-prefixed name, not an array filter (52)', () => {
    expectError(
      () => update({ _id: 1, a: [1] }, { $set: { 'a.$[': 1 } }),
      52,
      "The dollar ($) prefixed field '$[' in 'a.$[' is not valid for storage.",
    );
    expectError(
      () => update({ _id: 1 }, { $set: { $id: 1 } }),
      52,
      "The dollar ($) prefixed field '$id' in '$id' is not valid for storage.",
    );
  });

  it('a field named __proto__ is set as an own field', () => {
    const r = update({ _id: 1 }, { $set: { ['__proto__']: 5 } });
    assert.deepEqual(Object.keys(r.doc), ['_id', '__proto__']);
    assert.equal(Object.getOwnPropertyDescriptor(r.doc, '__proto__')?.value, 5);
    assert.equal(Object.getPrototypeOf(r.doc), Object.prototype);
  });
});

describe('array indexes in update paths', () => {
  it('an index just past the end of an array is missing: $inc appends there, $unset changes nothing', () => {
    assert.deepEqual(update({ _id: 1, a: [1, 2] }, { $inc: { 'a.2': 1 } }).doc.a, [1, 2, 1]);
    assert.equal(update({ _id: 1, a: [1, 2] }, { $unset: { 'a.2': 1 } }).changed, false);
    assert.deepEqual(update({ _id: 1, a: [1, 2] }, { $set: { 'a.2.x': 1 } }).doc.a, [1, 2, { x: 1 }]);
  });

  it('a part of 15 digits is an index (too far to pad, 34); one past an unsigned 64-bit integer is a name (28)', () => {
    expectError(
      () => update({ _id: 1, a: [1] }, { $set: { 'a.100000000000000': 1 } }),
      34,
      "can't backfill more than 1500000 elements",
    );
    expectError(
      () => update({ _id: 1, a: [1] }, { $set: { 'a.100000000000000000000': 1 } }),
      28,
      /^Cannot create field '100000000000000000000' in element \{a: /,
    );
  });
});

describe('errors on a document without _id', () => {
  it('$inc, $push and $bit say the document has no id', () => {
    expectError(
      () => update({ a: 'x' }, { $inc: { a: 1 } }),
      14,
      "Cannot apply $inc to a value of non-numeric type. {no id} has the field 'a' of non-numeric type string",
    );
    expectError(
      () => update({ a: 'x' }, { $push: { a: 1 } }),
      2,
      "The field 'a' must be an array but is of type string in document {no id}",
    );
    expectError(() => update({ a: 'x' }, { $bit: { a: { or: 1 } } }), 2, /must be an Integer/);
  });
});

describe("a DBRef's fields written into an embedded document", () => {
  const WHOLE = ' Write a whole DBRef: {$ref: "<collection>", $id: <id>}.';

  it("$set of a DBRef's $ref or $db changes that field of the reference; to the value it has, nothing", () => {
    const doc = { _id: 1, a: new DBRef('c', 1 as never, 'd') };
    const byRef = update(doc, { $set: { 'a.$ref': 'e' } }).doc.a as DBRef;
    assert.deepEqual([byRef._bsontype, byRef.collection, byRef.oid, byRef.db], ['DBRef', 'e', 1, 'd']);
    const byDb = update(doc, { $set: { 'a.$db': 'f' } }).doc.a as DBRef;
    assert.deepEqual([byDb._bsontype, byDb.collection, byDb.oid, byDb.db], ['DBRef', 'c', 1, 'f']);
    for (const [field, value] of [
      ['$ref', 'c'],
      ['$id', 1],
      ['$db', 'd'],
    ] as const)
      assert.equal(update(doc, { $set: { [`a.${field}`]: value } }).changed, false, field);
  });

  it("$unset of a DBRef's $db keeps the reference without it; of an absent $db it changes nothing", () => {
    const r = update({ _id: 1, a: new DBRef('c', 1 as never, 'd') }, { $unset: { 'a.$db': 1 } });
    const ref = r.doc.a as DBRef;
    assert.equal(ref._bsontype, 'DBRef');
    assert.deepEqual([ref.collection, ref.oid, ref.db], ['c', 1, undefined]);
    const same = { _id: 1, b: new DBRef('c', 1 as never) };
    const none = update(same, { $unset: { 'b.$db': 1 } });
    assert.equal(none.changed, false);
    assert.equal(none.doc, same);
  });

  it("$unset of a DBRef's $ref or $id leaves no DBRef, which is refused (55)", () => {
    for (const field of ['$ref', '$id'])
      expectError(() => update({ _id: 1, a: new DBRef('c', 1 as never, 'd') }, { $unset: { [`a.${field}`]: 1 } }), 55);
  });

  it('$db after $id completes a DBRef', () => {
    assert.deepEqual(update({ _id: 1, b: { $ref: 'c', $id: 1 } }, { $set: { 'b.$db': 'd' } }).doc, {
      _id: 1,
      b: { $ref: 'c', $id: 1, $db: 'd' },
    });
  });

  it('$ref and $db must be strings, named by their BSON type (55)', () => {
    expectError(
      () => update({ _id: 1 }, { $set: { 'b.$ref': 2 } }),
      55,
      `The DBRef $ref field must be a String, not a double.${WHOLE}`,
    );
    expectError(
      () => update({ _id: 1, b: { $ref: 'c', $id: 1 } }, { $set: { 'b.$db': 5 } }),
      55,
      `The DBRef $db field must be a String, not a double.${WHOLE}`,
    );
  });

  it('$db needs $id just before it, and $ref needs $id just after it (55)', () => {
    expectError(
      () => update({ _id: 1 }, { $set: { 'b.$db': 'd' } }),
      55,
      `Found $db field without a $id before it, which is invalid.${WHOLE}`,
    );
    expectError(
      () => update({ _id: 1, b: { $ref: 'c', x: 1, $id: 1 } }, { $set: { 'b.$db': 'd' } }),
      55,
      `Found $id field without a $ref before it, which is invalid.${WHOLE}`,
    );
    expectError(
      () => update({ _id: 1, b: { x: 1 } }, { $set: { 'b.$ref': 'c' } }),
      55,
      `The DBRef $ref field must be followed by a $id field.${WHOLE}`,
    );
  });
});
