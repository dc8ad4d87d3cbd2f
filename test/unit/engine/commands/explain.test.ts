/**
 * explain: which plan the engine picks (IXSCAN vs COLLSCAN, SORT or not, hints), what executionStats
 * report, and that an index never changes query results.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Int32, Long } from 'bson';
import { Engine, type Document } from '../../../../src/engine';
import { expectError } from '../../helpers/expect-error';

// ---- helpers ----------------------------------------------------------------------------------

const DB = 'app';

function run(engine: Engine, cmd: Document): Document {
  return engine.runCommand(DB, cmd);
}

function drain(engine: Engine, reply: Document, collection: string): Document[] {
  const cursor = reply.cursor as Document;
  const out = [...(cursor.firstBatch as Document[])];
  let id = cursor.id as Long;
  while (!Long.fromValue(id).isZero()) {
    const more = run(engine, { getMore: id, collection }).cursor as Document;
    out.push(...(more.nextBatch as Document[]));
    id = more.id as Long;
  }
  return out;
}

function find(engine: Engine, filter: Document, extra: Document = {}): Document[] {
  return drain(engine, run(engine, { find: 'c', filter, ...extra }), 'c');
}

function explainFind(engine: Engine, find: Document, verbosity = 'executionStats'): Document {
  return run(engine, { explain: { find: 'c', ...find }, verbosity });
}

/** The winning plan's stages, outermost first (classic shape, or SBE's queryPlan). */
function stages(explain: Document): Document[] {
  const out: Document[] = [];
  let stage = (explain.queryPlanner as Document).winningPlan as Document | undefined;
  if (stage && stage.queryPlan) stage = stage.queryPlan as Document;
  while (stage) {
    out.push(stage);
    stage = stage.inputStage as Document | undefined;
  }
  return out;
}

function stageNames(explain: Document): string[] {
  return stages(explain).map((s) => s.stage as string);
}

function ixscanOf(explain: Document): Document | undefined {
  return stages(explain).find((s) => s.stage === 'IXSCAN');
}

function stats(explain: Document): Document {
  return explain.executionStats as Document;
}

/** 1000 documents: n = 0..999 (unique), g = n % 10, s = zero-padded string of n. */
function thousand(): Engine {
  const engine = new Engine();
  const docs = Array.from({ length: 1000 }, (_, n) => ({ _id: n, n, g: n % 10, s: `k${String(n).padStart(4, '0')}` }));
  run(engine, { insert: 'c', documents: docs });
  return engine;
}

function index(engine: Engine, key: Document, name: string, options: Document = {}): void {
  run(engine, { createIndexes: 'c', indexes: [{ key, name, ...options }] });
}

// ---- plan choice -------------------------------------------------------------------------------

