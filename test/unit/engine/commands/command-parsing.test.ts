/**
 * Checks mongod makes before a command touches data: database names that differ only in case
 * (DatabaseDifferCase, 13297) and killCursors' namespace and cursor list.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Long } from 'bson';
import { Engine } from '../../../../src/engine';
import { expectError } from '../../helpers/expect-error';

describe('database names that differ only in case', () => {
  it('a write creating "dbnameA" while "dbnamea" exists fails with DatabaseDifferCase (13297)', () => {
    const engine = new Engine();
    engine.runCommand('dbnamea', { insert: 'foo', documents: [{ x: 1 }] });
    const reply = engine.runCommand('dbnameA', { insert: 'foo', documents: [{ x: 1 }] });
    const errors = reply.writeErrors as Array<{ code: number; codeName?: string; errmsg: string }>;
    assert.equal(errors.length, 1);
    assert.equal(errors[0].code, 13297);
    assert.match(errors[0].errmsg, /\[dbnamea\] trying to create \[dbnameA\]/);
    const names = (engine.runCommand('admin', { listDatabases: 1 }).databases as Array<{ name: string }>).map(
      (d) => d.name,
    );
    assert.ok(names.includes('dbnamea'));
    assert.ok(!names.includes('dbnameA'));
  });

  it('createCollection in the other case fails with code 13297 and codeName DatabaseDifferCase', () => {
    const engine = new Engine();
    engine.runCommand('Shop', { create: 'a' });
    expectError(() => engine.runCommand('shop', { create: 'b' }), 13297, undefined, 'DatabaseDifferCase');
  });

  it('after the database is dropped the other case can be created', () => {
    const engine = new Engine();
    engine.runCommand('shop', { create: 'a' });
    engine.runCommand('shop', { dropDatabase: 1 });
    engine.runCommand('SHOP', { create: 'a' });
    assert.ok(engine.getCollection('SHOP', 'a'));
  });
});

describe('killCursors parsing', () => {
  it('a collection name that is not a string fails with InvalidNamespace (73)', () => {
    const engine = new Engine();
    expectError(() => engine.runCommand('app', { killCursors: { foo: 'bad' }, cursors: [Long.fromNumber(123)] }), 73);
  });

  it('cursors that are not an array fail with TypeMismatch (14)', () => {
    const engine = new Engine();
    expectError(() => engine.runCommand('app', { killCursors: 'c', cursors: { a: Long.fromNumber(123) } }), 14);
  });
});

describe('write commands reject unknown fields (40415)', () => {
  it('an unknown top-level field fails insert, update and delete before anything is written', () => {
    const engine = new Engine();
    expectError(() => engine.runCommand('app', { insert: 'c', documents: [{}], asdf: true }), 40415, /'insert\.asdf'/);
    assert.equal(engine.getCollection('app', 'c'), undefined);
    engine.runCommand('app', { insert: 'c', documents: [{ _id: 1, a: 1 }] });
    expectError(
      () => engine.runCommand('app', { update: 'c', updates: [{ q: {}, u: { $inc: { a: 1 } } }], asdf: true }),
      40415,
    );
    expectError(() => engine.runCommand('app', { delete: 'c', deletes: [{ q: {}, limit: 0 }], ordred: false }), 40415);
    assert.deepEqual(engine.getCollection('app', 'c')?.findById(1)?.doc, { _id: 1, a: 1 });
  });

  it('an unknown field in an update or delete statement fails the command', () => {
    const engine = new Engine();
    engine.runCommand('app', { insert: 'c', documents: [{ _id: 1, a: 1 }] });
    expectError(
      () => engine.runCommand('app', { update: 'c', updates: [{ q: {}, u: { $inc: { a: 1 } }, asdf: true }] }),
      40415,
      /'update\.updates\.asdf'/,
    );
    expectError(
      () => engine.runCommand('app', { delete: 'c', deletes: [{ q: {}, limit: 0, asdf: true }] }),
      40415,
      /'delete\.deletes\.asdf'/,
    );
    assert.equal(engine.getCollection('app', 'c')?.count, 1);
  });

  it('generic arguments and driver fields ($db, lsid, writeConcern, comment, maxTimeMS) are accepted', () => {
    const engine = new Engine();
    const reply = engine.runCommand('app', {
      insert: 'c',
      documents: [{ a: 1 }],
      ordered: true,
      $db: 'app',
      writeConcern: { w: 1 },
      comment: 'x',
      maxTimeMS: 1000,
      bypassDocumentValidation: false,
    });
    assert.equal(reply.n, 1);
  });
});
