/**
 * src/storage/crc32.ts: the checksum of every frame, and of a snapshot's chain of frame checksums.
 * The chain is written and checked by the same function, so only a known value pins it: a
 * continued checksum must be the CRC-32 of everything fed so far, as a one-shot CRC-32 computes it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { crc32, crc32Continue, crc32Portable } from '../../../src/storage/crc32';
import { prng } from '../helpers/prng';

const randomBytes = (seed: number, n: number): Buffer => {
  const rand = prng(seed);
  return Buffer.from(Array.from({ length: n }, () => Math.floor(rand() * 256)));
};

describe('crc32Continue', () => {
  it('crc32: a checksum continued from 0 is the CRC-32 of the bytes (the standard check value included)', () => {
    assert.equal(crc32Continue(0, Buffer.from('123456789')), 0xcbf43926);
    assert.equal(crc32Continue(0, Buffer.alloc(0)), 0);
    const bytes = randomBytes(11, 300);
    assert.equal(crc32Continue(0, bytes), crc32Portable(bytes));
  });

  it('crc32: continuing over parts gives the CRC-32 of the whole, wherever it is cut', () => {
    const whole = randomBytes(12, 1500);
    for (const cut of [0, 1, 4, 255, 256, 777, 1499, 1500]) {
      const continued = crc32Continue(crc32(whole.subarray(0, cut)), whole.subarray(cut));
      assert.equal(continued, crc32(whole), `cut at ${cut}`);
    }
    // A snapshot's chain feeds 4-byte words one at a time.
    let chain = 0;
    for (let at = 0; at < 64; at += 4) chain = crc32Continue(chain, whole.subarray(at, at + 4));
    assert.equal(chain, crc32(whole.subarray(0, 64)));
  });

  it('crc32: the result is an unsigned 32-bit number, for bytes whose CRC-32 has the top bit set', () => {
    const high = Buffer.from('createdAt');
    assert.ok(crc32(high) >= 2 ** 31, 'the sample has its top bit set');
    assert.equal(crc32Continue(0, high), crc32(high));
    assert.equal(crc32Portable(high), crc32(high));
  });
});

describe('crc32 over long buffers', () => {
  it('crc32: slices past the native threshold (512 bytes) checksum only the slice, at any start', () => {
    const buf = randomBytes(13, 4096);
    for (const [s, e] of [
      [0, 512],
      [0, 514],
      [1, 1024],
      [2000, 4096],
      [0, 4096],
    ])
      assert.equal(crc32(buf, s, e), crc32Portable(Buffer.from(buf.subarray(s, e))), `${s}..${e}`);
  });
});
