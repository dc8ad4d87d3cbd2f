/**
 * Change streams: `aggregate` whose first stage is `$changeStream`, on a collection, a database
 * (`aggregate: 1`) or the deployment (`aggregate: 1` on admin with `allChangesForCluster: true`),
 * and the getMores that continue them. A stream is a position in the oplog: each batch turns the
 * entries since then into events, runs the rest of the pipeline over them, and moves on. Its
 * cursors live here, in an id range of their own; an empty batch is what the wire endpoint
 * holds until a change arrives or maxAwaitTimeMS passes.
 */
import { Long, type Timestamp } from 'bson';
import type { EngineContext } from '../engine-context';
import { fail } from '../errors';
import { runPipeline } from '../query/aggregate';
import type { Document } from '../values/types';
import { changeEventOf, invalidateEventOf } from './change-events';
import type { Oplog, OplogEntry } from './oplog';
import { decodeToken, encodeToken, type TokenPosition } from './resume-token';

/** Stages mongod allows after $changeStream. */
const ALLOWED_STAGES = new Set([
  '$match',
  '$project',
  '$addFields',
  '$set',
  '$unset',
  '$replaceRoot',
  '$replaceWith',
  '$redact',
  '$changeStreamSplitLargeEvent',
]);
const KNOWN_OPTIONS = new Set([
  'fullDocument',
  'fullDocumentBeforeChange',
  'resumeAfter',
  'startAfter',
  'startAtOperationTime',
  'allChangesForCluster',
  'showExpandedEvents',
  'showSystemEvents',
  'showMigrationEvents',
  'showRawUpdateDescription',
]);
const INTERNAL_DBS = new Set(['admin', 'config', 'local']);

interface Stream {
  /** "db.coll" of a collection stream, "db" of a database stream, "" for the deployment. */
  readonly scope: { db?: string; coll?: string };
  readonly ns: string;
  /** The next oplog entry to read. */
  next: number;
  readonly fullDocument: string;
  readonly fullDocumentBeforeChange: string;
  readonly pipeline: Document[];
  /** The stream saw what ends it: its invalidate event has been sent. */
  invalidated: boolean;
}

export class ChangeStreams {
  private readonly streams = new Map<string, Stream>();
  private nextId = (1n << 53n) + 1n;

  constructor(
    private readonly engine: EngineContext,
    private readonly oplog: Oplog,
  ) {}

  /** The reply when `command` opens or continues a change stream; undefined when it is not one. */
  tryRun(dbName: string, command: Document): Document | undefined {
    const name = Object.keys(command)[0];
    if (name === 'aggregate') {
      const pipeline = command.pipeline;
      const first = Array.isArray(pipeline) ? (pipeline[0] as Document | undefined) : undefined;
      if (!first || typeof first !== 'object' || !Object.hasOwn(first, '$changeStream')) return undefined;
      return this.open(dbName, command, pipeline as Document[]);
    }
    if (name === 'getMore') {
      const stream = this.streams.get(String(command.getMore));
      if (!stream) return undefined;
      return this.getMore(String(command.getMore), stream, command);
    }
    if (name === 'killCursors') {
      const ids = Array.isArray(command.cursors) ? (command.cursors as unknown[]) : [];
      if (ids.length === 0 || !ids.every((id) => this.streams.has(String(id)))) return undefined;
      for (const id of ids) this.streams.delete(String(id));
      return { cursorsKilled: ids, cursorsNotFound: [], cursorsAlive: [], cursorsUnknown: [], ok: 1 };
    }
    return undefined;
  }

  /** Whether `id` is an open change stream cursor (the wire awaits its empty batches). */
  isStream(id: unknown): boolean {
    return this.streams.has(String(id));
  }

  /** How many streams are open. */
  get count(): number {
    return this.streams.size;
  }

