/**
 * The document an upsert starts from, as mongod builds it from the query's equalities
 * (update_driver.cpp populateDocumentWithQueryFields, path_support.cpp): fields in path order, _id
 * first, and for a replacement only the whole _id.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';
import { upsertSeed } from '../../../../src/engine/query/update';
import { expectError } from '../../helpers/expect-error';

describe('upsert seed: field order', () => {
  it('upsert seed: fields are created in path order, whatever order the query lists them in', () => {
    const seed = upsertSeed({ b: 1, 'c.z': 1, a: 2, 'c.y': 2 });
    assert.deepEqual(Object.keys(seed), ['a', 'b', 'c']);
    assert.deepEqual(Object.keys(seed.c as Document), ['y', 'z']);
  });

  it('upsert seed: _id comes first, before field names that sort below it', () => {
    const seed = upsertSeed({ B: 1, _id: 2 });
    assert.deepEqual(Object.keys(seed), ['_id', 'B']);
    assert.deepEqual(seed, { _id: 2, B: 1 });
    const built = upsertSeed({ A: 2, '_id.x': 1 });
    assert.deepEqual(Object.keys(built), ['_id', 'A']);
    assert.deepEqual(built, { _id: { x: 1 }, A: 2 });
  });

  it('upsert seed: a query without an _id equality seeds no _id', () => {
    assert.deepEqual(upsertSeed({ A: 1 }), { A: 1 });
    assert.deepEqual(upsertSeed({ _idx: 1 }), { _idx: 1 });
  });
});

describe('upsert seed: equalities', () => {
  it('upsert seed: $all: [null] is the equality a: null', () => {
    assert.deepEqual(upsertSeed({ a: { $all: [null] }, b: 1 }), { a: null, b: 1 });
  });
});

describe('upsert seed: a replacement takes only the whole _id', () => {
  it('a replacement upsert refuses an equality on a sub-path of _id even beside the whole _id (111)', () => {
    const message =
      "field at '_id' must be exactly specified, field at sub-path '_id.x' found: query _id by its whole value for a replacement upsert.";
    expectError(() => upsertSeed({ _id: { x: 1 }, '_id.x': 1 }, { replacement: true }), 111, message);
    expectError(() => upsertSeed({ $and: [{ '_id.x': 1 }, { _id: { x: 1 } }] }, { replacement: true }), 111, message);
    const engine = new Engine();
    const reply = engine.runCommand('app', {
      update: 'c',
      updates: [{ q: { _id: { x: 1 }, '_id.x': 1 }, u: { a: 1 }, upsert: true }],
    });
    assert.equal((reply.writeErrors as Document[])[0].code, 111, JSON.stringify(reply));
  });

  it('an operator upsert still refuses _id and _id.x together as two values for one path (54)', () => {
    expectError(() => upsertSeed({ _id: { x: 1 }, '_id.x': 1 }), 54);
  });
});