describe('plan choice', () => {
  it('equality on an indexed field uses IXSCAN under FETCH, with point bounds', () => {
    const engine = thousand();
    index(engine, { n: 1 }, 'n_1');
    const explain = explainFind(engine, { filter: { n: 42 } }, 'queryPlanner');
    assert.deepEqual(stageNames(explain), ['FETCH', 'IXSCAN']);
    const scan = ixscanOf(explain)!;
    assert.equal(scan.indexName, 'n_1');
    assert.deepEqual(scan.keyPattern, { n: 1 });
    assert.equal(scan.direction, 'forward');
    const bounds = (scan.indexBounds as Document).n as string[];
    assert.equal(bounds.length, 1);
    assert.match(bounds[0], /^\[42(\.0)?, 42(\.0)?\]$/);
  });

  it('a range on an indexed field uses IXSCAN', () => {
    const engine = thousand();
    index(engine, { n: 1 }, 'n_1');
    assert.equal(ixscanOf(explainFind(engine, { filter: { n: { $gte: 10, $lt: 20 } } }))?.indexName, 'n_1');
    assert.equal(ixscanOf(explainFind(engine, { filter: { n: { $gt: 990 } } }))?.indexName, 'n_1');
  });

  it('$in uses IXSCAN with one interval per value', () => {
    const engine = thousand();
    index(engine, { n: 1 }, 'n_1');
    const scan = ixscanOf(explainFind(engine, { filter: { n: { $in: [5, 500, 50] } } }, 'queryPlanner'))!;
    assert.equal(scan.indexName, 'n_1');
    assert.equal(((scan.indexBounds as Document).n as string[]).length, 3);
  });

  it('a range on the leading field of a compound index uses it', () => {
    const engine = thousand();
    index(engine, { g: 1, n: 1 }, 'g_1_n_1');
    assert.equal(ixscanOf(explainFind(engine, { filter: { g: { $lte: 2 } } }))?.indexName, 'g_1_n_1');
    assert.equal(ixscanOf(explainFind(engine, { filter: { g: 3, n: { $gt: 500 } } }))?.indexName, 'g_1_n_1');
  });

  it('COLLSCAN when no index fits: unindexed field, or only a non-leading compound field', () => {
    const engine = thousand();
    index(engine, { g: 1, n: 1 }, 'g_1_n_1');
    assert.deepEqual(stageNames(explainFind(engine, { filter: { s: 'k0001' } })), ['COLLSCAN']);
    assert.deepEqual(stageNames(explainFind(engine, { filter: { n: 5 } })), ['COLLSCAN']);
    const collscan = stages(explainFind(engine, { filter: { s: 'k0001' } }))[0];
    assert.equal(collscan.direction, 'forward');
  });

  it('COLLSCAN for an empty filter without sort', () => {
    const engine = thousand();
    index(engine, { n: 1 }, 'n_1');
    assert.deepEqual(stageNames(explainFind(engine, { filter: {} })), ['COLLSCAN']);
  });

  it("equality on _id takes 8.0's express path on _id_; a range on _id scans the _id index", () => {
    const engine = thousand();
    const express = (explainFind(engine, { filter: { _id: 7 } }).queryPlanner as Document).winningPlan as Document;
    assert.equal(express.stage, 'EXPRESS_IXSCAN');
    assert.equal(express.indexName, '_id_');
    assert.equal(ixscanOf(explainFind(engine, { filter: { _id: { $gte: 7 } } }))?.indexName, '_id_');
  });

  it('a hidden index is not used', () => {
    const engine = thousand();
    index(engine, { n: 1 }, 'n_1', { hidden: true });
    assert.deepEqual(stageNames(explainFind(engine, { filter: { n: 42 } })), ['COLLSCAN']);
  });

  it('a hidden index cannot be hinted: 2 BadValue', () => {
    const engine = thousand();
    index(engine, { n: 1 }, 'n_1', { hidden: true });
    expectError(() => explainFind(engine, { filter: { n: 42 }, hint: 'n_1' }), 2);
    expectError(() => run(engine, { find: 'c', filter: { n: 42 }, hint: 'n_1' }), 2);
  });

  it('IXSCAN reports isUnique / isSparse / isPartial / isMultiKey', () => {
    const engine = new Engine();
    run(engine, { insert: 'c', documents: [{ u: 1, tags: ['a', 'b'], p: 1, kind: 'x' }] });
    index(engine, { u: 1 }, 'u_1', { unique: true, sparse: true });
    index(engine, { tags: 1 }, 'tags_1');
    index(engine, { p: 1 }, 'p_1', { partialFilterExpression: { kind: 'x' } });
    const u = ixscanOf(explainFind(engine, { filter: { u: 1 } }))!;
    assert.equal(u.isUnique, true);
    assert.equal(u.isSparse, true);
    assert.equal(u.isMultiKey, false);
    const t = ixscanOf(explainFind(engine, { filter: { tags: 'a' } }))!;
    assert.equal(t.isMultiKey, true);
    const p = ixscanOf(explainFind(engine, { filter: { p: 1, kind: 'x' } }))!;
    assert.equal(p.isPartial, true);
  });
});

// ---- hints ---------------------------------------------------------------------------------------

