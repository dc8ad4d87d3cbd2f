/**
 * Ranges against MinKey, MaxKey and embedded documents use an index, exactly enough to be covered:
 * their bounds follow mongod's ([MinKey, MaxKey] for `$gt: MinKey` and `$lt: MaxKey`, none for
 * `$gt: MaxKey`), and a COUNT_SCAN counts the keys those bounds hold.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MaxKey, MinKey } from 'bson';
import { Engine, type Document } from '../../../../src/engine';

function engineWith(docs: Document[]): Engine {
  const engine = new Engine();
  engine.runCommand('t', { createIndexes: 'c', indexes: [{ key: { a: 1 }, name: 'a_1' }] });
  engine.runCommand('t', { insert: 'c', documents: docs });
  return engine;
}

function plan(engine: Engine, inner: Document): Document {
  const e = engine.runCommand('t', { explain: inner, verbosity: 'executionStats' });
  return e;
}

function stageNames(stage: Document | undefined): string[] {
  const out: string[] = [];
  for (let s = stage; s; s = s.inputStage as Document | undefined) out.push(s.stage as string);
  return out;
}

describe('index bounds for MinKey, MaxKey and documents', () => {
  it('a range against MaxKey is covered: $gt none, $gte MaxKey only, $lt and $lte every key', () => {
    const e = engineWith([{ a: 'string' }, { a: { b: 1 } }, {}]);
    const proj = { a: 1, _id: 0 };
    for (const [op, n] of [
      ['$gt', 0],
      ['$gte', 0],
      ['$lt', 3],
      ['$lte', 3],
    ] as const) {
      const find = plan(e, { find: 'c', filter: { a: { [op]: new MaxKey() } }, projection: proj });
      assert.deepEqual(stageNames((find.queryPlanner as Document).winningPlan as Document), [
        'PROJECTION_COVERED',
        'IXSCAN',
      ]);
      const count = plan(e, { count: 'c', query: { a: { [op]: new MaxKey() } } });
      const stages = (count.executionStats as Document).executionStages as Document;
      assert.deepEqual(stageNames(stages), ['COUNT', 'COUNT_SCAN'], op);
      assert.equal(stages.nCounted, n, op);
    }
  });

  it('$gt: MinKey has the bounds [MinKey, MaxKey]: its COUNT_SCAN counts a MinKey key, as on mongod', () => {
    const e = engineWith([{ a: new MinKey() }]);
    const count = plan(e, { count: 'c', query: { a: { $gt: new MinKey() } } });
    const stages = (count.executionStats as Document).executionStages as Document;
    assert.equal(stages.nCounted, 1);
    const none = plan(e, { count: 'c', query: { a: { $lt: new MinKey() } } });
    assert.equal(((none.executionStats as Document).executionStages as Document).nCounted, 0);
    assert.equal(e.runCommand('t', { count: 'c', query: { a: { $gt: new MinKey() } } }).n, 1);
  });

  it('a range against an embedded document scans the index within the object type, covered', () => {
    const e = engineWith([{ a: { b: 1 } }, { a: {} }, { a: 'string' }, { a: true }]);
    const find = plan(e, { find: 'c', filter: { a: { $gte: {}, $lt: { b: 2 } } }, projection: { a: 1, _id: 0 } });
    assert.deepEqual(stageNames((find.queryPlanner as Document).winningPlan as Document), [
      'PROJECTION_COVERED',
      'IXSCAN',
    ]);
    assert.equal((find.executionStats as Document).nReturned, 2);
    assert.equal((find.executionStats as Document).totalKeysExamined, 2);
  });
});
