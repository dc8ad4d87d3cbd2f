/**
 * The framing's bounds, byte for byte: a `{}` record (5 bytes, the smallest) found at the very end
 * after damage, a record right after a zero-filled stretch, a tail of exactly one header, a torn
 * record claiming 5 or 256 MiB, a last `{}` record whose length field grew, and how often a file is
 * read through its window.
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
} from '../../../src/storage/frames';
import type { StorageFs } from '../../../src/storage/storage-fs';

const record = (i: number) => encodeFrame(BSON.serialize({ op: 'put', i }));
const empty = () => encodeFrame(BSON.serialize({}));
/** Bytes that are no record: the length they claim is far over 256 MiB. */
const garbage = (n: number) => Buffer.alloc(n, 0xee);

function header(length: number, crc: number): Buffer {
  const h = Buffer.alloc(FRAME_HEADER_BYTES);
  h.writeUInt32LE(length, 0);
  h.writeUInt32LE(crc, 4);
  return h;
}

describe('frames: bounds', () => {
  it('frames: a {} record that ends the file is where reading resumes after damage, however short the damage', () => {
    const first = record(0);
    for (const bad of [1, 2, 20]) {
      const buf = Buffer.concat([first, garbage(bad), empty()]);
      const scan = scanFrames(buf);
      assert.equal(scan.frames.length, 1);
      const damage = scan.damage?.kind === 'corrupt' ? scan.damage : undefined;
      assert.deepEqual(
        [damage?.offset, damage?.resumesAt],
        [first.length, first.length + bad],
        `${bad} bad bytes: ${JSON.stringify(scan.damage)}`,
      );
    }
  });

  it('frames: a {} record between damage and other records is where reading resumes, not the record after it', () => {
    const first = record(0);
    const buf = Buffer.concat([first, garbage(9), empty(), record(1)]);
    const damage = scanFrames(buf).damage;
    assert.equal(damage?.kind === 'corrupt' && damage.resumesAt, first.length + 9);
  });

  it('frames: a record right after a zero-filled stretch of 4096 bytes or more is where reading resumes', () => {
    const first = record(0);
    for (const zeros of [4096, 4097, 4098, 4099, 4100, 4101, 8192, 8195]) {
      const buf = Buffer.concat([first, garbage(3), Buffer.alloc(zeros), record(1), record(2)]);
      const damage = scanFrames(buf).damage;
      assert.equal(damage?.kind === 'corrupt' && damage.resumesAt, first.length + 3 + zeros, `${zeros} zeros`);
    }
  });

  it('frames: a record starting in the last bytes a 1 MiB search step looks at is where reading resumes', () => {
    // The search after damage reads 1 MiB (plus a header and 4 bytes) at a time; records starting
    // around the end of one step must be found by it or by the next.
    const SCAN_CHUNK = 1024 * 1024;
    const first = record(0);
    for (let k = -2; k <= 9; k++) {
      const bad = SCAN_CHUNK + 1 + k;
      const buf = Buffer.concat([first, garbage(bad), record(1), record(2)]);
      const damage = scanFrames(buf).damage;
      assert.equal(damage?.kind === 'corrupt' && damage.resumesAt, first.length + bad, `${bad} bad bytes`);
    }
  });

  it('frames: after damage, a record-shaped stretch with a wrong checksum is passed over for the next whole record', () => {
    const first = record(0);
    const lookalike = Buffer.from(BSON.serialize({ op: 'put', i: 5 }));
    const fake = Buffer.concat([header(lookalike.length, crc32(lookalike) ^ 1), lookalike]);
    const buf = Buffer.concat([first, garbage(3), fake, record(1)]);
    const damage = scanFrames(buf).damage;
    assert.equal(damage?.kind === 'corrupt' && damage.resumesAt, first.length + 3 + fake.length);
  });

  it('frames: exactly one header of bytes that are no record after the last record is damage, not a torn tail', () => {
    const buf = Buffer.concat([record(0), garbage(FRAME_HEADER_BYTES)]);
    assert.deepEqual(scanFrames(buf).damage, {
      kind: 'corrupt',
      offset: record(0).length,
      reason: `a record claims ${0xeeeeeeee} bytes`,
    });
  });

  it('frames: a {} record cut short after its header is a torn tail', () => {
    const whole = empty();
    for (const keep of [FRAME_HEADER_BYTES, FRAME_HEADER_BYTES + 2, whole.length - 1]) {
      const buf = Buffer.concat([record(0), whole.subarray(0, keep)]);
      assert.deepEqual(scanFrames(buf).damage, { kind: 'torn', offset: record(0).length, bytes: keep }, `${keep}`);
    }
  });

  it('frames: a header claiming exactly 256 MiB with the file ending after it is a torn tail', () => {
    const buf = Buffer.concat([record(0), header(MAX_FRAME_PAYLOAD, 1234), Buffer.from([1, 2, 3])]);
    assert.deepEqual(scanFrames(buf).damage, { kind: 'torn', offset: record(0).length, bytes: FRAME_HEADER_BYTES + 3 });
  });

  it('frames: a last {} record whose length field grew is damage naming both lengths', () => {
    const buf = Buffer.concat([record(0), empty()]);
    const at = record(0).length;
    buf.writeUInt32LE(MIN_FRAME_PAYLOAD + 1, at);
    assert.deepEqual(scanFrames(buf).damage, {
      kind: 'corrupt',
      offset: at,
      reason: `a whole record's length field is damaged (it claims 6 bytes; the record holds 5)`,
    });
  });

  it('frames: a torn record whose checksum field is 0 and whose first payload bytes are zero stays a torn tail', () => {
    // The CRC-32 of no bytes is 0: a payload claiming size 0 must not count as a whole record.
    assert.equal(crc32(Buffer.alloc(0)), 0);
    const buf = Buffer.concat([record(0), header(100, 0), Buffer.alloc(10)]);
    assert.deepEqual(scanFrames(buf).damage, { kind: 'torn', offset: record(0).length, bytes: 18 });
  });

  it('frames: a record with a right checksum over bytes that are no BSON document is damage, not a record', () => {
    for (const payload of [Buffer.from([1, 2, 3, 4, 0]), Buffer.from([9, 0, 0, 0, 1, 2, 3, 4, 5])]) {
      const buf = Buffer.concat([record(0), encodeFrame(payload), record(1)]);
      const scan = scanFrames(buf);
      assert.equal(scan.frames.length, 1, payload.toString('hex'));
      assert.deepEqual(scan.damage, {
        kind: 'corrupt',
        offset: record(0).length,
        reason: 'a record holds no BSON document of its length',
        resumesAt: record(0).length + FRAME_HEADER_BYTES + payload.length,
      });
    }
  });

  it('frames: a header claiming exactly 256 MiB before whole records is a record running past the end', () => {
    const buf = Buffer.concat([record(0), header(MAX_FRAME_PAYLOAD, 1234), record(1)]);
    const left = buf.length - record(0).length - FRAME_HEADER_BYTES;
    assert.deepEqual(scanFrames(buf).damage, {
      kind: 'corrupt',
      offset: record(0).length,
      reason: `a record claims ${MAX_FRAME_PAYLOAD} bytes but only ${left} follow`,
      resumesAt: record(0).length + FRAME_HEADER_BYTES,
    });
  });

  it('frames: a scan of whole records only has no damage entry at all', () => {
    const scan = scanFrames(Buffer.concat([record(0), record(1)]));
    assert.equal(scan.frames.length, 2);
    assert.ok(!('damage' in scan), JSON.stringify(Object.keys(scan)));
  });

  it('frames: a FileSource reads each window from the file once, and a read as large as the window fills it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-frames-'));
    try {
      const file = path.join(dir, 'journal-0.ttlj');
      const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
      fs.writeFileSync(file, bytes);
      let reads = 0;
      const counting = {
        ...fs,
        readSync: (...args: Parameters<typeof fs.readSync>) => {
          reads++;
          return fs.readSync(...args);
        },
      } as unknown as StorageFs;
      const fd = fs.openSync(file, 'r');
      try {
        const src = new FileSource(counting, fd, bytes.length, 32);
        assert.deepEqual(src.read(64, 8), bytes.subarray(64, 72));
        assert.equal(reads, 1);
        assert.deepEqual(src.read(64, 32), bytes.subarray(64, 96), 'the window from its first byte to its last');
        assert.deepEqual(src.read(90, 6), bytes.subarray(90, 96));
        assert.equal(reads, 1, 'inside the window: no read');
        assert.deepEqual(src.read(128, 32), bytes.subarray(128, 160), 'a read of the window size');
        assert.equal(reads, 2);
        assert.deepEqual(src.read(140, 4), bytes.subarray(140, 144));
        assert.equal(reads, 2, 'a read of the window size became the window');
        assert.deepEqual(src.read(200, 33), bytes.subarray(200, 233), 'larger than the window: read on its own');
        assert.deepEqual(src.read(150, 4), bytes.subarray(150, 154));
        assert.equal(reads, 3, 'the window still holds what it held');
        assert.deepEqual(src.read(250, 32), bytes.subarray(250), 'shorter only at the end');
        assert.deepEqual(src.read(255, 1), bytes.subarray(255));
        assert.equal(reads, 4);
      } finally {
        fs.closeSync(fd);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('frames: a file system that returns fewer bytes than asked still gives every byte in place', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-frames-'));
    try {
      const file = path.join(dir, 'journal-0.ttlj');
      const buf = Buffer.concat([record(0), record(1), record(2)]);
      fs.writeFileSync(file, buf);
      // readSync may return fewer bytes than asked for (a pipe, a network file system): 3 at a time here.
      const short = {
        ...fs,
        readSync: (fd: number, into: Buffer, offset: number, length: number, position: number) =>
          fs.readSync(fd, into, offset, Math.min(3, length), position),
      } as unknown as StorageFs;
      const fd = fs.openSync(file, 'r');
      try {
        for (const window of [16, 4096]) {
          const src = new FileSource(short, fd, buf.length, window);
          const seen: Buffer[] = [];
          const walk = walkFrames(src, (payload) => seen.push(Buffer.from(payload)));
          assert.deepEqual(walk, { frames: 3, validEnd: buf.length }, `window ${window}`);
          assert.deepEqual(
            seen.map((p) => BSON.deserialize(p).i),
            [0, 1, 2],
          );
        }
        const claimsMore = new FileSource(short, fd, buf.length + 10, 4096);
        assert.throws(() => walkFrames(claimsMore, () => undefined), {
          message: `the file ended at byte ${buf.length}, before the ${buf.length + 10} bytes it had when opened`,
        });
      } finally {
        fs.closeSync(fd);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
