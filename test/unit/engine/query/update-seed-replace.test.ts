import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyReplacement, upsertSeed } from '../../../../src/engine/query/update';
import { expectError } from '../../helpers/expect-error';

// What an upsert's new document starts from (the query's equalities) and what a replacement keeps.

describe('upsertSeed: which conditions are equalities', () => {
  it('an empty document is a value: {a: {}} seeds a as {}', () => {
    assert.deepEqual(upsertSeed({ a: {} }), { a: {} });
  });

  it('a single-value $in holding a regex is not an equality', () => {
    assert.deepEqual(upsertSeed({ a: { $in: [/x/] }, b: { $in: ['y'] } }), { b: 'y' });
  });

  it('$all elements that are regexes or $elemMatch conditions are not equalities', () => {
    assert.deepEqual(upsertSeed({ a: { $all: [/x/] }, b: { $all: [{ $elemMatch: { x: 1 } }] }, c: { $all: [3] } }), {
      c: 3,
    });
  });

  it('$and and $or that are not arrays of documents, and $nor, seed nothing', () => {
    assert.deepEqual(upsertSeed({ $and: 5, $or: [5], $nor: [{ a: 1 }], b: 2 }), { b: 2 });
    assert.deepEqual(upsertSeed({ $and: [5, { c: 1 }] }), { c: 1 });
  });

  it('equalities in $and on sibling dotted paths build one embedded document', () => {
    assert.deepEqual(upsertSeed({ $and: [{ 'a.y': 2 }, { 'a.x': 1 }] }), { a: { x: 1, y: 2 } });
  });

  it('two equalities on one path name it in the error (54)', () => {
    expectError(
      () => upsertSeed({ $and: [{ a: 1 }, { a: 2 }] }),
      54,
      "cannot infer query fields to set, path 'a' is matched twice",
    );
    expectError(
      () => upsertSeed({ 'a.b.c': 1, $and: [{ 'a.b': 2 }] }),
      54,
      "cannot infer query fields to set, both paths 'a.b' and 'a.b.c' are matched",
    );
  });

  it('paths that only share a prefix string (a and ab) do not conflict', () => {
    assert.deepEqual(upsertSeed({ a: 1, ab: 2, 'a2.x': 3 }), { a: 1, a2: { x: 3 }, ab: 2 });
  });

  it('a replacement upsert whose query has no _id condition starts from an empty document', () => {
    assert.deepEqual(upsertSeed({ a: 1, 'b.c': 2 }, { replacement: true }), {});
  });

  it('a replacement upsert keeps _id.x and _id together with _id only when _id is whole', () => {
    assert.deepEqual(upsertSeed({ _id: { x: 1 }, a: 1 }, { replacement: true }), { _id: { x: 1 } });
    expectError(
      () => upsertSeed({ '_id.x': 1 }, { replacement: true }),
      111,
      "field at '_id' must be exactly specified, field at sub-path '_id.x' found: query _id by its whole value for a replacement upsert.",
    );
  });
});

describe('applyReplacement: _id and $ fields', () => {
  it('neither document having an _id gives a document without one', () => {
    assert.deepEqual(applyReplacement({}, { a: 1 }), { a: 1 });
  });

  it('a $-prefixed top-level field names the field and the way out (52)', () => {
    expectError(
      () => applyReplacement({ _id: 1 }, { $inc: { a: 1 } }),
      52,
      "The dollar ($) prefixed field '$inc' in '$inc' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith.",
    );
  });

  it('a $ field below the top level is allowed', () => {
    assert.deepEqual(applyReplacement({ _id: 1 }, { a: { $x: 1 } }), { _id: 1, a: { $x: 1 } });
  });
});
