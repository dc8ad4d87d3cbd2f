/**
 * Covered plans beyond exact bounds: returnKey is answered by the index when it decides the filter
 * and the sort; a sparse index covers exact filters and $exists: true; $ne / $nin are tested on
 * the keys. A COUNT_SCAN still needs exact bounds, since it counts keys without testing them.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';

function stageNames(stage: Document | undefined): string[] {
  const out: string[] = [];
  for (let s = stage; s; s = s.inputStage as Document | undefined) out.push(s.stage as string);
  return out;
}

function setup(index: Document, options: Document = {}): Engine {
  const engine = new Engine();
  engine.runCommand('t', {
    insert: 'c',
    documents: [{ a: 1, b: 3 }, { a: 2, b: 2 }, { a: 3, b: 1 }, { b: 9 }],
  });
  engine.runCommand('t', { createIndexes: 'c', indexes: [{ key: index, name: 'ix', ...options }] });
  return engine;
}

function explainFind(engine: Engine, find: Document): Document {
  return engine.runCommand('t', { explain: { find: 'c', ...find }, verbosity: 'executionStats' });
}

describe('explain: covered by the index keys', () => {
  it('returnKey with the index giving the sort is RETURN_KEY over IXSCAN; a sort on another field fetches', () => {
    const e = setup({ a: 1 });
    const covered = explainFind(e, {
      filter: {},
      hint: { a: 1 },
      sort: { a: -1 },
      returnKey: true,
      projection: { b: 1 },
    });
    assert.deepEqual(stageNames((covered.queryPlanner as Document).winningPlan as Document), ['RETURN_KEY', 'IXSCAN']);
    assert.equal((covered.executionStats as Document).totalDocsExamined, 0);
    const fetched = explainFind(e, { filter: {}, hint: { a: 1 }, sort: { b: 1 }, returnKey: true });
    assert.deepEqual(stageNames((fetched.queryPlanner as Document).winningPlan as Document), [
      'RETURN_KEY',
      'SORT',
      'FETCH',
      'IXSCAN',
    ]);
  });

  it('a sparse index covers an equality and $exists: true', () => {
    const e = setup({ a: 1 }, { sparse: true });
    for (const filter of [{ a: 2 }, { a: { $exists: true } }]) {
      const plan = explainFind(e, { filter, projection: { a: 1, _id: 0 }, hint: { a: 1 } });
      assert.deepEqual(stageNames((plan.queryPlanner as Document).winningPlan as Document), [
        'PROJECTION_COVERED',
        'IXSCAN',
      ]);
    }
  });

  it('$ne and $nin are tested on the keys (covered), but a count of them is no COUNT_SCAN', () => {
    const e = setup({ a: 1 });
    const plan = explainFind(e, { filter: { a: { $nin: [1, 3] } }, projection: { a: 1, _id: 0 }, hint: { a: 1 } });
    assert.deepEqual(stageNames((plan.queryPlanner as Document).winningPlan as Document), [
      'PROJECTION_COVERED',
      'IXSCAN',
    ]);
    const count = e.runCommand('t', {
      explain: { count: 'c', query: { a: { $ne: 1 } }, hint: { a: 1 } },
      verbosity: 'executionStats',
    });
    const stages = (count.executionStats as Document).executionStages as Document;
    assert.equal(stages.nCounted, 3);
    assert.notEqual((stages.inputStage as Document).stage, 'COUNT_SCAN');
  });

  it("an explained aggregate's hint picks the index of the query it pushes down", () => {
    const e = setup({ a: 1 });
    e.runCommand('t', { createIndexes: 'c', indexes: [{ key: { b: 1 }, name: 'b_1' }] });
    const reply = e.runCommand('t', {
      explain: { aggregate: 'c', pipeline: [{ $match: { a: 2 } }], cursor: {}, hint: { b: 1 } },
      verbosity: 'queryPlanner',
    });
    const plan = (reply.queryPlanner as Document).winningPlan as Document;
    assert.deepEqual((plan.inputStage as Document).keyPattern, { b: 1 });
  });
});
