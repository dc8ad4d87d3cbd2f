/**
 * One client connection: bytes in, frames out. Frames are read from the socket's stream as they
 * complete; each is answered in order (the engine is synchronous, so one command runs at a time
 * across every connection). A frame that cannot be read (a bad length, an unknown opcode, BSON
 * that does not parse) closes this connection with a log line; no other connection notices.
 * What a connection holds is bounded: at most one frame of maxMessageSizeBytes is buffered.
 */
import type { Socket } from 'node:net';
import { BSON } from 'bson';
import type { Engine } from '../engine';
import { storableDocument } from '../engine/storage/values';
import { cloneValue } from '../engine/values/clone';
import type { Document } from '../engine/values/types';
import { errorReply, runWireCommand, type ConnectionState } from './commands';
import {
  FrameError,
  HEADER_BYTES,
  MAX_MESSAGE_BYTES,
  MSG_MORE_TO_COME,
  OP_COMPRESSED,
  OP_MSG,
  OP_QUERY,
  opMsgFrame,
  opReplyFrame,
  parseOpMsg,
  parseOpQuery,
  readHeader,
} from './protocol';

const DECODE = { promoteValues: false } as const;
/** bson serializes through an internal buffer of this size; a larger reply grows it first. */
const BSON_BUFFER_BYTES = 17 * 1024 * 1024;

export interface ConnectionOptions {
  /** The engine as it is now (a host may replace it; the connection stays). */
  engine: () => Engine;
  id: number;
  log: (line: string) => void;
  /** Called once the socket has closed, whatever closed it. */
  onClose: (connection: WireConnection) => void;
  /** Answers a command before the engine does (authentication); undefined lets it through. */
  intercept?: (connection: WireConnection, command: Document) => Document | undefined;
}

let nextResponseId = 1;

export class WireConnection implements ConnectionState {
  readonly id: number;
  readonly cursors = new Set<string>();
  /** Whether this connection has authenticated (always true on a server without auth). */
  authenticated = false;
  /** The engine this connection's cursors belong to. */
  private cursorEngine: Engine | undefined;
  private chunks: Buffer[] = [];
  private buffered = 0;
  private closed = false;

  constructor(
    readonly socket: Socket,
    private readonly options: ConnectionOptions,
  ) {
    this.id = options.id;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', () => this.close());
    socket.on('close', () => this.close());
  }

  get remote(): string {
    return `${this.socket.remoteAddress ?? '?'}:${this.socket.remotePort ?? '?'}`;
  }

  private receive(chunk: Buffer): void {
    if (this.closed) return;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    try {
      for (;;) {
        if (this.buffered < 4) return;
        const head = this.peek(4);
        const length = head.readInt32LE(0);
        if (length < HEADER_BYTES || length > MAX_MESSAGE_BYTES)
          throw new FrameError(
            `a message length of ${length} bytes (from ${HEADER_BYTES} to ${MAX_MESSAGE_BYTES} are allowed)`,
          );
        if (this.buffered < length) return;
        const frame = this.take(length);
        this.handle(frame);
        if (this.closed) return;
      }
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      this.options.log(`connection ${this.id} (${this.remote}) closed: ${why}`);
      this.close();
    }
  }

  private peek(n: number): Buffer {
    if (this.chunks[0].length < n) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0];
  }

  private take(n: number): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    const frame = all.subarray(0, n);
    const rest = all.subarray(n);
    this.chunks = rest.length ? [rest] : [];
    this.buffered = rest.length;
    return frame;
  }

  private handle(frame: Buffer): void {
    const header = readHeader(frame);
    if (header.opCode === OP_MSG) {
      const msg = parseOpMsg(frame);
      const command = this.decode(msg.body);
      for (const seq of msg.sequences) command[seq.identifier] = seq.documents.map((d) => this.decode(d));
      const reply = this.run(command);
      // moreToCome from the client: it wants no answer (w: 0 writes).
      if (msg.flags & MSG_MORE_TO_COME) return;
      this.write(opMsgFrame(encode(reply), nextResponseId++, header.requestID));
    } else if (header.opCode === OP_QUERY) {
      const query = parseOpQuery(frame);
      const reply = this.answerQuery(query.fullCollectionName, this.decode(query.query));
      this.write(opReplyFrame(encode(reply), nextResponseId++, header.requestID));
    } else if (header.opCode === OP_COMPRESSED) {
      throw new FrameError('OP_COMPRESSED, though the server offers no compressors in its hello');
    } else {
      throw new FrameError(`unknown opcode ${header.opCode}`);
    }
  }

  /** OP_QUERY carries only the handshake now: a command on `<db>.$cmd`, perhaps wrapped in $query. */
  private answerQuery(namespace: string, query: Document): Document {
    const dot = namespace.indexOf('.');
    if (dot < 0 || namespace.slice(dot + 1) !== '$cmd')
      return {
        ok: 0,
        errmsg: `Unsupported OP_QUERY on ${namespace}: OP_QUERY is only for the hello handshake; use OP_MSG (any current driver does).`,
        code: 352,
        codeName: 'UnsupportedOpQueryCommand',
      };
    const inner = query.$query !== undefined && typeof query.$query === 'object' ? (query.$query as Document) : query;
    return this.run({ ...inner, $db: namespace.slice(0, dot) });
  }

  private run(command: Document): Document {
    try {
      const intercepted = this.options.intercept?.(this, command);
      if (intercepted) return intercepted;
      return runWireCommand(this.engine(), this, command);
    } catch (err) {
      return errorReply(err);
    }
  }

  /**
   * The engine to run on. When the host replaced it (a reset), the cursors this connection held
   * died with the old one: their ids may be reused by the new engine's cursors of other connections.
   */
  private engine(): Engine {
    const engine = this.options.engine();
    if (engine !== this.cursorEngine) {
      this.cursors.clear();
      this.cursorEngine = engine;
    }
    return engine;
  }

  private decode(bytes: Buffer): Document {
    try {
      return cloneValue(BSON.deserialize(bytes, DECODE)) as Document;
    } catch (err) {
      throw new FrameError(`a BSON document that does not parse (${err instanceof Error ? err.message : String(err)})`);
    }
  }

  private write(parts: Buffer[]): void {
    if (this.closed) return;
    for (const part of parts) this.socket.write(part);
  }

  /** Closes the socket and kills the connection's cursors (they die with it, as on mongod). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.chunks = [];
    this.buffered = 0;
    if (this.cursors.size && this.cursorEngine === this.options.engine()) {
      try {
        this.cursorEngine.cursors.kill([...this.cursors].map((id) => BigInt(id)));
      } catch {
        // The engine is closing: its cursors go with it.
      }
      this.cursors.clear();
    }
    this.socket.destroy();
    this.options.onClose(this);
  }
}

function encode(reply: Document): Uint8Array {
  const doc = storableDocument(reply);
  const size = BSON.calculateObjectSize(doc);
  if (size > BSON_BUFFER_BYTES) BSON.setInternalBufferSize(size);
  return BSON.serialize(doc);
}