describe('hint', () => {
  it('by name forces the index even for a predicate on another field', () => {
    const engine = thousand();
    index(engine, { n: 1 }, 'n_1');
    index(engine, { g: 1 }, 'g_1');
    const explain = explainFind(engine, { filter: { n: 42 }, hint: 'g_1' });
    assert.equal(ixscanOf(explain)?.indexName, 'g_1');
    assert.deepEqual(
      find(engine, { n: 42 }, { hint: 'g_1' }).map((d) => d._id),
      [42],
    );
  });

  it('by key pattern', () => {
    const engine = thousand();
    index(engine, { n: 1 }, 'n_1');
    index(engine, { g: 1 }, 'g_1');
    assert.equal(ixscanOf(explainFind(engine, { filter: { n: 42, g: 2 }, hint: { g: 1 } }))?.indexName, 'g_1');
  });

  it('{$natural: 1} forces a collection scan', () => {
    const engine = thousand();
    index(engine, { n: 1 }, 'n_1');
    assert.deepEqual(stageNames(explainFind(engine, { filter: { n: 42 }, hint: { $natural: 1 } })), ['COLLSCAN']);
  });

  it('an index that does not exist → 2 BadValue', () => {
    const engine = thousand();
    expectError(
      () => explainFind(engine, { filter: { n: 1 }, hint: 'nope_1' }),
      2,
      /hint provided does not correspond to an existing index/,
    );
    expectError(() => run(engine, { find: 'c', filter: { n: 1 }, hint: { nope: 1 } }), 2);
  });
});

// ---- sort ---------------------------------------------------------------------------------------------

describe('sort and the plan', () => {
  it('a sort on the indexed field of the range needs no SORT stage (forward)', () => {
    const engine = thousand();
    index(engine, { n: 1 }, 'n_1');
    const explain = explainFind(engine, { filter: { n: { $gte: 100 } }, sort: { n: 1 } });
    assert.ok(!stageNames(explain).includes('SORT'), stageNames(explain).join(' > '));
    assert.equal(ixscanOf(explain)?.direction, 'forward');
  });

  it('a descending sort walks the index backward, without SORT', () => {
    const engine = thousand();
    index(engine, { n: 1 }, 'n_1');
    const explain = explainFind(engine, { filter: { n: { $gte: 100 } }, sort: { n: -1 } });
    assert.ok(!stageNames(explain).includes('SORT'));
    assert.equal(ixscanOf(explain)?.direction, 'backward');
    const docs = find(engine, { n: { $gte: 995 } }, { sort: { n: -1 } });
    assert.deepEqual(
      docs.map((d) => d.n),
      [999, 998, 997, 996, 995],
    );
  });

  it('a sort with no filter can use an index instead of sorting', () => {
    const engine = thousand();
    index(engine, { n: -1 }, 'n_-1');
    const explain = explainFind(engine, { filter: {}, sort: { n: -1 }, limit: 3 });
    assert.ok(!stageNames(explain).includes('SORT'));
    assert.equal(ixscanOf(explain)?.indexName, 'n_-1');
  });

  it('equality on the prefix and sort on the next field of a compound index: no SORT', () => {
    const engine = thousand();
    index(engine, { g: 1, n: 1 }, 'g_1_n_1');
    const explain = explainFind(engine, { filter: { g: 3 }, sort: { n: -1 } });
    assert.ok(!stageNames(explain).includes('SORT'));
    assert.deepEqual(
      find(engine, { g: 3 }, { sort: { n: -1 }, limit: 3 }).map((d) => d.n),
      [993, 983, 973],
    );
  });

  it('a sort the index cannot provide adds a SORT stage above the scan', () => {
    const engine = thousand();
    index(engine, { n: 1 }, 'n_1');
    const explain = explainFind(engine, { filter: { n: { $lt: 50 } }, sort: { s: -1 } });
    const names = stageNames(explain);
    assert.equal(names[0], 'SORT');
    assert.ok(names.includes('IXSCAN'));
    assert.deepEqual(stages(explain)[0].sortPattern, { s: -1 });
  });

  it('a sort on an unindexed field over a COLLSCAN adds SORT', () => {
    const engine = thousand();
    assert.deepEqual(stageNames(explainFind(engine, { filter: { g: 1 }, sort: { s: 1 } })), ['SORT', 'COLLSCAN']);
  });

  it('limit and skip appear as LIMIT / SKIP stages', () => {
    const engine = thousand();
    index(engine, { n: 1 }, 'n_1');
    const names = stageNames(explainFind(engine, { filter: { n: { $gte: 0 } }, skip: 5, limit: 10 }));
    assert.ok(names.includes('LIMIT'), names.join(' > '));
    assert.ok(names.includes('SKIP'), names.join(' > '));
  });
});

// ---- executionStats -------------------------------------------------------------------------------------

