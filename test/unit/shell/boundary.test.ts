/**
 * Values crossing the shell/engine boundary: script-realm dates and regexes become host objects
 * (the engine checks instanceof), untouched documents pass without copying, and replies come back
 * as copies with int32 read as numbers.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as vm from 'node:vm';
import { Int32, Long, ObjectId } from 'bson';
import { Boundary } from '../../../src/shell/boundary';
import { harness } from './helpers';

function realm(): { boundary: Boundary; ctx: vm.Context } {
  const ctx = vm.createContext({});
  const { Date: RealmDate, RegExp: RealmRegExp } = vm.runInContext('({ Date, RegExp })', ctx) as {
    Date: DateConstructor;
    RegExp: RegExpConstructor;
  };
  return { boundary: new Boundary(RealmDate, RealmRegExp), ctx };
}

describe('Boundary.toEngine', () => {
  it('replaces script-realm dates and regexes, deep inside documents and arrays', () => {
    const { boundary, ctx } = realm();
    const input = vm.runInContext(
      '({ a: { when: new Date(5), list: [1, /x+/gi, { deep: new Date(6) }] }, n: 1 })',
      ctx,
    ) as Record<string, any>;
    assert.equal(input.a.when instanceof Date, false);
    const out = boundary.toEngine<Record<string, any>>(input);
    assert.ok(out.a.when instanceof Date);
    assert.equal(out.a.when.getTime(), 5);
    assert.ok(out.a.list[1] instanceof RegExp);
    assert.equal(out.a.list[1].source, 'x+');
    assert.equal(out.a.list[1].flags, 'gi');
    assert.ok(out.a.list[2].deep instanceof Date);
    assert.equal(out.n, 1);
    // The script's own objects are not modified.
    assert.equal(input.a.when instanceof Date, false);
  });

  it('returns the very same object when nothing needs replacing', () => {
    const { boundary, ctx } = realm();
    const doc = vm.runInContext('({ a: 1, b: [1, 2, { c: "x" }], d: null })', ctx) as object;
    assert.equal(boundary.toEngine(doc), doc);
    const hostDoc = { t: new Date(), id: new ObjectId(), l: Long.fromNumber(1), r: /a/ };
    assert.equal(boundary.toEngine(hostDoc), hostDoc);
  });

  it('copies only the containers on the path to a replaced value', () => {
    const { boundary, ctx } = realm();
    const doc = vm.runInContext('({ keep: { x: 1 }, change: { r: /a/ } })', ctx) as Record<string, unknown>;
    const out = boundary.toEngine<Record<string, unknown>>(doc);
    assert.notEqual(out, doc);
    assert.equal(out.keep, doc.keep);
    assert.notEqual(out.change, doc.change);
  });

  it('passes primitives through and survives cycles', () => {
    const { boundary } = realm();
    assert.equal(boundary.toEngine(5), 5);
    assert.equal(boundary.toEngine(null), null);
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    assert.equal(boundary.toEngine(cyclic), cyclic);
  });
});

describe('Boundary.fromEngine', () => {
  it('copies documents and turns Int32 into numbers; other BSON classes stay', () => {
    const { boundary } = realm();
    const stored = {
      _id: new ObjectId(),
      n: new Int32(5),
      l: Long.fromNumber(7),
      when: new Date(1),
      nested: { list: [new Int32(1), 2] },
    };
    const out = boundary.fromEngine(stored) as Record<string, any>;
    assert.notEqual(out, stored);
    assert.notEqual(out.nested, stored.nested);
    assert.equal(out.n, 5);
    assert.deepEqual(out.nested.list, [1, 2]);
    assert.ok(Long.isLong(out.l));
    assert.equal(out._id, stored._id);
    assert.notEqual(out.when, stored.when);
    assert.equal(out.when.getTime(), 1);
    out.when.setTime(99);
    assert.equal(stored.when.getTime(), 1, 'the engine value is not shared');
  });

  it('keeps a field named __proto__ as data', () => {
    const { boundary } = realm();
    const stored = JSON.parse('{"__proto__": {"x": 1}, "a": 2}') as Record<string, unknown>;
    const out = boundary.fromEngine<Record<string, unknown>>(stored);
    assert.ok(Object.prototype.hasOwnProperty.call(out, '__proto__'));
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
  });
});

describe('the boundary in a session', () => {
  it('regex literals reach the engine as regexes (queries match)', () => {
    const h = harness();
    h.run('db.c.insertMany([{ s: "Alpha" }, { s: "beta" }, { s: "alphabet" }])');
    assert.equal(h.value('db.c.countDocuments({ s: /^alpha/i })'), 2);
    assert.equal(h.value('db.c.find({ s: { $regex: /bet/ } }).toArray().length'), 2);
  });

  it('dates made in the script are stored as BSON dates ($type 9 matches them)', () => {
    const h = harness();
    h.run('db.c.insertOne({ _id: 1, at: new Date() }); db.c.insertOne({ _id: 2, at: ISODate("2020-01-01") })');
    assert.equal(h.value('db.c.countDocuments({ at: { $type: "date" } })'), 2);
    const stored = h.engine.runCommand('test', { find: 'c', filter: { _id: 1 } });
    const doc = ((stored.cursor as Record<string, unknown>).firstBatch as Array<Record<string, unknown>>)[0];
    assert.ok(doc.at instanceof Date);
  });

  it('values read back are usable in the script: dates are instanceof Date, numbers are numbers', () => {
    const h = harness();
    h.run('db.c.insertOne({ _id: 1, t: new Date(0), n: NumberInt(3), d: 1.5, tags: ["a"] })');
    const value = h.value(
      'const d = db.c.findOne(); [d.t instanceof Date, typeof d.n, d.n + 1, typeof d.d, Array.isArray(d.tags), d.t.getTime()]',
    ) as unknown[];
    assert.deepEqual([...value], [true, 'number', 4, 'number', true, 0]);
  });

  it('mutating a document read back does not change the stored one', () => {
    const h = harness();
    h.run('db.c.insertOne({ _id: 1, t: new Date(0) })');
    h.run('const got = db.c.findOne(); got.t.setTime(5); got.x = 1');
    assert.equal(h.value('db.c.findOne().t.getTime()'), 0);
    assert.equal(h.value('db.c.findOne().x'), undefined);
  });
});
