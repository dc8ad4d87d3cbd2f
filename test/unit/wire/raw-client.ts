/**
 * A raw wire client for the tests: builds frames byte by byte (so they can be wrong on purpose) and
 * reads what the server sends back, frame by frame, with timeouts. No driver in between.
 */
import * as net from 'node:net';
import { BSON, type Document } from 'bson';

export const OP_REPLY = 1;
export const OP_QUERY = 2004;
export const OP_COMPRESSED = 2012;
export const OP_MSG = 2013;

export function header(length: number, requestID: number, responseTo: number, opCode: number): Buffer {
  const h = Buffer.alloc(16);
  h.writeInt32LE(length, 0);
  h.writeInt32LE(requestID, 4);
  h.writeInt32LE(responseTo, 8);
  h.writeInt32LE(opCode, 12);
  return h;
}

export interface MsgParts {
  requestID?: number;
  flags?: number;
  /** The body section's BSON (bytes, so it may be invalid). */
  body: Uint8Array;
  sequences?: Array<{ identifier: string; documents: Uint8Array[] }>;
  /** Append a CRC-32C checksum (and set flag bit 0). */
  checksum?: boolean;
}

/** An OP_MSG frame with a correct length (and checksum when asked for). */
export function opMsg(parts: MsgParts): Buffer {
  const sections: Buffer[] = [Buffer.from([0]), Buffer.from(parts.body)];
  for (const seq of parts.sequences ?? []) {
    const name = Buffer.from(`${seq.identifier}\0`, 'utf8');
    const docs = Buffer.concat(seq.documents.map((d) => Buffer.from(d)));
    const size = Buffer.alloc(4);
    size.writeInt32LE(4 + name.length + docs.length, 0);
    sections.push(Buffer.from([1]), size, name, docs);
  }
  const flags = Buffer.alloc(4);
  flags.writeUInt32LE(((parts.flags ?? 0) | (parts.checksum ? 1 : 0)) >>> 0, 0);
  const rest = Buffer.concat([flags, ...sections]);
  const length = 16 + rest.length + (parts.checksum ? 4 : 0);
  const frame = Buffer.concat([header(length, parts.requestID ?? 1, 0, OP_MSG), rest]);
  if (!parts.checksum) return frame;
  const sum = Buffer.alloc(4);
  sum.writeUInt32LE(crc32c(frame), 0);
  return Buffer.concat([frame, sum]);
}

/** An OP_QUERY frame (the legacy handshake). */
export function opQuery(namespace: string, query: Uint8Array, requestID = 1, flags = 0): Buffer {
  const fields = Buffer.alloc(4);
  fields.writeInt32LE(flags, 0);
  const ns = Buffer.from(`${namespace}\0`, 'utf8');
  const skipReturn = Buffer.alloc(8);
  skipReturn.writeInt32LE(0, 0);
  skipReturn.writeInt32LE(-1, 4);
  const rest = Buffer.concat([fields, ns, skipReturn, Buffer.from(query)]);
  return Buffer.concat([header(16 + rest.length, requestID, 0, OP_QUERY), rest]);
}

export function bson(doc: Document): Buffer {
  return Buffer.from(BSON.serialize(doc));
}

export interface Reply {
  requestID: number;
  responseTo: number;
  opCode: number;
  flags: number;
  doc: Document;
}

/** Regexes as BSONRegExp: a stored PCRE pattern need not compile as a JS RegExp. */
const READ = { bsonRegExp: true } as const;

/** A frame the server sent, read: OP_MSG (one body section) or OP_REPLY (one document). */
export function parseReply(frame: Buffer): Reply {
  const opCode = frame.readInt32LE(12);
  const base = { requestID: frame.readInt32LE(4), responseTo: frame.readInt32LE(8), opCode };
  if (opCode === OP_MSG) {
    if (frame[20] !== 0) throw new Error(`reply section kind ${frame[20]}`);
    if (21 + frame.readInt32LE(21) !== frame.length) throw new Error('the reply body does not fill the frame');
    return { ...base, flags: frame.readUInt32LE(16), doc: BSON.deserialize(frame.subarray(21), READ) };
  }
  if (opCode === OP_REPLY) {
    if (frame.readInt32LE(32) !== 1) throw new Error(`OP_REPLY numberReturned ${frame.readInt32LE(32)}`);
    return { ...base, flags: frame.readInt32LE(16), doc: BSON.deserialize(frame.subarray(36), READ) };
  }
  throw new Error(`the server sent opcode ${opCode}`);
}

/** A socket with its incoming frames collected as they complete. */
export class RawClient {
  readonly replies: Reply[] = [];
  closed = false;
  /** Bytes the server sent that are not (yet) a whole frame, or a reply that did not parse. */
  error: string | undefined;
  private pending: Buffer = Buffer.alloc(0);
  private waiters: Array<() => void> = [];

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
      while (this.pending.length >= 4) {
        const length = this.pending.readInt32LE(0);
        if (length < 16) {
          this.error = `the server sent a frame length of ${length}`;
          break;
        }
        if (this.pending.length < length) break;
        try {
          this.replies.push(parseReply(this.pending.subarray(0, length)));
        } catch (err) {
          this.error = `a reply that does not parse: ${(err as Error).message}`;
        }
        this.pending = this.pending.subarray(length);
      }
      this.wake();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
  }

  static connect(port: number): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.setNoDelay(true);
      socket.once('connect', () => resolve(new RawClient(socket)));
      socket.once('error', reject);
    });
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** Resolves true when `done()` holds (checked on every event), false after `ms`. */
  until(done: () => boolean, ms: number): Promise<boolean> {
    if (done()) return Promise.resolve(true);
    return new Promise((resolve) => {
      // At the deadline, one more turn through the poll phase before giving up: after a stalled
      // turn Node runs expired timers before it reads the sockets, so a reply that arrived in time
      // may still be unread.
      const timer = setTimeout(() => setImmediate(() => resolve(done())), ms);
      const check = () => {
        if (done()) {
          clearTimeout(timer);
          resolve(true);
        } else this.waiters.push(check);
      };
      this.waiters.push(check);
    });
  }

  /** Sends, and resolves the first reply to `requestID` (or rejects after `ms`). */
  async request(frame: Buffer, ms = 5000): Promise<Reply> {
    const requestID = frame.readInt32LE(4);
    const start = this.replies.length;
    this.socket.write(frame);
    const find = () => this.replies.slice(start).find((r) => r.responseTo === requestID);
    if (!(await this.until(() => find() !== undefined || this.closed, ms)) || !find())
      throw new Error(`no reply to request ${requestID} within ${ms} ms${this.closed ? ' (closed)' : ''}`);
    return find()!;
  }

  destroy(): void {
    this.socket.destroy();
  }
}

let crcTable: Uint32Array | undefined;

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