describe('executionStats', () => {
  it('a range over 10 of 1000 documents examines about 10 keys and exactly 10 documents', () => {
    const engine = thousand();
    index(engine, { n: 1 }, 'n_1');
    const s = stats(explainFind(engine, { filter: { n: { $gte: 100, $lt: 110 } } }));
    assert.equal(s.executionSuccess, true);
    assert.equal(Number(s.nReturned), 10);
    assert.ok(
      Number(s.totalKeysExamined) >= 10 && Number(s.totalKeysExamined) <= 11,
      `keys examined: ${String(s.totalKeysExamined)}`,
    );
    assert.equal(Number(s.totalDocsExamined), 10);
    assert.equal(typeof s.executionTimeMillis, 'number');
  });

  it('an equality on a unique value examines 1 key and 1 document', () => {
    const engine = thousand();
    index(engine, { n: 1 }, 'n_1', { unique: true });
    const s = stats(explainFind(engine, { filter: { n: 500 } }));
    assert.equal(Number(s.nReturned), 1);
    assert.ok(Number(s.totalKeysExamined) <= 2);
    assert.equal(Number(s.totalDocsExamined), 1);
  });

  it('$in over 3 values examines about 3 keys', () => {
    const engine = thousand();
    index(engine, { n: 1 }, 'n_1');
    const s = stats(explainFind(engine, { filter: { n: { $in: [1, 2, 999] } } }));
    assert.equal(Number(s.nReturned), 3);
    assert.ok(Number(s.totalKeysExamined) >= 3 && Number(s.totalKeysExamined) <= 6);
    assert.equal(Number(s.totalDocsExamined), 3);
  });

  it('a COLLSCAN examines every document and no key', () => {
    const engine = thousand();
    const s = stats(explainFind(engine, { filter: { s: 'k0500' } }));
    assert.equal(Number(s.nReturned), 1);
    assert.equal(Number(s.totalKeysExamined), 0);
    assert.equal(Number(s.totalDocsExamined), 1000);
  });

  it('a compound index with equality + range examines only the matching keys', () => {
    const engine = thousand();
    index(engine, { g: 1, n: 1 }, 'g_1_n_1');
    const s = stats(explainFind(engine, { filter: { g: 7, n: { $lt: 100 } } }));
    assert.equal(Number(s.nReturned), 10);
    assert.ok(Number(s.totalKeysExamined) <= 11);
    assert.equal(Number(s.totalDocsExamined), 10);
  });

  it('a limit served by the index order stops the scan early', () => {
    const engine = thousand();
    index(engine, { n: 1 }, 'n_1');
    const s = stats(explainFind(engine, { filter: { n: { $gte: 0 } }, sort: { n: 1 }, limit: 5 }));
    assert.equal(Number(s.nReturned), 5);
    assert.ok(Number(s.totalDocsExamined) <= 6, `docs examined: ${String(s.totalDocsExamined)}`);
  });

  it('the explain command defaults to allPlansExecution verbosity (executionStats included)', () => {
    const engine = thousand();
    const reply = run(engine, { explain: { find: 'c', filter: { n: 1 } } });
    assert.ok(reply.executionStats, 'executionStats present without an explicit verbosity');
  });

  it('verbosity "queryPlanner" omits executionStats', () => {
    const engine = thousand();
    const reply = explainFind(engine, { filter: { n: 1 } }, 'queryPlanner');
    assert.equal(reply.executionStats, undefined);
    assert.ok(reply.queryPlanner);
  });
});

// ---- reply shape and other commands -------------------------------------------------------------------------

