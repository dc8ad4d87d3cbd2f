/**
 * The MongoDB wire protocol's frames, as bytes: the 16-byte header, OP_MSG (a body section and
 * document-sequence sections, flag bits, an optional CRC-32C checksum), the legacy OP_QUERY that
 * drivers still send for their first `hello`, and the OP_REPLY that answers it. Parsing never
 * trusts a length: every read is checked against the frame, and a malformed frame is a
 * `FrameError` (the connection closes; nothing else is affected). BSON documents stay bytes here;
 * connection.ts decodes them.
 */

export const OP_REPLY = 1;
export const OP_QUERY = 2004;
export const OP_COMPRESSED = 2012;
export const OP_MSG = 2013;

export const HEADER_BYTES = 16;
/** mongod's limit for one message (hello's maxMessageSizeBytes). */
export const MAX_MESSAGE_BYTES = 48_000_000;

export const MSG_CHECKSUM_PRESENT = 1 << 0;
export const MSG_MORE_TO_COME = 1 << 1;
export const MSG_EXHAUST_ALLOWED = 1 << 16;
/** Bits 0-15 are "required": a receiver must refuse a message with one it does not know. */
const KNOWN_REQUIRED_BITS = MSG_CHECKSUM_PRESENT | MSG_MORE_TO_COME;

/** A frame that cannot be read: the connection that sent it is closed. */
export class FrameError extends Error {}

export interface Header {
  messageLength: number;
  requestID: number;
  responseTo: number;
  opCode: number;
}

export function readHeader(buf: Buffer): Header {
  return {
    messageLength: buf.readInt32LE(0),
    requestID: buf.readInt32LE(4),
    responseTo: buf.readInt32LE(8),
    opCode: buf.readInt32LE(12),
  };
}

/** A parsed OP_MSG: its body document and its document sequences (still BSON bytes). */
export interface OpMsg {
  flags: number;
  body: Buffer;
  sequences: Array<{ identifier: string; documents: Buffer[] }>;
}

/** A parsed OP_QUERY: only commands (`<db>.$cmd`) are answered. */
export interface OpQuery {
  flags: number;
  fullCollectionName: string;
  numberToSkip: number;
  numberToReturn: number;
  query: Buffer;
}

/** The BSON document starting at `offset`, checked to lie inside `end`. */
function bsonAt(frame: Buffer, offset: number, end: number, what: string): Buffer {
  if (offset + 5 > end) throw new FrameError(`${what}: truncated before its BSON document`);
  const size = frame.readInt32LE(offset);
  if (size < 5 || offset + size > end) throw new FrameError(`${what}: a BSON document of ${size} bytes does not fit`);
  if (frame[offset + size - 1] !== 0) throw new FrameError(`${what}: a BSON document does not end with 0`);
  return frame.subarray(offset, offset + size);
}

function cstringAt(frame: Buffer, offset: number, end: number, what: string): { text: string; next: number } {
  const zero = frame.indexOf(0, offset);
  if (zero < 0 || zero >= end) throw new FrameError(`${what}: an unterminated name`);
  return { text: frame.toString('utf8', offset, zero), next: zero + 1 };
}

export function parseOpMsg(frame: Buffer): OpMsg {
  if (frame.length < HEADER_BYTES + 5) throw new FrameError('OP_MSG: too short');
  const flags = frame.readUInt32LE(HEADER_BYTES);
  const unknown = flags & 0xffff & ~KNOWN_REQUIRED_BITS;
  if (unknown) throw new FrameError(`OP_MSG: unknown required flag bits 0x${unknown.toString(16)}`);
  let end = frame.length;
  if (flags & MSG_CHECKSUM_PRESENT) {
    end -= 4;
    if (end < HEADER_BYTES + 4) throw new FrameError('OP_MSG: too short for its checksum');
    const expected = frame.readUInt32LE(end);
    if (crc32c(frame.subarray(0, end)) !== expected) throw new FrameError('OP_MSG: checksum mismatch');
  }
  let offset = HEADER_BYTES + 4;
  let body: Buffer | undefined;
  const sequences: OpMsg['sequences'] = [];
  while (offset < end) {
    const kind = frame[offset++];
    if (kind === 0) {
      if (body) throw new FrameError('OP_MSG: two body sections');
      body = bsonAt(frame, offset, end, 'OP_MSG body');
      offset += body.length;
    } else if (kind === 1) {
      if (offset + 4 > end) throw new FrameError('OP_MSG: truncated document sequence');
      const size = frame.readInt32LE(offset);
      const seqEnd = offset + size;
      if (size < 5 || seqEnd > end) throw new FrameError(`OP_MSG: a document sequence of ${size} bytes does not fit`);
      const name = cstringAt(frame, offset + 4, seqEnd, 'OP_MSG document sequence');
      const documents: Buffer[] = [];
      let at = name.next;
      while (at < seqEnd) {
        const doc = bsonAt(frame, at, seqEnd, `OP_MSG sequence ${name.text}`);
        documents.push(doc);
        at += doc.length;
      }
      sequences.push({ identifier: name.text, documents });
      offset = seqEnd;
    } else {
      throw new FrameError(`OP_MSG: unknown section kind ${kind}`);
    }
  }
  if (!body) throw new FrameError('OP_MSG: no body section');
  return { flags, body, sequences };
}

