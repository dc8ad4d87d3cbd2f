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
