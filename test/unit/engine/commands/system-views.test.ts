/**
 * `<db>.system.views` as mongod keeps it: a real collection with one document per view, written by
 * create / collMod / drop of a view, and the source of the database's views when a command writes
 * it directly.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine, type Document } from '../../../../src/engine';
import { closeStoredEngine, openStoredEngine } from '../../../../src/storage/engine-store';
import { expectError } from '../../helpers/expect-error';

const DB = 'db';

function run(engine: Engine, cmd: Document): Document {
  return engine.runCommand(DB, cmd);
}

function batch(reply: Document): Document[] {
  return (reply.cursor as Document).firstBatch as Document[];
}

function listed(engine: Engine, filter?: Document): Array<[string, string]> {
  return batch(run(engine, { listCollections: 1, ...(filter ? { filter } : {}) })).map((c) => [
    c.name as string,
    c.type as string,
  ]);
}

function viewsDocs(engine: Engine): Document[] {
  return batch(run(engine, { find: 'system.views', sort: { _id: 1 } }));
}

describe('system.views', () => {
  it('creating a view writes its definition to system.views, a collection listCollections lists', () => {
    const engine = new Engine();
    run(engine, { create: 'c' });
    run(engine, { create: 'v', viewOn: 'c', pipeline: [{ $match: { a: 1 } }] });
    assert.deepEqual(viewsDocs(engine), [{ _id: 'db.v', viewOn: 'c', pipeline: [{ $match: { a: 1 } }] }]);
    assert.deepEqual(listed(engine), [
      ['c', 'collection'],
      ['system.views', 'collection'],
      ['v', 'view'],
    ]);
  });

  it('collMod of a view rewrites its document; dropping the view removes it and keeps system.views', () => {
    const engine = new Engine();
    run(engine, { create: 'v', viewOn: 'c', pipeline: [] });
    run(engine, { collMod: 'v', viewOn: 'd', pipeline: [{ $limit: 1 }] });
    assert.deepEqual(viewsDocs(engine), [{ _id: 'db.v', viewOn: 'd', pipeline: [{ $limit: 1 }] }]);
    run(engine, { drop: 'v' });
    assert.deepEqual(viewsDocs(engine), []);
    assert.deepEqual(listed(engine), [['system.views', 'collection']]);
  });

  it('a document inserted into system.views defines a view; deleting it removes the view', () => {
    const engine = new Engine();
    run(engine, {
      insert: 'c',
      documents: [
        { _id: 1, a: 1 },
        { _id: 2, a: 2 },
      ],
    });
    run(engine, {
      insert: 'system.views',
      documents: [{ _id: 'db.v', viewOn: 'c', pipeline: [{ $match: { a: 2 } }] }],
    });
    assert.deepEqual(batch(run(engine, { find: 'v' })), [{ _id: 2, a: 2 }]);
    run(engine, { delete: 'system.views', deletes: [{ q: { _id: 'db.v' }, limit: 1 }] });
    assert.equal(engine.getCollection(DB, 'v'), undefined);
  });

  it('renaming system.views away removes the views; renaming it back restores them', () => {
    const engine = new Engine();
    run(engine, { insert: 'c', documents: [{ _id: 1 }] });
    run(engine, { create: 'v', viewOn: 'c', pipeline: [] });
    engine.runCommand('admin', { renameCollection: 'db.system.views', to: 'db.views', dropTarget: true });
    assert.deepEqual(batch(run(engine, { find: 'v' })), [], 'v is no view now: a missing collection reads empty');
    assert.equal(engine.getCollection(DB, 'v'), undefined);
    engine.runCommand('admin', { renameCollection: 'db.views', to: 'db.system.views' });
    assert.deepEqual(batch(run(engine, { find: 'v' })), [{ _id: 1 }]);
  });

  it('an invalid definition fails listCollections of views (182) and creating a view with its own error; collections still list', () => {
    const engine = new Engine();
    run(engine, { create: 'foo' });
    run(engine, { create: 'bar', viewOn: 'foo', pipeline: [] });
    run(engine, { insert: 'system.views', documents: [{ invalid: 1000 }] });
    expectError(() => listed(engine), 182, /invalid view definition/, 'InvalidViewDefinition');
    expectError(() => listed(engine, { type: 'view' }), 182);
    assert.deepEqual(listed(engine, { $or: [{ type: 'collection' }, { type: { $exists: false } }] }), [
      ['foo', 'collection'],
      ['system.views', 'collection'],
    ]);
    run(engine, { delete: 'system.views', deletes: [{ q: { invalid: 1000 }, limit: 1 }] });
    run(engine, {
      insert: 'system.views',
      documents: [{ _id: 'db.bad', viewOn: 'foo', pipeline: [{ $out: 'x' }] }],
    });
    expectError(() => run(engine, { create: 'other', viewOn: 'foo', pipeline: [] }), 167);
  });

  it('a stored engine restarts with the same views and the same system.views documents', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-system-views-'));
    let o = openStoredEngine(dir);
    o.engine.runCommand(DB, { insert: 'c', documents: [{ _id: 1, a: 1 }] });
    o.engine.runCommand(DB, { create: 'v', viewOn: 'c', pipeline: [] });
    o.engine.runCommand(DB, {
      insert: 'system.views',
      documents: [{ _id: 'db.w', viewOn: 'c', pipeline: [{ $match: { a: 2 } }] }],
    });
    closeStoredEngine(o);
    o = openStoredEngine(dir);
    assert.deepEqual(viewsDocs(o.engine), [
      { _id: 'db.v', viewOn: 'c', pipeline: [] },
      { _id: 'db.w', viewOn: 'c', pipeline: [{ $match: { a: 2 } }] },
    ]);
    assert.deepEqual(listed(o.engine), [
      ['c', 'collection'],
      ['system.views', 'collection'],
      ['v', 'view'],
      ['w', 'view'],
    ]);
    closeStoredEngine(o);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
