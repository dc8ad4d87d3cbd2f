/**
 * The single-document write paths the insert command and the pipeline's writing stages ($out,
 * $merge) share: validation, an `_id` when missing, the time-series rule, the collection's
 * validator, and the metrics.
 */
import type { Collection } from '../catalog/collection';
import { prepareForInsert } from '../catalog/document-rules';
import type { StoredRecord } from '../catalog/record';
import type { EngineContext } from '../engine-context';
import { fail } from '../errors';
import { nearestDeadline, timeLimitError } from '../interrupt';
import { formatValue } from '../values/format';
import { nextTimestamp } from '../query/update/operators';
import { enforceValidator } from '../validation/validator';
import type { Document } from '../values/types';

/**
 * mongod replaces an empty Timestamp(0, 0) in a top-level field of an inserted document with the
 * current one (each distinct and increasing), except in _id, which is stored as given.
 */
function stampEmptyTimestamps(engine: EngineContext, doc: Document): void {
  for (const key of Object.keys(doc)) {
    if (key === '_id') continue;
    const v = doc[key] as { _bsontype?: string; t?: number; i?: number } | null;
    if (v?._bsontype === 'Timestamp' && v.t === 0 && v.i === 0) doc[key] = nextTimestamp(new Date(engine.clock.now()));
  }
}

/** Documents a time-series collection accepts: a BSON date in the timeField (mongod rule). */
export function checkTimeseriesDocument(coll: Collection, doc: Document): void {
  const ts = coll.options.timeseries;
  if (!ts) return;
  if (!(doc[ts.timeField] instanceof Date)) {
    fail(
      'BadValue',
      `'${ts.timeField}' must be present and contain a valid BSON UTC datetime value: every measurement in ${coll.ns} needs a date in '${ts.timeField}'.`,
    );
  }
}

export function insertDocument(engine: EngineContext, coll: Collection, input: unknown): StoredRecord {
  return insertPrepared(engine, coll, prepareDocument(engine, input));
}

/** The stored form of a document to insert (an `_id` first), or the error mongod gives it. */
export function prepareDocument(engine: EngineContext, input: unknown): Document {
  const doc = prepareForInsert(input, { generateId: true, nowMs: engine.clock.now() });
  stampEmptyTimestamps(engine, doc);
  return doc;
}

/**
 * A write outside a transaction to a document an open transaction wrote waits on mongod until the
 * transaction ends. The engine runs one command at a time, so nothing can end the transaction
 * during the wait: with a time limit (maxTimeMS) the wait runs out, MaxTimeMSExpired, as on mongod.
 * Without one mongod would wait on; the engine lets the write through and the transaction's commit
 * then fails with WriteConflict.
 */
function waitForTransactions(engine: EngineContext, coll: Collection, id: unknown): void {
  if (nearestDeadline() !== undefined && engine.documentHeldByTransaction?.(coll.ns, id))
    throw timeLimitError(
      `operation exceeded time limit: an open transaction holds the document with _id ${formatValue(id)} in ${coll.ns} until it commits or aborts.`,
    );
}

/** Inserts a document that prepareDocument made. */
export function insertPrepared(engine: EngineContext, coll: Collection, doc: Document): StoredRecord {
  waitForTransactions(engine, coll, doc._id);
  checkTimeseriesDocument(coll, doc);
  enforceValidator(engine, coll, doc);
  const record = coll.insert(doc);
  engine.documentMetrics.inserted++;
  return record;
}
