/**
 * Errors as scripts see them: engine errors are MongoServerErrors (code, codeName, errmsg, reply
 * fields) of the script's realm, catchable with try/catch like mongosh's; uncaught errors are
 * reported with name, code and the line and column where they were thrown.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as vm from 'node:vm';
import { EngineError } from '../../../src/engine';
import {
  describeThrown,
  formatErrorLine,
  locateInStack,
  ScriptErrors,
  type RealmErrorConstructors,
} from '../../../src/shell/errors';
import { harness, plain } from './helpers';

function realm(): { errors: ScriptErrors; ctx: vm.Context; intrinsics: RealmErrorConstructors } {
  const ctx = vm.createContext({});
  const intrinsics = vm.runInContext(
    '({ Error, TypeError, RangeError, SyntaxError, ReferenceError })',
    ctx,
  ) as RealmErrorConstructors;
  return { errors: new ScriptErrors(intrinsics), ctx, intrinsics };
}

describe('ScriptErrors', () => {
  it('makes MongoServerErrors of the script realm from engine errors, with the reply fields', () => {
    const { errors, intrinsics } = realm();
    const thrown: unknown = errors.fromHost(
      new EngineError('DuplicateKey', 'E11000 duplicate key', { keyPattern: { _id: 1 }, keyValue: { _id: 1 } }),
    );
    assert.ok(thrown instanceof intrinsics.Error, 'instanceof the realm Error');
    assert.equal(Object.prototype.isPrototypeOf.call(Error.prototype, thrown), false, 'not a host-realm error');
    assert.ok(thrown instanceof errors.MongoServerError);
    const err = thrown as unknown as Record<string, unknown>;
    assert.equal(err.name, 'MongoServerError');
    assert.equal(err.code, 11000);
    assert.equal(err.codeName, 'DuplicateKey');
    assert.equal(err.message, 'E11000 duplicate key');
    assert.equal(err.errmsg, 'E11000 duplicate key');
    assert.deepEqual(err.keyPattern, { _id: 1 });
    assert.deepEqual(err.keyValue, { _id: 1 });
    assert.deepEqual((err.errorResponse as Record<string, unknown>).code, 11000);
  });

  it('makes bulk write errors that are also MongoServerErrors', () => {
    const { errors } = realm();
    const err = errors.bulkWriteError([{ index: 1, code: 11000, codeName: 'DuplicateKey', errmsg: 'dup' }], {
      insertedCount: 1,
    }) as unknown as Record<string, unknown>;
    assert.ok(err instanceof errors.MongoServerError);
    assert.equal(err.name, 'MongoBulkWriteError');
    assert.equal(err.code, 11000);
    assert.deepEqual(err.result, { insertedCount: 1 });
    assert.equal((err.writeErrors as unknown[]).length, 1);
  });

  it('turns host errors into script-realm errors of the same kind, and leaves other values alone', () => {
    const { errors, intrinsics } = realm();
    const range = errors.fromHost(new RangeError('too far'));
    assert.ok(range instanceof intrinsics.RangeError);
    assert.equal(range.message, 'too far');
    class BSONError extends Error {
      override name = 'BSONError';
    }
    const custom = errors.fromHost(new BSONError('bad hex')) as Error;
    assert.ok(custom instanceof intrinsics.Error);
    assert.equal(custom.name, 'BSONError');
    assert.equal(errors.fromHost('plain'), 'plain');
  });
});

describe('describeThrown / locateInStack / formatErrorLine', () => {
  it('reads the first frame of the user file from a stack, 1-based', () => {
    const stack = 'Error: x\n    at helper (/host/engine.js:10:5)\n    at f (cell.js:7:3)\n    at cell.js:9:1';
    assert.deepEqual(locateInStack(stack, 'cell.js'), { line: 7, column: 3 });
    assert.deepEqual(locateInStack('cell.js:4\nlet x = 1\n    ^\n\nSyntaxError: Identifier', 'cell.js'), { line: 4 });
    assert.deepEqual(locateInStack('Error: x\n    at other.js:1:1', 'cell.js'), {});
  });

  it('describes non-error throws and errors without a stack', () => {
    assert.deepEqual(describeThrown('boom', 'f.js', String), { name: 'Uncaught', message: 'boom' });
    assert.deepEqual(describeThrown(42, 'f.js', String), { name: 'Uncaught', message: '42' });
    assert.deepEqual(describeThrown({ name: 'X', message: 'y', code: 7, codeName: 'Z' }, 'f.js', String), {
      name: 'X',
      message: 'y',
      code: 7,
      codeName: 'Z',
    });
  });

  it('formats errors as mongosh does: Name[codeName]: message', () => {
    assert.equal(
      formatErrorLine({ name: 'MongoServerError', codeName: 'DuplicateKey', message: 'E11000' }),
      'MongoServerError[DuplicateKey]: E11000',
    );
    assert.equal(
      formatErrorLine({ name: 'TypeError', message: 'x is not a function' }),
      'TypeError: x is not a function',
    );
  });
});

describe('errors in a session', () => {
  it('try/catch of a DuplicateKey sees code 11000, codeName, errmsg and instanceof Error', () => {
    const h = harness();
    const value = h.value(`
      db.users.insertOne({ _id: 1, name: 'a' })
      let caught
      try {
        db.users.insertOne({ _id: 1, name: 'b' })
      } catch (e) {
        caught = { code: e.code, codeName: e.codeName, errmsg: e.errmsg, message: e.message, name: e.name,
          isError: e instanceof Error, isServer: e instanceof MongoServerError, keyValue: e.keyValue }
      }
      caught
    `) as Record<string, unknown>;
    assert.equal(value.code, 11000);
    assert.equal(value.codeName, 'DuplicateKey');
    assert.equal(value.name, 'MongoServerError');
    assert.equal(value.isError, true);
    assert.equal(value.isServer, true);
    assert.match(
      String(value.errmsg),
      /^E11000 duplicate key error collection: test\.users index: _id_ dup key: \{ _id: 1 \}/,
    );
    assert.equal(value.message, value.errmsg);
    assert.deepEqual(value.keyValue, { _id: 1 });
  });

  it('an uncaught engine error ends the evaluation and names code, codeName and position', () => {
    const h = harness();
    const result = h.run('db.c.insertOne({ _id: 1 })\ndb.c.insertOne({ _id: 1 })\nprint("never")');
    assert.equal(result.ok, false);
    assert.equal(result.statements.length, 2);
    const failed = result.statements[1];
    assert.equal(failed.ok, false);
    assert.equal(failed.line, 2);
    assert.deepEqual(
      {
        name: failed.error?.name,
        code: failed.error?.code,
        codeName: failed.error?.codeName,
        line: failed.error?.line,
        column: failed.error?.column,
      },
      { name: 'MongoServerError', code: 11000, codeName: 'DuplicateKey', line: 2, column: 6 },
    );
    assert.match(failed.rendered ?? '', /^MongoServerError\[DuplicateKey\]: E11000 duplicate key error/);
    assert.deepEqual(result.output, []);
  });

  it('command errors (not only write errors) surface the same way', () => {
    const h = harness();
    const failed = h.failure('db.missing.getIndexes()');
    assert.equal(failed.error?.code, 26);
    assert.equal(failed.error?.codeName, 'NamespaceNotFound');
    const caught = h.value(
      'let r; try { db.runCommand({ noSuchCommand: 1 }) } catch (e) { r = [e.code, e.codeName, e instanceof Error] } r',
    );
    assert.deepEqual(plain(caught), [59, 'CommandNotFound', true]);
  });

  it('insertMany failures are MongoBulkWriteErrors with the write errors and what got in', () => {
    const h = harness();
    const value = h.value(`
      let r
      try { db.c.insertMany([{ _id: 1 }, { _id: 1 }, { _id: 2 }]) }
      catch (e) { r = { name: e.name, code: e.code, n: e.result.insertedCount, ids: e.result.insertedIds, errs: e.writeErrors.length, isServer: e instanceof MongoServerError } }
      r
    `);
    assert.deepEqual(plain(value), {
      name: 'MongoBulkWriteError',
      code: 11000,
      n: 1,
      ids: { 0: 1 },
      errs: 1,
      isServer: true,
    });
    assert.equal(h.value('db.c.countDocuments()'), 1);
    const unordered = h.value(`
      let u
      try { db.d.insertMany([{ _id: 1 }, { _id: 1 }, { _id: 2 }], { ordered: false }) } catch (e) { u = e.result.insertedCount }
      u
    `);
    assert.equal(unordered, 2);
  });

  it('errors thrown by script code report the line and column of the throw', () => {
    const h = harness();
    const result = h.run('function f() {\n  return null.x\n}\n\nf()', { filename: 'cell.js' });
    const failed = result.statements[result.statements.length - 1];
    assert.equal(failed.line, 5);
    assert.equal(failed.error?.name, 'TypeError');
    assert.equal(failed.error?.line, 2);
    assert.equal(failed.error?.column, 15);
  });

  it('non-Error throws are reported as Uncaught', () => {
    const failed = harness().failure('throw "boom"');
    assert.equal(failed.error?.name, 'Uncaught');
    assert.equal(failed.error?.message, 'boom');
    assert.equal(failed.rendered, 'Uncaught: boom');
  });

  it('BSON constructor failures are script-realm errors too', () => {
    const value = harness().value('let r; try { ObjectId("zz") } catch (e) { r = [e instanceof Error, e.name] } r');
    assert.deepEqual(plain(value), [true, 'BSONError']);
  });
});