describe('explain reply and explained commands', () => {
  it('has queryPlanner.namespace, winningPlan, rejectedPlans, serverInfo, command and ok', () => {
    const engine = thousand();
    const reply = explainFind(engine, { filter: { n: 1 } });
    const qp = reply.queryPlanner as Document;
    assert.equal(qp.namespace, 'app.c');
    assert.ok(qp.winningPlan);
    assert.ok(Array.isArray(qp.rejectedPlans));
    assert.match(String((reply.serverInfo as Document).version), /^8\.0\./);
    assert.deepEqual(reply.command, { find: 'c', filter: { n: 1 } });
    assert.equal(reply.ok, 1);
  });

  it('on a missing collection the plan is EOF', () => {
    const engine = new Engine();
    const reply = run(engine, { explain: { find: 'none', filter: {} }, verbosity: 'queryPlanner' });
    assert.equal(((reply.queryPlanner as Document).winningPlan as Document).stage, 'EOF');
  });

  it('count, distinct, aggregate, findAndModify, update and delete can be explained', () => {
    const engine = thousand();
    index(engine, { n: 1 }, 'n_1');
    const cmds: Document[] = [
      { count: 'c', query: { n: 5 } },
      { distinct: 'c', key: 'g', query: { n: { $lt: 5 } } },
      { aggregate: 'c', pipeline: [{ $match: { n: 5 } }], cursor: {} },
      { findAndModify: 'c', query: { n: 5 }, update: { $set: { x: 1 } } },
      { update: 'c', updates: [{ q: { n: 5 }, u: { $set: { x: 1 } } }] },
      { delete: 'c', deletes: [{ q: { n: 5 }, limit: 1 }] },
    ];
    for (const cmd of cmds) {
      const reply = run(engine, { explain: cmd, verbosity: 'queryPlanner' });
      assert.equal(reply.ok, 1, Object.keys(cmd)[0]);
      assert.ok(
        stages(reply).some((s) => s.stage === 'IXSCAN' || s.stage === 'COUNT_SCAN'),
        `${Object.keys(cmd)[0]} uses the index`,
      );
    }
  });

  it('explaining writes does not perform them', () => {
    const engine = thousand();
    for (const verbosity of ['queryPlanner', 'executionStats', 'allPlansExecution']) {
      run(engine, { explain: { update: 'c', updates: [{ q: { n: 5 }, u: { $set: { x: 1 } } }] }, verbosity });
      run(engine, { explain: { delete: 'c', deletes: [{ q: { n: { $lt: 10 } }, limit: 0 }] }, verbosity });
      run(engine, { explain: { findAndModify: 'c', query: { n: 6 }, remove: true }, verbosity });
    }
    assert.equal(run(engine, { count: 'c' }).n, 1000);
    assert.deepEqual(find(engine, { x: 1 }), []);
  });

  it('an explained find does not consume or open a cursor', () => {
    const engine = thousand();
    const reply = explainFind(engine, { filter: {} });
    assert.equal(reply.cursor, undefined);
  });
});

