/**
 * One client connection: bytes in, frames out. Frames are read from the socket's stream as they
 * complete; each is answered in order (the engine is synchronous, so one command runs at a time
 * across every connection). A frame that cannot be read (a bad length, an unknown opcode, BSON
 * that does not parse) closes this connection with a log line; no other connection notices.
 * What a connection holds is bounded: at most one frame of maxMessageSizeBytes is buffered, and
 * once WRITE_HIGH_WATER bytes of replies wait for a client that does not read them, nothing more
 * is read from it until they drain.
 */
import type { Socket } from 'node:net';
import { BSON, Int32, Long, ObjectId } from 'bson';
import type { Engine } from '../engine';
import { EngineError } from '../engine/errors';
import { MAX_BSON_DEPTH } from '../engine/values/depth';
import { storableDocument } from '../engine/storage/values';
import { bsonDocumentSize } from '../engine/values/bson-size';
import type { Document } from '../engine/values/types';
import { errorReply, runWireCommand, type ConnectionState } from './commands';
import type { CursorOwners } from './cursor-owners';
import { decodeDocument } from './decode';
import {
  bsonNestsDeeperThan,
  FrameError,
  HEADER_BYTES,
  MAX_MESSAGE_BYTES,
  MSG_EXHAUST_ALLOWED,
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

/** Bytes of replies waiting for a client to read them past which its connection stops reading. */
export const WRITE_HIGH_WATER = 4 * 1024 * 1024;
/** bson serializes through an internal buffer of this size; a larger reply grows it first. */
const BSON_BUFFER_BYTES = 17 * 1024 * 1024;

export interface ConnectionOptions {
  /** The engine as it is now (a host may replace it; the connection stays). */
  engine: () => Engine;
  /** Who may continue which cursor, for all of the server's connections. */
  owners: CursorOwners;
  /** The address the server listens on (getCmdLineOpts, hostInfo). */
  server?: { host: string; port: number };
  id: number;
  log: (line: string) => void;
  /** Called once the socket has closed, whatever closed it. */
  onClose: (connection: WireConnection) => void;
  /** Answers a command before the engine does (authentication); undefined lets it through. */
  intercept?: (connection: WireConnection, command: Document) => Document | undefined;
}

let nextResponseId = 0;

/** The requestID of a message the server sends: positive int32s, wrapping around. */
function responseId(): number {
  nextResponseId = (nextResponseId % 0x7fffffff) + 1;
  return nextResponseId;
}

const HELLO_COMMANDS = new Set(['hello', 'isMaster', 'ismaster']);
/** setTimeout's longest delay. */
const MAX_TIMER_MS = 0x7fffffff;

/**
 * How long to hold an awaitable hello's answer, in ms: its maxAwaitTimeMS when it carries the
 * topologyVersion this server reports (the topology it knows is current); undefined to answer now
 * (not a hello, not awaitable, an error, or another server's topologyVersion).
 */
function awaitableHelloWait(command: Document, reply: Document): number | undefined {
  const name = Object.keys(command)[0];
  if (name === undefined || !HELLO_COMMANDS.has(name) || reply.ok !== 1) return undefined;
  const wait = command.maxAwaitTimeMS;
  const theirs = command.topologyVersion as Document | undefined;
  const ours = reply.topologyVersion as Document | undefined;
  const ms = wait instanceof Int32 || wait instanceof Long ? Number(wait) : wait;
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0 || !theirs || !ours) return undefined;
  const same =
    theirs.processId instanceof ObjectId &&
    ours.processId instanceof ObjectId &&
    theirs.processId.equals(ours.processId) &&
    String(theirs.counter) === String(ours.counter);
  return same ? Math.min(Math.floor(ms), MAX_TIMER_MS) : undefined;
}

/** How long to hold a change stream getMore that found nothing, in ms; undefined to answer now. */
function changeStreamWait(engine: Engine, command: Document, reply: Document): number | undefined {
  const streams = engine.replication?.changeStreams;
  if (!streams || reply.ok !== 1 || Object.keys(command)[0] !== 'getMore') return undefined;
  const cursor = reply.cursor as Document | undefined;
  const batch = cursor?.nextBatch as unknown[] | undefined;
  if (!batch || batch.length > 0 || !streams.isStream(command.getMore)) return undefined;
  const max = command.maxTimeMS;
  const ms = max instanceof Int32 || max instanceof Long ? Number(max) : typeof max === 'number' ? max : 1000;
  return Math.min(Math.max(0, Math.floor(ms)), MAX_TIMER_MS);
}

export class WireConnection implements ConnectionState {
  readonly id: number;
  readonly owners: CursorOwners;
  /** Whether this connection has authenticated; only a server started with auth (auth.ts) reads it. */
  authenticated = false;
  /** Whether a hello has carried this connection's client metadata (a second one is refused). */
  clientMetadataSent = false;
  private chunks: Buffer[] = [];
  private buffered = 0;
  private closed = false;
  /** An awaitable hello's answer, due later: no other frame is read until it is sent. */
  private waiting: NodeJS.Timeout | undefined;
  /** Replies wait for the client to read them: nothing more is read until they drain. */
  private paused = false;
  /** The awaited hello is an exhaust stream (its answers go on until the client speaks or leaves). */
  private streaming = false;

