/**
 * explain's plan for find: the stages mongod shows (covered projections read no document), and
 * executionStats on a collection that does not exist.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';

function setup(): Engine {
  const engine = new Engine();
  engine.runCommand('t', {
    insert: 'c',
    documents: Array.from({ length: 20 }, (_, i) => ({ _id: i, a: i % 5, b: `s${i}`, tags: [i, i + 1] })),
  });
  engine.runCommand('t', {
    createIndexes: 'c',
    indexes: [
      { key: { a: 1, b: 1 }, name: 'a_1_b_1' },
      { key: { tags: 1 }, name: 'tags_1' },
    ],
  });
  return engine;
}

function explain(engine: Engine, find: Document): Document {
  return engine.runCommand('t', { explain: { find: 'c', ...find }, verbosity: 'executionStats' });
}

function stages(plan: Document): string[] {
  const out: string[] = [];
  for (let s: Document | undefined = plan; s; s = s.inputStage as Document | undefined) out.push(s.stage as string);
  return out;
}

describe('explain: find plans', () => {
  it('a projection of indexed fields without _id is PROJECTION_COVERED over IXSCAN, with no document examined', () => {
    const e = explain(setup(), { filter: { a: 2 }, projection: { a: 1, b: 1, _id: 0 } });
    const qp = e.queryPlanner as Document;
    assert.deepEqual(stages(qp.winningPlan as Document), ['PROJECTION_COVERED', 'IXSCAN']);
    const stats = e.executionStats as Document;
    assert.equal(stats.totalDocsExamined, 0);
    assert.equal(stats.nReturned, 4);
    assert.deepEqual(stages(stats.executionStages as Document), ['PROJECTION_COVERED', 'IXSCAN']);
  });

  it('keeping _id, a filter on an unindexed field, a regex or null needs the documents: FETCH', () => {
    const engine = setup();
    for (const find of [
      { filter: { a: 2 }, projection: { a: 1 } },
      { filter: { a: 2, z: 1 }, projection: { a: 1, _id: 0 } },
      { filter: { a: null }, projection: { a: 1, _id: 0 } },
      { filter: { a: 2, b: /^s/ }, projection: { a: 1, _id: 0 } },
    ]) {
      const plan = (explain(engine, find).queryPlanner as Document).winningPlan as Document;
      assert.ok(stages(plan).includes('FETCH'), JSON.stringify(find));
    }
  });

  it('a multikey index never covers', () => {
    const plan = (explain(setup(), { filter: { tags: 3 }, projection: { tags: 1, _id: 0 } }).queryPlanner as Document)
      .winningPlan as Document;
    assert.deepEqual(stages(plan), ['PROJECTION_SIMPLE', 'FETCH', 'IXSCAN']);
  });

  it('sort, skip and limit appear as SORT, SKIP and LIMIT above the projection', () => {
    const plan = (
      explain(setup(), { filter: { b: { $gt: 's1' } }, sort: { b: -1 }, skip: 2, limit: 3, projection: { 'x.y': 1 } })
        .queryPlanner as Document
    ).winningPlan as Document;
    assert.deepEqual(stages(plan), ['LIMIT', 'SKIP', 'PROJECTION_DEFAULT', 'SORT', 'COLLSCAN']);
  });

  it('a missing collection explains as EOF and still has executionStats', () => {
    const engine = new Engine();
    const e = engine.runCommand('nodb', { explain: { find: 'none' }, verbosity: 'executionStats' });
    assert.equal(((e.queryPlanner as Document).winningPlan as Document).stage, 'EOF');
    assert.equal((e.executionStats as Document).nReturned, 0);
    assert.equal(((e.executionStats as Document).executionStages as Document).stage, 'EOF');
  });
});
