/**
 * Values over bson's 17 MiB serialization buffer: bson cuts them short without a word (its
 * serializeWithBufferAndIndex copies out of a module-wide buffer), so long strings cross beside
 * the BSON, and whatever is still too large is refused before anything is sent.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Int32 } from 'bson';
import { BSON_BUFFER_BYTES, decodeValue, encodeValue } from '../../../src/extension/engine-host/wire-values';

/** A string of `chars` characters, not all one byte in UTF-8. */
function longText(chars: number, seed: string): string {
  const unit = `${seed} é ✓ 😀 `;
  return unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars);
}

describe('engine host wire values: large values', () => {
  it('a string past the BSON buffer crosses whole, alone and inside documents and arrays, even in a __proto__ field', () => {
    const big = longText(BSON_BUFFER_BYTES + 1000, 'export');
    assert.equal(decodeValue(encodeValue(big)), big);

    const nested: Record<string, unknown> = { small: 'x', deep: { list: [1, longText(100_000, 'b')] } };
    Object.defineProperty(nested, '__proto__', { value: longText(70_000, 'p'), enumerable: true, writable: true, configurable: true });
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

  it('small values carry no strings beside their BSON', () => {
    assert.equal(encodeValue(['a', longText(70_000, 's')]).texts, undefined);
  });

  it('a value still over the buffer without its long strings is refused with a clear error', () => {
    const docs = Array.from({ length: 20_000 }, (_, i) => ({ i, pad: 'x'.repeat(1000) }));
    assert.throws(() => encodeValue(docs), (err: Error) => err instanceof RangeError && /too large to cross/.test(err.message));
  });
});
