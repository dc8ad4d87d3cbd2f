/**
 * Binary identity (mongod's binaryEqualValues) for the JavaScript forms the engine accepts: a
 * bigint is a BSON long and a Double wrapper a BSON double, so each is identical to the other form
 * of the same value, whichever comes first.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Double, Int32, Long } from 'bson';
import { applyUpdate, sameBson, type UpdateContext } from '../../../../src/engine/query/update';

const ctx: UpdateContext = { now: new Date('2024-05-01T12:00:00.000Z'), isInsert: false };

describe('sameBson: the JavaScript forms of one BSON type', () => {
  it('sameBson: a bigint is a BSON long, identical to a Long of the same value either way round', () => {
    assert.equal(sameBson(5n, 5n), true);
    assert.equal(sameBson(5n, 6n), false);
    assert.equal(sameBson(5n, Long.fromNumber(5)), true);
    assert.equal(sameBson(Long.fromNumber(5), 5n), true);
    assert.equal(sameBson(Long.fromNumber(5), 6n), false);
    assert.equal(sameBson(5n, new Int32(5)), false);
  });

  it('a $set of a bigint over a bigint or a Long is compared, not a crash: a no-op when the value is the same', () => {
    assert.equal(applyUpdate({ _id: 1, a: 5n }, { $set: { a: 6n } }, ctx).changed, true);
    assert.equal(applyUpdate({ _id: 1, a: 5n }, { $set: { a: 5n } }, ctx).changed, false);
    assert.equal(applyUpdate({ _id: 1, a: Long.fromNumber(5) }, { $set: { a: 5n } }, ctx).changed, false);
    assert.equal(applyUpdate({ _id: 1, a: [5n] }, { $set: { a: [Long.fromNumber(5)] } }, ctx).changed, false);
  });

  it('sameBson: a number and a Double wrapper of the same value are identical either way round', () => {
    assert.equal(sameBson(1.5, new Double(1.5)), true);
    assert.equal(sameBson(new Double(1.5), 1.5), true);
    assert.equal(sameBson(0, new Double(-0)), false);
    assert.equal(sameBson(2, new Double(3)), false);
  });
});
