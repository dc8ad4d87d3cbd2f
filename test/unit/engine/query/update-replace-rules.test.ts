/**
 * Whole-document replacement as mongod's ObjectReplaceExecutor does it
 * (src/mongo/db/update/object_replace_executor.cpp): the replacement's fields in its order, `_id`
 * first, the replacement's own `_id` stored when it equals the old one in value, and no top-level
 * `$` field except in a pipeline's result.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Int32, Long } from 'bson';
import { Engine, type Document } from '../../../../src/engine';
import { applyReplacement, compilePipelineUpdate } from '../../../../src/engine/query/update';
import { expectError } from '../../helpers/expect-error';

function engineWith(docs: Document[]): Engine {
  const engine = new Engine();
  engine.runCommand('app', { insert: 'c', documents: docs });
  return engine;
}

function all(engine: Engine): Document[] {
  return (engine.runCommand('app', { find: 'c', filter: {} }).cursor as Document).firstBatch as Document[];
}

describe('replacement: the _id', () => {
  it('replacement: an _id equal in value but of another type is stored as the replacement gives it', () => {
    const r = applyReplacement({ _id: new Int32(1), a: 1 }, { _id: 1, b: 2 });
    assert.deepEqual(r, { _id: 1, b: 2 });
    assert.equal(typeof r._id, 'number');
    const engine = engineWith([{ _id: 1, a: 1 }]);
    const reply = engine.runCommand('app', {
      update: 'c',
      updates: [{ q: { _id: 1 }, u: { _id: Long.fromNumber(1), b: 2 } }],
    });
    assert.equal(reply.nModified, 1, JSON.stringify(reply));
    assert.ok(Long.isLong(all(engine)[0]._id));
  });

  it('replacement: the _id a new document takes from its replacement comes first', () => {
    const r = applyReplacement({}, { a: 1, _id: 5 });
    assert.deepEqual(Object.keys(r), ['_id', 'a']);
    assert.deepEqual(r, { _id: 5, a: 1 });
  });

  it('replacement: an _id given as undefined is null, so it cannot replace another _id (66)', () => {
    expectError(
      () => applyReplacement({ _id: 1, a: 1 }, { _id: undefined, b: 1 }),
      66,
      "After applying the update, the (immutable) field '_id' was found to have been altered to _id: null",
    );
    const kept = applyReplacement({ _id: null, a: 1 }, { b: 1, _id: undefined });
    assert.deepEqual(kept, { _id: null, b: 1 });
    assert.deepEqual(Object.keys(kept), ['_id', 'b']);
    assert.deepEqual(applyReplacement({}, { _id: undefined, b: 1 }), { _id: null, b: 1 });
  });

  it('replacement: a field named by the empty string is kept like any other', () => {
    assert.deepEqual(applyReplacement({ _id: 1, a: 1 }, { '': 2, b: 3 }), { _id: 1, '': 2, b: 3 });
  });
});

describe('pipeline update: $ fields in the result', () => {
  it('pipeline update: a result with a top-level $ field is stored, as mongod allows it there', () => {
    const run = compilePipelineUpdate([{ $replaceWith: { $literal: { $price: 5, a: 1 } } }], new Date(0));
    const { doc, changed } = run({ _id: 1, a: 1 });
    assert.equal(changed, true);
    assert.deepEqual(doc, { _id: 1, $price: 5, a: 1 });
  });
});
