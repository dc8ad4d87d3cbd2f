/**
 * The file store's framing (issue: durable storage): CRC-32, whole records, torn tails and
 * corruption told apart, at every byte offset and with random damage.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BSON } from 'bson';
import { crc32, crc32Portable } from '../../../src/storage/crc32';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { encodeFrame, FileSource, FRAME_HEADER_BYTES, scanFrames, walkFrames } from '../../../src/storage/frames';
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

  it('the native and the portable implementation agree, on whole buffers and on slices', () => {
    const rand = prng(3);
    const buf = Buffer.from(Array.from({ length: 4096 }, () => Math.floor(rand() * 256)));
    assert.equal(crc32Portable(Buffer.from('123456789')), 0xcbf43926);
    for (const [s, e] of [
      [0, 4096],
      [1, 4095],
      [100, 101],
      [7, 7],
      [0, 513],
      [3, 600],
    ])
      assert.equal(crc32(buf, s, e), crc32Portable(buf, s, e), `${s}..${e}`);
  });
});

describe('journal frames', () => {
  it('round-trips records in order', () => {
    const { buf, ends } = journalOf(50);
    const scan = scanFrames(buf);
    assert.deepEqual(
      ids(scan.frames),
      Array.from({ length: 50 }, (_, i) => i),
    );
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
      assert.deepEqual(
        ids(scan.frames),
        Array.from({ length: hit }, (_, i) => i),
        `byte ${at} (record ${hit})`,
      );
      assert.equal(scan.damage?.kind, 'corrupt', `byte ${at}`);
      assert.equal(scan.damage?.offset, starts[hit]);
      assert.ok(scan.damage?.kind === 'corrupt' && (scan.damage.resumesAt ?? -1) > starts[hit]);
    }
  });

  it('the search for the next whole record skips only stretches that are all zeros: a zero byte in the damage does not hide a record right after it', () => {
    const { buf, ends } = journalOf(200); // records well past 4 KiB after the damage
    // Damage: a short stretch with one zero byte in it, then record 3 onwards whole.
    const damage = Buffer.alloc(40, 0xab);
    damage[1] = 0;
    const file = Buffer.concat([buf.subarray(0, ends[2]), damage, buf.subarray(ends[2])]);
    const scan = scanFrames(file);
    assert.deepEqual(ids(scan.frames), [0, 1, 2]);
    assert.equal(scan.damage?.kind, 'corrupt');
    assert.equal(scan.damage?.kind === 'corrupt' && scan.damage.resumesAt, ends[2] + damage.length);
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

  it('bit rot in the last complete record is damage, not a torn write (the record was whole: it was acknowledged)', () => {
    const { buf, ends } = journalOf(6);
    for (let at = ends[4] + FRAME_HEADER_BYTES + 4; at < ends[5] - 1; at++) {
      const damaged = Buffer.from(buf);
      damaged[at] ^= 0x40;
      const scan = scanFrames(damaged);
      assert.deepEqual(ids(scan.frames), [0, 1, 2, 3, 4], `byte ${at}`);
      assert.deepEqual(
        scan.damage,
        { kind: 'corrupt', offset: ends[4], reason: 'a record fails its CRC-32 check' },
        `byte ${at}`,
      );
    }
  });

  it('a zero-filled tail (a file extended before its data reached the disk) is torn; other bytes after the last record are damage', () => {
    const { buf, ends } = journalOf(4);
    assert.deepEqual(scanFrames(Buffer.concat([buf, Buffer.alloc(5000)])).damage, {
      kind: 'torn',
      offset: ends[3],
      bytes: 5000,
    });
    const junk = Buffer.from('this is not a record, and nothing wrote it here');
    const scan = scanFrames(Buffer.concat([buf, junk]));
    assert.equal(scan.frames.length, 4);
    assert.equal(scan.damage?.kind, 'corrupt');
  });

  it('garbage after the last record: the whole tail is searched for a record once, and a record after it makes it damage with the offset to resume at', () => {
    const rand = prng(11);
    const { buf, ends } = journalOf(3);
    const garbage = Buffer.from(Array.from({ length: 4 * 1024 * 1024 }, () => Math.floor(rand() * 256)));
    const tailOnly = scanFrames(Buffer.concat([buf, garbage]));
    assert.equal(tailOnly.frames.length, 3);
    assert.equal(tailOnly.damage?.kind, 'corrupt');
    assert.equal((tailOnly.damage as { resumesAt?: number }).resumesAt, undefined);
    const later = encodeFrame(BSON.serialize({ op: 'put', i: 99 }));
    const withRecord = scanFrames(Buffer.concat([buf, garbage, later]));
    assert.deepEqual(
      withRecord.damage && {
        kind: withRecord.damage.kind,
        offset: withRecord.damage.offset,
        resumesAt: (withRecord.damage as { resumesAt?: number }).resumesAt,
      },
      { kind: 'corrupt', offset: ends[2], resumesAt: ends[2] + garbage.length },
    );
  });

  it('a file read through a small window gives what a scan of the whole buffer gives, for random damage', () => {
    const rand = prng(21);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-frames-'));
    const file = path.join(dir, 'journal-0.ttlj');
    for (let round = 0; round < 60; round++) {
      const { buf } = journalOf(30 + Math.floor(rand() * 30));
      const damaged = Buffer.from(buf);
      const kind = round % 3;
      if (kind === 0) damaged[Math.floor(rand() * damaged.length)] ^= 0xff;
      const bytes =
        kind === 1
          ? damaged.subarray(0, Math.floor(rand() * damaged.length))
          : kind === 2
            ? Buffer.concat([damaged, Buffer.alloc(Math.floor(rand() * 300), 7)])
            : damaged;
      fs.writeFileSync(file, bytes);
      const expected = scanFrames(bytes);
      const got: number[] = [];
      const fd = fs.openSync(file, 'r');
      const walk = walkFrames(new FileSource(fs, fd, bytes.length, 64), (payload) =>
        got.push(BSON.deserialize(payload).i as number),
      );
      fs.closeSync(fd);
      assert.deepEqual(got, ids(expected.frames), `round ${round}`);
      assert.deepEqual([walk.validEnd, walk.damage], [expected.validEnd, expected.damage], `round ${round}`);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('bit rot in the length field of the last record is damage, not a torn tail: the bytes after its header are a whole record of its own stated size with its checksum', () => {
    const { buf, ends } = journalOf(3);
    const damaged = Buffer.from(buf);
    damaged.writeUInt32LE(damaged.readUInt32LE(ends[1]) + 4096, ends[1]);
    const scan = scanFrames(damaged);
    assert.equal(scan.frames.length, 2);
    assert.deepEqual(scan.damage?.kind, 'corrupt');
    assert.match((scan.damage as { reason: string }).reason, /length field is damaged/);
  });
});
