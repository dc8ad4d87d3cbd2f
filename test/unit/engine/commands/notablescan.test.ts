/**
 * The notablescan server parameter: with it on, a query no index serves fails with
 * NoQueryExecutionPlans (291) instead of scanning the collection.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';
import { expectError } from '../../helpers/expect-error';

function engineWithScansRefused(): Engine {
  const engine = new Engine();
  engine.runCommand('app', { insert: 'c', documents: [{ _id: 1, a: 1 }] });
  engine.runCommand('admin', { setParameter: 1, notablescan: true });
  return engine;
}

function found(engine: Engine, db: string, filter: Document, extra: Document = {}): number {
  const reply = engine.runCommand(db, { find: 'c', filter, ...extra });
  return ((reply.cursor as Document).firstBatch as Document[]).length;
}

describe('notablescan', () => {
  it('is off by default and listed by getParameter', () => {
    const engine = new Engine();
    assert.equal(engine.runCommand('admin', { getParameter: 1, notablescan: 1 }).notablescan, false);
  });

  it('refuses a filtered find no index serves with 291, and a $natural hint too', () => {
    const engine = engineWithScansRefused();
    expectError(() => found(engine, 'app', { a: 1 }), 291, /notablescan/, 'NoQueryExecutionPlans');
    expectError(() => found(engine, 'app', { a: 1 }, { hint: { $natural: 1 } }), 291);
    expectError(() => engine.runCommand('app', { count: 'c', query: { a: 1 } }), 291);
  });

  it('still runs an empty filter, and a filter an index serves', () => {
    const engine = engineWithScansRefused();
    assert.equal(found(engine, 'app', {}), 1);
    assert.equal(found(engine, 'app', { _id: 1 }), 1);
    engine.runCommand('app', { createIndexes: 'c', indexes: [{ key: { a: 1 }, name: 'a_1' }] });
    assert.equal(found(engine, 'app', { a: 1, b: null }), 1);
  });

  it('leaves the internal databases scannable', () => {
    const engine = engineWithScansRefused();
    engine.runCommand('local', { insert: 'c', documents: [{ a: 1 }] });
    assert.equal(found(engine, 'local', { a: 1 }), 1);
  });

  it('set back to false lets the scan run again', () => {
    const engine = engineWithScansRefused();
    engine.runCommand('admin', { setParameter: 1, notablescan: false });
    assert.equal(found(engine, 'app', { a: 1 }), 1);
  });
});

describe('an empty $in', () => {
  it('is planned as an index scan with no bounds, so it runs under notablescan and reads no key', () => {
    const engine = engineWithScansRefused();
    engine.runCommand('app', { createIndexes: 'c', indexes: [{ key: { a: 1 }, name: 'a_1' }] });
    assert.equal(found(engine, 'app', { a: { $in: [] }, b: 0 }), 0);
    const explain = engine.runCommand('app', {
      explain: { find: 'c', filter: { a: { $in: [] } } },
      verbosity: 'executionStats',
    });
    assert.equal((explain.executionStats as Document).totalKeysExamined, 0);
    const plan = (explain.queryPlanner as Document).winningPlan as Document;
    assert.deepEqual(((plan.inputStage as Document).indexBounds as Document).a, []);
  });
});