  constructor(
    readonly socket: Socket,
    private readonly options: ConnectionOptions,
  ) {
    this.id = options.id;
    this.owners = options.owners;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', () => this.close());
    socket.on('close', () => this.close());
  }

  get server(): { host: string; port: number } | undefined {
    return this.options.server;
  }

  get remote(): string {
    return `${this.socket.remoteAddress ?? '?'}:${this.socket.remotePort ?? '?'}`;
  }

  private receive(chunk: Buffer): void {
    if (this.closed) return;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    // A client that speaks while its hello is streamed to it wants the stream to end.
    if (this.streaming) this.stopWaiting();
    this.process();
  }

  /** Answers the complete frames buffered, in order, unless an awaitable hello holds the connection. */
  private process(): void {
    try {
      while (!this.closed && !this.waiting && !this.paused) {
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
      const deep = tooDeep(msg.body, ...msg.sequences.flatMap((q) => q.documents));
      if (deep) {
        if (!(msg.flags & MSG_MORE_TO_COME))
          this.write(opMsgFrame(encode(errorReply(deep)), responseId(), header.requestID));
        return;
      }
      const command = this.decode(msg.body);
      const clash = sequenceClash(command, msg.sequences);
      for (const seq of msg.sequences)
        // Defined, not assigned: an identifier "__proto__" is a field like any other.
        Object.defineProperty(command, seq.identifier, {
          value: seq.documents.map((d) => this.decode(d)),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      const reply = clash ? errorReply(clash) : this.run(command);
      // moreToCome from the client: it wants no answer (w: 0 writes).
      if (msg.flags & MSG_MORE_TO_COME) return;
      const streamWait = changeStreamWait(this.engine(), command, reply);
      if (streamWait !== undefined) {
        this.awaitChanges(command, header.requestID, streamWait);
        return;
      }
      const wait = awaitableHelloWait(command, reply);
      if (wait !== undefined) {
        this.awaitHello(command, header.requestID, wait, (msg.flags & MSG_EXHAUST_ALLOWED) !== 0);
        return;
      }
      this.write(opMsgFrame(encode(reply), responseId(), header.requestID));
    } else if (header.opCode === OP_QUERY) {
      const query = parseOpQuery(frame);
      const deep = tooDeep(query.query);
      const reply = deep ? errorReply(deep) : this.answerQuery(query.fullCollectionName, this.decode(query.query));
      this.write(opReplyFrame(encode(reply), responseId(), header.requestID));
    } else if (header.opCode === OP_COMPRESSED) {
      throw new FrameError('OP_COMPRESSED, though the server offers no compressors in its hello');
    } else {
      throw new FrameError(`unknown opcode ${header.opCode}`);
    }
  }

  /**
   * OP_QUERY carries only the handshake now, as on mongod 5.1 and later: hello or isMaster on
   * `<db>.$cmd`, perhaps wrapped in $query. Anything else is refused (352).
   */
  private answerQuery(namespace: string, query: Document): Document {
    const dot = namespace.indexOf('.');
    const inner =
      query.$query !== null && typeof query.$query === 'object' && !Array.isArray(query.$query)
        ? (query.$query as Document)
        : query;
    const name = Object.keys(inner)[0];
    if (dot < 0 || namespace.slice(dot + 1) !== '$cmd' || name === undefined || !HELLO_COMMANDS.has(name))
      return {
        ok: 0,
        errmsg: `Unsupported OP_QUERY ${dot < 0 || namespace.slice(dot + 1) !== '$cmd' ? `on ${namespace}` : `command: ${name ?? '(none)'}`}. OP_QUERY is only for the hello handshake: use OP_MSG (any current driver does).`,
        code: 352,
        codeName: 'UnsupportedOpQueryCommand',
      };
    return this.run({ ...inner, $db: namespace.slice(0, dot) });
  }

  /**
   * An awaitable hello (a driver monitor's, with topologyVersion and maxAwaitTimeMS): mongod
   * answers it when its topology changes or maxAwaitTimeMS has passed. This server's topology never
   * changes, so the answer comes after maxAwaitTimeMS; meanwhile the connection reads nothing
   * else. With exhaustAllowed the answer has moreToCome set and another follows every
   * maxAwaitTimeMS (each responding to the one before), which is the drivers' streaming monitor:
   * it fails a heartbeat when such a stream ends.
   */
  private awaitHello(command: Document, responseTo: number, waitMs: number, exhaust: boolean): void {
    this.streaming = exhaust;
    // Frames sent meanwhile wait in the socket (a stream is ended by the client's next frame, so
    // that one is read).
    if (!exhaust) this.socket.pause();
    this.waiting = setTimeout(() => {
      this.waiting = undefined;
      if (this.closed) return;
      const id = responseId();
      this.write(opMsgFrame(encode(this.run(command)), id, responseTo, exhaust));
      if (exhaust && !this.closed) this.awaitHello(command, id, waitMs, true);
      else {
        this.streaming = false;
        this.resumeReading();
        this.process();
      }
    }, waitMs);
  }

  /**
   * A change stream's getMore that found no event: mongod holds it (an awaitData cursor) until a
   * change arrives or its maxTimeMS (1 second without one) has passed, then answers. Meanwhile
   * this connection reads nothing else; the driver's other operations use other connections.
   */
  private awaitChanges(command: Document, responseTo: number, waitMs: number): void {
    this.socket.pause();
    const oplog = this.engine().replication?.oplog;
    const answer = () => {
      if (!this.waiting) {
        unsubscribe?.(); // the connection closed meanwhile
        return;
      }
      clearTimeout(this.waiting);
      this.waiting = undefined;
      unsubscribe?.();
      if (this.closed) return;
      this.write(opMsgFrame(encode(this.run(command)), responseId(), responseTo));
      this.resumeReading();
      this.process();
    };
    this.waiting = setTimeout(answer, waitMs);
    // After the write's command has finished, so the batch holds all of its changes.
    const unsubscribe = oplog?.onAppend(() => setImmediate(answer));
  }

  /** Reads from the socket again, unless replies still wait for the client or a hello is awaited. */
  private resumeReading(): void {
    if (!this.closed && !this.paused && (!this.waiting || this.streaming)) this.socket.resume();
  }

  private stopWaiting(): void {
    if (this.waiting) clearTimeout(this.waiting);
    this.waiting = undefined;
    this.streaming = false;
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

  /** The engine to run on (a host may have replaced it; cursor-owners.ts forgets the old one's cursors). */
  private engine(): Engine {
    return this.options.engine();
  }

  private decode(bytes: Buffer): Document {
    try {
      return decodeDocument(bytes);
    } catch (err) {
      throw new FrameError(`a BSON document that does not parse (${err instanceof Error ? err.message : String(err)})`);
    }
  }

  private write(parts: Buffer[]): void {
    if (this.closed) return;
    // Corked, the frame's parts leave in one writev: three writes were three system calls, a
    // fifth of what a point read cost the server.
    this.socket.cork();
    for (const part of parts) this.socket.write(part);
    this.socket.uncork();
    // Back-pressure: a client that sends without reading its replies gets no more read from it
    // until they drain, so what waits for it stays under WRITE_HIGH_WATER plus one reply.
    if (!this.paused && this.socket.writableLength > WRITE_HIGH_WATER) {
      this.paused = true;
      this.socket.pause();
      this.socket.once('drain', () => {
        this.paused = false;
        if (this.closed) return;
        this.resumeReading();
        this.process();
      });
    }
  }

  /** Closes the socket and kills the cursors the connection opened without a session. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.stopWaiting();
    this.chunks = [];
    this.buffered = 0;
    this.owners.connectionClosed(this.id);
    this.socket.destroy();
    this.options.onClose(this);
  }
}

/**
 * Levels of nesting past which a document is refused before it is decoded: far more than any
 * command may nest (the engine refuses past 200 levels, with the same error), and far fewer than
 * would overflow the stack while decoding.
 */
const MAX_DECODED_DEPTH = 1000;

function tooDeep(...docs: Buffer[]): EngineError | undefined {
  for (const doc of docs)
    if (bsonNestsDeeperThan(doc, MAX_DECODED_DEPTH))
      return new EngineError(
        'Overflow',
        `The command nests more than ${MAX_BSON_DEPTH} levels of embedded documents and arrays below its top level, the most MongoDB reads (maxBSONDepth): this one nests more than ${MAX_DECODED_DEPTH}.`,
      );
  return undefined;
}

/**
 * mongod's checks of an OP_MSG's document sequences: an identifier given twice (40431), or also a
 * field of the body (40433). The frame is well formed, so this is an error reply.
 */
function sequenceClash(body: Document, sequences: Array<{ identifier: string }>): EngineError | undefined {
  const seen = new Set<string>();
  for (const { identifier } of sequences) {
    if (seen.has(identifier)) return new EngineError(40431, `Duplicate document sequence: ${identifier}`);
    seen.add(identifier);
    if (inBody(body, identifier))
      return new EngineError(40433, `Duplicate field between body and document sequence ${identifier}`);
  }
  return undefined;
}

/** Whether the dotted path reaches a value in the body, or an array on the way (as mongod reads it). */
function inBody(body: Document, path: string): boolean {
  let at: unknown = body;
  for (const part of path.split('.')) {
    if (Array.isArray(at)) return true;
    if (at === null || typeof at !== 'object' || !Object.prototype.hasOwnProperty.call(at, part)) return false;
    at = (at as Document)[part];
  }
  return true;
}

function encode(reply: Document): Uint8Array {
  // bsonDocumentSize measures the reply as storableDocument writes it, at a fraction of
  // calculateObjectSize's cost (which was half of what encoding a 10,000-document batch cost).
  const size = bsonDocumentSize(reply);
  if (size > BSON_BUFFER_BYTES) BSON.setInternalBufferSize(size);
  return BSON.serialize(storableDocument(reply));
}
