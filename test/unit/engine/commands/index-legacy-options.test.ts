/**
 * Index options older clients still send, which mongod 8.0 accepts without effect.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';
import { expectError } from '../../helpers/expect-error';

const DB = 'app';

function indexNames(engine: Engine, coll: string): Document[] {
  const reply = engine.runCommand(DB, { listIndexes: coll });
  return (reply.cursor as Document).firstBatch as Document[];
}

describe('createIndexes: dropDups', () => {
  it('a unique build with dropDups still fails on a duplicate key (11000) and deletes nothing', () => {
    const engine = new Engine();
    engine.runCommand(DB, {
      insert: 'c',
      documents: [
        { _id: 1, a: 'dup' },
        { _id: 2, a: 'dup' },
      ],
    });
    expectError(
      () =>
        engine.runCommand(DB, {
          createIndexes: 'c',
          indexes: [{ key: { a: 1 }, name: 'a_1', unique: true, dropDups: true }],
        }),
      11000,
    );
    assert.equal(engine.runCommand(DB, { count: 'c' }).n, 2);
  });

  it('is accepted and left out of the stored spec', () => {
    const engine = new Engine();
    engine.runCommand(DB, { insert: 'c', documents: [{ _id: 1, a: 1 }] });
    engine.runCommand(DB, {
      createIndexes: 'c',
      indexes: [{ key: { a: 1 }, name: 'a_1', unique: true, dropDups: true }],
    });
    const spec = indexNames(engine, 'c').find((s) => s.name === 'a_1');
    assert.deepEqual(spec, { v: 2, key: { a: 1 }, name: 'a_1', unique: true });
  });
});
