/**
 * The edges of the framing that the random-damage tests pass by: the smallest record a journal
 * holds (`{}`, 5 bytes), the reason given for each kind of bad record (what the store shows the
 * user when it quarantines a file), zero tails of every length, and a file that shrinks while read.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { BSON } from 'bson';
import { crc32 } from '../../../src/storage/crc32';
import {
  encodeFrame,
  FileSource,
  FRAME_HEADER_BYTES,
  MAX_FRAME_PAYLOAD,
  MIN_FRAME_PAYLOAD,
  scanFrames,
  walkFrames,
  type Damage,
} from '../../../src/storage/frames';

const record = (i: number) => encodeFrame(BSON.serialize({ op: 'put', i }));
const three = () => Buffer.concat([record(0), record(1), record(2)]);
const reason = (d: Damage | undefined) => (d?.kind === 'corrupt' ? d.reason : `not corrupt: ${JSON.stringify(d)}`);

describe('frames: edges', () => {
  it('frames: {} (5 bytes, the smallest BSON document) is framed and read back; 4 bytes is refused', () => {
    const empty = BSON.serialize({});
    assert.equal(empty.length, MIN_FRAME_PAYLOAD);
    const buf = Buffer.concat([encodeFrame(empty), encodeFrame(empty), record(7)]);
    const scan = scanFrames(buf);
    assert.equal(scan.frames.length, 3);
    assert.deepEqual(BSON.deserialize(scan.frames[0].payload), {});
    assert.equal(scan.frames[1].offset, FRAME_HEADER_BYTES + MIN_FRAME_PAYLOAD);
    assert.equal(scan.validEnd, buf.length);
    assert.throws(() => encodeFrame(new Uint8Array(4)), {
      name: 'RangeError',
      message: `a frame holds ${MIN_FRAME_PAYLOAD} to ${MAX_FRAME_PAYLOAD} bytes, not 4`,
    });
  });

  it('frames: a payload over MAX_FRAME_PAYLOAD (256 MiB) is refused', () => {
    assert.equal(MAX_FRAME_PAYLOAD, 256 * 1024 * 1024);
    assert.throws(() => encodeFrame(new Uint8Array(MAX_FRAME_PAYLOAD + 1)), RangeError);
  });

  it('frames: a {} record damaged after whole records resumes at the next one', () => {
    const empty = encodeFrame(BSON.serialize({}));
    const buf = Buffer.concat([record(0), empty, record(2)]);
    const at = record(0).length;
    buf[at + 5] ^= 0x01; // its checksum: the payload stays a whole {}
    const scan = scanFrames(buf);
    assert.deepEqual(scan.damage, {
      kind: 'corrupt',
      offset: at,
      reason: 'a record fails its CRC-32 check',
      resumesAt: at + empty.length,
    });
  });

  it('frames: walkFrames hands each payload with its offset and header CRC-32, from the start given', () => {
    const buf = three();
    const seen: [number, number, number][] = [];
    const start = record(0).length;
    const walk = walkFrames(
      { size: buf.length, read: (o, n) => buf.subarray(o, Math.min(buf.length, o + n)) },
      (payload, offset, crc) => seen.push([BSON.deserialize(payload).i as number, offset, crc]),
      start,
    );
    assert.deepEqual(
      seen.map(([i, offset]) => [i, offset]),
      [
        [1, start],
        [2, start + record(1).length],
      ],
    );
    for (const [, offset, crc] of seen) assert.equal(crc, buf.readUInt32LE(offset + 4));
    assert.equal(crc32(buf.subarray(start + FRAME_HEADER_BYTES, start + record(1).length)), seen[0][2]);
    assert.deepEqual(walk, { frames: 2, validEnd: buf.length });
    assert.deepEqual(scanFrames(buf, start).frames.length, 2);
  });

  describe('the reason a bad record is refused, when whole records follow it', () => {
    const damagedSecond = (edit: (buf: Buffer, at: number, len: number) => void) => {
      const buf = Buffer.concat([record(0), record(1), record(2), record(3)]);
      const at = record(0).length;
      edit(buf, at, record(1).length - FRAME_HEADER_BYTES);
      return { scan: scanFrames(buf), at, next: at + record(1).length };
    };

    it('frames: a length below 5 bytes: "a record claims N bytes"', () => {
      const { scan, at, next } = damagedSecond((buf, at) => buf.writeUInt32LE(MIN_FRAME_PAYLOAD - 1, at));
      assert.deepEqual(scan.damage, {
        kind: 'corrupt',
        offset: at,
        reason: 'a record claims 4 bytes',
        resumesAt: next,
      });
    });

    it('frames: a length over 256 MiB: "a record claims N bytes"', () => {
      const { scan } = damagedSecond((buf, at) => buf.writeUInt32LE(MAX_FRAME_PAYLOAD + 1, at));
      assert.equal(reason(scan.damage), `a record claims ${MAX_FRAME_PAYLOAD + 1} bytes`);
    });

    it('frames: a plausible length running past the end: "… but only N follow"', () => {
      let left = 0;
      const { scan } = damagedSecond((buf, at) => {
        left = buf.length - at - FRAME_HEADER_BYTES;
        buf.writeUInt32LE(left + 1, at);
      });
      assert.equal(reason(scan.damage), `a record claims ${left + 1} bytes but only ${left} follow`);
    });

    it('frames: a payload whose BSON size disagrees with the length: "no BSON document of its length"', () => {
      const { scan } = damagedSecond((buf, at) =>
        buf.writeInt32LE(buf.readInt32LE(at + FRAME_HEADER_BYTES) + 1, at + FRAME_HEADER_BYTES),
      );
      assert.equal(reason(scan.damage), 'a record holds no BSON document of its length');
    });

    it('frames: a payload whose last byte is not BSON\'s terminating zero: "no BSON document of its length"', () => {
      const { scan } = damagedSecond((buf, at, len) => (buf[at + FRAME_HEADER_BYTES + len - 1] = 1));
      assert.equal(reason(scan.damage), 'a record holds no BSON document of its length');
    });

    it('frames: a whole BSON document with another checksum: "fails its CRC-32 check"', () => {
      const { scan } = damagedSecond((buf, at) => (buf[at + 4] ^= 0x80));
      assert.equal(reason(scan.damage), 'a record fails its CRC-32 check');
    });
  });

  describe('what follows the last whole record when nothing whole follows it', () => {
    it('frames: fewer bytes than a header are a torn tail', () => {
      const buf = Buffer.concat([three(), Buffer.from([9, 9, 9])]);
      assert.deepEqual(scanFrames(buf).damage, { kind: 'torn', offset: three().length, bytes: 3 });
    });

    it('frames: a header whose record runs past the end is a torn tail', () => {
      const whole = record(3);
      for (const keep of [FRAME_HEADER_BYTES, FRAME_HEADER_BYTES + 4, whole.length - 1]) {
        const buf = Buffer.concat([three(), whole.subarray(0, keep)]);
        assert.deepEqual(
          scanFrames(buf).damage,
          { kind: 'torn', offset: three().length, bytes: keep },
          `${keep} bytes kept`,
        );
      }
    });

    it('frames: a zero tail is torn at any length; one non-zero byte in it makes it damage', () => {
      for (const zeros of [8, 100, 4095, 4096, 4097, 9000]) {
        const tail = Buffer.alloc(zeros);
        assert.equal(scanFrames(Buffer.concat([three(), tail])).damage?.kind, 'torn', `${zeros} zeros`);
        for (const at of [zeros - 1, Math.floor(zeros / 2)]) {
          const dirty = Buffer.from(tail);
          dirty[at] = 1;
          const damage = scanFrames(Buffer.concat([three(), dirty])).damage;
          assert.equal(damage?.kind, 'corrupt', `${zeros} zeros, byte ${at} set`);
        }
      }
    });

    it('frames: text after the last record is damage, with the length it claims as the reason', () => {
      const buf = Buffer.concat([three(), Buffer.from('this is not a record')]);
      assert.deepEqual(scanFrames(buf).damage, {
        kind: 'corrupt',
        offset: three().length,
        reason: `a record claims ${Buffer.from('this').readUInt32LE(0)} bytes`,
      });
    });

    it('frames: a last record whose length field grew is damage naming both lengths, not a torn tail', () => {
      const buf = three();
      const at = record(0).length + record(1).length;
      const own = record(2).length - FRAME_HEADER_BYTES;
      buf.writeUInt32LE(own + 1, at);
      assert.deepEqual(scanFrames(buf).damage, {
        kind: 'corrupt',
        offset: at,
        reason: `a whole record's length field is damaged (it claims ${own + 1} bytes; the record holds ${own})`,
      });
    });

    it('frames: a grown length field whose payload fails its checksum too is a torn tail', () => {
      const buf = three();
      const at = record(0).length + record(1).length;
      buf.writeUInt32LE(record(2).length, at);
      buf[at + FRAME_HEADER_BYTES + 6] ^= 0x01;
      assert.equal(scanFrames(buf).damage?.kind, 'torn');
    });
  });

  it('frames: a file that is shorter than when it was opened is an error naming the byte', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-frames-'));
    try {
      const file = path.join(dir, 'journal-0.ttlj');
      const buf = three();
      fs.writeFileSync(file, buf);
      const fd = fs.openSync(file, 'r');
      try {
        const src = new FileSource(fs, fd, buf.length + 10, 16);
        assert.throws(() => walkFrames(src, () => undefined), {
          message: `the file ended at byte ${buf.length}, before the ${buf.length + 10} bytes it had when opened`,
        });
        const whole = new FileSource(fs, fd, buf.length, 16);
        assert.deepEqual(whole.read(0, buf.length), buf, 'a read larger than the window');
        assert.deepEqual(whole.read(3, 5), buf.subarray(3, 8));
        assert.deepEqual(whole.read(buf.length - 2, 10), buf.subarray(buf.length - 2), 'shorter only at the end');
      } finally {
        fs.closeSync(fd);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
