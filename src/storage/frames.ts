/**
 * The framing shared by the journal and snapshots: each record is
 *
 *   u32 LE payload length | u32 LE CRC-32 of the payload | payload (a BSON document)
 *
 * so a reader can tell a whole record from a torn or damaged one. Scanning distinguishes the two
 * kinds of damage the store must treat differently:
 *
 * - a **torn tail**: the last record was being appended when the process died (the bytes after
 *   the last whole record are not a whole record, and no whole record follows them). Nothing
 *   acknowledged is in it; the store truncates it and says so in one line.
 * - **corruption**: a damaged record with whole records after it (a flipped byte, a bad sector).
 *   Everything before it is recovered; the reader reports the byte offset and never guesses past it.
 */
import { crc32 } from './crc32';

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
  if (payload.length < MIN_FRAME_PAYLOAD || payload.length > MAX_FRAME_PAYLOAD) throw new RangeError(`a frame holds ${MIN_FRAME_PAYLOAD} to ${MAX_FRAME_PAYLOAD} bytes, not ${payload.length}`);
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + payload.length);
  frame.writeUInt32LE(payload.length, 0);
  frame.writeUInt32LE(crc32(payload), 4);
  frame.set(payload, FRAME_HEADER_BYTES);
  return frame;
}

export interface Frame {
  /** Byte offset of the frame's header in the scanned buffer. */
  offset: number;
  payload: Buffer;
}

export type Damage =
  | { kind: 'torn'; offset: number; bytes: number }
  | { kind: 'corrupt'; offset: number; reason: string; resumesAt: number };

export interface ScanResult {
  frames: Frame[];
  /** End of the last whole record before any damage: where a writer may append. */
  validEnd: number;
  damage?: Damage;
}

/** Whether a whole, checksummed frame starts at `offset`; its end offset if so. */
function wholeFrameAt(buf: Buffer, offset: number): number | undefined {
  if (buf.length - offset < FRAME_HEADER_BYTES) return undefined;
  const length = buf.readUInt32LE(offset);
  if (length < MIN_FRAME_PAYLOAD || length > MAX_FRAME_PAYLOAD || length > buf.length - offset - FRAME_HEADER_BYTES) return undefined;
  const start = offset + FRAME_HEADER_BYTES;
  return crc32(buf, start, start + length) === buf.readUInt32LE(offset + 4) ? start + length : undefined;
}

function whyBad(buf: Buffer, offset: number): string {
  if (buf.length - offset < FRAME_HEADER_BYTES) return 'a record header is cut short';
  const length = buf.readUInt32LE(offset);
  if (length < MIN_FRAME_PAYLOAD || length > MAX_FRAME_PAYLOAD) return `a record claims ${length} bytes`;
  if (length > buf.length - offset - FRAME_HEADER_BYTES) return `a record claims ${length} bytes but only ${buf.length - offset - FRAME_HEADER_BYTES} follow`;
  return 'a record fails its CRC-32 check';
}

/**
 * Reads frames from `start` until the end or the first damaged record. After damage it looks
 * for any whole frame further on: if there is one, the damage is corruption (reported with its
 * offset); if not, it is a torn tail.
 */
export function scanFrames(buf: Buffer, start = 0): ScanResult {
  const frames: Frame[] = [];
  let offset = start;
  while (offset < buf.length) {
    const end = wholeFrameAt(buf, offset);
    if (end === undefined) break;
    frames.push({ offset, payload: buf.subarray(offset + FRAME_HEADER_BYTES, end) });
    offset = end;
  }
  if (offset >= buf.length) return { frames, validEnd: offset };
  for (let probe = offset + 1; probe + FRAME_HEADER_BYTES <= buf.length; probe++) {
    if (wholeFrameAt(buf, probe) !== undefined) {
      return { frames, validEnd: offset, damage: { kind: 'corrupt', offset, reason: whyBad(buf, offset), resumesAt: probe } };
    }
  }
  return { frames, validEnd: offset, damage: { kind: 'torn', offset, bytes: buf.length - offset } };
}
