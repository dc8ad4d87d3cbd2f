/**
 * Deep values from scripts: the shell hands them to the engine, which refuses them with code 15
 * (Overflow) as mongod does, and the shell's EJSON and bsonsize helpers refuse values nested
 * beyond what any BSON can hold instead of overflowing the stack. Nothing is written.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { harness } from './helpers';

const NEST =
  'function nest(n, leaf) { let v = leaf === undefined ? 1 : leaf; for (let i = 0; i < n; i++) v = {a: v}; return v; }\n';
const ARR = 'function arr(n) { let v = 1; for (let i = 0; i < n; i++) v = [v]; return v; }\n';

function assertOverflow(h: ReturnType<typeof harness>, source: string, message: RegExp): void {
  const failed = h.failure(NEST + ARR + source);
  // insertMany reports the refused document as mongosh does, in a MongoBulkWriteError.
  assert.ok(
    ['MongoServerError', 'MongoBulkWriteError'].includes(String(failed.error?.name)),
    `${failed.error?.name}: ${failed.error?.message}`,
  );
  assert.equal((failed.error as { code?: number }).code, 15);
  assert.equal((failed.error as { codeName?: string }).codeName, 'Overflow');
  assert.match(String(failed.error?.message), message);
}

describe('deep documents through the shell', () => {
  it('insertOne stores a document 180 levels deep and refuses 181 and 100,000 levels with Overflow, writing nothing', () => {
    const h = harness();
    h.last(NEST + 'db.c.insertOne(nest(180))');
    assertOverflow(h, 'db.c.insertOne(nest(181))', /more than 180 levels/);
    assertOverflow(h, 'db.c.insertOne(nest(100000))', /more than 180 levels/);
    assertOverflow(h, 'db.c.insertMany([{_id: 7}, nest(100000)])', /more than 180 levels/);
    assert.equal(h.value('db.c.countDocuments({})'), 2);
  });

  it('updateOne and replaceOne refuse a result deeper than 180 levels, and a 100,000-level value, with Overflow', () => {
    const h = harness();
    h.last('db.c.insertOne({_id: 1})');
    h.last(NEST + 'db.c.updateOne({_id: 1}, {$set: {x: nest(179)}})');
    assertOverflow(
      h,
      'db.c.updateOne({_id: 1}, {$set: {x: nest(180)}})',
      /after this update would nest more than 180 levels/,
    );
    assertOverflow(
      h,
      "db.c.updateOne({_id: 1}, {$set: {['a' + '.a'.repeat(99999)]: 1}})",
      /after this update would nest more than 180 levels/,
    );
    assertOverflow(h, 'db.c.replaceOne({_id: 1}, {x: nest(100000)})', /command nests more than 200 levels/);
    assertOverflow(
      h,
      'db.c.updateOne({_id: 2}, {$set: {x: arr(100000)}}, {upsert: true})',
      /command nests more than 200 levels/,
    );
    assert.equal(h.value('db.c.countDocuments({})'), 1);
  });

  it('a filter or pipeline 100,000 levels deep is refused with Overflow', () => {
    const h = harness();
    h.last('db.c.insertOne({_id: 1})');
    assertOverflow(h, 'db.c.find({x: nest(100000)}).toArray()', /command nests more than 200 levels/);
    assertOverflow(h, 'db.c.find({x: arr(100000)}).toArray()', /command nests more than 200 levels/);
    assertOverflow(h, 'db.c.deleteMany({x: nest(100000)})', /command nests more than 200 levels/);
    assertOverflow(
      h,
      'db.c.aggregate([{$project: {x: {$literal: nest(100000)}}}]).toArray()',
      /command nests more than 200 levels/,
    );
    assert.equal(h.value('db.c.countDocuments({})'), 1);
  });
});

describe('EJSON and bsonsize in the shell', () => {
  it('EJSON.parse reads text nested 202 levels and refuses 203 and 100,000 levels with Overflow', () => {
    const h = harness();
    // n objects, each inside the one before: n levels.
    const text = (n: number) => `'{"a":'.repeat(${n}) + '1' + '}'.repeat(${n})`;
    assert.equal(h.value(`JSON.stringify(EJSON.parse(${text(202)})).length > 0`), true);
    assertOverflow(h, `EJSON.parse(${text(203)})`, /nests more than 202 levels/);
    assertOverflow(h, `EJSON.parse(${text(100000)})`, /nests more than 202 levels/);
    assertOverflow(h, `EJSON.parse('[' .repeat(100000) + ']'.repeat(100000))`, /nests more than 202 levels/);
  });

  it('EJSON.stringify, EJSON.serialize, EJSON.deserialize and bsonsize refuse a 100,000-level value with Overflow', () => {
    const h = harness();
    assert.equal(typeof h.value(NEST + 'EJSON.stringify(nest(201))'), 'string');
    for (const call of [
      'EJSON.stringify(nest(100000))',
      'EJSON.serialize(nest(100000))',
      'EJSON.deserialize(nest(100000))',
      'bsonsize(nest(100000))',
      'EJSON.stringify(arr(100000))',
    ]) {
      assertOverflow(h, call, /nests more than 202 levels/);
    }
  });
});
