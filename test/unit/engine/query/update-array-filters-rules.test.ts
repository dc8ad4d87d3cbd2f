/**
 * The arrayFilters option as mongod parses it (parsed_update_array_filters.cpp,
 * expression_with_placeholder.cpp): an array of documents, each a query over one identifier that
 * starts with a lowercase letter and holds only letters and digits.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyUpdate, parseArrayFilters, type UpdateContext } from '../../../../src/engine/query/update';
import { expectError } from '../../helpers/expect-error';

const FIELD = 'update.updates.arrayFilters';
const ctx: UpdateContext = { now: new Date('2024-05-01T12:00:00.000Z'), isInsert: false };

function identifierError(id: string): string {
  return `Error parsing array filter :: caused by :: The top-level field name must be an alphanumeric string beginning with a lowercase letter, found '${id}'`;
}

describe('arrayFilters: the option and its elements', () => {
  it('arrayFilters that is not an array names the field and the type it got (14)', () => {
    expectError(
      () => parseArrayFilters(5, FIELD),
      14,
      "BSON field 'update.updates.arrayFilters' is the wrong type 'double', expected type 'array'",
    );
    expectError(
      () => parseArrayFilters({ x: 1 }, FIELD),
      14,
      "BSON field 'update.updates.arrayFilters' is the wrong type 'object', expected type 'array'",
    );
  });

  it('an array filter that is not a document names its index and type (14)', () => {
    expectError(
      () => parseArrayFilters([{ x: 1 }, 'y'], FIELD),
      14,
      "BSON field 'update.updates.arrayFilters.1' is the wrong type 'string', expected type 'object'",
    );
    expectError(
      () => parseArrayFilters([[{ x: 1 }]], FIELD),
      14,
      "BSON field 'update.updates.arrayFilters.0' is the wrong type 'array', expected type 'object'",
    );
  });
});

describe('arrayFilters: identifiers', () => {
  it('an identifier must begin with a lowercase letter, wherever the lowercase letters are (2)', () => {
    expectError(() => parseArrayFilters([{ Xy: 1 }], FIELD), 2, identifierError('Xy'));
    expectError(() => parseArrayFilters([{ '1a': 1 }], FIELD), 2, identifierError('1a'));
  });

  it('an identifier holds only letters and digits after its first letter (2)', () => {
    expectError(() => parseArrayFilters([{ a_b: 1 }], FIELD), 2, identifierError('a_b'));
    expectError(() => parseArrayFilters([{ 'ab-c': 1 }], FIELD), 2, identifierError('ab-c'));
    assert.deepEqual([...parseArrayFilters([{ aB9: 1 }], FIELD).keys()], ['aB9']);
  });

  it('a filter whose conditions are inside $and names its identifier there', () => {
    const filters = parseArrayFilters([{ $and: [{ 'x.a': 1 }, { 'x.b': { $gt: 0 } }] }], FIELD);
    assert.deepEqual([...filters.keys()], ['x']);
    const doc = {
      _id: 1,
      arr: [
        { a: 1, b: 1 },
        { a: 1, b: 0 },
        { a: 2, b: 1 },
      ],
    };
    const { doc: out } = applyUpdate(doc, { $set: { 'arr.$[x].hit': true } }, ctx, filters);
    assert.deepEqual(out.arr, [
      { a: 1, b: 1, hit: true },
      { a: 1, b: 0 },
      { a: 2, b: 1 },
    ]);
  });
});

describe('arrayFilters: identifiers under $nor', () => {
  it('a filter whose conditions are inside $nor names its identifier there', () => {
    const filters = parseArrayFilters([{ $nor: [{ 'y.a': 1 }, { 'y.b': 0 }] }], FIELD);
    assert.deepEqual([...filters.keys()], ['y']);
    const doc = {
      _id: 1,
      arr: [
        { a: 1, b: 1 },
        { a: 2, b: 0 },
        { a: 2, b: 1 },
      ],
    };
    const { doc: out } = applyUpdate(doc, { $set: { 'arr.$[y].hit': true } }, ctx, filters);
    assert.deepEqual(out.arr, [
      { a: 1, b: 1 },
      { a: 2, b: 0 },
      { a: 2, b: 1, hit: true },
    ]);
  });
});
