import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Binary, DBRef, Decimal128, Double, Int32, Long, MaxKey, MinKey, ObjectId } from 'bson';
import { applyUpdate, type UpdateContext } from '../../../../src/engine/query/update';

// mongod counts a $set as a modification unless the new value is binary-identical to the old one
// (same BSON type, same bytes): equal-comparing values of another type or encoding still count.

const ctx: UpdateContext = { now: new Date('2024-05-01T12:00:00.000Z'), isInsert: false };

function changedBySet(current: unknown, next: unknown): boolean {
  return applyUpdate({ _id: 1, a: current }, { $set: { a: next } }, ctx).changed;
}

describe('$set no-op: binary identity', () => {
  it('the same number is a no-op; 0 and -0 differ; NaN is identical to NaN', () => {
    assert.equal(changedBySet(2.5, 2.5), false);
    assert.equal(changedBySet(0, -0), true);
    assert.equal(changedBySet(NaN, NaN), false);
    assert.equal(changedBySet(new Double(3), 3), false);
    assert.equal(changedBySet(new Double(0), new Double(-0)), true);
  });

  it('a DBRef is the document {$ref, $id, $db} it is stored as, so the type of its $id counts', () => {
    assert.equal(changedBySet(new DBRef('c', 1 as never), { $ref: 'c', $id: 1 }), false);
    assert.equal(changedBySet({ $ref: 'c', $id: 1, $db: 'd' }, new DBRef('c', 1 as never, 'd')), false);
    assert.equal(changedBySet(new DBRef('c', 1 as never), new DBRef('c', 1 as never)), false);
    assert.equal(changedBySet(new DBRef('c', 1 as never), new DBRef('c', new Int32(1) as never)), true);
    assert.equal(changedBySet(new DBRef('c', 1 as never), new DBRef('c', 1 as never, 'd')), true);
  });

  it('NumberInt and NumberLong compare by value within their own type', () => {
    assert.equal(changedBySet(new Int32(7), new Int32(7)), false);
    assert.equal(changedBySet(new Int32(7), new Int32(8)), true);
    assert.equal(changedBySet(Long.fromNumber(7), Long.fromNumber(7)), false);
    assert.equal(changedBySet(Long.fromNumber(7), Long.fromNumber(8)), true);
    assert.equal(changedBySet(Long.fromNumber(7), new Int32(7)), true);
  });

  it('a Decimal128 with another exponent (1.0 vs 1.00) is a modification; the same digits are not', () => {
    assert.equal(changedBySet(Decimal128.fromString('1.0'), Decimal128.fromString('1.0')), false);
    assert.equal(changedBySet(Decimal128.fromString('1.0'), Decimal128.fromString('1.00')), true);
  });

  it('dates compare by their instant', () => {
    assert.equal(changedBySet(new Date(1000), new Date(1000)), false);
    assert.equal(changedBySet(new Date(1000), new Date(1001)), true);
  });

  it('arrays differ by length or by any element', () => {
    assert.equal(changedBySet([1, [2]], [1, [2]]), false);
    assert.equal(changedBySet([1, 2], [1, 2, 3]), true);
    assert.equal(changedBySet([1, 2], [1, new Int32(2)]), true);
  });

  it('documents differ by field count, field names, order or values', () => {
    assert.equal(changedBySet({ x: 1, y: { z: 2 } }, { x: 1, y: { z: 2 } }), false);
    assert.equal(changedBySet({ x: 1 }, { x: 1, y: 2 }), true);
    assert.equal(changedBySet({ x: 1 }, { w: 1 }), true);
    assert.equal(changedBySet({ x: 1, y: 2 }, { y: 2, x: 1 }), true);
    assert.equal(changedBySet({ x: 1 }, { x: 2 }), true);
  });

  it('null, MinKey and MaxKey are identical to themselves; values of other types compare by content', () => {
    assert.equal(changedBySet(null, null), false);
    assert.equal(changedBySet(new MinKey(), new MinKey()), false);
    assert.equal(changedBySet(new MaxKey(), new MaxKey()), false);
    assert.equal(changedBySet(new MinKey(), new MaxKey()), true);
    assert.equal(changedBySet('s', 's'), false);
    assert.equal(changedBySet('s', 't'), true);
    const id = '65f000000000000000000001';
    assert.equal(changedBySet(new ObjectId(id), new ObjectId(id)), false);
    assert.equal(changedBySet(new ObjectId(id), new ObjectId('65f000000000000000000002')), true);
    assert.equal(changedBySet(new Binary(Buffer.from([1, 2])), new Binary(Buffer.from([1, 2]))), false);
    assert.equal(changedBySet(new Binary(Buffer.from([1, 2])), new Binary(Buffer.from([1, 3]))), true);
  });
});
