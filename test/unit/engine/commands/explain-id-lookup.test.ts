/**
 * explain of a find by _id alone, as mongod 8.0 plans it without the query planner: the express
 * path (EXPRESS_IXSCAN) for a plain lookup, IDHACK when the find also needs a projection the
 * express path does not apply, returnKey or a batch size, and an ordinary plan otherwise.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';
import { isSimpleIdFilter } from '../../../../src/engine/commands/explain-id-lookup';

function setup(): Engine {
  const engine = new Engine();
  engine.runCommand('t', {
    insert: 'c',
    documents: [
      { _id: 1, a: 1, b: { c: 1, e: 2 } },
      { _id: { x: 2 }, a: 2 },
      { _id: 'abc', a: 3 },
    ],
  });
  engine.runCommand('t', { createIndexes: 'c', indexes: [{ key: { _id: 1, a: 1 }, name: 'id_a' }] });
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

function planOf(e: Document): string[] {
  return stages((e.queryPlanner as Document).winningPlan as Document);
}

describe('explain: a find by _id', () => {
  it('a plain _id equality (a number, an embedded document, $eq) takes the express path: EXPRESS_IXSCAN on _id_, one key and one document', () => {
    const engine = setup();
    for (const filter of [{ _id: 1 }, { _id: { x: 2 } }, { _id: { $eq: 'abc' } }]) {
      const e = explain(engine, { filter });
      const plan = (e.queryPlanner as Document).winningPlan as Document;
      assert.deepEqual(plan, { stage: 'EXPRESS_IXSCAN', keyPattern: '{ _id: 1 }', indexName: '_id_' });
      const stats = e.executionStats as Document;
      assert.equal(stats.nReturned, 1);
      assert.equal(stats.totalKeysExamined, 1);
      assert.equal(stats.totalDocsExamined, 1);
    }
  });

  it('a simple projection keeps the express path; a dotted one, returnKey or a batch size make it IDHACK under its stage', () => {
    const engine = setup();
    assert.deepEqual(planOf(explain(engine, { filter: { _id: 1 }, projection: { _id: 0 } })), ['EXPRESS_IXSCAN']);
    assert.deepEqual(planOf(explain(engine, { filter: { _id: 1 }, projection: { 'b.c': 1 } })), [
      'PROJECTION_DEFAULT',
      'IDHACK',
    ]);
    assert.deepEqual(planOf(explain(engine, { filter: { _id: 1 }, returnKey: true })), ['RETURN_KEY', 'IDHACK']);
    assert.deepEqual(planOf(explain(engine, { filter: { _id: 1 }, batchSize: 10 })), ['IDHACK']);
  });

  it('a missing _id is still the lookup, with nothing examined', () => {
    const e = explain(setup(), { filter: { _id: 99 }, returnKey: true });
    assert.deepEqual(planOf(e), ['RETURN_KEY', 'IDHACK']);
    assert.equal((e.executionStats as Document).totalKeysExamined, 0);
    assert.equal((e.executionStats as Document).nReturned, 0);
  });

  it('a hint, a skip or a regex on _id goes through the planner', () => {
    const engine = setup();
    for (const find of [
      { filter: { _id: 1 }, hint: { _id: 1, a: 1 } },
      { filter: { _id: 1 }, skip: 1 },
      { filter: { _id: /abc/ } },
      { filter: { _id: 1, a: 1 } },
    ]) {
      const plan = planOf(explain(engine, find));
      assert.ok(!plan.includes('IDHACK') && !plan.includes('EXPRESS_IXSCAN'), JSON.stringify(find));
    }
  });

  it('an exact _id filter is one value, or $eq alone of one: not null, an array, a range or an operator object', () => {
    assert.equal(isSimpleIdFilter({ _id: { x: 1 } }), true);
    assert.equal(isSimpleIdFilter({ _id: { $eq: 5 } }), true);
    assert.equal(isSimpleIdFilter({ _id: null }), false);
    assert.equal(isSimpleIdFilter({ _id: [1, 2] }), false);
    assert.equal(isSimpleIdFilter({ _id: { $gte: 2 } }), false);
    assert.equal(isSimpleIdFilter({ _id: { $eq: 5, $ne: 4 } }), false);
    assert.equal(isSimpleIdFilter({ _id: { $eq: null } }), false);
  });
});

describe('explain: SKIP before FETCH', () => {
  function many(): Engine {
    const engine = new Engine();
    engine.runCommand('t', {
      insert: 'c',
      documents: Array.from({ length: 400 }, (_, i) => ({ a: i % 2, b: i % 4, c: i, d: 400 - i })),
    });
    engine.runCommand('t', { createIndexes: 'c', indexes: [{ key: { a: 1, b: 1, c: 1 }, name: 'abc' }] });
    return engine;
  }
  const hint = { a: 1, b: 1, c: 1 };

  it('the index bounds decide the filter and give the order: keys are skipped before any document is read', () => {
    const engine = many();
    for (const sort of [undefined, { c: 1 }]) {
      const e = explain(engine, { filter: { a: 0, b: 2 }, hint, skip: 90, ...(sort ? { sort } : {}) });
      assert.deepEqual(planOf(e), ['FETCH', 'SKIP', 'IXSCAN']);
      const stats = e.executionStats as Document;
      assert.equal(stats.nReturned, 10);
      assert.equal(stats.totalDocsExamined, 10);
      assert.ok((stats.totalKeysExamined as number) >= 100);
    }
  });

  it('an in-memory sort or a filter the index does not decide reads every document first', () => {
    const engine = many();
    const sorted = explain(engine, { filter: { a: 0, b: 2 }, hint, sort: { d: 1 }, skip: 90 });
    assert.equal((sorted.executionStats as Document).totalDocsExamined, 100);
    assert.equal(planOf(sorted)[0], 'SKIP');
    const residual = explain(engine, { filter: { a: 0, b: 2, d: { $gt: 0 } }, hint, skip: 90 });
    assert.equal((residual.executionStats as Document).totalDocsExamined, 100);
  });
});
