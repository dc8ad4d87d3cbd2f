/**
 * What follows the last whole record when it looks like a zero-filled tail: only bytes that are all
 * zero are a torn tail (a file extended before its data reached the disk). One stray byte anywhere
 * in it, in a whole 4 KiB block, in the last partial block or past the first MiB the check reads at
 * a time, makes it damage: the store must not truncate bytes nobody can explain.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { BSON } from 'bson';
import { crc32 } from '../../../src/storage/crc32';
import { encodeFrame, scanFrames } from '../../../src/storage/frames';

const MIB = 1024 * 1024;
const records = Buffer.concat([0, 1, 2].map((i) => encodeFrame(BSON.serialize({ op: 'put', i }))));

function tail(length: number, strayAt?: number): Buffer {
  const t = Buffer.alloc(length);
  if (strayAt !== undefined) t[strayAt] = 0x01;
  return t;
}

describe('frames: a zero-filled tail', () => {
  it('frames: a tail of zeros only is a torn tail, whether it ends on a 4 KiB block, inside one, or past the first MiB', () => {
    for (const length of [4096, 8192, 4096 + 17, MIB, MIB + 1, MIB + 4096 + 3]) {
      const scan = scanFrames(Buffer.concat([records, tail(length)]));
      assert.equal(scan.frames.length, 3, `${length} zeros`);
      assert.deepEqual(scan.damage, { kind: 'torn', offset: records.length, bytes: length }, `${length} zeros`);
    }
  });

  it('frames: one non-zero byte in a zero-filled tail makes it damage, wherever it is', () => {
    for (const [length, strayAt] of [
      [4096, 8], // the first whole block
      [4096, 4095], // the last byte of the only block
      [8192, 4096 + 100], // a later whole block
      [5000, 4999], // the partial block after the whole ones
      [MIB + 5000, MIB + 4100], // the second MiB read
      [MIB + 5000, MIB + 4999], // the partial block of the second MiB read
    ]) {
      const scan = scanFrames(Buffer.concat([records, tail(length, strayAt)]));
      assert.equal(scan.frames.length, 3, `byte ${strayAt} of ${length}`);
      assert.deepEqual(
        scan.damage,
        { kind: 'corrupt', offset: records.length, reason: 'a record claims 0 bytes' },
        `byte ${strayAt} of ${length}`,
      );
    }
  });
});

describe('frames: a short tail after the last record', () => {
  it('frames: a header claiming fewer than 5 bytes is damage even when the file ends right after it', () => {
    for (const [claims, after] of [
      [4, 0],
      [1, 0],
      [3, 2],
    ]) {
      const h = Buffer.alloc(8 + after, 0x01);
      h.writeUInt32LE(claims, 0);
      const scan = scanFrames(Buffer.concat([records, h]));
      assert.deepEqual(
        scan.damage,
        { kind: 'corrupt', offset: records.length, reason: `a record claims ${claims} bytes` },
        `claims ${claims}, ${after} bytes after the header`,
      );
    }
  });

  it('frames: a record cut short stays a torn tail when its checksum matches the bytes present but its BSON size runs past the end', () => {
    // The header claims 100 bytes; 20 follow, starting with a BSON size of 25: no whole record is
    // there, whatever the checksum of the 20 bytes says.
    const partial = Buffer.alloc(20, 0x02);
    partial.writeInt32LE(25, 0);
    const h = Buffer.alloc(8);
    h.writeUInt32LE(100, 0);
    h.writeUInt32LE(crc32(partial), 4);
    const scan = scanFrames(Buffer.concat([records, h, partial]));
    assert.deepEqual(scan.damage, { kind: 'torn', offset: records.length, bytes: 28 });
  });
});
