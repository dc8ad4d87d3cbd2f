/** The script's global scope: use, db, print/printjson/console, load, and isolation from the host. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { harness, plain } from './helpers';

describe('use() and db', () => {
  it('use("name") switches db and answers as mongosh does', () => {
    const h = harness();
    assert.equal(h.value('use("app")'), 'switched to db app');
    assert.equal(h.session.dbName, 'app');
    assert.equal(h.value('db.getName()'), 'app');
    assert.equal(h.value('use("app")'), 'already on db app');
    h.run('db.c.insertOne({})');
    assert.deepEqual(h.engine.db('app').collectionNames(), ['c']);
  });

  it('use() refuses bad names with the engine rule', () => {
    const h = harness();
    assert.equal(h.failure('use("a b")').error?.name, 'MongoServerError');
    assert.equal(h.failure('use(5)').error?.name, 'TypeError');
    assert.equal(h.session.dbName, 'test');
  });

  it('db = db.getSiblingDB(...) switches too; other values are refused', () => {
    const h = harness();
    h.run('db = db.getSiblingDB("other")');
    assert.equal(h.session.dbName, 'other');
    assert.equal(h.failure('db = 5').error?.name, 'TypeError');
  });

  it('the session starts on the given database, "test" by default', () => {
    assert.equal(harness().session.dbName, 'test');
    assert.equal(harness({ dbName: 'app' }).value('db.getName()'), 'app');
  });
});

describe('printing', () => {
  it('print joins its arguments with spaces, strings raw, values as mongosh renders them', () => {
    const h = harness();
    const r = h.last('print("count:", 3, { a: ISODate("2026-01-01T00:00:00Z") }, [1, "x"], null, undefined)');
    assert.deepEqual(r.output, ["count: 3 { a: ISODate('2026-01-01T00:00:00.000Z') } [ 1, 'x' ] null "]);
    assert.equal(r.value, undefined);
    assert.equal(r.rendered, undefined);
  });

  it('multi-line output is split into lines, in order, per statement and for the whole evaluation', () => {
    const h = harness();
    const result = h.run(
      'print("a\\nb")\nprintjson({ acknowledged: true, insertedId: ObjectId("65a1b2c3d4e5f6a7b8c9d0e1") })\nconsole.log("c")',
    );
    assert.deepEqual(result.statements[0].output, ['a', 'b']);
    assert.deepEqual(result.statements[1].output, [
      '{',
      '  acknowledged: true,',
      "  insertedId: ObjectId('65a1b2c3d4e5f6a7b8c9d0e1')",
      '}',
    ]);
    assert.deepEqual(result.statements[2].output, ['c']);
    assert.deepEqual(result.output, [
      'a',
      'b',
      '{',
      '  acknowledged: true,',
      "  insertedId: ObjectId('65a1b2c3d4e5f6a7b8c9d0e1')",
      '}',
      'c',
    ]);
  });

  it('printjson prints a string raw and a document one member a line, as mongosh 2.x; console methods all print', () => {
    const h = harness();
    assert.deepEqual(h.last('printjson("s")').output, ['s']);
    assert.deepEqual(h.last('printjson({ a: [1] })').output, ['{', '  a: [', '    1', '  ]', '}']);
    const all = h.run('console.info(1); console.warn(2); console.error(3); console.debug(4); console.dir({ d: 5 })');
    assert.deepEqual(all.output, ['1', '2', '3', '4', '{ d: 5 }']);
  });

  it('output printed before an error is kept', () => {
    const h = harness();
    const result = h.run('print("before"); throw new Error("stop")');
    assert.equal(result.ok, false);
    assert.deepEqual(result.output, ['before']);
    assert.deepEqual(result.statements[0].output, ['before']);
  });
});

describe('refusals and isolation', () => {
  it('load() is refused with a clear message', () => {
    const failed = harness().failure('load("setup.js")');
    assert.equal(failed.error?.name, 'MongoshUnimplementedError');
    assert.match(failed.error?.message ?? '', /load\(\) is not available/);
  });

  it('host globals are not reachable from the script', () => {
    const h = harness();
    assert.deepEqual(
      plain(h.value('[typeof require, typeof process, typeof module, typeof Buffer, typeof setTimeout]')),
      ['undefined', 'undefined', 'undefined', 'undefined', 'undefined'],
    );
  });

  it('the script can shadow a global with its own declaration', () => {
    const h = harness();
    h.run('function print(x) { globalThis.printed = x }');
    assert.deepEqual(h.last('print("mine")').output, []);
    assert.equal(h.value('printed'), 'mine');
  });

  it('globals are present with the expected types', () => {
    const h = harness();
    const names = [
      'db',
      'use',
      'print',
      'printjson',
      'console',
      'sleep',
      'load',
      'clock',
      'ttl',
      'ObjectId',
      'ISODate',
      'NumberInt',
      'NumberLong',
      'NumberDecimal',
      'Double',
      'Timestamp',
      'UUID',
      'BinData',
      'MinKey',
      'MaxKey',
      'EJSON',
      'MongoServerError',
      'Date',
    ];
    const types = plain(h.value(`[${names.map((n) => `typeof ${n}`).join(', ')}]`)) as string[];
    assert.deepEqual(types, [
      'object',
      'function',
      'function',
      'function',
      'object',
      'function',
      'function',
      'object',
      'object',
      'function',
      'function',
      'function',
      'function',
      'function',
      'function',
      'function',
      'function',
      'function',
      'function',
      'function',
      'object',
      'function',
      'function',
    ]);
  });
});
