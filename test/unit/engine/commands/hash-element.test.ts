/**
 * _hashBSONElement and the hash behind it (values/element-hash.ts): mongod's stored hashes, which
 * must never change, for strings, numbers of every type and range, and embedded documents.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Decimal128, Int32, Long } from 'bson';
import { Engine, type Document } from '../../../../src/engine';
import { hashBsonValue } from '../../../../src/engine/values/element-hash';
import { expectError } from '../../helpers/expect-error';

const LOWEST = Long.fromString('5744114172487291558');
const HIGHEST = Long.fromString('1136124329541638701');
const ZERO = Long.fromString('5574369198691456941');

function hash(value: unknown): string {
  return hashBsonValue(value, 1).toString();
}

describe('the element hash (seed 1)', () => {
  it("a string hashes to mongod's value", () => {
    assert.equal(hash('hashthis'), '6271151123721111923');
  });

  it('every number type hashes as the 64-bit integer it truncates to: 0, NumberLong(0), Int32(0) and 0.5 alike', () => {
    for (const zero of [0, Long.fromNumber(0), new Int32(0), 0.5, Decimal128.fromString('0')])
      assert.equal(hash(zero), ZERO.toString());
  });

  it('NaN hashes as 0', () => {
    assert.equal(hash(NaN), ZERO.toString());
    assert.equal(hash(Decimal128.fromString('NaN')), ZERO.toString());
  });

  it('doubles past the long range saturate; exactly 2^63 is the lowest long, as older servers stored it', () => {
    assert.equal(hash(2 ** 63), LOWEST.toString());
    assert.equal(hash(2 ** 63 + 2 ** 11), HIGHEST.toString());
    assert.equal(hash(2 ** 500), HIGHEST.toString());
    assert.equal(hash(Infinity), HIGHEST.toString());
    assert.equal(hash(-Infinity), LOWEST.toString());
    assert.equal(hash(-(2 ** 63 + 2 ** 11)), LOWEST.toString());
    assert.equal(hash(2 ** 63 - 2 ** 10), '-3954856262017896439');
    assert.equal(hash(-(2 ** 63 - 2 ** 10)), '-1762411739488908479');
  });

  it('an embedded document hashes its fields with their names', () => {
    assert.equal(hash({ a: 1, b: 2 }), '-7076810813311352857');
    assert.equal(hash({ a: 2 ** 63, b: NaN }), '1223292051903137684');
    assert.notEqual(hash({ a: 1, b: 2 }), hash({ b: 2, a: 1 }));
  });

  it("with seed 0, {check: 42}'s field hashes to the value mongod checks at start-up", () => {
    assert.equal(hashBsonValue(42, 0).toString(), '-944302157085130861');
  });

  it('the seed changes the hash', () => {
    assert.notEqual(hashBsonValue('hashthis', 0).toString(), hash('hashthis'));
  });
});

describe('_hashBSONElement', () => {
  it('answers the value, the seed and the hash as a NumberLong', () => {
    const reply: Document = new Engine().runCommand('test', { _hashBSONElement: 'hashthis', seed: 1 });
    assert.equal(reply.key, 'hashthis');
    assert.equal((reply.seed as Int32).value, 1);
    assert.ok(reply.out instanceof Long);
    assert.equal(String(reply.out), '6271151123721111923');
  });

  it('uses seed 0 when none is given, and refuses a seed that is not a number (14)', () => {
    const engine = new Engine();
    assert.equal(String(engine.runCommand('test', { _hashBSONElement: 'x' }).out), hashBsonValue('x', 0).toString());
    expectError(() => engine.runCommand('test', { _hashBSONElement: 'x', seed: 'one' }), 14);
  });
});