describe('explained writes and counts: the root stage mongod puts above the scan', () => {
  const explainOf = (engine: Engine, cmd: Document) => run(engine, { explain: cmd, verbosity: 'executionStats' });
  const root = (reply: Document) => stats(reply).executionStages as Document;

  it('delete: DELETE over the scan, nWouldDelete counts the matches, nothing is deleted', () => {
    const engine = thousand();
    const reply = explainOf(engine, { delete: 'c', deletes: [{ q: { n: { $lt: 7 } }, limit: 0 }] });
    assert.deepEqual(stageNames(reply), ['DELETE', 'COLLSCAN']);
    assert.equal(root(reply).nWouldDelete, 7);
    assert.equal(stats(reply).nReturned, 0);
    assert.equal(run(engine, { count: 'c' }).n, 1000);
  });

  it('update: UPDATE with nMatched, nWouldModify (a $set to the value already there modifies nothing), nWouldUpsert', () => {
    const engine = thousand();
    const multi = explainOf(engine, {
      update: 'c',
      updates: [{ q: { n: { $lt: 10 } }, u: { $set: { g: 3 } }, multi: true }],
    });
    assert.equal(root(multi).stage, 'UPDATE');
    assert.equal(root(multi).nMatched, 10);
    assert.equal(root(multi).nWouldModify, 9, 'n = 3 already has g: 3');
    assert.equal(root(multi).nWouldUpsert, 0);
    const upsert = explainOf(engine, { update: 'c', updates: [{ q: { n: -1 }, u: { $set: { x: 1 } }, upsert: true }] });
    assert.equal(root(upsert).nMatched, 0);
    assert.equal(root(upsert).nWouldUpsert, 1);
    assert.equal(run(engine, { count: 'c' }).n, 1000);
  });

  it('update: an invalid update document fails the explain as it fails the update', () => {
    const engine = thousand();
    expectError(() => explainOf(engine, { update: 'c', updates: [{ q: {}, u: { $set: { a: 1 }, b: 2 } }] }), 9);
  });

  it('findAndModify: DELETE for remove, UPDATE otherwise; nReturned is the one document it would return', () => {
    const engine = thousand();
    const remove = explainOf(engine, { findAndModify: 'c', query: { _id: 4 }, remove: true });
    assert.equal(root(remove).stage, 'DELETE');
    assert.equal(root(remove).nWouldDelete, 1);
    assert.equal(stats(remove).nReturned, 1);
    const none = explainOf(engine, { findAndModify: 'c', query: { _id: 'no' }, update: { $inc: { n: 1 } } });
    assert.equal(root(none).stage, 'UPDATE');
    assert.equal(root(none).nWouldModify, 0);
    assert.equal(stats(none).nReturned, 0);
  });

  it('writes to a collection that does not exist: an EOF plan alone, and no collection is created', () => {
    const engine = new Engine();
    const del = explainOf(engine, { delete: 'none', deletes: [{ q: { a: 1 }, limit: 0 }] });
    assert.deepEqual(stageNames(del), ['EOF']);
    const upsert = explainOf(engine, {
      update: 'none',
      updates: [{ q: { a: 1 }, u: { $set: { b: 1 } }, upsert: true }],
    });
    assert.deepEqual(stageNames(upsert), ['EOF']);
    assert.deepEqual(run(engine, { listCollections: 1 }).cursor, run(new Engine(), { listCollections: 1 }).cursor);
  });

  it('count: COUNT over a FETCH when the index cannot answer alone, with nCounted', () => {
    const engine = thousand();
    index(engine, { n: 1 }, 'n_1');
    const reply = explainOf(engine, { count: 'c', query: { n: { $lt: 20 }, g: 1 } });
    assert.deepEqual(stageNames(reply), ['COUNT', 'FETCH', 'IXSCAN']);
    assert.equal(root(reply).nCounted, 2);
  });

  it('count: an exact predicate on a plain index is COUNT over COUNT_SCAN, reading no document', () => {
    const engine = thousand();
    index(engine, { n: 1 }, 'n_1');
    const reply = explainOf(engine, { count: 'c', query: { n: { $gte: 990 } } });
    assert.deepEqual(stageNames(reply), ['COUNT', 'COUNT_SCAN']);
    assert.equal(root(reply).nCounted, 10);
    assert.equal(stats(reply).totalDocsExamined, 0);
    assert.deepEqual((root(reply).inputStage as Document).indexBounds, {
      startKey: { n: 990 },
      startKeyInclusive: true,
      endKey: { n: Infinity },
      endKeyInclusive: true,
    });
  });

  it('count: a $comment in the query constrains nothing, so COUNT_SCAN still answers it', () => {
    const engine = thousand();
    index(engine, { n: 1 }, 'n_1');
    const reply = explainOf(engine, { count: 'c', query: { n: { $gte: 990 }, $comment: 'hi' }, hint: { n: 1 } });
    assert.deepEqual(stageNames(reply), ['COUNT', 'COUNT_SCAN']);
    assert.equal(root(reply).nCounted, 10);
    assert.equal(run(engine, { count: 'c', query: { n: { $gte: 990 }, $comment: 'hi' } }).n, 10);
  });

  it('count: COUNT_SCAN bounds of a compound index take every key of the fields past the predicate', () => {
    const engine = thousand();
    index(engine, { g: 1, n: 1 }, 'g_1_n_1');
    const reply = explainOf(engine, { count: 'c', query: { g: 3 } });
    const bounds = (root(reply).inputStage as Document).indexBounds as Document;
    assert.equal(root(reply).nCounted, 100);
    const [start, end] = [bounds.startKey as Document, bounds.endKey as Document];
    assert.equal(start.g, 3);
    assert.equal((start.n as Document)._bsontype, 'MinKey');
    assert.equal((end.n as Document)._bsontype, 'MaxKey');
    assert.equal(bounds.startKeyInclusive && bounds.endKeyInclusive, true);
  });

  it('count: $in of several values counts over an IXSCAN (COUNT_SCAN walks one range only)', () => {
    const engine = thousand();
    index(engine, { n: 1 }, 'n_1');
    const reply = explainOf(engine, { count: 'c', query: { n: { $in: [1, 2, 3] } } });
    assert.deepEqual(stageNames(reply), ['COUNT', 'FETCH', 'IXSCAN']);
    assert.equal(root(reply).nCounted, 3);
  });

  it('count: no query is RECORD_STORE_FAST_COUNT; a missing collection counts 0 over EOF', () => {
    const engine = thousand();
    const all = explainOf(engine, { count: 'c', skip: 995 });
    assert.deepEqual(stageNames(all), ['RECORD_STORE_FAST_COUNT']);
    assert.equal(root(all).nCounted, 5);
    const missing = explainOf(engine, { count: 'none', query: { n: 1 } });
    assert.deepEqual(stageNames(missing), ['COUNT', 'EOF']);
    assert.equal(root(missing).nCounted, 0);
  });
});

