/**
 * distinct on a multikey index, as mongod plans it from path-level multikey information: a filtered
 * distinct scans distinct keys when the distinct field itself never held an array and the bounds
 * decide the filter (a point on a field that held arrays is exact); a dotted field from a multikey
 * index is projected by PROJECTION_DEFAULT.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';

function setup(key: Document, documents: Document[]): Engine {
  const engine = new Engine();
  engine.runCommand('t', { createIndexes: 'c', indexes: [{ key, name: 'ix' }] });
  engine.runCommand('t', { insert: 'c', documents });
  return engine;
}

function plan(engine: Engine, key: string, query: Document): string[] {
  const e = engine.runCommand('t', { explain: { distinct: 'c', key, query }, verbosity: 'queryPlanner' });
  const out: string[] = [];
  let s = (e.queryPlanner as Document).winningPlan as Document | undefined;
  for (; s; s = s.inputStage as Document | undefined) out.push(s.stage as string);
  return out;
}

describe('explain: distinct on a multikey index', () => {
  it('a field that never held an array, with a range the bounds decide: DISTINCT_SCAN though another field is multikey', () => {
    const engine = setup({ a: 1, b: 1 }, [
      { a: 1, b: [2, 3] },
      { a: 8, b: [3, 4] },
      { a: 7, b: [4, 5] },
    ]);
    assert.deepEqual(plan(engine, 'a', { a: { $gte: 2 } }), ['PROJECTION_COVERED', 'DISTINCT_SCAN']);
    // The multikey field itself reads the documents.
    assert.deepEqual(plan(engine, 'b', { a: { $gte: 2 } }), ['FETCH', 'IXSCAN']);
  });

  it('a point on the multikey leading field is exact: the trailing field scans distinct keys', () => {
    const engine = setup({ a: 1, b: 1 }, [
      { a: [2, 3], b: 1 },
      { a: [3, 4], b: 8 },
    ]);
    assert.deepEqual(plan(engine, 'b', { a: 3 }), ['PROJECTION_COVERED', 'DISTINCT_SCAN']);
    assert.deepEqual(plan(engine, 'b', { a: { $gt: 2 } }), ['FETCH', 'IXSCAN']);
  });

  it('a dotted field from a multikey index is projected by PROJECTION_DEFAULT', () => {
    const engine = setup({ a: 1, 'b.c': 1 }, [
      { a: [2, 3], b: { c: 1 } },
      { a: [3, 4], b: { c: 8 } },
    ]);
    assert.deepEqual(plan(engine, 'b.c', { a: 3 }), ['PROJECTION_DEFAULT', 'DISTINCT_SCAN']);
  });
});
