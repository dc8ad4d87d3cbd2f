/**
 * prepareForInsert's stored copy is the same whichever copy path it takes (a spread for documents
 * that start with _id, field by field otherwise).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Double, ObjectId } from 'bson';
import { prepareForInsert } from '../../../../src/engine/catalog/document-rules';

describe('prepareForInsert', () => {
  it('copies a document that starts with _id: dates and nested values copied, Double unwrapped, undefined as null, symbol keys dropped', () => {
    const when = new Date(5);
    const nested = { at: new Date(6), list: [1, undefined] };
    const input: Record<string | symbol, unknown> = {
      _id: new ObjectId(),
      when,
      d: new Double(2.5),
      u: undefined,
      nested,
    };
    input[Symbol('s')] = 1;
    const stored = prepareForInsert(input, { generateId: true, nowMs: 0 });
    assert.deepEqual(Object.keys(stored), ['_id', 'when', 'd', 'u', 'nested']);
    assert.equal(Object.getOwnPropertySymbols(stored).length, 0);
    assert.notEqual(stored.when, when);
    assert.equal((stored.when as Date).getTime(), 5);
    assert.equal(stored.d, 2.5);
    assert.equal(stored.u, null);
    assert.notEqual(stored.nested, nested);
    assert.deepEqual(stored.nested, { at: new Date(6), list: [1, null] });
    when.setTime(99);
    assert.equal((stored.when as Date).getTime(), 5);
  });

  it('moves a later _id to the front and generates a missing one', () => {
    const stored = prepareForInsert({ a: 1, _id: 7 }, { generateId: true, nowMs: 0 });
    assert.deepEqual(Object.keys(stored), ['_id', 'a']);
    const generated = prepareForInsert({ a: 1 }, { generateId: true, nowMs: 0 });
    assert.deepEqual(Object.keys(generated), ['_id', 'a']);
    assert.ok(generated._id instanceof ObjectId);
  });
});
