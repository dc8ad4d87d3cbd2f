/**
 * explain of a read on a view: the plan is that of the aggregate mongod runs on the collection
 * under the view (its pipeline, then the read as stages), named after that collection.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';

const DB = 'db';

function setUp(): Engine {
  const engine = new Engine();
  engine.runCommand(DB, {
    insert: 'coll',
    documents: Array.from({ length: 10 }, (_, i) => ({ _id: i, x: i, state: i % 2 ? 'NY' : 'CA' })),
  });
  engine.runCommand(DB, { create: 'identity', viewOn: 'coll', pipeline: [] });
  engine.runCommand(DB, { create: 'small', viewOn: 'coll', pipeline: [{ $match: { x: { $lt: 7 } } }] });
  engine.runCommand(DB, { create: 'smallOnView', viewOn: 'small', pipeline: [{ $match: { x: { $gte: 2 } } }] });
  return engine;
}

function explain(engine: Engine, inner: Document, verbosity = 'executionStats'): Document {
  return engine.runCommand(DB, { explain: inner, verbosity });
}

function cursorOf(reply: Document): Document {
  return (reply.stages as Document[])[0].$cursor as Document;
}

describe('explain on a view', () => {
  it('find on a view with nothing left for the pipeline is a query plan on the underlying collection', () => {
    const reply = explain(setUp(), { find: 'identity' });
    assert.equal((reply.queryPlanner as Document).namespace, 'db.coll');
    assert.equal((reply.executionStats as Document).nReturned, 10);
    assert.deepEqual(reply.command, { find: 'identity' });
  });

  it("count on a view filters by the view's pipeline and its query, then counts in a $count stage", () => {
    const reply = explain(setUp(), { count: 'small', query: { x: { $gte: 5 } } });
    const cursor = cursorOf(reply);
    assert.equal((cursor.queryPlanner as Document).namespace, 'db.coll');
    assert.equal((cursor.executionStats as Document).nReturned, 2);
    assert.deepEqual((reply.stages as Document[])[1], { $count: 'count' });
  });

  it("distinct on a view is an $unwind and $group over the view's documents", () => {
    const reply = explain(setUp(), { distinct: 'small', key: 'state' });
    const cursor = cursorOf(reply);
    assert.equal((cursor.queryPlanner as Document).namespace, 'db.coll');
    assert.equal((cursor.executionStats as Document).nReturned, 7);
    assert.deepEqual(
      (reply.stages as Document[]).slice(1).map((s) => Object.keys(s)[0]),
      ['$unwind', '$group'],
    );
  });

  it('a view on a view resolves down to the collection, both pipelines applied', () => {
    const reply = explain(setUp(), { find: 'smallOnView' });
    assert.equal((reply.queryPlanner as Document).namespace, 'db.coll');
    assert.equal((reply.executionStats as Document).nReturned, 5);
  });

  it('queryPlanner verbosity on a view carries no executionStats', () => {
    const reply = explain(setUp(), { count: 'small', query: {} }, 'queryPlanner');
    assert.equal(cursorOf(reply).executionStats, undefined);
  });
});