export function parseOpQuery(frame: Buffer): OpQuery {
  let offset = HEADER_BYTES;
  if (frame.length < offset + 4) throw new FrameError('OP_QUERY: too short');
  const flags = frame.readInt32LE(offset);
  const name = cstringAt(frame, offset + 4, frame.length, 'OP_QUERY');
  offset = name.next;
  if (frame.length < offset + 8) throw new FrameError('OP_QUERY: truncated');
  const numberToSkip = frame.readInt32LE(offset);
  const numberToReturn = frame.readInt32LE(offset + 4);
  const query = bsonAt(frame, offset + 8, frame.length, 'OP_QUERY query');
  return { flags, fullCollectionName: name.text, numberToSkip, numberToReturn, query };
}

/**
 * Whether the BSON document `doc` nests deeper than `limit` levels of documents and arrays (the
 * document itself is level 1), measured on the bytes without recursion: deserializing a document
 * nested tens of thousands of levels overflows the stack after half a second of work. A document
 * takes at least 7 bytes per level, so a smaller one is not walked at all. Bytes that are not BSON
 * answer false (the decoder reports them).
 */
export function bsonNestsDeeperThan(doc: Buffer, limit: number): boolean {
  if (doc.length < 7 * limit) return false;
  const ends: number[] = [doc.length - 1];
  let p = 4;
  while (ends.length) {
    const end = ends[ends.length - 1];
    if (p >= end) {
      ends.pop();
      p = end + 1;
      continue;
    }
    const type = doc[p];
    const keyEnd = doc.indexOf(0, p + 1);
    if (keyEnd < 0 || keyEnd >= end) return false;
    const v = keyEnd + 1;
    if (type === 3 || type === 4 || type === 15) {
      // A document, an array, or a code's scope: one level down.
      let at = v;
      if (type === 15) {
        if (v + 8 > end) return false;
        at = v + 8 + doc.readInt32LE(v + 4);
      }
      if (at + 5 > end) return false;
      const size = doc.readInt32LE(at);
      if (size < 5 || at + size > end) return false;
      if (ends.length + 1 > limit) return true;
      ends.push(at + size - 1);
      p = at + 4;
      continue;
    }
    const size = fixedSize(type, doc, v, end);
    if (size < 0 || v + size > end) return false;
    p = v + size;
  }
  return false;
}

/** The bytes of a value of a type that does not nest, or -1 for a type or size that is not BSON. */
function fixedSize(type: number, doc: Buffer, v: number, end: number): number {
  switch (type) {
    case 1:
    case 9:
    case 17:
    case 18:
      return 8;
    case 2:
    case 13:
    case 14:
      return v + 4 <= end ? 4 + doc.readInt32LE(v) : -1;
    case 5:
      return v + 4 <= end ? 5 + doc.readInt32LE(v) : -1;
    case 6:
    case 10:
    case 0x7f:
    case 0xff:
      return 0;
    case 7:
      return 12;
    case 8:
      return 1;
    case 11: {
      const a = doc.indexOf(0, v);
      const b = a < 0 ? -1 : doc.indexOf(0, a + 1);
      return b < 0 ? -1 : b + 1 - v;
    }
    case 12:
      return v + 4 <= end ? 4 + doc.readInt32LE(v) + 12 : -1;
    case 16:
      return 4;
    case 19:
      return 16;
    default:
      return -1;
  }
}

function header(length: number, requestID: number, responseTo: number, opCode: number): Buffer {
  const h = Buffer.allocUnsafe(HEADER_BYTES);
  h.writeInt32LE(length, 0);
  h.writeInt32LE(requestID, 4);
  h.writeInt32LE(responseTo, 8);
  h.writeInt32LE(opCode, 12);
  return h;
}

/** An OP_MSG reply with one body section (`moreToCome` set for an exhaust cursor's non-final replies). */
export function opMsgFrame(body: Uint8Array, requestID: number, responseTo: number, moreToCome = false): Buffer[] {
  const flagsAndKind = Buffer.allocUnsafe(5);
  flagsAndKind.writeUInt32LE(moreToCome ? MSG_MORE_TO_COME : 0, 0);
  flagsAndKind[4] = 0;
  const length = HEADER_BYTES + 5 + body.length;
  return [
    header(length, requestID, responseTo, OP_MSG),
    flagsAndKind,
    Buffer.from(body.buffer, body.byteOffset, body.length),
  ];
}

/** An OP_REPLY with one document (the answer to an OP_QUERY command). */
export function opReplyFrame(doc: Uint8Array, requestID: number, responseTo: number): Buffer[] {
  const fields = Buffer.alloc(20);
  fields.writeInt32LE(8, 0); // responseFlags: AwaitCapable, as mongod sets it
  // cursorID (8 bytes) 0, startingFrom 0
  fields.writeInt32LE(1, 16); // numberReturned
  const length = HEADER_BYTES + 20 + doc.length;
  return [header(length, requestID, responseTo, OP_REPLY), fields, Buffer.from(doc.buffer, doc.byteOffset, doc.length)];
}

let crcTable: Uint32Array | undefined;

/** CRC-32C (Castagnoli), the OP_MSG checksum. */
export function crc32c(bytes: Uint8Array): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let i = 0; i < 256; i++) {
      let c = i;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
      crcTable[i] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) crc = crcTable[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
