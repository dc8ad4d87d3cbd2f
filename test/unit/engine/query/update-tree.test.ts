import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyUpdate, compileUpdate, parseArrayFilters, type UpdateContext } from '../../../../src/engine/query/update';
import type { Document } from '../../../../src/engine/values/types';
import { expectError } from '../../helpers/expect-error';

// How the update tree expands against a document: where array updates need an array, and how the
// updates that select one element are merged (update-tree.ts).

function apply(doc: Document, spec: Document, filters?: Document[], matchedField?: string): Document {
  const ctx: UpdateContext = { now: new Date('2024-05-01T12:00:00.000Z'), isInsert: false, matchedField };
  const parsed = filters === undefined ? undefined : parseArrayFilters(filters, 'arrayFilters');
  return compileUpdate(spec, parsed).apply(doc, ctx).doc;
}

describe('update tree: array updates need an existing array', () => {
  it('an index past the end of the array is a missing path for $[] (2)', () => {
    expectError(
      () => apply({ _id: 1, a: [1, 2] }, { $set: { 'a.2.$[]': 1 } }),
      2,
      "The path 'a.2' must exist in the document in order to apply array updates.",
    );
  });

  it('a part that only reads as a number (1e0) is no array index: the path is missing (2)', () => {
    expectError(
      () => apply({ _id: 1, a: [[0], [1]] }, { $set: { 'a.1e0.$[]': 1 } }),
      2,
      "The path 'a.1e0' must exist in the document in order to apply array updates.",
    );
  });

  it('a field holding undefined exists: $[] says it is not an array (2)', () => {
    expectError(
      () => apply({ _id: 1, a: undefined }, { $set: { 'a.$[]': 1 } }),
      2,
      'Cannot apply array updates to non-array element a: undefined',
    );
  });
});

describe('update tree: merging the updates of one element', () => {
  const matchesAny = [{ i: { $type: 'object' } }];

  it('a positional update under one selector is kept when merged with a selector that has none', () => {
    // The element is a document, so `$` (position 0) names its field "0".
    assert.deepEqual(apply({ _id: 1, a: [{}] }, { $set: { 'a.$[].$.x': 1, 'a.$[i].y': 2 } }, matchesAny, '0').a, [
      { 0: { x: 1 }, y: 2 },
    ]);
    assert.deepEqual(apply({ _id: 1, a: [{}] }, { $set: { 'a.$[].y': 1, 'a.$[i].$.x': 2 } }, matchesAny, '0').a, [
      { 0: { x: 2 }, y: 1 },
    ]);
  });

  it('the positional update applies once, whether merged with the matched index or placed before a later one', () => {
    const spec = { $inc: { 'a.$.n': 1, 'a.0.m': 1, 'a.1.m': 1 } };
    assert.deepEqual(apply({ _id: 1, a: [{ n: 0, m: 0 }, { m: 0 }] }, spec, undefined, '0').a, [
      { n: 1, m: 1 },
      { m: 1 },
    ]);
    assert.deepEqual(
      apply(
        { _id: 1, a: [{ n: 0 }, { m: 0 }, { m: 0 }] },
        { $inc: { 'a.$.n': 1, 'a.1.m': 1, 'a.2.m': 1 } },
        undefined,
        '0',
      ).a,
      [{ n: 1 }, { m: 1 }, { m: 1 }],
    );
  });

  it('positional updates under two selectors are merged field by field', () => {
    assert.deepEqual(apply({ _id: 1, a: [{}] }, { $set: { 'a.$[].$.x': 1, 'a.$[i].$.y': 2 } }, matchesAny, '0').a, [
      { 0: { x: 1, y: 2 } },
    ]);
  });

  it('a conflict found while merging names the array filter parts of its path (40)', () => {
    expectError(
      () =>
        apply({ _id: 1, a: [{ b: [{ c: 0 }] }] }, { $set: { 'a.$[i].b.$[].c': 1, 'a.$[j].b.$[].c': 2 } }, [
          { 'i.b': { $exists: true } },
          { 'j.b': { $exists: true } },
        ]),
      40,
      "Update created a conflict at 'a.0.b.$[].c'",
    );
  });
});

describe('applyUpdate with array filters', () => {
  it('an update with $[<id>] selects the elements by the array filters it is given', () => {
    const ctx: UpdateContext = { now: new Date('2024-05-01T12:00:00.000Z'), isInsert: false };
    const filters = parseArrayFilters([{ i: { $gt: 1 } }], 'arrayFilters');
    assert.deepEqual(applyUpdate({ _id: 1, a: [1, 2, 3] }, { $set: { 'a.$[i]': 0 } }, ctx, filters).doc.a, [1, 0, 0]);
  });
});

describe('parseArrayFilters', () => {
  it('null is no array filters, like an absent option', () => {
    assert.equal(parseArrayFilters(null, 'arrayFilters').size, 0);
  });

  it('a clause without a top-level name beside one with a name leaves that name the identifier', () => {
    assert.deepEqual([...parseArrayFilters([{ $and: [{ i: 1 }, {}] }], 'arrayFilters').keys()], ['i']);
  });
});
