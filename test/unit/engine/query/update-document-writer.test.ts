import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DBRef } from 'bson';
import { applyUpdate, upsertSeed, type UpdateContext } from '../../../../src/engine/query/update';
import type { Document } from '../../../../src/engine/values/types';
import { expectError } from '../../helpers/expect-error';

// The working copy of a document during an update (document-writer.ts): the order an upsert's
// seed fields are created in, how a document without _id is named, and the DBRef rules of writes.

const ctx: UpdateContext = { now: new Date('2024-05-01T12:00:00.000Z'), isInsert: false };

function update(doc: Document, spec: Document) {
  return applyUpdate(doc, spec, ctx);
}

const WHOLE = ' Write a whole DBRef: {$ref: "<collection>", $id: <id>}.';

describe('update document writer: path order', () => {
  it("an upsert's seed creates its fields in field-name order, whatever order the query lists them in", () => {
    assert.deepEqual(Object.keys(upsertSeed({ b: 1, a: 1 })), ['a', 'b']);
  });

  it("an upsert's seed orders the fields of one embedded document by name too", () => {
    const seed = upsertSeed({ 'x.c': 1, 'x.b': 2 });
    assert.deepEqual(Object.keys(seed.x as Document), ['b', 'c']);
  });
});

describe('update document writer: naming the document', () => {
  it('a $rename error on a document without _id (an upsert seed) says "no id"', () => {
    expectError(
      () => update({ a: [1] }, { $rename: { 'a.0': 'b' } }),
      2,
      "The source field cannot be an array element, 'a.0' in doc with no id has an array field called 'a'",
    );
  });
});

describe('update document writer: DBRef fields', () => {
  it('writing an ordinary field leaves the DBRef fields beside it unchecked', () => {
    // Since 5.0 a stored document may hold `$` fields in any order; only a write of $ref, $id or
    // $db checks the DBRef it makes.
    assert.deepEqual(update({ _id: 1, a: { $id: 1 } }, { $set: { 'a.x': 1 } }).doc, { _id: 1, a: { $id: 1, x: 1 } });
  });

  it('$db after an $id that has no $ref before it names the missing $ref (55)', () => {
    expectError(
      () => update({ _id: 1, a: { $id: 1 } }, { $set: { 'a.$db': 'd' } }),
      55,
      `Found $id field without a $ref before it, which is invalid.${WHOLE}`,
    );
  });

  it('$db appended after a field that follows $id is not just after $id (55)', () => {
    expectError(
      () => update({ _id: 1, a: { $ref: 'c', $id: 1, x: 2 } }, { $set: { 'a.$db': 'd' } }),
      55,
      `Found $db field without a $id before it, which is invalid.${WHOLE}`,
    );
  });
});

describe('update document writer: inside a DBRef', () => {
  it("$unset of a DBRef's $id names the $ref left without it, even with a $db after it (55)", () => {
    for (const db of [undefined, 'd'])
      expectError(
        () => update({ _id: 1, a: new DBRef('c', 1 as never, db) }, { $unset: { 'a.$id': 1 } }),
        55,
        `The DBRef $ref field must be followed by a $id field.${WHOLE}`,
      );
  });

  it("$unset of a DBRef's $ref names the $id left without it (55)", () => {
    for (const db of [undefined, 'd'])
      expectError(
        () => update({ _id: 1, a: new DBRef('c', 1 as never, db) }, { $unset: { 'a.$ref': 1 } }),
        55,
        `Found $id field without a $ref before it, which is invalid.${WHOLE}`,
      );
  });

  it("a field inside a DBRef's document $id is set and unset in place: the DBRef keeps $ref and $db", () => {
    for (const db of [undefined, 'd']) {
      const doc = { _id: 1, a: new DBRef('c', { x: 1, y: 1 } as never, db) };
      const set = update(doc, { $set: { 'a.$id.y': 2 } }).doc.a as DBRef;
      assert.equal(set._bsontype, 'DBRef');
      assert.deepEqual([set.collection, set.oid, set.db], ['c', { x: 1, y: 2 }, db]);
      const unset = update(doc, { $unset: { 'a.$id.y': 1 } }).doc.a as DBRef;
      assert.equal(unset._bsontype, 'DBRef');
      assert.deepEqual([unset.collection, unset.oid, unset.db], ['c', { x: 1 }, db]);
      assert.deepEqual(doc.a.oid, { x: 1, y: 1 }, 'the input is not changed');
    }
  });

  it('an element of an array $id is updated in place, and a DBRef in an array is reached by its index', () => {
    const doc = { _id: 1, list: [new DBRef('c', [1, 2] as never)] };
    const out = update(doc, { $inc: { 'list.0.$id.1': 10 } }).doc.list as DBRef[];
    assert.deepEqual([out[0]._bsontype, out[0].collection, out[0].oid], ['DBRef', 'c', [1, 12]]);
  });

  it('a DBRef in an array is found at the index read finds it at ("00" is element 0)', () => {
    const doc = { _id: 1, list: [new DBRef('c', { n: 1 } as never)] };
    const out = update(doc, { $inc: { 'list.00.$id.n': 1 } }).doc.list as DBRef[];
    assert.deepEqual([out[0]._bsontype, out[0].collection, out[0].oid], ['DBRef', 'c', { n: 2 }]);
  });

  it('a missing $db cannot be made a document below it: $db must be a string (55)', () => {
    expectError(
      () => update({ _id: 1, a: new DBRef('c', 1 as never) }, { $set: { 'a.$db.x': 1 } }),
      55,
      `The DBRef $db field must be a String, not a object.${WHOLE}`,
    );
  });
});

