/**
 * Values over bson's 17 MiB serialization buffer: bson cuts them short without a word (its
 * serializers copy out of a module-wide buffer), so the buffer is grown first for a larger value.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Int32 } from 'bson';
import { BSON_BUFFER_BYTES, decodeValue, encodeValue } from '../../../src/extension/engine-host/wire-values';

/**
 * A string of about `chars` UTF-16 units, not all one byte in UTF-8, cut between code points (a
 * lone surrogate has no UTF-8 form: BSON, like any MongoDB store, keeps U+FFFD in its place).
 */
function longText(chars: number, seed: string): string {
  const unit = `${seed} é ✓ 😀 `;
  const text = unit.repeat(Math.ceil(chars / unit.length) + 1);
  let end = chars;
  if (/[\uD800-\uDBFF]/.test(text[end - 1])) end++;
  return text.slice(0, end);
}

describe('engine host wire values: large values', () => {
  it('a string past the BSON buffer crosses whole, alone and inside documents and arrays, even in a __proto__ field', () => {
    const big = longText(BSON_BUFFER_BYTES + 1000, 'export');
    assert.equal(decodeValue(encodeValue(big)), big);

    const nested: Record<string, unknown> = { small: 'x', deep: { list: [1, longText(100_000, 'b')] } };
    Object.defineProperty(nested, '__proto__', {
      value: longText(70_000, 'p'),
      enumerable: true,
      writable: true,
      configurable: true,
    });
    const args = [big, new Int32(3), nested, 'imported'];
    const back = decodeValue(encodeValue(args)) as unknown[];
    assert.equal(back[0], big);
    assert.ok(back[1] instanceof Int32);
    assert.deepEqual(back[2], nested);
    assert.ok(Object.prototype.hasOwnProperty.call(back[2], '__proto__'));
    assert.equal(Object.getPrototypeOf(back[2]), Object.prototype);
    assert.equal(back[3], 'imported');
    // The caller's value is left as it was.
    assert.equal(args[0], big);
    assert.equal((nested.deep as { list: unknown[] }).list[1], longText(100_000, 'b'));
  });

  it('a value over the buffer made of many documents crosses whole', () => {
    const docs = Array.from({ length: 20_000 }, (_, i) => ({ i: new Int32(i), pad: 'x'.repeat(1000) }));
    const back = decodeValue(encodeValue(docs)) as Array<{ i: Int32; pad: string }>;
    assert.equal(back.length, 20_000);
    assert.ok(back[19_999].i instanceof Int32);
    assert.equal(back[19_999].i.value, 19_999);
    assert.equal(back[12_345].pad, 'x'.repeat(1000));
  });
});
