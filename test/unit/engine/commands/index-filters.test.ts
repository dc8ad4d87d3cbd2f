/**
 * Index filters (planCacheSetFilter / ListFilters / ClearFilters): a query shape limited to some
 * indexes, kept across index drops and creations, overriding a hint; and what explain's
 * queryPlanner says about planning: indexFilterSet, queryHash, planCacheKey, rejectedPlans.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';

function setup(): Engine {
  const engine = new Engine();
  engine.runCommand('t', { insert: 'c', documents: [{ x: 3, y: 1, z: 1 }, { x: 4 }] });
  engine.runCommand('t', {
    createIndexes: 'c',
    indexes: [
      { key: { x: 1 }, name: 'x_1' },
      { key: { x: 1, y: 1 }, name: 'x_1_y_1' },
    ],
  });
  return engine;
}

function planner(engine: Engine, find: Document): Document {
  const reply = engine.runCommand('t', { explain: { find: 'c', ...find }, verbosity: 'queryPlanner' });
  return reply.queryPlanner as Document;
}

function scannedIndex(queryPlanner: Document): string | undefined {
  for (let s = queryPlanner.winningPlan as Document | undefined; s; s = s.inputStage as Document | undefined)
    if (s.stage === 'IXSCAN') return s.indexName as string;
  return undefined;
}

describe('index filters', () => {
  it('a filter limits the planner to its indexes for every query of its shape, and explain says indexFilterSet', () => {
    const e = setup();
    assert.equal(scannedIndex(planner(e, { filter: { x: 3 } })), 'x_1');
    e.runCommand('t', { planCacheSetFilter: 'c', query: { x: 7 }, indexes: [{ x: 1, y: 1 }] });
    const filtered = planner(e, { filter: { x: 3 } });
    assert.equal(filtered.indexFilterSet, true);
    assert.equal(scannedIndex(filtered), 'x_1_y_1');
    // Another shape ({x: {$gt: ...}}) is not filtered.
    const other = planner(e, { filter: { x: { $gt: 3 } } });
    assert.equal(other.indexFilterSet, false);
    assert.equal(scannedIndex(other), 'x_1');
  });

  it('a filter outlives the drop of its index: the shape then scans the collection, and uses the index once it is back', () => {
    const e = setup();
    e.runCommand('t', { planCacheSetFilter: 'c', query: { x: 3 }, indexes: [{ x: 1, y: 1 }] });
    e.runCommand('t', { dropIndexes: 'c', index: 'x_1_y_1' });
    assert.equal(scannedIndex(planner(e, { filter: { x: 3 } })), undefined);
    e.runCommand('t', { createIndexes: 'c', indexes: [{ key: { x: 1, y: 1 }, name: 'again' }] });
    assert.equal(scannedIndex(planner(e, { filter: { x: 3 } })), 'again');
    const listed = e.runCommand('t', { planCacheListFilters: 'c' }).filters as Document[];
    assert.deepEqual(listed, [{ query: { x: 3 }, sort: {}, projection: {}, indexes: [{ x: 1, y: 1 }] }]);
  });

  it('a filter overrides a hint, and names indexes by name as well as by key pattern', () => {
    const e = setup();
    e.runCommand('t', { planCacheSetFilter: 'c', query: { x: 3 }, indexes: ['x_1'] });
    assert.equal(scannedIndex(planner(e, { filter: { x: 3 }, hint: { x: 1, y: 1 } })), 'x_1');
    const found = e.runCommand('t', { find: 'c', filter: { x: 3 }, hint: { x: 1, y: 1 } });
    assert.equal(((found.cursor as Document).firstBatch as Document[]).length, 1);
  });

  it('the shape includes sort, projection and the collation the command names', () => {
    const e = setup();
    e.runCommand('t', { planCacheSetFilter: 'c', query: { x: 3 }, indexes: [{ x: 1, y: 1 }] });
    e.runCommand('t', {
      planCacheSetFilter: 'c',
      query: { x: 3 },
      collation: { strength: 2, locale: 'fr' },
      indexes: [{ x: 1 }],
    });
    assert.equal((e.runCommand('t', { planCacheListFilters: 'c' }).filters as Document[]).length, 2);
    assert.equal(planner(e, { filter: { x: 3 }, sort: { y: 1 } }).indexFilterSet, false);
    assert.equal(planner(e, { filter: { x: 3 }, projection: { x: 1 } }).indexFilterSet, false);
    const collated = planner(e, { filter: { x: 3 }, collation: { locale: 'fr', strength: 2 } });
    assert.equal(collated.indexFilterSet, true);
  });

  it('planCacheClearFilters clears one shape, or all; sort without query is refused with BadValue', () => {
    const e = setup();
    e.runCommand('t', { planCacheSetFilter: 'c', query: { x: 3 }, indexes: [{ x: 1 }] });
    e.runCommand('t', { planCacheSetFilter: 'c', query: { y: 3 }, indexes: [{ x: 1 }] });
    e.runCommand('t', { planCacheClearFilters: 'c', query: { x: 99 } });
    let listed = e.runCommand('t', { planCacheListFilters: 'c' }).filters as Document[];
    assert.deepEqual(
      listed.map((f) => f.query),
      [{ y: 3 }],
    );
    assert.throws(() => e.runCommand('t', { planCacheClearFilters: 'c', sort: { x: 1 } }), { code: 2 });
    e.runCommand('t', { planCacheClearFilters: 'c' });
    listed = e.runCommand('t', { planCacheListFilters: 'c' }).filters as Document[];
    assert.deepEqual(listed, []);
  });

  it('planCacheSetFilter refuses a missing or empty indexes list and a missing collection with BadValue', () => {
    const e = setup();
    assert.throws(() => e.runCommand('t', { planCacheSetFilter: 'c', query: { x: 3 } }), { code: 2 });
    assert.throws(() => e.runCommand('t', { planCacheSetFilter: 'c', query: { x: 3 }, indexes: [] }), { code: 2 });
    assert.throws(() => e.runCommand('t', { planCacheSetFilter: 'c', query: { x: 3 }, indexes: [5] }), { code: 2 });
    assert.throws(() => e.runCommand('t', { planCacheSetFilter: 'nope', query: { x: 3 }, indexes: [{ x: 1 }] }), {
      code: 2,
    });
  });

  it('dropping the collection drops its filters', () => {
    const e = setup();
    e.runCommand('t', { planCacheSetFilter: 'c', query: { x: 3 }, indexes: [{ x: 1 }] });
    e.runCommand('t', { drop: 'c' });
    e.runCommand('t', { create: 'c' });
    assert.deepEqual(e.runCommand('t', { planCacheListFilters: 'c' }).filters, []);
  });
});

describe('explain: queryHash, planCacheKey and rejectedPlans', () => {
  it('queryHash is one per shape whatever the constants and indexes; planCacheKey changes with the indexes that can answer', () => {
    const e = new Engine();
    e.runCommand('t', { insert: 'c', documents: [{ x: 5 }] });
    const before = planner(e, { filter: { x: 3 } });
    assert.match(before.queryHash as string, /^[0-9A-F]{8}$/);
    assert.equal(planner(e, { filter: { x: { $eq: 9 } } }).queryHash, before.queryHash);
    assert.notEqual(planner(e, { filter: { x: { $gt: 3 } } }).queryHash, before.queryHash);
    e.runCommand('t', { createIndexes: 'c', indexes: [{ key: { x: 1 }, name: 'x_1', sparse: true }] });
    const indexed = planner(e, { filter: { x: 3 } });
    assert.equal(indexed.queryHash, before.queryHash);
    assert.notEqual(indexed.planCacheKey, before.planCacheKey);
    e.runCommand('t', { dropIndexes: 'c', index: 'x_1' });
    assert.equal(planner(e, { filter: { x: 3 } }).planCacheKey, before.planCacheKey);
  });

  it('the other indexes that could answer the query are listed as rejectedPlans; a hint leaves none', () => {
    const e = setup();
    const weighed = planner(e, { filter: { x: { $gte: 1 } } });
    const rejected = weighed.rejectedPlans as Document[];
    assert.equal(rejected.length, 1);
    assert.equal(rejected[0].stage, 'FETCH');
    assert.notEqual(scannedIndex({ winningPlan: rejected[0] }), scannedIndex(weighed));
    assert.deepEqual(planner(e, { filter: { x: { $gte: 1 } }, hint: 'x_1' }).rejectedPlans, []);
    assert.deepEqual(planner(e, { filter: { z: 1 } }).rejectedPlans, []);
  });
});
