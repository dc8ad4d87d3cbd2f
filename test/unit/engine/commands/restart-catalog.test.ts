/**
 * restartCatalog: the catalog reopened, as mongod's test command does it: open cursors die with
 * QueryPlanKilled, views are read again from system.views (skipping entries that do not parse),
 * and the data and indexes stay as they were.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';
import { expectError } from '../../helpers/expect-error';

function firstBatch(reply: Document): Document[] {
  return (reply.cursor as Document).firstBatch as Document[];
}

describe('restartCatalog', () => {
  it('kills every open cursor: the next getMore is 175 QueryPlanKilled', () => {
    const engine = new Engine();
    engine.runCommand('shop', { insert: 'food', documents: [{ _id: 1 }, { _id: 2 }] });
    const reply = engine.runCommand('shop', { find: 'food', filter: {}, batchSize: 1 });
    const id = (reply.cursor as Document).id;
    assert.equal(engine.runCommand('admin', { restartCatalog: 1 }).ok, 1);
    expectError(() => engine.runCommand('shop', { getMore: id, collection: 'food' }), 175);
  });

  it('keeps documents, indexes and views, and skips a system.views entry that names no valid view', () => {
    const engine = new Engine();
    engine.runCommand('shop', { insert: 'food', documents: [{ _id: 1, kind: 'fruit' }] });
    engine.runCommand('shop', { createIndexes: 'food', indexes: [{ key: { kind: 1 }, name: 'kind_1' }] });
    engine.runCommand('shop', { create: 'fruit', viewOn: 'food', pipeline: [{ $match: { kind: 'fruit' } }] });
    engine.runCommand('shop', {
      insert: 'system.views',
      documents: [{ _id: 'other\0db.v', viewOn: 'food', pipeline: [] }],
    });
    engine.runCommand('admin', { restartCatalog: 1 });
    assert.deepEqual(firstBatch(engine.runCommand('shop', { find: 'fruit', filter: {} })), [{ _id: 1, kind: 'fruit' }]);
    const indexes = firstBatch(engine.runCommand('shop', { listIndexes: 'food' })).map((i) => i.name);
    assert.deepEqual(indexes, ['_id_', 'kind_1']);
    const deleted = engine.runCommand('shop', {
      delete: 'system.views',
      deletes: [{ q: { _id: 'other\0db.v' }, limit: 1 }],
    });
    assert.equal(deleted.n, 1);
  });

  it('may only run against admin: 13 Unauthorized', () => {
    expectError(() => new Engine().runCommand('shop', { restartCatalog: 1 }), 13);
  });
});
