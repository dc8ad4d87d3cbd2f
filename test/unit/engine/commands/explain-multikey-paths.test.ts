/**
 * Multikey paths per index (mongod's multiKeyPaths): explain shows which prefixes of each key
 * field held an array, and the planner keeps exact bounds, index sorts and covering on the fields
 * that never did, even on an index another field made multikey.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';

function engineWith(docs: Document[], key: Document): Engine {
  const engine = new Engine();
  engine.runCommand('t', { createIndexes: 'c', indexes: [{ key, name: 'ix' }] });
  if (docs.length > 0) engine.runCommand('t', { insert: 'c', documents: docs });
  return engine;
}

function stageNamed(plan: Document, name: string): Document | undefined {
  for (let s: Document | undefined = plan; s; s = s.inputStage as Document | undefined) if (s.stage === name) return s;
  return undefined;
}

function winningPlan(engine: Engine, inner: Document): Document {
  const e = engine.runCommand('t', { explain: inner, verbosity: 'queryPlanner' });
  return ((e.queryPlanner ?? (e.stages as Document[])[0].$cursor) as Document).winningPlan as Document;
}

describe('multikey paths', () => {
  it('explain lists, per key field, the prefixes that held an array (IXSCAN, COUNT_SCAN, DISTINCT_SCAN)', () => {
    const key = { a: 1, 'b.c': 1, 'b.d': 1 };
    const e = engineWith(
      [
        {
          a: 1,
          b: [
            { c: ['w', 'x'], d: 3 },
            { c: ['y'], d: 4 },
          ],
        },
      ],
      key,
    );
    const expected = { a: [], 'b.c': ['b', 'b.c'], 'b.d': ['b'] };
    const ixscan = stageNamed(winningPlan(e, { find: 'c', hint: key }), 'IXSCAN')!;
    assert.equal(ixscan.isMultiKey, true);
    assert.deepEqual(ixscan.multiKeyPaths, expected);
    const countScan = stageNamed(winningPlan(e, { count: 'c', hint: key }), 'COUNT_SCAN')!;
    assert.deepEqual(countScan.multiKeyPaths, expected);
    const distinctScan = stageNamed(winningPlan(e, { distinct: 'c', key: 'a' }), 'DISTINCT_SCAN')!;
    assert.deepEqual(distinctScan.multiKeyPaths, expected);
  });

  it('an index no array reached shows empty multiKeyPaths, and a positional path picks no array', () => {
    const e = engineWith([{ a: 1, b: { c: 'w', d: 4 } }], { a: 1, 'b.c': 1 });
    const ixscan = stageNamed(winningPlan(e, { find: 'c', hint: { a: 1, 'b.c': 1 } }), 'IXSCAN')!;
    assert.equal(ixscan.isMultiKey, false);
    assert.deepEqual(ixscan.multiKeyPaths, { a: [], 'b.c': [] });
    const positional = engineWith([{ a: [1, 2, 3] }], { 'a.0': 1 });
    const scan = stageNamed(winningPlan(positional, { find: 'c', hint: { 'a.0': 1 } }), 'IXSCAN')!;
    assert.deepEqual(scan.multiKeyPaths, { 'a.0': [] });
  });

  it('an index sorts on a field that never held an array, though another field made it multikey', () => {
    const e = engineWith(
      [
        { _id: 1, a: [3, 1], b: 2 },
        { _id: 2, a: [2], b: 1 },
      ],
      { a: 1, b: 1 },
    );
    const plan = winningPlan(e, { find: 'c', filter: { a: 2 }, sort: { b: 1 } });
    assert.equal(stageNamed(plan, 'SORT'), undefined);
    const byArray = winningPlan(e, { find: 'c', filter: { b: 1 }, sort: { a: 1 }, hint: { a: 1, b: 1 } });
    assert.notEqual(stageNamed(byArray, 'SORT'), undefined);
    const docs = e.runCommand('t', { find: 'c', filter: { a: { $gte: 1 } }, sort: { b: 1 } });
    assert.deepEqual(
      ((docs.cursor as Document).firstBatch as Document[]).map((d) => d._id),
      [2, 1],
    );
  });

  it('a projection of the fields that never held an array is covered on a multikey index', () => {
    const e = engineWith([{ a: 1, b: [1, 2] }], { a: 1, b: 1 });
    const covered = winningPlan(e, { find: 'c', filter: { a: 1 }, projection: { _id: 0, a: 1 } });
    assert.equal(covered.stage, 'PROJECTION_COVERED');
    const fetched = winningPlan(e, { find: 'c', filter: { a: 1 }, projection: { _id: 0, a: 1, b: 1 } });
    assert.notEqual(fetched.stage, 'PROJECTION_COVERED');
  });

  it('bounds on a field that never held an array intersect, on an index another field made multikey', () => {
    const e = engineWith([{ a: [1, 2], b: 5 }], { b: 1, a: 1 });
    const ixscan = stageNamed(winningPlan(e, { find: 'c', filter: { b: { $gt: 1, $lt: 9 } } }), 'IXSCAN')!;
    assert.deepEqual((ixscan.indexBounds as Document).b, ['(1, 9)']);
  });
});

describe('multikey bounds', () => {
  it('two predicates on an array field may be met by different elements: an index scan still finds them', () => {
    const e = engineWith([{ a: [4, 6] }, { a: [4, 7] }, { a: 5 }], { a: 1 });
    const count = (filter: Document) => e.runCommand('t', { count: 'c', query: filter }).n;
    const found = (filter: Document) =>
      ((e.runCommand('t', { find: 'c', filter }).cursor as Document).firstBatch as Document[]).length;
    assert.equal(found({ a: { $gte: 5, $lte: 5 } }), 3);
    assert.equal(count({ a: { $gte: 5, $lte: 5 } }), 3);
    assert.equal(found({ a: { $in: [4, 6], $gt: 5 } }), 2);
    assert.equal(found({ $and: [{ a: { $gt: 4 } }, { a: { $lt: 6 } }] }), 3);
    const ixscan = stageNamed(winningPlan(e, { find: 'c', filter: { a: { $in: [4, 6], $gt: 5 } } }), 'IXSCAN')!;
    assert.deepEqual((ixscan.indexBounds as Document).a, ['[4, 4]', '[6, 6]']);
  });
});

describe('explain: verbosity and findAndModify', () => {
  it('an unknown verbosity is refused with BadValue (2)', () => {
    const e = engineWith([{ a: 1 }], { a: 1 });
    assert.throws(() => e.runCommand('t', { explain: { find: 'c' }, verbosity: 'foobar' }), {
      code: 2,
      message: /queryPlanner/,
    });
  });

  it('explaining findAndModify on a database that does not exist is NamespaceNotFound (26) and creates nothing', () => {
    const e = new Engine();
    assert.throws(() => e.runCommand('nodb', { explain: { findAndModify: 'c', query: {}, remove: true } }), {
      code: 26,
    });
    assert.equal(e.getDatabase('nodb'), undefined);
  });

  it('explaining findAndModify works once the database was opened, even with its last collection dropped', () => {
    const e = new Engine();
    e.runCommand('t', { insert: 'c', documents: [{ a: 1 }] });
    e.runCommand('t', { drop: 'c' });
    const reply = e.runCommand('t', {
      explain: { findAndModify: 'c', query: {}, update: { $set: { a: 2 } }, upsert: true },
    });
    assert.equal(reply.ok, 1);
    assert.equal(e.getCollection('t', 'c'), undefined);
    e.runCommand('t', { dropDatabase: 1 });
    assert.throws(() => e.runCommand('t', { explain: { findAndModify: 'c', query: {}, remove: true } }), {
      code: 26,
    });
  });

  it('explaining findAndModify parses it first: remove with an update is FailedToParse (9)', () => {
    const e = engineWith([{ a: 1 }], { a: 1 });
    assert.throws(
      () => e.runCommand('t', { explain: { findAndModify: 'c', remove: true, update: { $set: { b: 3 } } } }),
      { code: 9 },
    );
  });

  it('explaining findAndModify with fields puts a PROJECTION_DEFAULT above the write stage', () => {
    const e = engineWith([{ _id: 0, i: 1 }], { a: 1 });
    const reply = e.runCommand('t', {
      explain: { findAndModify: 'c', query: { _id: 0 }, remove: true, fields: { i: 0 } },
      verbosity: 'executionStats',
    });
    const stages = (reply.executionStats as Document).executionStages as Document;
    assert.equal(stages.stage, 'PROJECTION_DEFAULT');
    assert.deepEqual(stages.transformBy, { i: 0 });
    assert.equal(stages.nReturned, 1);
    assert.equal((stages.inputStage as Document).stage, 'DELETE');
  });
});
