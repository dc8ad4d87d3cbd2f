/**
 * Change events as mongod writes them, made from oplog entries: insert, update (with its
 * updateDescription), replace, delete, drop, rename, dropDatabase and invalidate. TTL deletes are
 * ordinary delete events: mongod's delete event has no field that tells a TTL delete apart (rule
 * 7.11).
 */
import { isContainer, valuesEqual } from '../values/compare';
import type { Document } from '../values/types';
import type { OplogEntry } from './oplog';
import { encodeToken } from './resume-token';

export interface EventOptions {
  /** "default", "updateLookup", "whenAvailable" or "required". */
  fullDocument: string;
  /** "off", "whenAvailable" or "required". */
  fullDocumentBeforeChange: string;
  /** The document as it is now (updateLookup), or null when it is gone. */
  lookup: (e: OplogEntry) => Document | null;
}

/** The event of one entry, or undefined for an entry with none (a no-op replace). */
export function changeEventOf(e: OplogEntry, options: EventOptions): Document {
  const head: Document = {
    _id: encodeToken({ ts: e.ts, opIndex: e.opIndex, event: true, invalidate: false }),
    operationType: e.op,
    clusterTime: e.ts,
    wallTime: e.wallTime,
  };
  const txn = e.lsid ? { lsid: e.lsid, txnNumber: e.txnNumber } : {};
  switch (e.op) {
    case 'insert':
      return { ...head, fullDocument: e.after, ns: { db: e.db, coll: e.coll }, documentKey: { _id: e.id }, ...txn };
    case 'replace':
      return {
        ...head,
        fullDocument: e.after,
        ns: { db: e.db, coll: e.coll },
        documentKey: { _id: e.id },
        ...beforeImage(e, options),
        ...txn,
      };
    case 'update': {
      const full =
        options.fullDocument === 'updateLookup'
          ? { fullDocument: options.lookup(e) }
          : options.fullDocument === 'whenAvailable' || options.fullDocument === 'required'
            ? { fullDocument: e.after ?? null }
            : {};
      return {
        ...head,
        ...full,
        ns: { db: e.db, coll: e.coll },
        documentKey: { _id: e.id },
        updateDescription: updateDescriptionOf(e.before ?? {}, e.after ?? {}),
        ...beforeImage(e, options),
        ...txn,
      };
    }
    case 'delete':
      return {
        ...head,
        ns: { db: e.db, coll: e.coll },
        documentKey: { _id: e.id },
        ...beforeImage(e, options),
        ...txn,
      };
    case 'drop':
      return { ...head, ns: { db: e.db, coll: e.coll } };
    case 'rename':
      return { ...head, ns: { db: e.db, coll: e.coll }, to: { db: e.to!.db, coll: e.to!.coll } };
    case 'dropDatabase':
      return { ...head, ns: { db: e.db } };
  }
}

/** The invalidate event that follows the entry which ended a collection's or database's stream. */
export function invalidateEventOf(e: OplogEntry): Document {
  return {
    _id: encodeToken({ ts: e.ts, opIndex: e.opIndex, event: true, invalidate: true }),
    operationType: 'invalidate',
    clusterTime: e.ts,
    wallTime: e.wallTime,
  };
}

function beforeImage(e: OplogEntry, options: EventOptions): Document {
  if (options.fullDocumentBeforeChange === 'off') return {};
  return { fullDocumentBeforeChange: e.before ?? null };
}

/**
 * What an update changed, as mongod's updateDescription: changed or added fields under their
 * dotted paths (inside embedded documents and arrays of equal or greater length, per element),
 * removed fields, and arrays made shorter (truncatedArrays).
 */
export function updateDescriptionOf(before: Document, after: Document): Document {
  const updatedFields: Document = {};
  const removedFields: string[] = [];
  const truncatedArrays: Document[] = [];
  diffDocuments(before, after, '', updatedFields, removedFields, truncatedArrays);
  return { updatedFields, removedFields, truncatedArrays };
}

function diffDocuments(
  before: Document,
  after: Document,
  prefix: string,
  updated: Document,
  removed: string[],
  truncated: Document[],
): void {
  for (const key of Object.keys(before)) if (!Object.hasOwn(after, key)) removed.push(prefix + key);
  for (const key of Object.keys(after)) {
    const path = prefix + key;
    const a = after[key];
    if (!Object.hasOwn(before, key)) {
      defineField(updated, path, a);
      continue;
    }
    const b = before[key];
    if (valuesEqual(a, b) && sameType(a, b)) continue;
    if (isPlainDocument(a) && isPlainDocument(b)) diffDocuments(b, a, `${path}.`, updated, removed, truncated);
    else if (Array.isArray(a) && Array.isArray(b)) diffArrays(b, a, path, updated, truncated);
    else defineField(updated, path, a);
  }
}

function diffArrays(before: unknown[], after: unknown[], path: string, updated: Document, truncated: Document[]): void {
  if (after.length < before.length) truncated.push({ field: path, newSize: after.length });
  for (let i = 0; i < after.length; i++) {
    if (i < before.length && valuesEqual(after[i], before[i]) && sameType(after[i], before[i])) continue;
    defineField(updated, `${path}.${i}`, after[i]);
  }
}

function isPlainDocument(v: unknown): v is Document {
  return isContainer(v) && !Array.isArray(v);
}

/** valuesEqual says 1 equals NumberLong(1); a change of type is a change the event reports. */
function sameType(a: unknown, b: unknown): boolean {
  const t = (v: unknown) => (v as { _bsontype?: string } | null)?._bsontype ?? typeof v;
  if (t(a) !== t(b)) return false;
  if (isContainer(a) && isContainer(b)) {
    const ka = Object.keys(a as object);
    const kb = Object.keys(b as object);
    return ka.length === kb.length && ka.every((k, i) => k === kb[i]);
  }
  return true;
}

function defineField(doc: Document, key: string, value: unknown): void {
  Object.defineProperty(doc, key, { value, enumerable: true, writable: true, configurable: true });
}
