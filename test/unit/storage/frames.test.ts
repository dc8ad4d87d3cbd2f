/**
 * The file store's framing (issue: durable storage): CRC-32, whole records, torn tails and
 * corruption told apart, at every byte offset and with random damage.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BSON } from 'bson';
import { crc32 } from '../../../src/storage/crc32';
import { encodeFrame, FRAME_HEADER_BYTES, scanFrames } from '../../../src/storage/frames';
import { prng } from '../helpers/prng';

function journalOf(n: number): { buf: Buffer; ends: number[] } {
  const parts: Buffer[] = [];
  const ends: number[] = [];
  let at = 0;
  for (let i = 0; i < n; i++) {
    const frame = encodeFrame(BSON.serialize({ op: 'put', i, pad: 'x'.repeat(i % 7) }));
    parts.push(frame);
    at += frame.length;
    ends.push(at);
  }
  return { buf: Buffer.concat(parts), ends };
}

const ids = (frames: { payload: Buffer }[]) => frames.map((f) => BSON.deserialize(f.payload).i as number);

describe('CRC-32', () => {
  it('matches the standard check value and detects a single flipped bit', () => {
    assert.equal(crc32(Buffer.from('123456789')), 0xcbf43926);
    assert.equal(crc32(Buffer.alloc(0)), 0);
    const a = Buffer.from('expireAfterSeconds');
    const b = Buffer.from(a);
    b[3] ^= 0x10;
    assert.notEqual(crc32(a), crc32(b));
  });
});

describe('journal frames', () => {
  it('round-trips records in order', () => {
    const { buf, ends } = journalOf(50);
    const scan = scanFrames(buf);
    assert.deepEqual(ids(scan.frames), Array.from({ length: 50 }, (_, i) => i));
    assert.equal(scan.validEnd, ends[49]);
    assert.equal(scan.damage, undefined);
  });

  it('refuses empty payloads, so a zero-filled tail never reads as records', () => {
    assert.throws(() => encodeFrame(new Uint8Array(0)), RangeError);
    const { buf, ends } = journalOf(3);
    const scan = scanFrames(Buffer.concat([buf, Buffer.alloc(4096)]));
    assert.deepEqual(ids(scan.frames), [0, 1, 2]);
    assert.deepEqual(scan.damage, { kind: 'torn', offset: ends[2], bytes: 4096 });
  });

  it('a journal cut at every byte offset of its last record keeps every earlier record and reports a torn tail', () => {
    const { buf, ends } = journalOf(5);
    for (let cut = ends[3] + 1; cut < ends[4]; cut++) {
      const scan = scanFrames(buf.subarray(0, cut));
      assert.deepEqual(ids(scan.frames), [0, 1, 2, 3], `cut at ${cut}`);
      assert.equal(scan.validEnd, ends[3]);
      assert.deepEqual(scan.damage, { kind: 'torn', offset: ends[3], bytes: cut - ends[3] });
    }
  });

  it('cut anywhere: recovers exactly the whole records before the cut', () => {
    const { buf, ends } = journalOf(40);
    for (let cut = 0; cut <= buf.length; cut++) {
      const scan = scanFrames(buf.subarray(0, cut));
      const whole = ends.filter((e) => e <= cut).length;
      assert.equal(scan.frames.length, whole, `cut at ${cut}`);
      assert.equal(scan.damage?.kind, cut === (whole ? ends[whole - 1] : 0) ? undefined : 'torn', `cut at ${cut}`);
    }
  });

  it('a flipped byte in the middle is corruption at that record: everything before it is recovered, the offset is reported', () => {
    const rand = prng(7);
    const { buf, ends } = journalOf(60);
    const starts = [0, ...ends.slice(0, -1)];
    for (let round = 0; round < 300; round++) {
      const damaged = Buffer.from(buf);
      const at = Math.floor(rand() * (ends[57] - 1)); // with whole records after it
      damaged[at] ^= 1 + Math.floor(rand() * 255);
      const hit = starts.findIndex((s, i) => at >= s && at < ends[i]);
      const scan = scanFrames(damaged);
      assert.deepEqual(ids(scan.frames), Array.from({ length: hit }, (_, i) => i), `byte ${at} (record ${hit})`);
      assert.equal(scan.damage?.kind, 'corrupt', `byte ${at}`);
      assert.equal(scan.damage?.offset, starts[hit]);
      assert.ok(scan.damage?.kind === 'corrupt' && scan.damage.resumesAt > starts[hit]);
    }
  });

  it('a damaged length field is corruption, not a torn tail, when whole records follow', () => {
    const { buf, ends } = journalOf(10);
    const damaged = Buffer.from(buf);
    damaged.writeUInt32LE(0xfffffff0, ends[4]);
    const scan = scanFrames(damaged);
    assert.equal(scan.frames.length, 5);
    assert.equal(scan.damage?.kind, 'corrupt');
    assert.match((scan.damage as { reason: string }).reason, /claims 4294967280 bytes/);
  });

  it('headers are 8 bytes: length and CRC-32, little-endian', () => {
    const payload = BSON.serialize({ a: 1 });
    const frame = encodeFrame(payload);
    assert.equal(frame.length, FRAME_HEADER_BYTES + payload.length);
    assert.equal(frame.readUInt32LE(0), payload.length);
    assert.equal(frame.readUInt32LE(4), crc32(payload));
  });
});
