/**
 * The framing shared by the journal and snapshots: each record is
 *
 *   u32 LE payload length | u32 LE CRC-32 of the payload | payload (a BSON document)
 *
 * so a reader can tell a whole record from a torn or damaged one. Scanning sorts what follows the
 * last whole record into two kinds the store treats differently:
 *
 * - a **torn tail**: the last record was being appended when the process died. Either the file
 *   ends inside a record whose header is plausible (its length runs past the end), or everything
 *   after the last whole record is zero (a file system that extended the file before its data
 *   reached the disk). Nothing acknowledged is in it; the store cuts it off and says so.
 * - **damage**: anything else — a complete record failing its checksum (bit rot, even in the last
 *   record), bytes that are no record at all, or a bad record with whole records after it.
 *   Everything before it is recovered; the reader reports the offset and never guesses past it.
 *
 * Files are read through a `ByteSource`: a buffer (snapshots), or a window over a file
 * (journals: any size, never read whole). Looking for a whole record after damage is one linear
 * pass: a candidate must claim a plausible length that fits in the file and its payload must
 * start with that same length as its BSON size and end with BSON's terminating zero before any
 * checksum is computed, so garbage and zero-filled tails cost a few comparisons per byte.
 */
import { crc32 } from './crc32';
import type { StorageFs } from './storage-fs';

export const FRAME_HEADER_BYTES = 8;
/** No record is this large (the engine refuses documents over 16 MiB; a batch of them stays far below). */
export const MAX_FRAME_PAYLOAD = 256 * 1024 * 1024;
/**
 * Payloads are BSON documents, at least 5 bytes. Refusing shorter ones matters: after a crash a
 * file system may leave the end of a file zero-filled, and 8 zero bytes would otherwise read as a
 * whole, empty record (the CRC-32 of nothing is 0).
 */
export const MIN_FRAME_PAYLOAD = 5;

export function encodeFrame(payload: Uint8Array): Buffer {
  if (payload.length < MIN_FRAME_PAYLOAD || payload.length > MAX_FRAME_PAYLOAD)
    throw new RangeError(`a frame holds ${MIN_FRAME_PAYLOAD} to ${MAX_FRAME_PAYLOAD} bytes, not ${payload.length}`);
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + payload.length);
  frame.writeUInt32LE(payload.length, 0);
  frame.writeUInt32LE(crc32(payload), 4);
  frame.set(payload, FRAME_HEADER_BYTES);
  return frame;
}

export interface Frame {
  /** Byte offset of the frame's header in the scanned bytes. */
  offset: number;
  payload: Buffer;
}

export type Damage =
  | { kind: 'torn'; offset: number; bytes: number }
  /** `resumesAt`: the first whole record after the damage (absent: none follows). */
  | { kind: 'corrupt'; offset: number; reason: string; resumesAt?: number };

/** Bytes to scan: `read` returns [offset, offset + n), shorter only at the end; valid until the next read. */
export interface ByteSource {
  readonly size: number;
  read(offset: number, n: number): Buffer;
}

class BufferSource implements ByteSource {
  constructor(private readonly buf: Buffer) {}
  get size(): number {
    return this.buf.length;
  }
  read(offset: number, n: number): Buffer {
    return this.buf.subarray(offset, Math.min(this.buf.length, offset + n));
  }
}

/** A file read through a window of `windowBytes` (a record larger than the window is read on its own). */
export class FileSource implements ByteSource {
  private window: Buffer;
  private windowStart = 0;
  private windowLength = 0;

  constructor(
    private readonly io: StorageFs,
    private readonly fd: number,
    readonly size: number,
    windowBytes = 4 * 1024 * 1024,
  ) {
    this.window = Buffer.allocUnsafe(windowBytes);
  }

  read(offset: number, n: number): Buffer {
    const end = Math.min(this.size, offset + n);
    if (offset >= this.windowStart && end <= this.windowStart + this.windowLength)
      return this.window.subarray(offset - this.windowStart, end - this.windowStart);
    if (end - offset > this.window.length) {
      const whole = Buffer.allocUnsafe(end - offset);
      this.fill(whole, offset, whole.length);
      return whole;
    }
    this.windowStart = offset;
    this.windowLength = Math.min(this.window.length, this.size - offset);
    this.fill(this.window, offset, this.windowLength);
    return this.window.subarray(0, end - offset);
  }