describe('explained aggregate: the query layer under $cursor, then the remaining stages', () => {
  it('a pipeline of leading $match stages only is explained as the query itself (queryPlanner at the top)', () => {
    const engine = thousand();
    index(engine, { n: 1 }, 'n_1');
    const reply = run(engine, {
      explain: { aggregate: 'c', pipeline: [{ $match: { n: { $lt: 5 } } }, { $match: { g: 1 } }], cursor: {} },
      verbosity: 'executionStats',
    });
    assert.equal(reply.stages, undefined);
    assert.deepEqual(stageNames(reply), ['FETCH', 'IXSCAN']);
    assert.equal(stats(reply).nReturned, 1);
  });

  it('stages after the leading $match are listed under stages, after a $cursor with the plan and its stats', () => {
    const engine = thousand();
    index(engine, { n: 1 }, 'n_1');
    const group = { $group: { _id: '$g', k: { $sum: 1 } } };
    const reply = run(engine, {
      explain: { aggregate: 'c', pipeline: [{ $match: { n: { $lt: 5 } } }, group], cursor: {} },
      verbosity: 'executionStats',
    });
    const list = reply.stages as Document[];
    assert.equal(list.length, 2);
    const cursor = list[0].$cursor as Document;
    assert.equal(((cursor.queryPlanner as Document).winningPlan as Document).stage, 'FETCH');
    assert.equal((cursor.executionStats as Document).nReturned, 5);
    assert.deepEqual(list[1], group);
    assert.equal(reply.queryPlanner, undefined);
  });

  it('aggregate with explain: true answers the explain at queryPlanner verbosity, running nothing', () => {
    const engine = thousand();
    const reply = run(engine, { aggregate: 'c', pipeline: [{ $match: { n: 1 } }, { $out: 'copy' }], explain: true });
    const list = reply.stages as Document[];
    assert.ok(list[0].$cursor);
    assert.equal((list[0].$cursor as Document).executionStats, undefined);
    assert.deepEqual(list[1], { $out: 'copy' });
    assert.equal(run(engine, { count: 'copy' }).n, 0);
  });
});

describe('explained find options', () => {
  it('min and max bound the hinted index scan, as the find itself does', () => {
    const engine = thousand();
    index(engine, { n: 1 }, 'n_1');
    const reply = explainFind(engine, { min: { n: 4 }, max: { n: 6 }, hint: { n: 1 } });
    assert.equal(stats(reply).nReturned, 2);
  });

  it('hint: {} is no hint: the planner chooses', () => {
    const engine = thousand();
    index(engine, { n: 1 }, 'n_1');
    const reply = explainFind(engine, { filter: { n: 5 }, hint: {} });
    assert.deepEqual(stageNames(reply), ['FETCH', 'IXSCAN']);
    assert.deepEqual(find(engine, { n: 5 }, { hint: {} }), [{ _id: 5, n: 5, g: 5, s: 'k0005' }]);
  });
});

// ---- index vs no index ------------------------------------------------------------------------------

