/**
 * MongoDB 8.0's `bulkWrite` admin command: inserts, updates and deletes over several collections in
 * one request, each operation naming its namespace by index into `nsInfo`:
 *
 *   {bulkWrite: 1, ops: [{insert: 0, document}, {update: 0, filter, updateMods, multi, upsert,
 *    arrayFilters, hint, constants, sort}, {delete: 1, filter, multi, hint}], nsInfo: [{ns: "db.c"}],
 *    ordered, errorsOnly}
 *
 * The reply has one item per operation run (only the failed ones with errorsOnly) in a cursor,
 * and the totals: {cursor: {id: 0, firstBatch: [{ok, idx, n, ...}], ns: "admin.$cmd.bulkWrite"},
 * nErrors, nInserted, nMatched, nModified, nUpserted, nDeleted, ok: 1}. Ordered, the first error
 * stops the rest. The operations reuse the update, insert and delete statements of crud.ts.
 */
import { Long } from 'bson';
import { validateCollectionName, validateDatabaseName } from '../catalog/namespaces';
import { fail } from '../errors';
import { checkForInterrupt } from '../interrupt';
import { toDouble } from '../values/numbers';
import { isNumeric, isPlainObject, type Document } from '../values/types';
import { optionalBool, optionalDocument, requireArray, type CommandContext, type CommandHandler } from './context';
import { insertDocument, prepareUpdate, runDelete, runUpdate, writeErrorOf } from './crud';
import { refuseView } from './views';

interface Namespace {
  db: string;
  coll: string;
}

function namespaces(nsInfo: unknown[]): Namespace[] {
  return nsInfo.map((entry, i) => {
    if (!isPlainObject(entry) || typeof entry.ns !== 'string')
      fail(
        'TypeMismatch',
        `BSON field 'bulkWrite.nsInfo.${i}.ns' is missing or not a string: nsInfo entries are {ns: "db.collection"}.`,
      );
    const dot = entry.ns.indexOf('.');
    if (dot <= 0) fail('InvalidNamespace', `Invalid namespace specified '${entry.ns}'`);
    const db = validateDatabaseName(entry.ns.slice(0, dot));
    return { db, coll: validateCollectionName(db, entry.ns.slice(dot + 1)) };
  });
}

/** The operation's kind and namespace index ({insert: 0, ...}). */
function kindOf(op: Document, idx: number, count: number): { kind: 'insert' | 'update' | 'delete'; ns: number } {
  const kinds = (['insert', 'update', 'delete'] as const).filter((k) => op[k] !== undefined);
  if (kinds.length !== 1)
    fail('FailedToParse', `BulkWrite ops entry ${idx} must name exactly one of insert, update or delete.`);
  const raw = op[kinds[0]];
  const ns = isNumeric(raw) ? toDouble(raw) : NaN;
  if (!Number.isInteger(ns) || ns < 0 || ns >= count)
    fail('BadValue', `BulkWrite ops entry ${idx} has an invalid nsInfo index.`);
  return { kind: kinds[0], ns };
}

function bulkWrite({ engine, dbName }: CommandContext, cmd: Document): Document {
  if (dbName !== 'admin') fail('Unauthorized', 'bulkWrite may only be run against the admin database.');
  const ops = requireArray(cmd, 'ops');
  const nsList = namespaces(requireArray(cmd, 'nsInfo'));
  const ordered = optionalBool(cmd, 'ordered') ?? true;
  const errorsOnly = optionalBool(cmd, 'errorsOnly') ?? false;
  const items: Document[] = [];
  const totals = { nErrors: 0, nInserted: 0, nMatched: 0, nModified: 0, nUpserted: 0, nDeleted: 0 };
  for (let idx = 0; idx < ops.length; idx++) {
    const op = ops[idx];
    let item: Document;
    try {
      checkForInterrupt(); // between operations: each is whole
      if (!isPlainObject(op)) fail('TypeMismatch', `BulkWrite ops entry ${idx} must be an object.`);
      const { kind, ns } = kindOf(op, idx, nsList.length);
      const { db, coll: name } = nsList[ns];
      refuseView(engine, db, name);
      if (kind === 'insert') {
        engine.opcounters.insert++;
        const doc = optionalDocument(op, 'document');
        if (!doc) fail('FailedToParse', `BulkWrite ops entry ${idx}: an insert needs a document.`);
        insertDocument(engine, engine.ensureCollection(db, name).collection, doc);
        totals.nInserted++;
        item = { ok: 1, idx, n: 1 };
      } else if (kind === 'update') {
        engine.opcounters.update++;
        const upsert = optionalBool(op, 'upsert') ?? false;
        const multi = optionalBool(op, 'multi') ?? false;
        const prepared = prepareUpdate(optionalDocument(op, 'filter') ?? {}, op.updateMods, {
          multi,
          upsert,
          arrayFilters: op.arrayFilters,
          arrayFiltersField: 'bulkWrite.ops.arrayFilters',
          constants: op.constants,
          now: engine.now(),
        });
        const coll = upsert ? engine.ensureCollection(db, name).collection : engine.getCollection(db, name);
        const r = coll
          ? runUpdate(engine, coll, prepared, { hint: op.hint, sort: multi ? undefined : optionalDocument(op, 'sort') })
          : { matched: 0, modified: 0, upsertedId: undefined };
        if (r.upsertedId !== undefined) {
          totals.nUpserted++;
          item = { ok: 1, idx, n: 1, nModified: 0, upserted: { _id: r.upsertedId } };
        } else {
          totals.nMatched += r.matched;
          totals.nModified += r.modified;
          item = { ok: 1, idx, n: r.matched, nModified: r.modified };
        }
      } else {
        engine.opcounters.delete++;
        const multi = optionalBool(op, 'multi') ?? false;
        const filter = optionalDocument(op, 'filter') ?? {};
        const coll = engine.getCollection(db, name);
        const n = coll ? runDelete(engine, coll, filter, multi ? 0 : 1, op.hint).length : 0;
        totals.nDeleted += n;
        item = { ok: 1, idx, n };
      }
    } catch (err) {
      const { index: _index, ...error } = writeErrorOf(idx, err);
      totals.nErrors++;
      items.push({ ok: 0, idx, ...error, n: 0 });
      if (ordered) break;
      continue;
    }
    if (!errorsOnly) items.push(item);
  }
  return {
    cursor: { id: Long.fromNumber(0), firstBatch: items, ns: 'admin.$cmd.bulkWrite' },
    ...totals,
    ok: 1,
  };
}

export const bulkWriteCommands: Record<string, CommandHandler> = { bulkWrite };