  private fill(into: Buffer, position: number, length: number): void {
    let got = 0;
    while (got < length) {
      const n = this.io.readSync(this.fd, into, got, length - got, position + got);
      if (n === 0)
        throw new Error(`the file ended at byte ${position + got}, before the ${this.size} bytes it had when opened`);
      got += n;
    }
  }
}

/** The CRC-32 in the header of the frame `wholeFrameAt` found last. */
let lastCrc = 0;

/** The payload of a whole, checksummed frame at `offset` (its CRC left in `lastCrc`), or undefined. */
function wholeFrameAt(src: ByteSource, offset: number): Buffer | undefined {
  const header = src.read(offset, FRAME_HEADER_BYTES);
  if (header.length < FRAME_HEADER_BYTES) return undefined;
  const length = header.readUInt32LE(0);
  const crc = header.readUInt32LE(4);
  if (length < MIN_FRAME_PAYLOAD || length > MAX_FRAME_PAYLOAD || length > src.size - offset - FRAME_HEADER_BYTES)
    return undefined;
  const payload = src.read(offset + FRAME_HEADER_BYTES, length);
  // Every payload is a BSON document: its own size first, a zero last. Checked before the CRC.
  if (payload.readInt32LE(0) !== length || payload[length - 1] !== 0) return undefined;
  if (crc32(payload) !== crc) return undefined;
  lastCrc = crc;
  return payload;
}

function whyBad(src: ByteSource, offset: number): string {
  const left = src.size - offset;
  // Stryker disable next-line StringLiteral: unreachable, classify calls whyBad only with a whole header's bytes left
  if (left < FRAME_HEADER_BYTES) return 'a record header is cut short';
  const length = src.read(offset, 4).readUInt32LE(0);
  if (length < MIN_FRAME_PAYLOAD || length > MAX_FRAME_PAYLOAD) return `a record claims ${length} bytes`;
  if (length > left - FRAME_HEADER_BYTES)
    return `a record claims ${length} bytes but only ${left - FRAME_HEADER_BYTES} follow`;
  const payload = src.read(offset + FRAME_HEADER_BYTES, length);
  if (payload.readInt32LE(0) !== length || payload[length - 1] !== 0)
    return 'a record holds no BSON document of its length';
  return 'a record fails its CRC-32 check';
}

const SCAN_CHUNK = 1024 * 1024;
const ZERO_BLOCK = Buffer.alloc(4096);

/** The first offset ≥ `from` where a whole frame starts: one pass, a checksum only for rare candidates. */
function nextWholeFrame(src: ByteSource, from: number): number | undefined {
  // Stryker disable next-line ArithmeticOperator: past size - 13 no length fits (the length test refuses it) and the chunk's own length ends the loop
  const last = src.size - FRAME_HEADER_BYTES - MIN_FRAME_PAYLOAD;
  let offset = from;
  while (offset <= last) {
    // Headers and the payload's first 4 bytes of every offset of this chunk are inside it.
    // Stryker disable next-line ArithmeticOperator: the span follows the chunk's actual length, so only where one chunk ends and the next starts moves
    const chunk = src.read(offset, SCAN_CHUNK + FRAME_HEADER_BYTES + 4);
    const span = Math.min(chunk.length - FRAME_HEADER_BYTES - 4, last - offset) + 1;
    if (span <= 0) break;
    let candidate = -1;
    for (let i = 0; i < span; i++) {
      // A zero-filled stretch holds no candidate (every length in it is 0): skipped a block at a time.
      if (
        // Stryker disable next-line EqualityOperator: the compare with the zero block decides; a stretch not skipped is read byte by byte
        chunk[i] === 0 &&
        i + ZERO_BLOCK.length <= chunk.length &&
        chunk.compare(ZERO_BLOCK, 0, ZERO_BLOCK.length, i, i + ZERO_BLOCK.length) === 0
      ) {
        i += ZERO_BLOCK.length - 4;
        continue;
      }
      const length = chunk.readUInt32LE(i);
      if (
        // Stryker disable next-line LogicalOperator: these filters only spare wholeFrameAt calls, which alone decides what is a record
        length < MIN_FRAME_PAYLOAD ||
        // Stryker disable next-line ConditionalExpression: wholeFrameAt refuses the same lengths; this only spares it the call
        length > MAX_FRAME_PAYLOAD ||
        // Stryker disable next-line ConditionalExpression,ArithmeticOperator: wholeFrameAt refuses the same lengths; this only spares it the call
        length > src.size - (offset + i) - FRAME_HEADER_BYTES
      )
        continue;
      if (chunk.readInt32LE(i + FRAME_HEADER_BYTES) !== length) continue;
      candidate = i;
      break;
    }
    if (candidate < 0) {
      offset += span;
      continue;
    }
    // The full check may move the source's window: the chunk is fetched again after it.
    if (wholeFrameAt(src, offset + candidate) !== undefined) return offset + candidate;
    offset += candidate + 1;
  }
  return undefined;
}