describe('update document writer: writing a DBRef field', () => {
  it("$set of a DBRef's $ref or $db to a non-string is refused, named by its BSON type (55)", () => {
    const doc = { _id: 1, a: new DBRef('c', 1 as never) };
    expectError(
      () => update(doc, { $set: { 'a.$ref': 5 } }),
      55,
      `The DBRef $ref field must be a String, not a double.${WHOLE}`,
    );
    expectError(
      () => update(doc, { $set: { 'a.$db': 5 } }),
      55,
      `The DBRef $db field must be a String, not a double.${WHOLE}`,
    );
  });

  it("$set of a DBRef's $db adds it after $id, and of its $ref keeps its $id and $db", () => {
    const added = update({ _id: 1, a: new DBRef('c', 1 as never) }, { $set: { 'a.$db': 'd' } }).doc.a as DBRef;
    assert.deepEqual([added._bsontype, added.collection, added.oid, added.db], ['DBRef', 'c', 1, 'd']);
    const moved = update({ _id: 1, a: new DBRef('c', 1 as never, 'd') }, { $set: { 'a.$ref': 'e' } }).doc.a as DBRef;
    assert.deepEqual([moved._bsontype, moved.collection, moved.oid, moved.db], ['DBRef', 'e', 1, 'd']);
  });

  it('$set of $db on a DBRef with extra fields is refused (55): mongod appends it after them, not after $id', () => {
    const doc = { _id: 1, a: new DBRef('c', 1 as never, undefined, { extra: 1 }) };
    expectError(
      () => update(doc, { $set: { 'a.$db': 'x' } }),
      55,
      `Found $db field without a $id before it, which is invalid.${WHOLE}`,
    );
  });

  it('a write inside a DBRef keeps its extra fields, in their order', () => {
    const doc = { _id: 1, a: new DBRef('c', 1 as never, 'd', { x: 1, y: 2 }) };
    const changed = update(doc, { $set: { 'a.$id': 2 } }).doc.a as DBRef;
    assert.deepEqual([changed.collection, changed.oid, changed.db], ['c', 2, 'd']);
    assert.deepEqual(Object.entries(changed.fields), [
      ['x', 1],
      ['y', 2],
    ]);
  });
});

describe('update document writer: array padding', () => {
  it('the padding limit counts the nulls added, not the index: 1,500,000 after three elements pass, one more is refused (34)', () => {
    const padded = update({ _id: 1, a: [1, 2, 3] }, { $set: { 'a.1500003': 4 } }).doc.a as unknown[];
    assert.equal(padded.length, 1500004);
    assert.deepEqual([padded[2], padded[3], padded[1500002], padded[1500003]], [3, null, null, 4]);
    expectError(
      () => update({ _id: 1, a: [1, 2, 3] }, { $set: { 'a.1500004': 4 } }),
      34,
      "can't backfill more than 1500000 elements",
    );
  });
});