  private open(dbName: string, command: Document, pipeline: Document[]): Document {
    const spec = pipeline[0].$changeStream;
    if (spec === null || typeof spec !== 'object' || Array.isArray(spec))
      fail(50808, '$changeStream stage expects a document as argument: {$changeStream: {}}.');
    const options = spec as Document;
    for (const key of Object.keys(options))
      if (!KNOWN_OPTIONS.has(key))
        fail(
          40415,
          `BSON field '$changeStream.${key}' is an unknown field. Valid options: ${[...KNOWN_OPTIONS].join(', ')}.`,
        );
    const target = command.aggregate;
    const cluster = options.allChangesForCluster === true;
    let scope: Stream['scope'];
    if (typeof target === 'string') {
      if (INTERNAL_DBS.has(dbName))
        fail(
          'InvalidNamespace',
          `$changeStream may not be opened on the internal ${dbName} database: watch a database of your own.`,
        );
      scope = { db: dbName, coll: target };
    } else if (target === 1 || (target as { valueOf?: () => unknown })?.valueOf?.() === 1) {
      if (cluster) {
        if (dbName !== 'admin')
          fail(
            'InvalidOptions',
            "A change stream for the whole deployment must be opened on the 'admin' database with allChangesForCluster: true (client.watch()).",
          );
        scope = {};
      } else {
        if (INTERNAL_DBS.has(dbName))
          fail(
            'InvalidNamespace',
            `$changeStream may not be opened on the internal ${dbName} database: use allChangesForCluster on admin to watch the deployment.`,
          );
        scope = { db: dbName };
      }
    } else {
      fail('TypeMismatch', 'aggregate must name a collection, or be 1 for a database or deployment stream.');
    }
    if (cluster && typeof target === 'string')
      fail('InvalidOptions', 'allChangesForCluster needs aggregate: 1 on the admin database.');
    for (const stage of pipeline.slice(1)) {
      const stageName = stage && typeof stage === 'object' ? Object.keys(stage)[0] : String(stage);
      if (!ALLOWED_STAGES.has(stageName))
        fail(
          'IllegalOperation',
          `${stageName} is not permitted in a $changeStream pipeline: only $match, $project, $addFields, $set, $unset, $replaceRoot, $replaceWith and $redact may follow it.`,
        );
    }
    const fullDocument = enumOption(
      options.fullDocument,
      'fullDocument',
      ['default', 'updateLookup', 'whenAvailable', 'required'],
      'default',
    );
    const fullDocumentBeforeChange = enumOption(
      options.fullDocumentBeforeChange,
      'fullDocumentBeforeChange',
      ['off', 'whenAvailable', 'required'],
      'off',
    );
    const start = this.startOf(options);
    const stream: Stream = {
      scope,
      ns: scope.coll !== undefined ? `${scope.db}.${scope.coll}` : `${scope.db ?? 'admin'}.$cmd.aggregate`,
      next: start,
      fullDocument,
      fullDocumentBeforeChange,
      pipeline: pipeline.slice(1),
      invalidated: false,
    };
    const id = this.nextId++;
    const cursorOptions = (command.cursor ?? {}) as Document;
    const batchSize = cursorOptions.batchSize === undefined ? 101 : Number(cursorOptions.batchSize);
    const { batch, token } = this.read(stream, batchSize);
    if (stream.invalidated && stream.next >= this.oplog.nextSeq && batch.length === 0)
      return {
        cursor: { firstBatch: batch, postBatchResumeToken: token, id: Long.fromNumber(0), ns: stream.ns },
        ok: 1,
      };
    this.streams.set(id.toString(), stream);
    return {
      cursor: { firstBatch: batch, postBatchResumeToken: token, id: Long.fromBigInt(id), ns: stream.ns },
      ok: 1,
    };
  }

  /** The oplog position a new stream starts at. */
  private startOf(options: Document): number {
    const given = ['resumeAfter', 'startAfter', 'startAtOperationTime'].filter((k) => options[k] !== undefined);
    if (given.length > 1)
      fail(
        40674,
        `Only one type of resume option is allowed, but multiple were found: ${given.join(', ')}. Pass one of them.`,
      );
    if (options.startAtOperationTime !== undefined) {
      const ts = options.startAtOperationTime as Timestamp;
      if ((ts as { _bsontype?: string })?._bsontype !== 'Timestamp')
        fail('TypeMismatch', 'startAtOperationTime must be a Timestamp.');
      this.checkHistory(ts);
      return this.oplog.seqAtOrAfter(ts);
    }
    const key = given[0];
    if (key === undefined) return this.oplog.nextSeq;
    const position = decodeToken(options[key], key);
    if (position.invalidate && key === 'resumeAfter')
      fail(
        'InvalidResumeToken',
        "Attempting to resume a change stream using 'resumeAfter' is not allowed from an invalidate notification: use startAfter to open a new stream after it.",
      );
    this.checkHistory(position.ts);
    return this.positionAfter(position);
  }