describe('an index never changes results', () => {
  const docs: Document[] = [
    { _id: 1, v: 1 },
    { _id: 2, v: 2.5 },
    { _id: 3, v: new Int32(3) },
    { _id: 4, v: Long.fromNumber(4) },
    { _id: 5, v: 'a' },
    { _id: 6, v: 'm' },
    { _id: 7, v: 'z' },
    { _id: 8, v: null },
    { _id: 9 },
    { _id: 10, v: [1, 5] },
    { _id: 11, v: [] },
    { _id: 12, v: ['a', 3] },
    { _id: 13, v: new Date(0) },
    { _id: 14, v: new Date(86400000) },
    { _id: 15, v: { x: 1 } },
    { _id: 16, v: true },
    { _id: 17, v: -10 },
    { _id: 18, v: [[1, 2]] },
    { _id: 19, v: [null] },
    { _id: 20, v: 3 },
  ];

  const queries: Document[] = [
    { v: 3 },
    { v: 1 },
    { v: { $gt: 2 } },
    { v: { $gte: 1, $lte: 4 } },
    { v: { $gt: 2, $lt: 4 } },
    { v: { $lt: 'n' } },
    { v: { $gte: 'b' } },
    { v: null },
    { v: { $ne: null } },
    { v: { $in: [1, 'a', null] } },
    { v: { $in: [[1, 2], 3] } },
    { v: { $gte: new Date(0) } },
    { v: { $lt: new Date(1000) } },
    { v: [] },
    { v: [1, 5] },
    { v: { x: 1 } },
    { v: { $exists: true } },
    { v: { $exists: false } },
    { v: { $type: 'string' } },
    { v: { $eq: true } },
    { v: { $ne: 3 } },
    { v: { $nin: [1, 'a'] } },
    { v: { $gt: -100 } },
    { v: { $lte: 2.5 } },
    { $or: [{ v: 'a' }, { v: { $gt: 3 } }] },
  ];

  function resultsFor(engine: Engine, filter: Document, sort?: Document): unknown[] {
    return find(engine, filter, sort ? { sort } : {}).map((d) => d._id);
  }

  function byId(a: unknown, b: unknown): number {
    return Number(a) - Number(b);
  }

  for (const [label, spec] of [
    ['ascending', { key: { v: 1 }, name: 'v_1' }],
    ['descending', { key: { v: -1 }, name: 'v_-1' }],
    ['sparse', { key: { v: 1 }, name: 'v_sparse', sparse: true }],
    ['compound', { key: { v: 1, _id: 1 }, name: 'v_1__id_1' }],
  ] as Array<[string, Document]>) {
    it(`same documents with and without a ${label} index on v (mixed types, arrays, null, missing)`, () => {
      const plain = new Engine();
      run(plain, { insert: 'c', documents: docs });
      const indexed = new Engine();
      run(indexed, { insert: 'c', documents: docs });
      run(indexed, { createIndexes: 'c', indexes: [spec] });
      for (const q of queries) {
        const expected = resultsFor(plain, q).sort(byId);
        const actual = resultsFor(indexed, q).sort(byId);
        assert.deepEqual(actual, expected, `query ${JSON.stringify(q)}`);
      }
    });
  }

  it('same order with and without an index for sorted queries', () => {
    const plain = new Engine();
    run(plain, { insert: 'c', documents: docs.filter((d) => !Array.isArray(d.v)) });
    const indexed = new Engine();
    run(indexed, { insert: 'c', documents: docs.filter((d) => !Array.isArray(d.v)) });
    run(indexed, { createIndexes: 'c', indexes: [{ key: { v: 1, _id: 1 }, name: 'v_1__id_1' }] });
    for (const sort of [
      { v: 1, _id: 1 },
      { v: -1, _id: -1 },
    ]) {
      for (const q of [{}, { v: { $gte: 1 } }, { v: { $lt: 'n' } }]) {
        assert.deepEqual(
          resultsFor(indexed, q, sort),
          resultsFor(plain, q, sort),
          `sort ${JSON.stringify(sort)} query ${JSON.stringify(q)}`,
        );
      }
    }
  });

  it('same documents with and without an index on 1000 documents for ranges and $in', () => {
    const plain = thousand();
    const indexed = thousand();
    index(indexed, { n: 1 }, 'n_1');
    index(indexed, { g: 1, s: -1 }, 'g_1_s_-1');
    const qs: Document[] = [
      { n: { $gte: 100, $lt: 110 } },
      { n: { $in: [3, 30, 300, 3000] } },
      { g: 4, s: { $gt: 'k0500' } },
      { g: { $in: [1, 2] }, s: { $lte: 'k0100' } },
      { n: { $gt: 998 } },
      { n: { $lt: 0 } },
    ];
    for (const q of qs) {
      assert.deepEqual(resultsFor(indexed, q).sort(byId), resultsFor(plain, q).sort(byId), JSON.stringify(q));
    }
  });
});