/** Whether every byte from `from` to the end is zero. */
function zeroTail(src: ByteSource, from: number): boolean {
  for (let offset = from; offset < src.size; offset += SCAN_CHUNK) {
    const chunk = src.read(offset, SCAN_CHUNK);
    let i = 0;
    // Stryker disable next-line ConditionalExpression: the byte loop below reads every byte this loop leaves; only the speed differs
    for (; i + ZERO_BLOCK.length <= chunk.length; i += ZERO_BLOCK.length)
      if (chunk.compare(ZERO_BLOCK, 0, ZERO_BLOCK.length, i, i + ZERO_BLOCK.length) !== 0) return false;
    for (; i < chunk.length; i++) if (chunk[i] !== 0) return false;
  }
  return true;
}

/** What the bytes from `offset` (the end of the last whole record) are: a torn tail or damage. */
function classify(src: ByteSource, offset: number): Damage {
  const left = src.size - offset;
  const resumesAt = nextWholeFrame(src, offset + 1);
  if (resumesAt !== undefined) return { kind: 'corrupt', offset, reason: whyBad(src, offset), resumesAt };
  if (left < FRAME_HEADER_BYTES) return { kind: 'torn', offset, bytes: left };
  const header = src.read(offset, FRAME_HEADER_BYTES);
  const length = header.readUInt32LE(0);
  const crc = header.readUInt32LE(4);
  // A record being appended: its header is there, the file ends before its end. Unless the bytes
  // after the header are a whole record of their own stated size with that checksum: then the
  // record was written whole and its length field rotted.
  if (length >= MIN_FRAME_PAYLOAD && length <= MAX_FRAME_PAYLOAD && length > left - FRAME_HEADER_BYTES) {
    if (left >= FRAME_HEADER_BYTES + MIN_FRAME_PAYLOAD) {
      const own = src.read(offset + FRAME_HEADER_BYTES, 4).readInt32LE(0);
      if (
        own >= MIN_FRAME_PAYLOAD &&
        own <= left - FRAME_HEADER_BYTES &&
        crc32(src.read(offset + FRAME_HEADER_BYTES, own)) === crc
      ) {
        return {
          kind: 'corrupt',
          offset,
          reason: `a whole record's length field is damaged (it claims ${length} bytes; the record holds ${own})`,
        };
      }
    }
    return { kind: 'torn', offset, bytes: left };
  }
  if (zeroTail(src, offset)) return { kind: 'torn', offset, bytes: left };
  return { kind: 'corrupt', offset, reason: whyBad(src, offset) };
}

export interface FrameWalk {
  /** Whole frames read before any damage. */
  frames: number;
  /** End of the last whole record before any damage: where a writer may append. */
  validEnd: number;
  damage?: Damage;
}

/**
 * Calls `onFrame` for each whole frame from `start` until the end or the first bad one, then
 * sorts out what follows it. A payload is valid only during its call.
 */
export function walkFrames(
  src: ByteSource,
  onFrame: (payload: Buffer, offset: number, crc: number) => void,
  start = 0,
): FrameWalk {
  let offset = start;
  let frames = 0;
  while (offset < src.size) {
    const payload = wholeFrameAt(src, offset);
    if (payload === undefined) break;
    onFrame(payload, offset, lastCrc);
    frames++;
    offset += FRAME_HEADER_BYTES + payload.length;
  }
  if (offset >= src.size) return { frames, validEnd: offset };
  return { frames, validEnd: offset, damage: classify(src, offset) };
}

export interface ScanResult {
  frames: Frame[];
  /** End of the last whole record before any damage: where a writer may append. */
  validEnd: number;
  damage?: Damage;
}

/** walkFrames over a buffer, keeping the frames (views of `buf`). */
export function scanFrames(buf: Buffer, start = 0): ScanResult {
  const frames: Frame[] = [];
  const walk = walkFrames(new BufferSource(buf), (payload, offset) => frames.push({ offset, payload }), start);
  return { frames, validEnd: walk.validEnd, ...(walk.damage ? { damage: walk.damage } : {}) };
}
