/**
 * Stored BSON keeps every type (durable storage issue: "documents with exact BSON types"): a
 * double that is a whole number stays a double, Int32 and Long stay themselves, and the rest
 * round-trips through serialize / deserialize({promoteValues: false}).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Binary, BSON, Decimal128, Int32, Long, MaxKey, MinKey, ObjectId, Timestamp, UUID } from 'bson';
import { documentFromStorage, storableDocument } from '../../../src/engine/storage/values';
import { bsonTypeOf } from '../../../src/engine/values/types';

const roundTrip = (doc: Record<string, unknown>) =>
  documentFromStorage(BSON.deserialize(BSON.serialize(storableDocument(doc)), { promoteValues: false }));

describe('stored values', () => {
  it('a whole-number double stays a double; Int32 and Long keep their types', () => {
    const back = roundTrip({
      d: 20,
      i: new Int32(20),
      l: Long.fromNumber(20),
      big: Long.fromString('9007199254740993'),
      neg0: -0,
      nan: NaN,
      inf: -Infinity,
      frac: 0.1,
    });
    assert.deepEqual(Object.fromEntries(Object.entries(back).map(([k, v]) => [k, bsonTypeOf(v)])), {
      d: 'double',
      i: 'int',
      l: 'long',
      big: 'long',
      neg0: 'double',
      nan: 'double',
      inf: 'double',
      frac: 'double',
    });
    assert.equal(back.d, 20);
    assert.ok(Object.is(back.neg0, -0));
    assert.ok(Number.isNaN(back.nan));
    assert.equal((back.big as Long).toString(), '9007199254740993');
  });

  it('dates, ObjectIds, Decimal128, Timestamps, binaries and UUIDs, regexes, Min/MaxKey, null, nested arrays and documents round-trip', () => {
    const id = new ObjectId();
    const doc = {
      _id: id,
      at: new Date(Date.UTC(2026, 0, 1)),
      dec: Decimal128.fromString('1.50'),
      ts: new Timestamp({ t: 5, i: 1 }),
      bin: new Binary(Buffer.from([1, 2, 3]), 0),
      uuid: new UUID('0f8fad5b-d9cb-469f-a165-70867728950e').toBinary(),
      re: /^a.c$/i,
      min: new MinKey(),
      max: new MaxKey(),
      nul: null,
      nested: { arr: [1, new Int32(2), [new Date(0), 'x'], { deep: 3.5 }] },
    };
    const back = roundTrip(doc);
    assert.ok((back._id as ObjectId).equals(id));
    assert.equal((back.at as Date).toISOString(), '2026-01-01T00:00:00.000Z');
    assert.equal((back.dec as Decimal128).toString(), '1.50');
    assert.equal(bsonTypeOf(back.ts), 'timestamp');
    assert.deepEqual([...(back.bin as Binary).buffer.subarray(0, 3)], [1, 2, 3]);
    assert.equal((back.uuid as Binary).sub_type, 4);
    assert.equal(String(back.re), '/^a.c$/i');
    assert.deepEqual([bsonTypeOf(back.min), bsonTypeOf(back.max), back.nul], ['minKey', 'maxKey', null]);
    const arr = (back.nested as { arr: unknown[] }).arr;
    assert.deepEqual(arr.map(bsonTypeOf), ['double', 'int', 'array', 'object']);
    assert.equal((arr[3] as { deep: number }).deep, 3.5);
    assert.deepEqual(Object.keys(back), Object.keys(doc), 'field order is kept');
  });
});
