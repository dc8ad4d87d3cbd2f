/**
 * explain of an aggregate whose leading stages the query layer runs, as mongod 8.0 splits it: the
 * $match filter, the $sort, a $limit and a plain $project become the query (an index can cover the
 * projection and provide the order); a pipeline with nothing left is explained as that query alone.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';
import { pushedDown } from '../../../../src/engine/commands/explain-pushdown';

function setup(indexes: Document[]): Engine {
  const engine = new Engine();
  engine.runCommand('t', {
    insert: 'c',
    documents: Array.from({ length: 30 }, (_, i) => ({ _id: i, x: 'string', a: -i, y: i % 2 })),
  });
  engine.runCommand('t', {
    createIndexes: 'c',
    indexes: indexes.map((key, i) => ({ key, name: `ix${i}` })),
  });
  return engine;
}

function explain(engine: Engine, pipeline: Document[], extra: Document = {}): Document {
  return engine.runCommand('t', { explain: { aggregate: 'c', pipeline, cursor: {}, ...extra } });
}

function stages(plan: Document): string[] {
  const out: string[] = [];
  for (let s: Document | undefined = plan; s; s = s.inputStage as Document | undefined) out.push(s.stage as string);
  return out;
}

describe('explain: an aggregate pushed into the query', () => {
  it('$match, $sort and a plain $project that an index covers and orders: the query alone, PROJECTION_COVERED over IXSCAN, no SORT', () => {
    const engine = setup([{ x: 1, a: -1, _id: 1 }]);
    const e = explain(engine, [
      { $match: { x: 'string' } },
      { $sort: { x: 1, a: -1 } },
      { $project: { _id: 1, a: 1 } },
    ]);
    assert.equal(e.stages, undefined);
    const qp = e.queryPlanner as Document;
    assert.equal(qp.optimizedPipeline, true);
    assert.deepEqual(stages(qp.winningPlan as Document), ['PROJECTION_COVERED', 'IXSCAN']);
    assert.equal((e.executionStats as Document).totalDocsExamined, 0);
  });

  it('a projection the index lacks is still the query: PROJECTION_SIMPLE over FETCH', () => {
    const engine = setup([{ x: 1, a: -1, _id: 1 }]);
    const e = explain(engine, [{ $match: { x: 'string' } }, { $project: { notThere: 1 } }]);
    assert.deepEqual(stages((e.queryPlanner as Document).winningPlan as Document), [
      'PROJECTION_SIMPLE',
      'FETCH',
      'IXSCAN',
    ]);
  });

  it('a computed $project stays in the pipeline after the $cursor; a $limit after $match joins the query', () => {
    const engine = setup([{ x: 1 }]);
    const computed = explain(engine, [{ $match: { x: 'string' } }, { $project: { _id: 0, f: '$a' } }]);
    const list = computed.stages as Document[];
    assert.ok('$cursor' in list[0]);
    assert.deepEqual(list[1], { $project: { _id: 0, f: '$a' } });
    assert.equal(((list[0].$cursor as Document).queryPlanner as Document).optimizedPipeline, undefined);
    const limited = explain(engine, [{ $match: { x: 'string' } }, { $limit: 3 }]);
    assert.deepEqual(stages((limited.queryPlanner as Document).winningPlan as Document), ['LIMIT', 'FETCH', 'IXSCAN']);
    assert.equal((limited.executionStats as Document).nReturned, 3);
  });

  it('without a hint the query takes an index that provides the $sort over one that needs a blocking sort; a hint overrides it', () => {
    const engine = setup([{ a: 1 }, { y: 1 }]);
    const pipeline = [{ $match: { a: { $lte: 0 } } }, { $sort: { y: 1 } }];
    const ixscan = (e: Document) => {
      let s = (e.queryPlanner as Document).winningPlan as Document | undefined;
      while (s && s.stage !== 'IXSCAN') s = s.inputStage as Document | undefined;
      return s?.keyPattern;
    };
    assert.deepEqual(ixscan(explain(engine, pipeline)), { y: 1 });
    const hinted = explain(engine, pipeline, { hint: { a: 1 } });
    assert.deepEqual(ixscan(hinted), { a: 1 });
    assert.equal(stages((hinted.queryPlanner as Document).winningPlan as Document)[0], 'SORT');
  });

  it('only a plain inclusion or exclusion is pushed down: nested 1s are, expressions and $-operators are not', () => {
    assert.deepEqual(pushedDown([{ $project: { _id: 0, c: { d: 1 } } }]).projection, { _id: 0, c: { d: 1 } });
    assert.equal(pushedDown([{ $project: { a: '$b' } }]).projection, undefined);
    assert.equal(pushedDown([{ $project: { a: { $add: [1, 2] } } }]).projection, undefined);
    const split = pushedDown([{ $match: { a: 1 } }, { $match: { b: 2 } }, { $group: { _id: '$a' } }]);
    assert.deepEqual(split.filter, { $and: [{ a: 1 }, { b: 2 }] });
    assert.equal(split.rest.length, 1);
  });
});
