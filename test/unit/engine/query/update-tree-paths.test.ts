import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compileUpdate, parseArrayFilters, type UpdateContext } from '../../../../src/engine/query/update';
import { EngineError } from '../../../../src/engine';
import type { Document } from '../../../../src/engine/values/types';
import { expectError } from '../../helpers/expect-error';

// The update tree (update-tree.ts) as mongod builds it: where a path meets a conflict while
// parsing, how a `$` part finds its node again, which array elements an update reaches, and the
// order in which the operations of one document apply.

function apply(doc: Document, spec: Document, filters?: Document[], matchedField?: string): Document {
  const ctx: UpdateContext = { now: new Date('2024-05-01T12:00:00.000Z'), isInsert: false, matchedField };
  const parsed = filters === undefined ? undefined : parseArrayFilters(filters, 'arrayFilters');
  return compileUpdate(spec, parsed).apply(doc, ctx).doc;
}

function errorOf(fn: () => unknown): EngineError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof EngineError, String(err));
    return err;
  }
  return assert.fail('expected the update to fail');
}

describe('update tree: building the paths', () => {
  it('a path that needs an object node where another put an array node names the parts up to it (40)', () => {
    expectError(
      () => compileUpdate({ $set: { 'x.a.$[]': 1, 'x.a.b': 2 } }),
      40,
      "Updating the path 'x.a.b' would create a conflict at 'x.a'",
    );
  });

  it('an array filter part alone is a path whose first part is an array filter (2)', () => {
    expectError(
      () => compileUpdate({ $set: { '$[]': 1 } }),
      2,
      "Cannot have array filter identifier (i.e. '$[<id>]') element in the first position in path '$[]'",
    );
  });

  it('two paths through one `$` share its node: both apply, and the same `$` leaf twice is a conflict (40)', () => {
    assert.deepEqual(apply({ _id: 1, a: [{}, {}] }, { $set: { 'a.$.x': 1, 'a.$.y': 2 } }, undefined, '1').a, [
      {},
      { x: 1, y: 2 },
    ]);
    expectError(
      () => compileUpdate({ $set: { 'a.$': 1 }, $inc: { 'a.$': 1 } }),
      40,
      "Updating the path 'a.$' would create a conflict at 'a.$'",
    );
  });

  it('a name that only ends with "]" is an ordinary field, not an array filter part', () => {
    assert.deepEqual(apply({ _id: 1, a: { 'xy]': 0 } }, { $set: { 'a.xy]': 1 } }), { _id: 1, a: { 'xy]': 1 } });
  });
});

describe('update tree: the elements an array update reaches', () => {
  it('an index of several digits selects that element of an array for the array filter below it', () => {
    const a = Array.from({ length: 11 }, (_, i) => [i]);
    const out = apply({ _id: 1, a }, { $inc: { 'a.10.$[]': 100 } }).a as number[][];
    assert.deepEqual(out[10], [110]);
    assert.deepEqual(out.slice(0, 10), a.slice(0, 10));
  });

  it('an element of an array reached by its index may itself be updated through $[]', () => {
    assert.deepEqual(apply({ _id: 1, a: [[1, 2], [3]] }, { $set: { 'a.0.$[]': 0 } }).a, [[0, 0], [3]]);
  });
});

describe('update tree: the order operations apply in', () => {
  // The matched position's update is applied in field-name order among the named ones, as mongod
  // does: the first operation that fails names the field.
  const nonNumeric = (field: string) =>
    `Cannot apply $inc to a value of non-numeric type. {_id: 1} has the field '${field}' of non-numeric type string`;

  it('a named element before the matched position is updated first', () => {
    expectError(
      () => apply({ _id: 1, a: ['x', 'y'] }, { $inc: { 'a.$': 1, 'a.0': 1 } }, undefined, '1'),
      14,
      nonNumeric('0'),
    );
  });

  it('the matched position is updated before a named element after it', () => {
    expectError(
      () => apply({ _id: 1, a: ['x', 'y', 'z'] }, { $inc: { 'a.$': 1, 'a.2': 1 } }, undefined, '1'),
      14,
      nonNumeric('1'),
    );
  });

  it("an element's array-filter updates merge in identifier order, whatever order the update lists them in", () => {
    // Two conflicts in one element: which one is found first depends on the merge order only.
    const filters = [{ i: 0 }, { j: 0 }, { k: 0 }];
    const listed = errorOf(() =>
      apply({ _id: 1, a: [0] }, { $set: { 'a.$[i].x': 1, 'a.$[j].y': 1, 'a.$[k].y': 1, 'a.$[k].x': 1 } }, filters),
    );
    const reordered = errorOf(() =>
      apply({ _id: 1, a: [0] }, { $set: { 'a.$[k].y': 1, 'a.$[k].x': 1, 'a.$[i].x': 1, 'a.$[j].y': 1 } }, filters),
    );
    assert.equal(listed.code, 40);
    assert.match(listed.message, /^Update created a conflict at 'a\.0\.[xy]'$/);
    assert.equal(reordered.message, listed.message);
  });

  it('a conflict between the `$` updates of two selectors of one element is named with its `$` part (40)', () => {
    expectError(
      () =>
        apply({ _id: 1, a: [{}] }, { $set: { 'a.$[].$.x': 1, 'a.$[i].$.x': 2 } }, [{ i: { $type: 'object' } }], '0'),
      40,
      "Update created a conflict at 'a.0.$.x'",
    );
  });
});
