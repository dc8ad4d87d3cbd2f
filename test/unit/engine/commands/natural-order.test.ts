/**
 * find's `$natural` sort and hint, as mongod 8.0's find parser and planner take them: a collection
 * scan in insertion order (`_id` order when clustered), forwards or backwards.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Int32 } from 'bson';
import { Engine, type Document } from '../../../../src/engine';
import { expectError } from '../../helpers/expect-error';

const DB = 'app';

function run(engine: Engine, cmd: Document): Document {
  return engine.runCommand(DB, cmd);
}

function ids(engine: Engine, cmd: Document): unknown[] {
  const batch = (run(engine, { find: 'c', batchSize: 1000, ...cmd }).cursor as Document).firstBatch as Document[];
  return batch.map((d) => d._id);
}

/** Inserted out of `_id` order, with an index on `_id`'s reverse to tempt the planner. */
function engineWith(options: Document = {}): Engine {
  const engine = new Engine();
  run(engine, { create: 'c', ...options });
  run(engine, { insert: 'c', documents: [3, 1, 4, 2].map((i) => ({ _id: i, a: i % 2 })) });
  return engine;
}

describe('find: $natural order', () => {
  it('a $natural: -1 hint scans newest first (it was forwards)', () => {
    const engine = engineWith();
    assert.deepEqual(ids(engine, { hint: { $natural: -1 } }), [2, 4, 1, 3]);
    assert.deepEqual(ids(engine, { hint: { $natural: 1 } }), [3, 1, 4, 2]);
  });

  it('a $natural sort scans in that direction, with filter, skip and limit', () => {
    const engine = engineWith();
    assert.deepEqual(ids(engine, { sort: { $natural: 1 } }), [3, 1, 4, 2]);
    assert.deepEqual(ids(engine, { sort: { $natural: -1 } }), [2, 4, 1, 3]);
    assert.deepEqual(ids(engine, { sort: { $natural: new Int32(-1) }, filter: { a: 1 } }), [1, 3]);
    assert.deepEqual(ids(engine, { sort: { $natural: -1 }, skip: 1, limit: 2 }), [4, 1]);
  });

  it("a clustered collection's natural order is its _id order, both ways", () => {
    const engine = engineWith({ clusteredIndex: { key: { _id: 1 }, unique: true } });
    assert.deepEqual(ids(engine, { sort: { $natural: 1 } }), [1, 2, 3, 4]);
    assert.deepEqual(ids(engine, { hint: { $natural: -1 } }), [4, 3, 2, 1]);
  });

  it('a backward scan skips deleted records and sees those of every chunk', () => {
    const engine = new Engine();
    run(engine, { insert: 'c', documents: Array.from({ length: 2500 }, (_, i) => ({ _id: i })) });
    run(engine, { delete: 'c', deletes: [{ q: { _id: { $lt: 1100 } }, limit: 0 }] });
    const got = ids(engine, { sort: { $natural: -1 }, batchSize: 5000 });
    assert.equal(got.length, 1400);
    assert.equal(got[0], 2499);
    assert.equal(got[got.length - 1], 1100);
  });

  it('explain reports the scan direction', () => {
    const engine = engineWith();
    const plan = run(engine, { explain: { find: 'c', sort: { $natural: -1 } }, verbosity: 'queryPlanner' });
    const winning = (plan.queryPlanner as Document).winningPlan as Document;
    assert.equal(winning.stage, 'COLLSCAN');
    assert.equal(winning.direction, 'backward');
  });

  it('$natural must be 1 or -1 and alone, in a sort and in a hint (BadValue, as mongod words it)', () => {
    const engine = engineWith();
    for (const sort of [{ $natural: 2 }, { $natural: 'x' }, { $natural: 1, a: 1 }, { a: 1, $natural: 1 }])
      expectError(
        () => run(engine, { find: 'c', sort }),
        2,
        '$natural sort cannot be set to a value other than -1 or 1.',
      );
    expectError(
      () => run(engine, { find: 'c', hint: { $natural: 0 } }),
      2,
      '$natural hint cannot be set to a value other than -1 or 1.',
    );
    // Checked even when the collection does not exist.
    expectError(() => run(engine, { find: 'none', sort: { $natural: 3 } }), 2);
  });

  it('a $natural sort takes no index hint, and a $natural hint only in its direction', () => {
    const engine = engineWith();
    run(engine, { createIndexes: 'c', indexes: [{ key: { a: 1 }, name: 'a_1' }] });
    expectError(
      () => run(engine, { find: 'c', sort: { $natural: 1 }, hint: { a: 1 } }),
      2,
      'index hint not allowed with $natural sort order',
    );
    expectError(() => run(engine, { find: 'c', sort: { $natural: 1 }, hint: 'a_1' }), 2);
    expectError(
      () => run(engine, { find: 'c', sort: { $natural: 1 }, hint: { $natural: -1 } }),
      2,
      '$natural hint must be in the same direction as $natural sort order',
    );
    assert.deepEqual(ids(engine, { sort: { $natural: -1 }, hint: { $natural: -1 } }), [2, 4, 1, 3]);
  });

  it('a view has no natural order: 168 InvalidPipelineOperator', () => {
    const engine = engineWith();
    run(engine, { create: 'v', viewOn: 'c', pipeline: [] });
    expectError(() => run(engine, { find: 'v', sort: { $natural: 1 } }), 168);
  });
});
