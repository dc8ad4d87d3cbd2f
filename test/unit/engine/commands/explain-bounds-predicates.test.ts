/**
 * Index bounds from predicates beyond equality and ranges: `$all` (any one element bounds the
 * scan), `$elemMatch` (its sub-filter bounds the paths below it, its operators the path itself),
 * and `$ne: null` (every key but null's), which an array path's keys cannot decide unless the
 * `$elemMatch` holds it to one element.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';

function explain(engine: Engine, filter: Document, hint?: unknown): Document {
  return engine.runCommand('t', {
    explain: { find: 'c', filter, ...(hint ? { hint } : {}) },
    verbosity: 'executionStats',
  });
}

function ixscan(reply: Document): Document | undefined {
  for (let s = (reply.queryPlanner as Document).winningPlan as Document | undefined; s; s = s.inputStage as Document)
    if (s.stage === 'IXSCAN') return s;
  return undefined;
}

function count(engine: Engine, filter: Document): number {
  return ((engine.runCommand('t', { find: 'c', filter }).cursor as Document).firstBatch as Document[]).length;
}

describe('index bounds of $all, $elemMatch and $ne: null', () => {
  it('$all on a multikey field scans the keys of its first element only', () => {
    const e = new Engine();
    const docs = [];
    for (let i = 0; i < 50; i++) docs.push({ tags: [`t${i % 5}`, `t${i % 7}`] });
    e.runCommand('t', { insert: 'c', documents: docs });
    e.runCommand('t', { createIndexes: 'c', indexes: [{ key: { tags: 1 }, name: 'tags_1' }] });
    const reply = explain(e, { tags: { $all: ['t1', 't3'] } });
    assert.deepEqual(ixscan(reply)?.indexBounds, { tags: ['["t1", "t1"]'] });
    assert.equal(
      (reply.executionStats as Document).nReturned,
      docs.filter((d) => d.tags.includes('t1') && d.tags.includes('t3')).length,
    );
    // One key per document holding "t1": ten with i % 5 === 1, seven with i % 7 === 1, two of them both.
    assert.equal((reply.executionStats as Document).totalKeysExamined, 15);
  });

  it('an $elemMatch sub-filter bounds the indexed path below it, beside another key field', () => {
    const e = new Engine();
    const docs = [];
    for (let a = 0; a < 10; a++) for (let x = 0; x < 10; x++) docs.push({ a, arr: [{ x, y: x }] });
    e.runCommand('t', { insert: 'c', documents: docs });
    e.runCommand('t', { createIndexes: 'c', indexes: [{ key: { 'arr.x': 1, a: 1 }, name: 'ax' }] });
    const reply = explain(e, { a: 5, arr: { $elemMatch: { x: 5, y: 5 } } }, { 'arr.x': 1, a: 1 });
    assert.deepEqual(ixscan(reply)?.indexBounds, { 'arr.x': ['[5, 5]'], a: ['[5, 5]'] });
    assert.equal((reply.executionStats as Document).totalKeysExamined, 1);
    assert.equal((reply.executionStats as Document).nReturned, 1);
  });

  it('$ne: null uses a sparse index with every key but null; once the field holds an array only $elemMatch does', () => {
    const e = new Engine();
    e.runCommand('t', { insert: 'c', documents: [{ a: 1 }, { a: { x: 1 } }, { a: null }, { b: 1 }] });
    e.runCommand('t', { createIndexes: 'c', indexes: [{ key: { a: 1 }, name: 'a_1', sparse: true }] });
    assert.deepEqual(ixscan(explain(e, { a: { $ne: null } }))?.indexBounds, {
      a: ['[MinKey, null)', '(null, MaxKey]'],
    });
    assert.equal(count(e, { a: { $ne: null } }), 2);
    e.runCommand('t', { insert: 'c', documents: [{ a: [1, null] }] });
    // {a: [1, null]} has a null key and a key that is not: its keys cannot say whether a is null.
    assert.equal(ixscan(explain(e, { a: { $ne: null } })), undefined);
    assert.equal(count(e, { a: { $ne: null } }), 2);
    const elem = explain(e, { a: { $elemMatch: { $ne: null } } });
    assert.equal(ixscan(elem)?.indexName, 'a_1');
    assert.equal((elem.executionStats as Document).nReturned, 1);
  });

  it('an $elemMatch sub-filter with $ne: null cannot use the index once arrays sit below its path', () => {
    const e = new Engine();
    e.runCommand('t', {
      insert: 'c',
      documents: [{ a: { b: [{ c: { d: 1 } }] } }, { a: { b: [{ c: { d: null } }] } }],
    });
    e.runCommand('t', { createIndexes: 'c', indexes: [{ key: { 'a.b.c.d': 1 }, name: 'abcd', sparse: true }] });
    const query = { 'a.b': { $elemMatch: { 'c.d': { $ne: null } } } };
    assert.equal(ixscan(explain(e, query))?.indexName, 'abcd');
    e.runCommand('t', { insert: 'c', documents: [{ a: { b: [{ c: [{ d: 1 }] }] } }] });
    assert.equal(ixscan(explain(e, query)), undefined);
    assert.equal(count(e, query), 2);
  });
});