  /** A point older than every change the engine still keeps cannot be resumed from. */
  private checkHistory(ts: Timestamp): void {
    if (ts.compare(this.oplog.historyStart) < 0)
      fail(
        'ChangeStreamHistoryLost',
        'Resume of change stream was not possible, as the resume point may no longer be in the oplog: the engine keeps its changes in memory (the last ones, since it started). Open a new stream.',
      );
  }

  /** The first entry after an event's token, or at a high-water mark. */
  private positionAfter(p: TokenPosition): number {
    let seq = this.oplog.seqAtOrAfter(p.ts);
    if (!p.event) return seq;
    for (;;) {
      const e = this.oplog.at(seq);
      if (!e || e.ts.compare(p.ts) > 0 || e.opIndex > p.opIndex) return seq;
      seq++;
    }
  }

  private getMore(id: string, stream: Stream, command: Document): Document {
    const collection = command.collection;
    const expected = stream.ns.slice(stream.ns.indexOf('.') + 1);
    if (typeof collection === 'string' && collection !== expected)
      fail(
        'Unauthorized',
        `Requested getMore on namespace '${collection}', but cursor belongs to a different namespace ${stream.ns}`,
      );
    const batchSize = command.batchSize === undefined ? Infinity : Number(command.batchSize);
    const { batch, token } = this.read(stream, batchSize > 0 ? batchSize : Infinity);
    const done = stream.invalidated;
    if (done) this.streams.delete(id);
    return {
      cursor: {
        nextBatch: batch,
        postBatchResumeToken: token,
        id: done ? Long.fromNumber(0) : Long.fromString(id),
        ns: stream.ns,
      },
      ok: 1,
    };
  }

  /** The next events of `stream`, at most `max`, and the token of where it now stands. */
  private read(stream: Stream, max: number): { batch: Document[]; token: Document } {
    const entries = this.oplog.since(stream.next);
    if (!entries)
      fail(
        'ChangeStreamHistoryLost',
        'The change stream fell behind the changes the engine keeps in memory: open a new stream (or resume from a newer token).',
      );
    const batch: Document[] = [];
    let lastToken: Document | undefined;
    for (const e of entries) {
      if (batch.length >= max || stream.invalidated) break;
      stream.next = e.seq + 1;
      if (!this.matches(stream, e)) continue;
      const events = [changeEventOf(e, this.eventOptions(stream))];
      if (this.ends(stream, e)) {
        events.push(invalidateEventOf(e));
        stream.invalidated = true;
      }
      for (const out of runPipeline(events, stream.pipeline, { now: this.engine.now() })) batch.push(out);
      const last = events[events.length - 1];
      lastToken = last._id as Document;
    }
    const token =
      lastToken ??
      encodeToken({
        ts: this.oplog.at(stream.next - 1)?.ts ?? this.oplog.clusterTime,
        opIndex: this.oplog.at(stream.next - 1)?.opIndex ?? 0,
        event: false,
        invalidate: false,
      });
    return { batch, token };
  }

  private eventOptions(stream: Stream) {
    return {
      fullDocument: stream.fullDocument,
      fullDocumentBeforeChange: stream.fullDocumentBeforeChange,
      lookup: (e: OplogEntry) => {
        const doc = this.engine.getCollection(e.db, e.coll!)?.findById(e.id)?.doc;
        return doc ?? null;
      },
    };
  }

  private matches(stream: Stream, e: OplogEntry): boolean {
    const { db, coll } = stream.scope;
    if (db === undefined) return !INTERNAL_DBS.has(e.db) && !(e.coll ?? '').startsWith('system.');
    if (e.db !== db) return false;
    if (coll === undefined) return !(e.coll ?? '').startsWith('system.');
    return e.coll === coll;
  }

  /** A collection's stream ends at its drop or rename; a database's at its dropDatabase. */
  private ends(stream: Stream, e: OplogEntry): boolean {
    if (stream.scope.db === undefined) return false;
    if (stream.scope.coll !== undefined) return e.op === 'drop' || e.op === 'rename';
    return e.op === 'dropDatabase';
  }
}

function enumOption(v: unknown, name: string, allowed: string[], fallback: string): string {
  if (v === undefined) return fallback;
  if (typeof v !== 'string' || !allowed.includes(v))
    fail(
      'BadValue',
      `'${String(v)}' is not a valid value for $changeStream.${name}: use one of ${allowed.join(', ')}.`,
    );
  return v;
}
