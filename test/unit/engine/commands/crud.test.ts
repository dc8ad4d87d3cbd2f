/**
 * CRUD commands: insert, find/getMore/killCursors, count, distinct, update, delete, findAndModify,
 * aggregate. Expectations are mongod 7.0/8.0 replies, with real BSON types.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { calculateObjectSize, Decimal128, Int32, Long, ObjectId, Timestamp } from 'bson';
import { Engine, EngineError, type Document } from '../../../../src/engine';
import { VirtualClock } from '../../../../src/engine/clock';
import { expectError } from '../../helpers/expect-error';

// ---- helpers ----------------------------------------------------------------------------------

const DB = 'app';

function run(engine: Engine, cmd: Document): Document {
  return engine.runCommand(DB, cmd);
}

function cursorId(reply: Document): Long {
  return Long.fromValue((reply.cursor as Document).id as Long);
}

function firstBatch(reply: Document): Document[] {
  return (reply.cursor as Document).firstBatch as Document[];
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

function find(engine: Engine, filter: Document = {}, extra: Document = {}, coll = 'c'): Document[] {
  return drain(engine, run(engine, { find: coll, filter, ...extra }), coll);
}

function ids(docs: Document[]): unknown[] {
  return docs.map((d) => d._id);
}

function seeded(docs: Document[], coll = 'c', options: ConstructorParameters<typeof Engine>[0] = {}): Engine {
  const engine = new Engine(options);
  const reply = run(engine, { insert: coll, documents: docs });
  assert.equal(reply.n, docs.length, 'seed documents inserted');
  return engine;
}

function update(engine: Engine, updates: Document[], extra: Document = {}, coll = 'c'): Document {
  return run(engine, { update: coll, updates, ...extra });
}

function one(engine: Engine, id: unknown, coll = 'c'): Document | undefined {
  return find(engine, { _id: id }, {}, coll)[0];
}

function writeErrors(reply: Document): Document[] {
  return (reply.writeErrors as Document[] | undefined) ?? [];
}

// ---- insert ---------------------------------------------------------------------------------------

describe('insert', () => {
  it('replies {n, ok: 1} and stores the documents in insertion order', () => {
    const engine = new Engine();
    const reply = run(engine, { insert: 'c', documents: [{ _id: 1 }, { _id: 2 }, { _id: 3 }] });
    assert.deepEqual(reply, { n: 3, ok: 1 });
    assert.deepEqual(ids(find(engine)), [1, 2, 3]);
  });

  it('adds an ObjectId _id as the first field when missing', () => {
    const engine = new Engine();
    run(engine, { insert: 'c', documents: [{ a: 1, b: 2 }] });
    const [doc] = find(engine);
    assert.ok(doc._id instanceof ObjectId);
    assert.deepEqual(Object.keys(doc), ['_id', 'a', 'b']);
  });

  it('an _id given as undefined is none: an ObjectId is generated, first, as the Node driver does', () => {
    const engine = new Engine();
    const reply = run(engine, { insert: 'c', documents: [{ a: 1, _id: undefined, b: 2 }] });
    assert.equal(reply.n, 1);
    const [doc] = find(engine);
    assert.ok(doc._id instanceof ObjectId, `a generated ObjectId, not ${String(doc._id)}`);
    assert.deepEqual(Object.keys(doc), ['_id', 'a', 'b']);
  });

  it('moves a given _id to the first position', () => {
    const engine = new Engine();
    run(engine, { insert: 'c', documents: [{ a: 1, _id: 'x', b: 2 }] });
    assert.deepEqual(Object.keys(find(engine)[0]), ['_id', 'a', 'b']);
  });

  it('ordered (default): stops at the first error; writeErrors carry index and code', () => {
    const engine = new Engine();
    const reply = run(engine, { insert: 'c', documents: [{ _id: 1 }, { _id: 1 }, { _id: 2 }] });
    assert.equal(reply.n, 1);
    assert.equal(reply.ok, 1);
    const errors = writeErrors(reply);
    assert.equal(errors.length, 1);
    assert.equal(errors[0].index, 1);
    assert.equal(errors[0].code, 11000);
    assert.equal(typeof errors[0].errmsg, 'string');
    assert.deepEqual(ids(find(engine)), [1]);
  });

  it('ordered: false goes on after errors and reports each', () => {
    const engine = new Engine();
    const reply = run(engine, {
      insert: 'c',
      ordered: false,
      documents: [{ _id: 1 }, { _id: 1 }, { _id: [2] }, { _id: 3 }],
    });
    assert.equal(reply.n, 2);
    assert.deepEqual(
      writeErrors(reply).map((e) => [e.index, e.code]),
      [
        [1, 11000],
        [2, 53],
      ],
    );
    assert.deepEqual(ids(find(engine)), [1, 3]);
  });

  it('an array _id → 53 InvalidIdField', () => {
    const engine = new Engine();
    const reply = run(engine, { insert: 'c', documents: [{ _id: [1, 2] }] });
    assert.equal(reply.n, 0);
    assert.equal(writeErrors(reply)[0].code, 53);
  });

  it('a regex _id → 53 InvalidIdField', () => {
    const engine = new Engine();
    assert.equal(writeErrors(run(engine, { insert: 'c', documents: [{ _id: /x/ }] }))[0].code, 53);
  });

  it('a $-prefixed top-level field is permitted on insert (5.0+, docs "Dollar-Prefixed Field Names")', () => {
    const engine = new Engine();
    const reply = run(engine, { insert: 'c', documents: [{ _id: 1, $price: 50, quantity: 30 }] });
    assert.deepEqual(writeErrors(reply), []);
    assert.equal(reply.n, 1);
    assert.deepEqual(find(engine), [{ _id: 1, $price: 50, quantity: 30 }]);
  });

  it('$-prefixed names nested below the top level are allowed (5.0+)', () => {
    const engine = new Engine();
    assert.equal(run(engine, { insert: 'c', documents: [{ _id: 1, a: { $x: 1 } }] }).n, 1);
    assert.deepEqual(one(engine, 1), { _id: 1, a: { $x: 1 } });
  });

  it('an object _id with a $-prefixed field is refused', () => {
    const engine = new Engine();
    const reply = run(engine, { insert: 'c', documents: [{ _id: { $gt: 1 } }] });
    assert.equal(reply.n, 0);
    assert.equal(writeErrors(reply).length, 1);
  });

  it('a document over 16 MiB is refused (2 BadValue) and never half-applied', () => {
    const engine = new Engine();
    const big = { _id: 'big', s: 'x'.repeat(16 * 1024 * 1024) };
    const reply = run(engine, { insert: 'c', documents: [{ _id: 'before' }, big, { _id: 'after' }] });
    assert.equal(reply.n, 1);
    const [err] = writeErrors(reply);
    assert.equal(err.index, 1);
    assert.equal(err.code, 2);
    assert.match(err.errmsg as string, /too large/);
    assert.deepEqual(ids(find(engine)), ['before']);
  });

  it('a document just under 16 MiB is accepted', () => {
    const engine = new Engine();
    const s = 'y'.repeat(16 * 1024 * 1024 - 100);
    assert.equal(run(engine, { insert: 'c', documents: [{ _id: 1, s }] }).n, 1);
    assert.equal((one(engine, 1)!.s as string).length, s.length);
  });

  it('more than 100000 documents in one batch is refused', () => {
    const engine = new Engine();
    const docs = Array.from({ length: 100001 }, (_, i) => ({ _id: i }));
    assert.throws(() => run(engine, { insert: 'c', documents: docs }), EngineError);
  });

  it('more than 100000 update or delete statements in one command is refused with 16 InvalidLength, nothing written', () => {
    const engine = seeded([{ _id: 1, a: 0 }]);
    const updates = Array.from({ length: 100001 }, () => ({ q: {}, u: { $inc: { a: 1 } } }));
    expectError(() => run(engine, { update: 'c', updates }), 16, /between 1 and 100000/);
    const deletes = Array.from({ length: 100001 }, () => ({ q: {}, limit: 0 }));
    expectError(() => run(engine, { delete: 'c', deletes }), 16);
    assert.deepEqual(find(engine), [{ _id: 1, a: 0 }]);
  });

  it('the stored document is a copy: mutating the input afterwards changes nothing', () => {
    const engine = new Engine();
    const input = { _id: 1, nested: { a: 1 }, list: [1, 2] };
    run(engine, { insert: 'c', documents: [input] });
    input.nested.a = 99;
    input.list.push(3);
    assert.deepEqual(one(engine, 1), { _id: 1, nested: { a: 1 }, list: [1, 2] });
  });

  it('undefined values are stored as null (as the Node driver serializes them)', () => {
    const engine = new Engine();
    run(engine, { insert: 'c', documents: [{ _id: 1, u: undefined }] });
    assert.deepEqual(one(engine, 1), { _id: 1, u: null });
  });
});

// ---- type fidelity ----------------------------------------------------------------------------------

describe('BSON type fidelity', () => {
  const typed = () => ({
    _id: 1,
    dbl: 1.5,
    whole: 2,
    i32: new Int32(7),
    i64: Long.fromString('9007199254740993'),
    dec: Decimal128.fromString('0.1'),
    oid: new ObjectId('65a0f0f0f0f0f0f0f0f0f0f0'),
    when: new Date(1700000000000),
    nested: { i32: new Int32(-1), arr: [new Int32(1), Long.fromNumber(2), 3.25] },
  });

  it('double, Int32, Long, Decimal128, ObjectId and Date survive insert and find with their types', () => {
    const engine = seeded([typed()]);
    const doc = one(engine, 1)!;
    assert.equal(typeof doc.dbl, 'number');
    assert.equal(doc.dbl, 1.5);
    assert.equal(typeof doc.whole, 'number', 'a JS number is a BSON double and stays one');
    assert.ok(doc.i32 instanceof Int32);
    assert.equal(doc.i32.value, 7);
    assert.ok(doc.i64 instanceof Long);
    assert.equal(doc.i64.toString(), '9007199254740993', 'no precision lost beyond 2^53');
    assert.ok(doc.dec instanceof Decimal128);
    assert.equal(doc.dec.toString(), '0.1');
    assert.ok(doc.oid instanceof ObjectId);
    assert.equal(doc.oid.toHexString(), '65a0f0f0f0f0f0f0f0f0f0f0');
    assert.ok(doc.when instanceof Date);
    assert.equal(doc.when.getTime(), 1700000000000);
    const nested = doc.nested as Document;
    assert.ok(nested.i32 instanceof Int32);
    const arr = nested.arr as unknown[];
    assert.ok(arr[0] instanceof Int32);
    assert.ok(arr[1] instanceof Long);
    assert.equal(arr[2], 3.25);
  });

  it('an equality filter matches numbers across types (1 == NumberInt(1) == NumberLong(1) == Decimal128("1"))', () => {
    const engine = seeded([
      { _id: 'd', n: 1 },
      { _id: 'i', n: new Int32(1) },
      { _id: 'l', n: Long.fromNumber(1) },
      { _id: 'm', n: Decimal128.fromString('1.00') },
      { _id: 'x', n: 2 },
    ]);
    for (const q of [1, new Int32(1), Long.fromNumber(1), Decimal128.fromString('1')]) {
      assert.deepEqual(ids(find(engine, { n: q })).sort(), ['d', 'i', 'l', 'm'], `query ${String(q)}`);
    }
  });

  it('updates keep the types of untouched fields', () => {
    const engine = seeded([typed()]);
    update(engine, [{ q: { _id: 1 }, u: { $set: { other: 'x' } } }]);
    const doc = one(engine, 1)!;
    assert.ok(doc.i32 instanceof Int32);
    assert.ok(doc.i64 instanceof Long);
    assert.ok(doc.dec instanceof Decimal128);
    assert.ok((doc.nested as Document).i32 instanceof Int32);
  });

  it('$set stores the given type', () => {
    const engine = seeded([{ _id: 1 }]);
    update(engine, [
      { q: { _id: 1 }, u: { $set: { a: new Int32(5), b: Long.fromNumber(6), c: Decimal128.fromString('7.5'), d: 8 } } },
    ]);
    const doc = one(engine, 1)!;
    assert.ok(doc.a instanceof Int32);
    assert.ok(doc.b instanceof Long);
    assert.ok(doc.c instanceof Decimal128);
    assert.equal(typeof doc.d, 'number');
  });

  it('$inc: Int32 + Int32 stays Int32', () => {
    const engine = seeded([{ _id: 1, n: new Int32(1) }]);
    update(engine, [{ q: { _id: 1 }, u: { $inc: { n: new Int32(2) } } }]);
    const n = one(engine, 1)!.n;
    assert.ok(n instanceof Int32, `expected Int32, got ${String(n)}`);
    assert.equal(n.value, 3);
  });

  it('$inc: Int32 overflow promotes to Long', () => {
    const engine = seeded([{ _id: 1, n: new Int32(2147483647) }]);
    update(engine, [{ q: { _id: 1 }, u: { $inc: { n: new Int32(1) } } }]);
    const n = one(engine, 1)!.n;
    assert.ok(n instanceof Long, `expected Long, got ${String(n)}`);
    assert.equal(n.toString(), '2147483648');
  });

  it('$inc: Int32 + double is a double; Int32 + Long is a Long; Long + Decimal128 is a Decimal128', () => {
    const engine = seeded([{ _id: 1, a: new Int32(1), b: new Int32(1), c: Long.fromNumber(1) }]);
    update(engine, [
      { q: { _id: 1 }, u: { $inc: { a: 0.5, b: Long.fromNumber(1), c: Decimal128.fromString('0.25') } } },
    ]);
    const doc = one(engine, 1)!;
    assert.equal(doc.a, 1.5);
    assert.ok(doc.b instanceof Long);
    assert.equal(doc.b.toNumber(), 2);
    assert.ok(doc.c instanceof Decimal128);
    assert.equal(doc.c.toString(), '1.25');
  });

  it('$inc on a missing field creates it with the increment and its type', () => {
    const engine = seeded([{ _id: 1 }]);
    update(engine, [{ q: { _id: 1 }, u: { $inc: { n: Long.fromNumber(5) } } }]);
    const n = one(engine, 1)!.n;
    assert.ok(n instanceof Long);
    assert.equal(n.toNumber(), 5);
  });

  it('$mul: Int32 × Int32 stays Int32', () => {
    const engine = seeded([{ _id: 1, n: new Int32(3) }]);
    update(engine, [{ q: { _id: 1 }, u: { $mul: { n: new Int32(4) } } }]);
    const n = one(engine, 1)!.n;
    assert.ok(n instanceof Int32);
    assert.equal(n.value, 12);
  });

  it('$inc on a non-numeric field → write error 14 TypeMismatch', () => {
    const engine = seeded([{ _id: 1, s: 'text' }]);
    const reply = update(engine, [{ q: { _id: 1 }, u: { $inc: { s: 1 } } }]);
    assert.equal(writeErrors(reply)[0].code, 14);
    assert.deepEqual(one(engine, 1), { _id: 1, s: 'text' });
  });

  it('results are copies: mutating a returned document does not change stored data', () => {
    const engine = seeded([{ _id: 1, nested: { a: 1 }, list: [1], when: new Date(5) }]);
    const doc = one(engine, 1)!;
    (doc.nested as Document).a = 99;
    (doc.list as unknown[]).push(2);
    (doc.when as Date).setTime(0);
    doc.added = true;
    assert.deepEqual(one(engine, 1), { _id: 1, nested: { a: 1 }, list: [1], when: new Date(5) });
  });

  it('update and delete: a hint that is neither a name nor a key pattern fails the command with 9 FailedToParse', () => {
    const engine = seeded([{ _id: 1, a: 1 }]);
    for (const hint of [1, true]) {
      expectError(() => run(engine, { update: 'c', updates: [{ q: {}, u: { $set: { a: 2 } }, hint }] }), 9);
      expectError(() => run(engine, { delete: 'c', deletes: [{ q: {}, limit: 0, hint }] }), 9);
    }
    assert.deepEqual(find(engine), [{ _id: 1, a: 1 }], 'nothing was written');
  });

  it('distinct: a key with an embedded NUL byte is refused with 31032', () => {
    const engine = seeded([{ _id: 1, a: 1 }]);
    expectError(() => run(engine, { distinct: 'c', key: 'a\0b' }), 31032);
    assert.deepEqual(run(engine, { distinct: 'c', key: 'a' }).values, [1]);
  });

  it('findAndModify, aggregate and distinct results are copies too', () => {
    const engine = seeded([{ _id: 1, nested: { a: 1 } }]);
    const fam = run(engine, { findAndModify: 'c', query: { _id: 1 }, update: { $set: { b: 1 } }, new: true })
      .value as Document;
    (fam.nested as Document).a = 2;
    const agg = firstBatch(run(engine, { aggregate: 'c', pipeline: [], cursor: {} }))[0];
    (agg.nested as Document).a = 3;
    const dist = run(engine, { distinct: 'c', key: 'nested' }).values as Document[];
    dist[0].a = 4;
    assert.deepEqual(one(engine, 1), { _id: 1, nested: { a: 1 }, b: 1 });
  });
});

// ---- find / getMore / killCursors ----------------------------------------------------------------------

describe('find', () => {
  const people = [
    { _id: 1, name: 'ann', age: 30, city: 'Oslo', tags: ['a', 'b'] },
    { _id: 2, name: 'bob', age: 25, city: 'Rome' },
    { _id: 3, name: 'cid', age: 35, city: 'Oslo', tags: ['b'] },
    { _id: 4, name: 'dee', age: 25, city: 'Lima' },
    { _id: 5, name: 'eve', city: 'Rome' },
  ];

  it('replies {cursor: {firstBatch, id: Long(0), ns}, ok: 1} when everything fits', () => {
    const engine = seeded(people);
    const reply = run(engine, { find: 'c', filter: { city: 'Oslo' } });
    assert.equal(reply.ok, 1);
    const cursor = reply.cursor as Document;
    assert.equal(cursor.ns, 'app.c');
    assert.ok(cursor.id instanceof Long, 'cursor id is a Long');
    assert.ok(cursor.id.isZero());
    assert.deepEqual(ids(cursor.firstBatch as Document[]), [1, 3]);
  });

  it('on a missing collection returns an empty batch with cursor id 0', () => {
    const engine = new Engine();
    const reply = run(engine, { find: 'nothing', filter: {} });
    assert.deepEqual(firstBatch(reply), []);
    assert.ok(cursorId(reply).isZero());
  });

  it('filters with comparison, logical, array and element operators', () => {
    const engine = seeded(people);
    assert.deepEqual(ids(find(engine, { age: { $gte: 30 } })), [1, 3]);
    assert.deepEqual(ids(find(engine, { $or: [{ age: 25 }, { name: 'eve' }] })), [2, 4, 5]);
    assert.deepEqual(ids(find(engine, { tags: 'b' })), [1, 3]);
    assert.deepEqual(ids(find(engine, { age: { $exists: false } })), [5]);
    assert.deepEqual(ids(find(engine, { city: { $in: ['Lima', 'Rome'] }, age: { $lt: 30 } })), [2, 4]);
    assert.deepEqual(ids(find(engine, { age: null })), [5], 'null matches a missing field');
  });

  it('a bad filter is a command error (2 BadValue for an unknown operator)', () => {
    const engine = seeded(people);
    expectError(() => run(engine, { find: 'c', filter: { age: { $bogus: 1 } } }), 2);
  });

  it('projection: inclusion keeps _id; _id: 0 removes it; exclusion drops fields', () => {
    const engine = seeded(people);
    assert.deepEqual(find(engine, { _id: 1 }, { projection: { name: 1 } }), [{ _id: 1, name: 'ann' }]);
    assert.deepEqual(find(engine, { _id: 1 }, { projection: { name: 1, _id: 0 } }), [{ name: 'ann' }]);
    assert.deepEqual(find(engine, { _id: 2 }, { projection: { age: 0, city: 0 } }), [{ _id: 2, name: 'bob' }]);
  });

  it('projection of a dotted path keeps the nesting', () => {
    const engine = seeded([{ _id: 1, a: { b: 1, c: 2 }, d: 3 }]);
    assert.deepEqual(find(engine, {}, { projection: { 'a.b': 1 } }), [{ _id: 1, a: { b: 1 } }]);
  });

  it('projection mixing inclusion and exclusion → 31254 / 31253', () => {
    const engine = seeded(people);
    expectError(() => run(engine, { find: 'c', filter: {}, projection: { name: 1, age: 0 } }), 31254);
    expectError(() => run(engine, { find: 'c', filter: {}, projection: { age: 0, name: 1 } }), 31253);
  });

  it('sort ascending / descending and on several fields; missing sorts before numbers', () => {
    const engine = seeded(people);
    assert.deepEqual(ids(find(engine, {}, { sort: { age: 1, _id: 1 } })), [5, 2, 4, 1, 3]);
    assert.deepEqual(ids(find(engine, {}, { sort: { age: -1, _id: -1 } })), [3, 1, 4, 2, 5]);
    assert.deepEqual(ids(find(engine, {}, { sort: { city: 1, name: -1 } })), [4, 3, 1, 5, 2]);
  });

  it('sort compares numbers of different BSON types by value', () => {
    const engine = seeded([
      { _id: 'a', n: Long.fromNumber(10) },
      { _id: 'b', n: 2.5 },
      { _id: 'c', n: new Int32(-3) },
      { _id: 'd', n: Decimal128.fromString('7') },
    ]);
    assert.deepEqual(ids(find(engine, {}, { sort: { n: 1 } })), ['c', 'b', 'd', 'a']);
  });

  it('sort on an array field uses the smallest element ascending and the largest descending', () => {
    const engine = seeded([
      { _id: 1, a: [1, 9] },
      { _id: 2, a: [5] },
      { _id: 3, a: [3, 4] },
    ]);
    // ascending by min element: 1, 3, 5; descending by max element: 9, 5, 4.
    assert.deepEqual(ids(find(engine, {}, { sort: { a: 1 } })), [1, 3, 2]);
    assert.deepEqual(ids(find(engine, {}, { sort: { a: -1 } })), [1, 2, 3]);
  });

  it('sort orders values of different types by BSON type order (null < numbers < strings < objects < dates)', () => {
    const engine = seeded([
      { _id: 'date', v: new Date(0) },
      { _id: 'str', v: 'a' },
      { _id: 'num', v: 1 },
      { _id: 'obj', v: { x: 1 } },
      { _id: 'null', v: null },
    ]);
    assert.deepEqual(ids(find(engine, {}, { sort: { v: 1 } })), ['null', 'num', 'str', 'obj', 'date']);
  });

  it('skip and limit apply after sort', () => {
    const engine = seeded(people);
    assert.deepEqual(ids(find(engine, {}, { sort: { _id: -1 }, skip: 1, limit: 2 })), [4, 3]);
    assert.deepEqual(ids(find(engine, {}, { sort: { _id: 1 }, skip: 10 })), []);
  });

  it('limit 0 means no limit; limit with singleBatch returns one batch and closes the cursor', () => {
    const engine = seeded(Array.from({ length: 10 }, (_, i) => ({ _id: i })));
    assert.equal(find(engine, {}, { limit: 0 }).length, 10);
    const reply = run(engine, { find: 'c', filter: {}, limit: 3, singleBatch: true });
    assert.equal(firstBatch(reply).length, 3);
    assert.ok(cursorId(reply).isZero());
  });

  it('find: a negative limit is refused with 51024, on a collection and on a view (the shell sends singleBatch)', () => {
    const engine = seeded(Array.from({ length: 3 }, (_, i) => ({ _id: i })));
    run(engine, { create: 'v', viewOn: 'c', pipeline: [] });
    expectError(() => run(engine, { find: 'c', filter: {}, limit: -1 }), 51024, /'limit' value must be >= 0/);
    expectError(() => run(engine, { find: 'v', limit: -1 }), 51024, /'limit' value must be >= 0/);
  });

  it('the first batch holds 101 documents by default; getMore without batchSize returns the rest', () => {
    const engine = seeded(Array.from({ length: 250 }, (_, i) => ({ _id: i })));
    const reply = run(engine, { find: 'c', filter: {} });
    assert.equal(firstBatch(reply).length, 101);
    const id = cursorId(reply);
    assert.ok(!id.isZero());
    const more = run(engine, { getMore: id, collection: 'c' });
    const cursor = more.cursor as Document;
    assert.equal(cursor.ns, 'app.c');
    assert.equal((cursor.nextBatch as Document[]).length, 149);
    assert.ok(Long.fromValue(cursor.id as Long).isZero());
    assert.equal(more.ok, 1);
  });

  it('a batch also ends before its documents pass 16 MiB, as on mongod (40 documents of 1 MB: 16, 16, 8)', () => {
    const MiB = 1024 * 1024;
    const big = 'x'.repeat(1_000_000);
    const engine = seeded(Array.from({ length: 40 }, (_, i) => ({ _id: i, big })));
    const size = (docs: Document[]) => docs.reduce((n, d) => n + calculateObjectSize(d), 0);
    // The first batch: 101 documents by count, 16 by bytes.
    const reply = run(engine, { find: 'c', filter: {}, sort: { _id: 1 } });
    const first = firstBatch(reply);
    assert.equal(first.length, 16);
    assert.ok(size(first) <= 16 * MiB && size(first) + calculateObjectSize(first[0]) > 16 * MiB);
    // getMore without batchSize: "everything left" by count, 16 MiB by bytes.
    const id = cursorId(reply);
    const second = run(engine, { getMore: id, collection: 'c' }).cursor as Document;
    assert.equal((second.nextBatch as Document[]).length, 16);
    assert.ok(!Long.fromValue(second.id as Long).isZero());
    const third = run(engine, { getMore: id, collection: 'c', batchSize: 1000 }).cursor as Document;
    assert.deepEqual(ids(third.nextBatch as Document[]), [32, 33, 34, 35, 36, 37, 38, 39]);
    assert.ok(Long.fromValue(third.id as Long).isZero());
    // A smaller batchSize still wins; the bytes are those of the shaped documents (a projection).
    assert.equal(firstBatch(run(engine, { find: 'c', filter: {}, batchSize: 5 })).length, 5);
    const small = run(engine, { find: 'c', filter: {}, projection: { big: 0 } });
    assert.equal(firstBatch(small).length, 40);
    // singleBatch, and aggregate's cursor, stop at 16 MiB too.
    assert.equal(firstBatch(run(engine, { find: 'c', filter: {}, singleBatch: true })).length, 16);
    const agg = run(engine, { aggregate: 'c', pipeline: [{ $match: {} }], cursor: {} });
    assert.equal(firstBatch(agg).length, 16);
    assert.equal(drain(engine, agg, 'c').length, 40);
  });

  it('a document over 8 MiB fills a batch alone: each batch holds at least one document', () => {
    const big = 'x'.repeat(9 * 1024 * 1024);
    const engine = seeded([{ _id: 1, big }, { _id: 2, big }, { _id: 3 }]);
    const reply = run(engine, { find: 'c', filter: {}, sort: { _id: 1 } });
    assert.deepEqual(ids(firstBatch(reply)), [1]);
    // The second big one does not fit beside the first; the small one fits beside it.
    const more = run(engine, { getMore: cursorId(reply), collection: 'c' }).cursor as Document;
    assert.deepEqual(ids(more.nextBatch as Document[]), [2, 3]);
    assert.ok(Long.fromValue(more.id as Long).isZero());
  });

  it('batchSize on find and on getMore', () => {
    const engine = seeded(Array.from({ length: 50 }, (_, i) => ({ _id: i })));
    const reply = run(engine, { find: 'c', filter: {}, batchSize: 10 });
    assert.deepEqual(ids(firstBatch(reply)), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const more = run(engine, { getMore: cursorId(reply), collection: 'c', batchSize: 20 }).cursor as Document;
    assert.equal((more.nextBatch as Document[]).length, 20);
    assert.equal((more.nextBatch as Document[])[0]._id, 10);
    assert.ok(!Long.fromValue(more.id as Long).isZero());
  });

  it('aggregate with batchSize 0 keeps its cursor open even when nothing matches; the getMore ends it', () => {
    const engine = seeded([{ _id: 1 }]);
    const pipeline = [{ $match: { none: { $exists: true } } }];
    const reply = run(engine, { aggregate: 'c', pipeline, cursor: { batchSize: 0 } });
    assert.deepEqual(firstBatch(reply), []);
    assert.ok(!cursorId(reply).isZero());
    assert.equal(drain(engine, reply, 'c').length, 0);
    // Without batchSize 0 the empty result closes the cursor at once.
    assert.ok(cursorId(run(engine, { aggregate: 'c', pipeline, cursor: {} })).isZero());
  });

  it('aggregate with batchSize 0 answers before reading: a data error comes from the first getMore, a parse error at once', () => {
    const engine = seeded([{ _id: 1, s: 'text' }]);
    const adding = [{ $project: { x: { $add: [1, '$s'] } } }];
    expectError(() => run(engine, { aggregate: 'c', pipeline: adding, cursor: { batchSize: 1 } }), 16554);
    const reply = run(engine, { aggregate: 'c', pipeline: adding, cursor: { batchSize: 0 } });
    assert.deepEqual(firstBatch(reply), []);
    expectError(() => run(engine, { getMore: cursorId(reply), collection: 'c' }), 16554);
    expectError(() => run(engine, { getMore: cursorId(reply), collection: 'c' }), 43, undefined, 'CursorNotFound');
    expectError(
      () => run(engine, { aggregate: 'c', pipeline: [{ $noSuchStage: 1 }], cursor: { batchSize: 0 } }),
      40324,
    );
    // The documents are read at the getMore: a write in between is seen.
    const later = run(engine, { aggregate: 'c', pipeline: [{ $match: {} }], cursor: { batchSize: 0 } });
    run(engine, { insert: 'c', documents: [{ _id: 2 }] });
    assert.equal(drain(engine, later, 'c').length, 2);
  });

  it('batchSize 0 opens a cursor with an empty first batch', () => {
    const engine = seeded(Array.from({ length: 5 }, (_, i) => ({ _id: i })));
    const reply = run(engine, { find: 'c', filter: {}, batchSize: 0 });
    assert.deepEqual(firstBatch(reply), []);
    assert.ok(!cursorId(reply).isZero());
    assert.equal(drain(engine, reply, 'c').length, 5);
  });

  it('limit with batchSize: the cursor stops at limit', () => {
    const engine = seeded(Array.from({ length: 20 }, (_, i) => ({ _id: i })));
    const reply = run(engine, { find: 'c', filter: {}, limit: 5, batchSize: 2 });
    assert.equal(firstBatch(reply).length, 2);
    assert.deepEqual(ids(drain(engine, reply, 'c')), [0, 1, 2, 3, 4]);
  });

  it("find refuses a field its strict parser does not know with 40415 (a legacy 'query' is no filter); generic and $-fields pass", () => {
    const engine = seeded([{ _id: 1 }]);
    expectError(
      () => run(engine, { find: 'c', query: { _id: 2 } }),
      40415,
      /BSON field 'find\.query' is an unknown field/,
    );
    expectError(() => run(engine, { find: 'nothere', filtr: {} }), 40415);
    const reply = run(engine, {
      find: 'c',
      filter: {},
      comment: 'x',
      maxTimeMS: 1000,
      $readPreference: { mode: 'primary' },
    });
    assert.equal(firstBatch(reply).length, 1);
  });

  it('singleBatch: true closes the cursor after the first batch', () => {
    const engine = seeded(Array.from({ length: 20 }, (_, i) => ({ _id: i })));
    const reply = run(engine, { find: 'c', filter: {}, batchSize: 5, singleBatch: true });
    assert.equal(firstBatch(reply).length, 5);
    assert.ok(cursorId(reply).isZero());
  });

  it('getMore on an exhausted cursor → 43 CursorNotFound', () => {
    const engine = seeded(Array.from({ length: 5 }, (_, i) => ({ _id: i })));
    const reply = run(engine, { find: 'c', filter: {}, batchSize: 2 });
    const id = cursorId(reply);
    drain(engine, reply, 'c');
    expectError(() => run(engine, { getMore: id, collection: 'c' }), 43);
  });

  it('getMore on a cursor whose collection or database was dropped, or renamed → 175 QueryPlanKilled saying so, then 43', () => {
    for (const [drop, reason] of [
      [{ drop: 'c' }, /collection dropped/],
      [{ dropDatabase: 1 }, /collection dropped/],
    ] as const) {
      const engine = seeded(Array.from({ length: 5 }, (_, i) => ({ _id: i })));
      const id = cursorId(run(engine, { find: 'c', filter: {}, batchSize: 2 }));
      run(engine, drop);
      expectError(() => run(engine, { getMore: id, collection: 'c' }), 175, reason);
      expectError(() => run(engine, { getMore: id, collection: 'c' }), 43);
    }
    const engine = seeded(Array.from({ length: 5 }, (_, i) => ({ _id: i })));
    const id = cursorId(run(engine, { find: 'c', filter: {}, batchSize: 2 }));
    engine.runCommand('admin', { renameCollection: `${DB}.c`, to: `${DB}.d` });
    expectError(() => run(engine, { getMore: id, collection: 'c' }), 175, /collection renamed/);
  });

  it("getMore on a $or cursor whose branches scan indexes, after one branch's index is dropped → 175 QueryPlanKilled", () => {
    const docs = [...Array.from({ length: 4 }, (_, i) => ({ _id: i, a: 1 })), { _id: 9, b: 1 }];
    const open = (engine: Engine) =>
      cursorId(run(engine, { find: 'c', filter: { $or: [{ a: 1 }, { b: 1 }] }, batchSize: 2 }));
    const engine = seeded(docs);
    run(engine, {
      createIndexes: 'c',
      indexes: [
        { key: { a: 1 }, name: 'a_1' },
        { key: { b: 1 }, name: 'b_1' },
      ],
    });
    let id = open(engine);
    run(engine, { dropIndexes: 'c', index: 'a_1' });
    expectError(() => run(engine, { getMore: id, collection: 'c' }), 175, /index 'a_1' dropped/, 'QueryPlanKilled');
    // A branch without an index makes the whole query a collection scan, which no index drop kills.
    const scanned = seeded(docs);
    run(scanned, { createIndexes: 'c', indexes: [{ key: { a: 1 }, name: 'a_1' }] });
    id = open(scanned);
    run(scanned, { dropIndexes: 'c', index: 'a_1' });
    const more = run(scanned, { getMore: id, collection: 'c' }).cursor as { nextBatch: Document[] };
    assert.equal(more.nextBatch.length, docs.length - 2);
  });

  it('getMore on a cursor whose index scan lost its index (dropIndexes) → 175 QueryPlanKilled naming the index, then 43', () => {
    const engine = seeded(Array.from({ length: 5 }, (_, i) => ({ _id: i, x: i })));
    run(engine, { createIndexes: 'c', indexes: [{ key: { x: 1 }, name: 'x_1' }] });
    const id = cursorId(run(engine, { find: 'c', filter: {}, hint: { x: 1 }, batchSize: 2 }));
    run(engine, { dropIndexes: 'c', index: 'x_1' });
    expectError(() => run(engine, { getMore: id, collection: 'c' }), 175, /index 'x_1' dropped/, 'QueryPlanKilled');
    expectError(() => run(engine, { getMore: id, collection: 'c' }), 43);
  });

  it('dropping an index the cursor does not read leaves the cursor working', () => {
    const engine = seeded(Array.from({ length: 5 }, (_, i) => ({ _id: i, x: i })));
    run(engine, { createIndexes: 'c', indexes: [{ key: { x: 1 }, name: 'x_1' }] });
    const reply = run(engine, { find: 'c', filter: {}, batchSize: 2 });
    run(engine, { dropIndexes: 'c', index: 'x_1' });
    assert.equal(drain(engine, reply, 'c').length, 5);
  });

  it('dropping a collection leaves the cursors of a collection named under it (c.sub) open', () => {
    const engine = seeded(
      Array.from({ length: 5 }, (_, i) => ({ _id: i })),
      'c.sub',
    );
    run(engine, { insert: 'c', documents: [{ _id: 1 }] });
    const id = cursorId(run(engine, { find: 'c.sub', filter: {}, batchSize: 2 }));
    run(engine, { drop: 'c' });
    assert.equal(
      ((run(engine, { getMore: id, collection: 'c.sub' }).cursor as Document).nextBatch as Document[]).length,
      3,
    );
  });

  it('getMore with an unknown id → 43 CursorNotFound', () => {
    const engine = seeded([{ _id: 1 }]);
    expectError(() => run(engine, { getMore: Long.fromNumber(424242), collection: 'c' }), 43);
  });

  it('getMore naming another collection is refused (13 Unauthorized)', () => {
    const engine = seeded(Array.from({ length: 5 }, (_, i) => ({ _id: i })));
    const reply = run(engine, { find: 'c', filter: {}, batchSize: 2 });
    expectError(() => run(engine, { getMore: cursorId(reply), collection: 'other' }), 13);
  });

  it('killCursors kills open cursors and reports unknown ids; getMore afterwards → 43', () => {
    const engine = seeded(Array.from({ length: 5 }, (_, i) => ({ _id: i })));
    const id = cursorId(run(engine, { find: 'c', filter: {}, batchSize: 1 }));
    const reply = run(engine, { killCursors: 'c', cursors: [id, Long.fromNumber(999999)] });
    assert.equal(reply.ok, 1);
    assert.deepEqual(
      (reply.cursorsKilled as Long[]).map((l) => l.toString()),
      [id.toString()],
    );
    assert.deepEqual(
      (reply.cursorsNotFound as Long[]).map((l) => l.toString()),
      ['999999'],
    );
    assert.deepEqual(reply.cursorsAlive, []);
    assert.deepEqual(reply.cursorsUnknown, []);
    expectError(() => run(engine, { getMore: id, collection: 'c' }), 43);
  });

  it('a cursor returns a snapshot: documents inserted after the find are not in later batches', () => {
    const engine = seeded(Array.from({ length: 5 }, (_, i) => ({ _id: i })));
    const reply = run(engine, { find: 'c', filter: {}, batchSize: 2 });
    run(engine, { insert: 'c', documents: [{ _id: 100 }] });
    assert.deepEqual(ids(drain(engine, reply, 'c')), [0, 1, 2, 3, 4]);
  });
});

// ---- count / distinct ------------------------------------------------------------------------------------

describe('count', () => {
  it('counts all, by query, with skip and limit', () => {
    const engine = seeded(Array.from({ length: 10 }, (_, i) => ({ _id: i, even: i % 2 === 0 })));
    assert.deepEqual(run(engine, { count: 'c' }), { n: 10, ok: 1 });
    assert.equal(run(engine, { count: 'c', query: { even: true } }).n, 5);
    assert.equal(run(engine, { count: 'c', query: { even: true }, skip: 2 }).n, 3);
    assert.equal(run(engine, { count: 'c', query: { even: true }, limit: 2 }).n, 2);
    assert.equal(run(engine, { count: 'c', skip: 8 }).n, 2);
    assert.equal(run(engine, { count: 'c', limit: 3 }).n, 3);
  });

  it('is 0 on a missing collection', () => {
    assert.deepEqual(run(new Engine(), { count: 'none' }), { n: 0, ok: 1 });
  });
});

describe('distinct', () => {
  it('returns each value once, unwinding arrays, filtered by query', () => {
    const engine = seeded([
      { _id: 1, tag: 'a', tags: ['x', 'y'], kind: 1 },
      { _id: 2, tag: 'b', tags: ['y', 'z'], kind: 1 },
      { _id: 3, tag: 'a', tags: 'x', kind: 2 },
      { _id: 4, kind: 2 },
    ]);
    const reply = run(engine, { distinct: 'c', key: 'tag' });
    assert.equal(reply.ok, 1);
    assert.deepEqual([...(reply.values as unknown[])].sort(), ['a', 'b']);
    assert.deepEqual([...(run(engine, { distinct: 'c', key: 'tags' }).values as unknown[])].sort(), ['x', 'y', 'z']);
    assert.deepEqual(run(engine, { distinct: 'c', key: 'tag', query: { kind: 2 } }).values, ['a']);
  });

  it('treats numerically equal values of different types as one value', () => {
    const engine = seeded([{ n: 1 }, { n: new Int32(1) }, { n: Long.fromNumber(1) }, { n: 2 }]);
    const values = run(engine, { distinct: 'c', key: 'n' }).values as unknown[];
    assert.equal(values.length, 2);
  });

  it('supports dotted keys into subdocuments', () => {
    const engine = seeded([{ a: { b: 1 } }, { a: { b: 2 } }, { a: [{ b: 2 }, { b: 3 }] }]);
    const values = (run(engine, { distinct: 'c', key: 'a.b' }).values as unknown[]).map(Number).sort();
    assert.deepEqual(values, [1, 2, 3]);
  });

  it('is empty on a missing collection', () => {
    assert.deepEqual(run(new Engine(), { distinct: 'none', key: 'a' }), { values: [], ok: 1 });
  });
});

// ---- update -----------------------------------------------------------------------------------------------

describe('update', () => {
  it('$set on one document: {n: 1, nModified: 1, ok: 1}', () => {
    const engine = seeded([
      { _id: 1, a: 1 },
      { _id: 2, a: 1 },
    ]);
    const reply = update(engine, [{ q: { a: 1 }, u: { $set: { b: 2 } } }]);
    assert.deepEqual(reply, { n: 1, nModified: 1, ok: 1 });
    assert.equal(find(engine, { b: 2 }).length, 1, 'multi defaults to false');
  });

  it('multi: true updates every match', () => {
    const engine = seeded([
      { _id: 1, a: 1 },
      { _id: 2, a: 1 },
      { _id: 3, a: 2 },
    ]);
    const reply = update(engine, [{ q: { a: 1 }, u: { $set: { b: 2 } }, multi: true }]);
    assert.equal(reply.n, 2);
    assert.equal(reply.nModified, 2);
    assert.deepEqual(ids(find(engine, { b: 2 })), [1, 2]);
  });

  it('nModified counts only documents that actually changed', () => {
    const engine = seeded([
      { _id: 1, a: 1 },
      { _id: 2, a: 2 },
    ]);
    const reply = update(engine, [{ q: {}, u: { $set: { a: 1 } }, multi: true }]);
    assert.equal(reply.n, 2);
    assert.equal(reply.nModified, 1);
  });

  it('setting a value of another numeric type is a modification (1 → NumberInt(1))', () => {
    const engine = seeded([{ _id: 1, a: 1 }]);
    const reply = update(engine, [{ q: { _id: 1 }, u: { $set: { a: new Int32(1) } } }]);
    assert.equal(reply.nModified, 1);
    assert.ok(one(engine, 1)!.a instanceof Int32);
  });

  it('no match and no upsert: {n: 0, nModified: 0}', () => {
    const engine = seeded([{ _id: 1 }]);
    assert.deepEqual(update(engine, [{ q: { _id: 9 }, u: { $set: { a: 1 } } }]), { n: 0, nModified: 0, ok: 1 });
  });

  it('operators: $unset, $rename, $push, $addToSet, $pull, $min, $max, $mul', () => {
    const engine = seeded([{ _id: 1, a: 1, b: 2, list: [1, 2], set: ['x'], lo: 5, hi: 5, m: 3 }]);
    update(engine, [
      {
        q: { _id: 1 },
        u: {
          $unset: { a: '' },
          $rename: { b: 'bee' },
          $push: { list: 3 },
          $addToSet: { set: { $each: ['x', 'y'] } },
          $min: { lo: 2 },
          $max: { hi: 9 },
          $mul: { m: 2 },
        },
      },
    ]);
    assert.deepEqual(one(engine, 1), { _id: 1, list: [1, 2, 3], set: ['x', 'y'], lo: 2, hi: 9, m: 6, bee: 2 });
    update(engine, [{ q: { _id: 1 }, u: { $pull: { list: { $gte: 2 } } } }]);
    assert.deepEqual(one(engine, 1)!.list, [1]);
  });

  it('$set creates nested paths', () => {
    const engine = seeded([{ _id: 1 }]);
    update(engine, [{ q: { _id: 1 }, u: { $set: { 'a.b.c': 1 } } }]);
    assert.deepEqual(one(engine, 1), { _id: 1, a: { b: { c: 1 } } });
  });

  it('$currentDate uses the engine clock', () => {
    const clock = new VirtualClock(Date.UTC(2024, 0, 2, 3, 4, 5));
    const engine = seeded([{ _id: 1 }], 'c', { clock });
    update(engine, [{ q: { _id: 1 }, u: { $currentDate: { at: true } } }]);
    const at = one(engine, 1)!.at;
    assert.ok(at instanceof Date);
    assert.equal(at.getTime(), Date.UTC(2024, 0, 2, 3, 4, 5));
  });

  it('conflicting operators on one path → 40 ConflictingUpdateOperators', () => {
    const engine = seeded([{ _id: 1, a: 1 }]);
    const reply = update(engine, [{ q: { _id: 1 }, u: { $set: { a: 2 }, $inc: { a: 1 } } }]);
    assert.equal(writeErrors(reply)[0].code, 40);
    assert.deepEqual(one(engine, 1), { _id: 1, a: 1 });
  });

  it('an unknown modifier → 9 FailedToParse', () => {
    const engine = seeded([{ _id: 1 }]);
    assert.equal(writeErrors(update(engine, [{ q: { _id: 1 }, u: { $bogus: { a: 1 } } }]))[0].code, 9);
  });

  it('a replacement document replaces everything but _id', () => {
    const engine = seeded([{ _id: 1, a: 1, b: 2 }]);
    const reply = update(engine, [{ q: { _id: 1 }, u: { c: 3 } }]);
    assert.equal(reply.nModified, 1);
    assert.deepEqual(one(engine, 1), { _id: 1, c: 3 });
    assert.deepEqual(Object.keys(one(engine, 1)!), ['_id', 'c']);
  });

  it('a replacement that repeats the same _id is allowed', () => {
    const engine = seeded([{ _id: 1, a: 1 }]);
    const reply = update(engine, [{ q: { _id: 1 }, u: { _id: 1, a: 2 } }]);
    assert.deepEqual(writeErrors(reply), []);
    assert.deepEqual(one(engine, 1), { _id: 1, a: 2 });
  });

  it('_id is immutable: $set to another value → 66 ImmutableField', () => {
    const engine = seeded([{ _id: 1, a: 1 }]);
    const reply = update(engine, [{ q: { _id: 1 }, u: { $set: { _id: 2 } } }]);
    assert.equal(writeErrors(reply)[0].code, 66);
    assert.deepEqual(ids(find(engine)), [1]);
  });

  it('_id is immutable: a replacement with another _id → 66 ImmutableField', () => {
    const engine = seeded([{ _id: 1, a: 1 }]);
    const reply = update(engine, [{ q: { _id: 1 }, u: { _id: 2, a: 1 } }]);
    assert.equal(writeErrors(reply)[0].code, 66);
    assert.deepEqual(find(engine), [{ _id: 1, a: 1 }]);
  });

  it('$set of _id to the same value is allowed (no modification)', () => {
    const engine = seeded([{ _id: 1, a: 1 }]);
    const reply = update(engine, [{ q: { _id: 1 }, u: { $set: { _id: 1 } } }]);
    assert.deepEqual(writeErrors(reply), []);
    assert.equal(reply.n, 1);
    assert.equal(reply.nModified, 0);
  });

  it('multi: true with a replacement document is refused', () => {
    const engine = seeded([{ _id: 1 }]);
    const reply = update(engine, [{ q: {}, u: { a: 1 }, multi: true }]);
    assert.equal(writeErrors(reply).length, 1);
    assert.deepEqual(find(engine), [{ _id: 1 }]);
  });

  it('an update growing a document beyond 16 MiB → 17419, document unchanged', () => {
    const engine = seeded([{ _id: 1, a: 'x'.repeat(9 * 1024 * 1024) }]);
    const reply = update(engine, [{ q: { _id: 1 }, u: { $set: { b: 'y'.repeat(9 * 1024 * 1024) } } }]);
    assert.equal(writeErrors(reply)[0].code, 17419);
    assert.equal(one(engine, 1)!.b, undefined);
  });

  it('an upsert making a document beyond 16 MiB → 17420, nothing inserted', () => {
    const engine = seeded([]);
    const big = 'x'.repeat(16 * 1024 * 1024);
    const replacement = update(engine, [{ q: { _id: 1 }, u: { _id: 1, x: big }, upsert: true }]);
    assert.equal(writeErrors(replacement)[0].code, 17420);
    const operators = update(engine, [{ q: { _id: 1 }, u: { $set: { x: big } }, upsert: true }]);
    assert.equal(writeErrors(operators)[0].code, 17420);
    assert.deepEqual(find(engine), []);
  });

  it('ordered statements stop at the first error; unordered go on', () => {
    const engine = seeded([{ _id: 1 }, { _id: 2 }, { _id: 3 }]);
    const ordered = update(engine, [
      { q: { _id: 1 }, u: { $set: { a: 1 } } },
      { q: { _id: 2 }, u: { $set: { _id: 20 } } },
      { q: { _id: 3 }, u: { $set: { a: 1 } } },
    ]);
    assert.equal(ordered.n, 1);
    assert.deepEqual(
      writeErrors(ordered).map((e) => [e.index, e.code]),
      [[1, 66]],
    );
    assert.equal(one(engine, 3)!.a, undefined);
    const unordered = update(
      engine,
      [
        { q: { _id: 2 }, u: { $set: { _id: 20 } } },
        { q: { _id: 3 }, u: { $set: { a: 1 } } },
      ],
      { ordered: false },
    );
    assert.equal(unordered.n, 1);
    assert.equal(one(engine, 3)!.a, 1);
  });

  describe('upsert', () => {
    it('inserts when nothing matches: {n: 1, nModified: 0, upserted: [{index, _id}]}', () => {
      const engine = new Engine();
      const reply = update(engine, [{ q: { _id: 'k' }, u: { $set: { a: 1 } }, upsert: true }]);
      assert.equal(reply.n, 1);
      assert.equal(reply.nModified, 0);
      assert.deepEqual(reply.upserted, [{ index: 0, _id: 'k' }]);
      assert.deepEqual(one(engine, 'k'), { _id: 'k', a: 1 });
    });

    it('seeds the new document from equality conditions of the query (not from ranges)', () => {
      const engine = new Engine();
      const reply = update(engine, [
        {
          q: { a: 1, 'b.c': 'x', n: { $gt: 5 }, $and: [{ d: 4 }], e: { $eq: 5 } },
          u: { $set: { z: true } },
          upsert: true,
        },
      ]);
      const id = (reply.upserted as Document[])[0]._id;
      assert.ok(id instanceof ObjectId, 'a generated ObjectId _id');
      const doc = one(engine, id)!;
      assert.deepEqual({ ...doc, _id: undefined }, { _id: undefined, a: 1, b: { c: 'x' }, d: 4, e: 5, z: true });
      assert.equal(doc.n, undefined);
    });

    it('$setOnInsert applies on insert only', () => {
      const engine = new Engine();
      update(engine, [{ q: { _id: 1 }, u: { $set: { a: 1 }, $setOnInsert: { created: true } }, upsert: true }]);
      assert.deepEqual(one(engine, 1), { _id: 1, a: 1, created: true });
      update(engine, [{ q: { _id: 1 }, u: { $set: { a: 2 }, $setOnInsert: { created: 'again' } }, upsert: true }]);
      assert.deepEqual(one(engine, 1), { _id: 1, a: 2, created: true });
    });

    it('with a replacement document keeps only the query _id, not other query fields', () => {
      const engine = new Engine();
      update(engine, [{ q: { _id: 7, a: 1 }, u: { b: 2 }, upsert: true }]);
      assert.deepEqual(one(engine, 7), { _id: 7, b: 2 });
    });

    it('an existing match is updated, not inserted', () => {
      const engine = seeded([{ _id: 1, a: 1 }]);
      const reply = update(engine, [{ q: { a: 1 }, u: { $set: { b: 1 } }, upsert: true }]);
      assert.deepEqual(reply, { n: 1, nModified: 1, ok: 1 });
      assert.equal(find(engine).length, 1);
    });

    it('the typed API reports upsertedId and upsertedCount', () => {
      const engine = new Engine();
      const r = engine
        .db(DB)
        .collection('c')
        .updateOne({ _id: 5 }, { $set: { a: 1 } }, { upsert: true });
      assert.deepEqual(r, { matchedCount: 0, modifiedCount: 0, upsertedCount: 1, upsertedId: 5 });
    });
  });
});

// ---- delete -------------------------------------------------------------------------------------------

describe('delete', () => {
  it('limit: 1 deletes one match; limit: 0 deletes all matches', () => {
    const engine = seeded([
      { _id: 1, k: 'x' },
      { _id: 2, k: 'x' },
      { _id: 3, k: 'x' },
      { _id: 4, k: 'y' },
    ]);
    assert.deepEqual(run(engine, { delete: 'c', deletes: [{ q: { k: 'x' }, limit: 1 }] }), { n: 1, ok: 1 });
    assert.equal(find(engine, { k: 'x' }).length, 2);
    assert.deepEqual(run(engine, { delete: 'c', deletes: [{ q: { k: 'x' }, limit: 0 }] }), { n: 2, ok: 1 });
    assert.deepEqual(ids(find(engine)), [4]);
  });

  it('several statements add up', () => {
    const engine = seeded([{ _id: 1 }, { _id: 2 }, { _id: 3 }]);
    const reply = run(engine, {
      delete: 'c',
      deletes: [
        { q: { _id: 1 }, limit: 1 },
        { q: { _id: { $gte: 2 } }, limit: 0 },
      ],
    });
    assert.equal(reply.n, 3);
    assert.deepEqual(find(engine), []);
  });

  it('a limit other than 0 or 1 fails the whole command: 9 FailedToParse', () => {
    const engine = seeded([{ _id: 1 }]);
    expectError(() => run(engine, { delete: 'c', deletes: [{ q: {}, limit: 2 }] }), 9);
    assert.equal(find(engine).length, 1);
  });

  it('a statement without limit fails the whole command: 40414 (required field)', () => {
    const engine = seeded([{ _id: 1 }]);
    expectError(() => run(engine, { delete: 'c', deletes: [{ q: {} }] }), 40414);
    assert.equal(find(engine).length, 1);
  });

  it('is {n: 0} on a missing collection', () => {
    assert.deepEqual(run(new Engine(), { delete: 'none', deletes: [{ q: {}, limit: 0 }] }), { n: 0, ok: 1 });
  });
});

// ---- findAndModify ------------------------------------------------------------------------------------

describe('findAndModify', () => {
  const docs = () => [
    { _id: 1, n: 3, s: 'c' },
    { _id: 2, n: 1, s: 'a' },
    { _id: 3, n: 2, s: 'b' },
  ];

  it('returns the document before the update by default', () => {
    const engine = seeded(docs());
    const reply = run(engine, { findAndModify: 'c', query: { _id: 1 }, update: { $inc: { n: 1 } } });
    assert.deepEqual(reply.value, { _id: 1, n: 3, s: 'c' });
    assert.deepEqual(reply.lastErrorObject, { n: 1, updatedExisting: true });
    assert.equal(reply.ok, 1);
    assert.equal(one(engine, 1)!.n, 4);
  });

  it('new: true returns the document after the update', () => {
    const engine = seeded(docs());
    const reply = run(engine, { findAndModify: 'c', query: { _id: 1 }, update: { $inc: { n: 1 } }, new: true });
    assert.deepEqual(reply.value, { _id: 1, n: 4, s: 'c' });
  });

  it('sort chooses which match is modified', () => {
    const engine = seeded(docs());
    const asc = run(engine, {
      findAndModify: 'c',
      query: {},
      sort: { n: 1 },
      update: { $set: { picked: 1 } },
      new: true,
    });
    assert.equal((asc.value as Document)._id, 2);
    const desc = run(engine, {
      findAndModify: 'c',
      query: {},
      sort: { s: -1 },
      update: { $set: { picked: 2 } },
      new: true,
    });
    assert.equal((desc.value as Document)._id, 1);
  });

  it('remove: true deletes and returns the document; lastErrorObject {n: 1}', () => {
    const engine = seeded(docs());
    const reply = run(engine, { findAndModify: 'c', query: {}, sort: { n: -1 }, remove: true });
    assert.deepEqual(reply.value, { _id: 1, n: 3, s: 'c' });
    assert.deepEqual(reply.lastErrorObject, { n: 1 });
    assert.deepEqual(ids(find(engine)), [2, 3]);
  });

  it('no match: value null, lastErrorObject {n: 0, updatedExisting: false}', () => {
    const engine = seeded(docs());
    const reply = run(engine, { findAndModify: 'c', query: { _id: 99 }, update: { $set: { a: 1 } } });
    assert.equal(reply.value, null);
    assert.deepEqual(reply.lastErrorObject, { n: 0, updatedExisting: false });
  });

  it('upsert with new: true returns the inserted document and lastErrorObject.upserted', () => {
    const engine = new Engine();
    const reply = run(engine, {
      findAndModify: 'c',
      query: { _id: 'u', a: 1 },
      update: { $set: { b: 2 } },
      upsert: true,
      new: true,
    });
    assert.deepEqual(reply.value, { _id: 'u', a: 1, b: 2 });
    assert.deepEqual(reply.lastErrorObject, { n: 1, updatedExisting: false, upserted: 'u' });
  });

  it('upsert without new returns value null', () => {
    const engine = new Engine();
    const reply = run(engine, { findAndModify: 'c', query: { _id: 'u' }, update: { $set: { b: 2 } }, upsert: true });
    assert.equal(reply.value, null);
    assert.equal((reply.lastErrorObject as Document).upserted, 'u');
    assert.deepEqual(one(engine, 'u'), { _id: 'u', b: 2 });
  });

  it('fields projects the returned document', () => {
    const engine = seeded(docs());
    const reply = run(engine, {
      findAndModify: 'c',
      query: { _id: 1 },
      update: { $set: { x: 1 } },
      new: true,
      fields: { s: 1, _id: 0 },
    });
    assert.deepEqual(reply.value, { s: 'c' });
  });

  it('a replacement update works and keeps _id', () => {
    const engine = seeded(docs());
    const reply = run(engine, { findAndModify: 'c', query: { _id: 2 }, update: { only: true }, new: true });
    assert.deepEqual(reply.value, { _id: 2, only: true });
  });

  it('update together with remove: true is refused (9 FailedToParse)', () => {
    const engine = seeded(docs());
    expectError(() => run(engine, { findAndModify: 'c', query: {}, update: { $set: { a: 1 } }, remove: true }), 9);
  });

  it('an _id change is refused with 66 and nothing changes', () => {
    const engine = seeded(docs());
    expectError(() => run(engine, { findAndModify: 'c', query: { _id: 1 }, update: { $set: { _id: 10 } } }), 66);
    assert.deepEqual(ids(find(engine)), [1, 2, 3]);
  });
});

// ---- aggregate ------------------------------------------------------------------------------------------

describe('aggregate', () => {
  const sales = [
    { _id: 1, item: 'apple', qty: 5, price: 2, tags: ['fruit', 'red'] },
    { _id: 2, item: 'pear', qty: 2, price: 3, tags: ['fruit'] },
    { _id: 3, item: 'apple', qty: 1, price: 2, tags: ['fruit', 'red'] },
    { _id: 4, item: 'kale', qty: 10, price: 1, tags: ['veg'] },
  ];

  function agg(engine: Engine, pipeline: Document[], extra: Document = {}): Document[] {
    return drain(engine, run(engine, { aggregate: 'c', pipeline, cursor: {}, ...extra }), 'c');
  }

  it('replies with a cursor {firstBatch, id, ns}', () => {
    const engine = seeded(sales);
    const reply = run(engine, { aggregate: 'c', pipeline: [{ $match: { item: 'apple' } }], cursor: {} });
    assert.equal(reply.ok, 1);
    assert.equal((reply.cursor as Document).ns, 'app.c');
    assert.deepEqual(ids(firstBatch(reply)), [1, 3]);
  });

  it('$match + $group + $sort', () => {
    const engine = seeded(sales);
    const out = agg(engine, [
      { $match: { tags: 'fruit' } },
      { $group: { _id: '$item', total: { $sum: '$qty' }, n: { $sum: 1 } } },
      { $sort: { _id: 1 } },
    ]);
    assert.deepEqual(
      out.map((d) => [d._id, Number(d.total), Number(d.n)]),
      [
        ['apple', 6, 2],
        ['pear', 2, 1],
      ],
    );
  });

  it('$group with $avg, $min, $max, $push and a computed expression', () => {
    const engine = seeded(sales);
    const [g] = agg(engine, [
      {
        $group: {
          _id: null,
          revenue: { $sum: { $multiply: ['$qty', '$price'] } },
          avgQty: { $avg: '$qty' },
          minP: { $min: '$price' },
          maxP: { $max: '$price' },
          items: { $push: '$item' },
        },
      },
    ]);
    assert.equal(Number(g.revenue), 5 * 2 + 2 * 3 + 1 * 2 + 10 * 1);
    assert.equal(Number(g.avgQty), 4.5);
    assert.equal(Number(g.minP), 1);
    assert.equal(Number(g.maxP), 3);
    assert.deepEqual(g.items, ['apple', 'pear', 'apple', 'kale']);
  });

  it('$sort + $skip + $limit', () => {
    const engine = seeded(sales);
    assert.deepEqual(ids(agg(engine, [{ $sort: { qty: -1 } }, { $skip: 1 }, { $limit: 2 }])), [1, 2]);
  });

  it('$count', () => {
    const engine = seeded(sales);
    const out = agg(engine, [{ $match: { price: { $gte: 2 } } }, { $count: 'total' }]);
    assert.equal(out.length, 1);
    assert.deepEqual(Object.keys(out[0]), ['total']);
    assert.equal(Number(out[0].total), 3);
  });

  it('$count on no input returns no document', () => {
    const engine = seeded(sales);
    assert.deepEqual(agg(engine, [{ $match: { item: 'none' } }, { $count: 'total' }]), []);
  });

  it('$project, $addFields and $unwind', () => {
    const engine = seeded(sales);
    const out = agg(engine, [
      { $match: { _id: 1 } },
      { $unwind: '$tags' },
      { $addFields: { total: { $multiply: ['$qty', '$price'] } } },
      { $project: { _id: 0, tags: 1, total: 1 } },
    ]);
    assert.deepEqual(
      out.map((d) => [d.tags, Number(d.total)]),
      [
        ['fruit', 10],
        ['red', 10],
      ],
    );
  });

  it('honours cursor.batchSize with getMore', () => {
    const engine = seeded(Array.from({ length: 30 }, (_, i) => ({ _id: i })));
    const reply = run(engine, { aggregate: 'c', pipeline: [], cursor: { batchSize: 5 } });
    assert.equal(firstBatch(reply).length, 5);
    assert.ok(!cursorId(reply).isZero());
    assert.equal(drain(engine, reply, 'c').length, 30);
  });

  it('requires the cursor option (9 FailedToParse)', () => {
    const engine = seeded(sales);
    expectError(() => run(engine, { aggregate: 'c', pipeline: [] }), 9);
  });

  it('an unknown stage → 40324', () => {
    const engine = seeded(sales);
    expectError(() => run(engine, { aggregate: 'c', pipeline: [{ $bogus: {} }], cursor: {} }), 40324);
  });

  it('on a missing collection returns no documents', () => {
    assert.deepEqual(agg(new Engine(), [{ $match: {} }]), []);
  });

  it('does not modify stored documents', () => {
    const engine = seeded(sales);
    agg(engine, [{ $set: { item: 'changed' } }, { $unset: 'qty' }]);
    assert.deepEqual(find(engine), sales);
  });
});

describe('insert: empty timestamps', () => {
  it('a top-level Timestamp(0, 0) is stored as the current timestamp, increasing; one in _id or nested is kept', () => {
    const engine = new Engine({ clock: new VirtualClock(Date.UTC(2026, 0, 1)) });
    const empty = () => new Timestamp({ t: 0, i: 0 });
    run(engine, {
      insert: 'c',
      documents: [
        { _id: 1, x: empty() },
        { _id: 2, x: empty(), n: { y: empty() } },
      ],
    });
    run(engine, { insert: 'c', documents: [{ _id: empty(), x: 1 }] });
    const docs = find(engine, {}, { sort: { x: 1 } });
    const [a, b] = [docs.find((d) => d._id === 1)!.x as Timestamp, docs.find((d) => d._id === 2)!.x as Timestamp];
    assert.ok(a.t >= Date.UTC(2026, 0, 1) / 1000, 'stamped from the engine clock on');
    assert.ok(b.t > a.t || (b.t === a.t && b.i > a.i), 'each stamp is later than the one before');
    const nested = (docs.find((d) => d._id === 2)!.n as Document).y as Timestamp;
    assert.deepEqual([nested.t, nested.i], [0, 0]);
    const withTsId = docs.find((d) => (d._id as Timestamp)?._bsontype === 'Timestamp')!;
    assert.deepEqual([(withTsId._id as Timestamp).t, (withTsId._id as Timestamp).i], [0, 0]);
  });
});
