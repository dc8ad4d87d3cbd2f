/**
 * explain of distinct as mongod plans it: DISTINCT_SCAN (one seek per distinct value) under
 * PROJECTION_COVERED when an index answers the query alone, a covered IXSCAN when the index holds
 * the field but not first, and the command's own checks before any plan.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';

function explainDistinct(engine: Engine, key: string, query?: Document): Document {
  return engine.runCommand('t', {
    explain: { distinct: 'c', key, ...(query ? { query } : {}) },
    verbosity: 'executionStats',
  });
}

function stages(plan: Document): string[] {
  const out: string[] = [];
  for (let s: Document | undefined = plan; s; s = s.inputStage as Document | undefined) out.push(s.stage as string);
  return out;
}

function setup(index: Document): Engine {
  const engine = new Engine();
  engine.runCommand('t', {
    insert: 'c',
    documents: Array.from({ length: 100 }, (_, i) => ({ a: i % 10, b: i % 7 })),
  });
  engine.runCommand('t', { createIndexes: 'c', indexes: [{ key: index, name: 'ix' }] });
  return engine;
}

describe('explain: distinct', () => {
  it('DISTINCT_SCAN under PROJECTION_COVERED: one key per distinct value, no document read', () => {
    const e = explainDistinct(setup({ a: 1 }), 'a', { a: { $gt: 5 } });
    assert.deepEqual(stages((e.queryPlanner as Document).winningPlan as Document), [
      'PROJECTION_COVERED',
      'DISTINCT_SCAN',
    ]);
    const stats = e.executionStats as Document;
    assert.equal(stats.nReturned, 4);
    assert.equal(stats.totalKeysExamined, 4);
    assert.equal(stats.totalDocsExamined, 0);
  });

  it('a field after an equality-pinned prefix scans distinct too; without the pin it is a COLLSCAN', () => {
    const engine = setup({ a: 1, b: 1 });
    const pinned = explainDistinct(engine, 'b', { a: 3 });
    assert.ok(stages((pinned.queryPlanner as Document).winningPlan as Document).includes('DISTINCT_SCAN'));
    assert.equal((pinned.executionStats as Document).nReturned, 7);
    const unpinned = explainDistinct(engine, 'b');
    assert.deepEqual(stages((unpinned.queryPlanner as Document).winningPlan as Document), ['COLLSCAN']);
  });

  it('a filter the index bounds do not decide reads the documents: FETCH over IXSCAN', () => {
    const e = explainDistinct(setup({ a: 1 }), 'b', { a: { $gt: 5 } });
    assert.deepEqual(stages((e.queryPlanner as Document).winningPlan as Document), ['FETCH', 'IXSCAN']);
    assert.equal((e.executionStats as Document).totalDocsExamined, 40);
  });

  it("a key that is not a string fails as the command does; a $db other than explain's is InvalidNamespace", () => {
    const engine = setup({ a: 1 });
    assert.throws(
      () => engine.runCommand('t', { explain: { distinct: 'c', key: {} } }),
      (e: Error & { codeName?: string }) => e.codeName === 'TypeMismatch',
    );
    assert.throws(
      () => engine.runCommand('t', { explain: { find: 'c', $db: 'other' } }),
      (e: Error & { codeName?: string }) => e.codeName === 'InvalidNamespace',
    );
  });

  it("a namespace that is not a name fails with each command's own code: aggregate 14, update/delete 2, others 73", () => {
    const engine = setup({ a: 1 });
    const code = (inner: Document) => {
      try {
        engine.runCommand('t', { explain: inner });
      } catch (e) {
        return (e as Error & { codeName?: string }).codeName;
      }
      return 'ok';
    };
    assert.equal(code({ aggregate: 5, pipeline: [], cursor: {} }), 'TypeMismatch');
    assert.equal(code({ update: 5, updates: [{ q: {}, u: {} }] }), 'BadValue');
    assert.equal(code({ delete: 5, deletes: [{ q: {}, limit: 1 }] }), 'BadValue');
    assert.equal(code({ find: 5 }), 'InvalidNamespace');
    assert.equal(code({ count: 5 }), 'InvalidNamespace');
  });

  it('aggregate: a pipeline element that is not a document is TypeMismatch, before the cursor option is asked for', () => {
    const engine = setup({ a: 1 });
    for (const pipeline of [
      [1, 2],
      [1, null],
      [{ $match: {} }, 'x'],
    ])
      assert.throws(
        () => engine.runCommand('t', { aggregate: 'c', pipeline }),
        (e: Error & { codeName?: string }) => e.codeName === 'TypeMismatch',
      );
  });

  it('an explained $out or $merge pipeline takes no writeConcern (it writes nothing); without one it explains', () => {
    const engine = setup({ a: 1 });
    assert.throws(
      () =>
        engine.runCommand('t', {
          explain: { aggregate: 'c', pipeline: [{ $out: 'o' }], cursor: {}, writeConcern: { w: 1 } },
        }),
      (e: Error & { codeName?: string }) => e.codeName === 'FailedToParse',
    );
    assert.throws(() =>
      engine.runCommand('t', { aggregate: 'c', pipeline: [{ $out: 'o' }], explain: true, writeConcern: { w: 1 } }),
    );
    assert.equal(engine.runCommand('t', { aggregate: 'c', pipeline: [{ $out: 'o' }], explain: true }).ok, 1);
    const listed = engine.runCommand('t', { listCollections: 1, filter: { name: 'o' } }).cursor as Document;
    assert.equal((listed.firstBatch as Document[]).length, 0);
  });

  it('aggregate: a $sort right after the leading $match stages runs in the query layer (no $sort stage left)', () => {
    const engine = setup({ a: 1 });
    const pushed = engine.runCommand('t', {
      explain: { aggregate: 'c', pipeline: [{ $match: { a: { $gt: 2 } } }, { $sort: { a: -1 } }], cursor: {} },
      verbosity: 'queryPlanner',
    });
    assert.equal(pushed.stages, undefined);
    assert.deepEqual(stages((pushed.queryPlanner as Document).winningPlan as Document), ['FETCH', 'IXSCAN']);
    const kept = engine.runCommand('t', {
      explain: { aggregate: 'c', pipeline: [{ $project: { a: 1 } }, { $sort: { a: -1 } }], cursor: {} },
      verbosity: 'queryPlanner',
    });
    assert.ok((kept.stages as Document[]).some((s) => '$sort' in s));
  });

  it('$_internalInhibitOptimization passes documents through and keeps a later $sort out of the query layer', () => {
    const engine = setup({ a: 1 });
    const pipeline = [{ $_internalInhibitOptimization: {} }, { $sort: { a: -1 } }, { $limit: 1 }];
    const reply = engine.runCommand('t', { aggregate: 'c', pipeline, cursor: {} });
    assert.deepEqual(
      ((reply.cursor as Document).firstBatch as Document[]).map((d) => d.a),
      [9],
    );
    const explained = engine.runCommand('t', {
      explain: { aggregate: 'c', pipeline, cursor: {} },
      verbosity: 'queryPlanner',
    });
    assert.ok((explained.stages as Document[]).some((s) => '$sort' in s));
    assert.throws(() =>
      engine.runCommand('t', { aggregate: 'c', pipeline: [{ $_internalInhibitOptimization: 1 }], cursor: {} }),
    );
  });
});
