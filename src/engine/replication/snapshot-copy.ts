/**
 * A database as it was at an oplog position, copied into a transaction's own engine: the
 * collections as they are now, with every change made since the position undone from the
 * before-images the oplog keeps. Stored documents are copy-on-write, so the copy shares them.
 */
import { compileFilter } from '../query/matcher';
import { BTreeIndex } from '../indexes/btree-index';
import type { Collection } from '../catalog/collection';
import type { EngineContext } from '../engine-context';
import { fail } from '../errors';
import type { Document } from '../values/types';
import { documentKey } from './document-key';
import type { Oplog } from './oplog';

/** Copy `dbName` of `main` into `scratch` as it was at oplog position `seq`. */
export function copyDatabaseAt(
  main: EngineContext,
  scratch: EngineContext,
  oplog: Oplog,
  dbName: string,
  seq: number,
): void {
  const changes = oplog.since(seq);
  if (!changes)
    fail(
      'SnapshotTooOld',
      `The transaction's snapshot is older than the oldest change the engine keeps (${oplog.capacity} changes). Retry the transaction.`,
    );
  const db = main.getDatabase(dbName);
  if (!db) return;
  for (const coll of db.collections.values()) {
    // Undone newest first: the oldest before-image of a document is its state at the snapshot.
    const undone = new Map<string, Document | null>();
    for (let i = changes.length - 1; i >= 0; i--) {
      const e = changes[i];
      if (e.db !== dbName || e.coll !== coll.name || e.id === undefined) continue;
      undone.set(documentKey(e.id), e.before ?? null);
    }
    copyCollection(coll, scratch, undone);
  }
}

function copyCollection(source: Collection, scratch: EngineContext, undone: Map<string, Document | null>): void {
  const copy = scratch.createCollection(source.dbName, source.name, { ...source.options });
  const docs: Document[] = [];
  for (const record of source.scanRecords()) {
    const key = documentKey(record.doc._id);
    if (!undone.has(key)) docs.push(record.doc);
  }
  for (const before of undone.values()) if (before) docs.push(before);
  if (docs.length) copy.insertRestored(docs);
  copyIndexes(source, copy);
}

/** Every index of `source` but `_id` (which `createCollection` made), built over `target`'s documents. */
export function copyIndexes(source: Collection, target: Collection): string[] {
  const names: string[] = [];
  for (const index of source.indexes.values()) {
    if (index.name === '_id_' || target.indexes.has(index.name)) continue;
    const spec = { ...index.spec };
    const partial = spec.partialFilterExpression ? compileFilter(spec.partialFilterExpression as Document) : undefined;
    target.addIndex(new BTreeIndex(spec, partial), false);
    names.push(index.name);
  }
  return names;
}
