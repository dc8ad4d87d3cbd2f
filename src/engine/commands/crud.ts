/**
 * Reads and writes: insert, find/getMore/killCursors, update, delete, findAndModify, count,
 * distinct, aggregate. Writes report per-statement `writeErrors` like mongod; `ordered: true` stops
 * at the first error, `ordered: false` goes on.
 */
import { calculateObjectSize, Long } from 'bson';
import type { Collection } from '../catalog/collection';
import { DEFAULT_FIRST_BATCH, takeBatch, type CursorGuard } from '../catalog/cursors';
import { planGuard } from './cursor-guards';
import { canDefer, deferredRead } from './deferred-aggregate';
import { checkUpdatedSize, MAX_BSON_OBJECT_SIZE, prepareForInsert } from '../catalog/document-rules';
import type { StoredRecord } from '../catalog/record';
import { checkTimeseriesDocument, insertDocument, insertPrepared, prepareDocument } from './document-writes';
import { operationCollator } from './collation-scope';
import { withCollator } from '../collation/active';
import { rejectUnknownFields } from './known-fields';
import { unacknowledgedAware } from './unacknowledged';
import { validateCollectionName, validateDatabaseName } from '../catalog/namespaces';
import { engineCatalog } from './pipeline-catalog';
import { engineIntrospection } from './pipeline-introspection';
import { checkPipelineViewCollations, readView, refuseView, startsWithCollStats } from './views';
import type { EngineContext } from '../engine-context';
import { EngineError, ErrorCode, fail } from '../errors';
import { refuseFindOnlyOptionsOnView } from './view-find-options';
import { fieldKeys } from '../indexes/keys';
import { checkForInterrupt, isInterruption } from '../interrupt';
import { checkStagePositions, runPipeline } from '../query/aggregate';
import { coveredCount } from '../query/covered-count';
import { executeQuery, queryRecords } from '../query/executor';
import { shapeCollation } from '../query/query-shape';
import { returnedKey, withRecordId } from '../query/find-output';
import { checkMinMaxShape } from '../query/min-max';
import { compileFilter, compileMatchedPosition, isMatchAll } from '../query/matcher';
import { checkTailableOptions, checkTailableTarget, tailOf } from './tailable';
import { compileSort } from '../query/sort';
import type { QueryPlan } from '../query/planner';
import { resolveNaturalOrder } from '../query/natural';
import { compileProjection } from '../query/projection';
import {
  applyReplacement,
  compilePipelineUpdate,
  compileUpdate,
  isOperatorUpdate,
  parseArrayFilters,
  upsertSeed,
  type CompiledUpdate,
  type PipelineUpdate,
} from '../query/update';
import { enforceValidator } from '../validation/validator';
import { cloneDocument, cloneValue } from '../values/clone';
import { compareValues } from '../values/compare';
import { toDouble } from '../values/numbers';
import { bsonTypeOf, isNumeric, isPlainObject, type Document } from '../values/types';
import {
  collectionNameOf,
  collectionNameOrUuidOf,
  optionalBool,
  optionalDocument,
  optionalNumber,
  requireArray,
  type CommandContext,
  type CommandHandler,
} from './context';

type WriteError = Document & { index: number; code: number; errmsg: string };

export function writeErrorOf(index: number, err: unknown): WriteError {
  // A time limit or an interrupt fails the whole command (ok: 0), not one statement, as in mongod;
  // the documents written before the safe point stay written.
  if (isInterruption(err)) throw err;
  if (err instanceof EngineError)
    return { index, code: err.code, codeName: err.codeName, errmsg: err.message, ...err.info };
  throw err;
}

export { insertDocument };

function insert({ engine, dbName }: CommandContext, cmd: Document): Document {
  const name = collectionNameOf(cmd, 'insert');
  rejectUnknownFields(cmd, 'insert', true);
  const documents = requireArray(cmd, 'documents');
  checkBatchSize(documents);
  const ordered = optionalBool(cmd, 'ordered') ?? true;
  refuseView(engine, dbName, name);
  // An invalid namespace fails the command before any document, as mongod's write-namespace check;
  // it then checks each document before it writes it and creates the collection inside the first
  // write: a batch whose documents are all refused leaves no collection behind.
  if (!engine.getCollection(dbName, name)) {
    validateDatabaseName(dbName);
    validateCollectionName(dbName, name);
  }
  let collection: Collection | undefined;
  const writeErrors: WriteError[] = [];
  let n = 0;
  for (let i = 0; i < documents.length; i++) {
    engine.opcounters.insert++;
    try {
      checkForInterrupt(); // between documents: each insert is whole
      const doc = prepareDocument(engine, documents[i]);
      collection ??= engine.ensureCollection(dbName, name).collection;
      insertPrepared(engine, collection, doc);
      n++;
    } catch (err) {
      writeErrors.push(writeErrorOf(i, err));
      if (ordered) break;
    }
  }
  return { n, ...(writeErrors.length ? { writeErrors } : {}), ok: 1 };
}

function batchSizeOf(cmd: Document): number | undefined {
  const v = cmd.batchSize;
  return v === undefined ? undefined : optionalNumber(cmd, 'batchSize', { min: 0 });
}

function find({ engine, dbName }: CommandContext, cmd: Document): Document {
  const name = collectionNameOrUuidOf(engine, dbName, cmd, 'find');
  rejectUnknownFields(cmd, 'find', true);
  engine.opcounters.query++;
  const ns = `${dbName}.${name}`;
  const coll = engine.getCollection(dbName, name);
  const projection = compileProjection(optionalDocument(cmd, 'projection'), {
    query: optionalDocument(cmd, 'filter') ?? {},
    vars: { NOW: engine.now() },
  });
  const limit = optionalNumber(cmd, 'limit') ?? 0;
  // The legacy "negative limit means one batch" is a shell's cursor notation: the command itself
  // takes singleBatch, and mongod's parser refuses a negative limit.
  if (limit < 0)
    fail(
      51024,
      `BSON field 'limit' value must be >= 0, actual value '${limit}': use limit ${-limit} with singleBatch: true for one batch.`,
    );
  const singleBatch = optionalBool(cmd, 'singleBatch') ?? false;
  const tailable = optionalBool(cmd, 'tailable') ?? false;
  const awaitData = optionalBool(cmd, 'awaitData') ?? false;
  checkTailableOptions({
    tailable,
    awaitData,
    singleBatch,
    sort: optionalDocument(cmd, 'sort'),
  });
  if (!coll) {
    // A bad filter or sort is an error even when the collection does not exist, as in mongod.
    compileFilter(optionalDocument(cmd, 'filter') ?? {});
    compileSort(resolveNaturalOrder({ sort: optionalDocument(cmd, 'sort'), hint: cmd.hint }).sort);
    checkMinMaxShape(optionalDocument(cmd, 'min'), optionalDocument(cmd, 'max'));
    return { cursor: { firstBatch: [], id: Long.fromNumber(0), ns }, ok: 1 };
  }
  const request = {
    filter: optionalDocument(cmd, 'filter'),
    sort: optionalDocument(cmd, 'sort'),
    skip: optionalNumber(cmd, 'skip', { min: 0 }),
    limit,
    hint: cmd.hint,
    min: optionalDocument(cmd, 'min'),
    max: optionalDocument(cmd, 'max'),
    projection: optionalDocument(cmd, 'projection'),
    collation: shapeCollation(cmd.collation),
  };
  const returnKey = optionalBool(cmd, 'returnKey') ?? false;
  const showRecordId = optionalBool(cmd, 'showRecordId') ?? false;
  if (coll.isView) refuseFindOnlyOptionsOnView(cmd);
  if (tailable) checkTailableTarget(coll);
  let docs: Document[];
  let guard: CursorGuard | undefined;
  let shape = projection ?? cloneDocument;
  if (coll.isView) {
    const stages = viewReadStages(request.filter, request.sort, request.skip, limit);
    // mongod runs a find on a view as an aggregate: its projection is a $project stage, with
    // $project's rules (no find-only operators such as $elemMatch).
    const projectionSpec = optionalDocument(cmd, 'projection');
    if (projectionSpec && Object.keys(projectionSpec).length > 0) {
      stages.push({ $project: projectionSpec });
      shape = (d) => d;
    }
    docs = readView(engine, dbName, coll, stages, engineCatalog(engine, dbName));
  } else if (returnKey || showRecordId) {
    // Both need more than the document (the plan's index, the record id): shape every result now.
    const result = executeQuery(coll, request);
    docs = result.records.map((r) => {
      const out = returnKey ? returnedKey(result.plan, r) : shape(r.doc);
      return showRecordId ? withRecordId(out, r) : out;
    });
    shape = (d) => d;
  } else {
    const used: { plan?: QueryPlan } = {};
    const records = queryRecords(coll, request, (plan) => (used.plan = plan));
    docs = records.map((r) => r.doc);
    // A blocking sort read everything first: its scan has no position left to lose.
    const sort = resolveNaturalOrder(request).sort;
    const sorted = sort !== undefined && Object.keys(sort).length > 0 && used.plan?.providesSort !== true;
    guard = tailable ? undefined : planGuard(coll, used.plan, records, sorted, request.filter);
  }
  engine.documentMetrics.returned += docs.length;
  const batchSize = batchSizeOf(cmd);
  if (singleBatch) {
    // One batch, and the cursor is closed whatever is left.
    const first = takeBatch(docs, 0, batchSize ?? DEFAULT_FIRST_BATCH, shape);
    return { cursor: { firstBatch: first, id: Long.fromNumber(0), ns }, ok: 1 };
  }
  const tail = tailable ? tailOf(coll, request.filter ?? {}, limit, docs.length, awaitData) : undefined;
  return { cursor: engine.cursors.openCursor(ns, docs, batchSize, shape, tail, guard), ok: 1 };
}

function getMore({ engine, dbName }: CommandContext, cmd: Document): Document {
  engine.opcounters.getmore++;
  const collection = cmd.collection;
  if (typeof collection !== 'string')
    fail('TypeMismatch', 'getMore needs {getMore: <cursor id>, collection: "<name>"}.');
  const cursor = engine.cursors.getMore(cmd.getMore, `${dbName}.${collection}`, batchSizeOf(cmd), {
    maxTimeMS: cmd.maxTimeMS !== undefined,
  });
  return { cursor, ok: 1 };
}

function killCursors({ engine }: CommandContext, cmd: Document): Document {
  collectionNameOf(cmd, 'killCursors'); // parsed as a namespace, as mongod 8.0 does, before any cursor
  const { killed, notFound } = engine.cursors.kill(requireArray(cmd, 'cursors'));
  return { cursorsKilled: killed, cursorsNotFound: notFound, cursorsAlive: [], cursorsUnknown: [], ok: 1 };
}

interface UpdateOutcome {
  matched: number;
  modified: number;
  upsertedId?: unknown;
  /** The document before (or after, with `returnNew`) for findAndModify. */
  before?: Document;
  after?: Document;
}

/**
 * An update statement parsed as mongod parses it before reading any document: a malformed update,
 * array filter or query fails even when nothing matches or the collection does not exist.
 */
interface PreparedUpdate {
  q: Document;
  /** The replacement document, for a replacement-style update. */
  replacement?: Document;
  compiled?: CompiledUpdate;
  /** A pipeline-style update. */
  pipeline?: PipelineUpdate;
  /** The query's matched array position, for updates with a positional `$`. */
  matchedPosition?: (doc: Document) => string | undefined;
  multi: boolean;
  upsert: boolean;
}

export function prepareUpdate(
  q: Document,
  u: unknown,
  opts: {
    multi: boolean;
    upsert: boolean;
    arrayFilters?: unknown;
    arrayFiltersField: string;
    /** The statement's `c` option: constants for a pipeline update. */
    constants?: unknown;
    now: Date;
  },
): PreparedUpdate {
  if (opts.constants !== undefined && !Array.isArray(u))
    fail(51198, 'Constant values may only be specified for pipeline updates');
  if (Array.isArray(u)) {
    compileFilter(q);
    const arrayFilters = parseArrayFilters(opts.arrayFilters, opts.arrayFiltersField);
    if (arrayFilters.size > 0) fail('FailedToParse', 'arrayFilters may not be specified for pipeline-style updates');
    if (opts.constants !== undefined && !isPlainObject(opts.constants))
      fail('TypeMismatch', `BSON field 'c' is the wrong type '${bsonTypeOf(opts.constants)}', expected type 'object'`);
    const pipeline = compilePipelineUpdate(u, opts.now, opts.constants);
    return { q, pipeline, multi: opts.multi, upsert: opts.upsert };
  }
  if (!isPlainObject(u))
    fail('FailedToParse', `Update argument must be either an object or an array, got ${bsonTypeOf(u)}.`);
  const arrayFilters = parseArrayFilters(opts.arrayFilters, opts.arrayFiltersField);
  compileFilter(q); // a bad query fails even when the collection does not exist
  if (!isOperatorUpdate(u)) {
    // mongod's UpdateDriver: FailedToParse, with this message.
    if (opts.multi) fail('FailedToParse', 'multi update is not supported for replacement-style update');
    return { q, replacement: u, multi: false, upsert: opts.upsert };
  }
  const compiled = compileUpdate(u, arrayFilters);
  return {
    q,
    compiled,
    matchedPosition: compiled.usesMatchedPosition ? compileMatchedPosition(q) : undefined,
    multi: opts.multi,
    upsert: opts.upsert,
  };
}

/** One update statement: match, apply to each (or the first), or upsert. */
export function runUpdate(
  engine: EngineContext,
  coll: Collection,
  p: PreparedUpdate,
  opts: { sort?: Document; hint?: unknown } = {},
): UpdateOutcome {
  const { q, compiled, replacement, pipeline } = p;
  const now = engine.now();
  const records = queryRecords(coll, { filter: q, sort: opts.sort, limit: p.multi ? 0 : 1, hint: opts.hint });
  if (records.length === 0) {
    if (!p.upsert) return { matched: 0, modified: 0 };
    const seed = upsertSeed(q, { replacement: replacement !== undefined });
    let doc: Document;
    if (compiled) doc = compiled.apply(seed, { now, isInsert: true }).doc;
    else if (pipeline) doc = pipeline(seed).doc;
    else doc = applyReplacement(seed, replacement as Document);
    // mongod measures the document an upsert makes before inserting it: 17420, not the insert's 2.
    if (calculateObjectSize(doc) > MAX_BSON_OBJECT_SIZE)
      fail(
        17420,
        `Document to upsert is larger than ${MAX_BSON_OBJECT_SIZE}: make the update produce a smaller document.`,
      );
    const record = insertDocument(engine, coll, doc);
    return { matched: 0, modified: 0, upsertedId: record.doc._id, after: record.doc };
  }
  let modified = 0;
  let before: Document | undefined;
  let after: Document | undefined;
  for (const record of records) {
    checkForInterrupt(); // between documents: each update is whole
    const next = compiled
      ? compiled.apply(record.doc, { now, isInsert: false, matchedField: p.matchedPosition?.(record.doc) })
      : pipeline
        ? pipeline(record.doc)
        : { doc: applyReplacement(record.doc, replacement as Document), changed: true };
    before ??= record.doc;
    if (next.changed) {
      checkUpdatedSize(next.doc);
      checkTimeseriesDocument(coll, next.doc);
      const prepared = compiled ? next.doc : prepareForInsert(next.doc, { generateId: false });
      enforceValidator(engine, coll, prepared, record.doc);
      coll.replace(record, prepared);
      engine.documentMetrics.updated++;
      modified++;
    }
    after ??= record.doc;
  }
  return { matched: records.length, modified, before, after };
}

/** mongod's write batch limit, for insert, update and delete alike. */
function checkBatchSize(statements: unknown[]): void {
  if (statements.length > 100000)
    fail('InvalidLength', `Write batch sizes must be between 1 and 100000. Got ${statements.length} operations.`);
}

/** A hint names an index by name or key pattern; anything else fails the whole command when parsed (9). */
function checkHintType(hint: unknown): void {
  if (hint !== undefined && typeof hint !== 'string' && !isPlainObject(hint))
    fail('FailedToParse', 'hint must be either a string or nested object: name the index or give its key pattern.');
}

function update({ engine, dbName }: CommandContext, cmd: Document): Document {
  const name = collectionNameOf(cmd, 'update');
  rejectUnknownFields(cmd, 'update', true);
  const statements = requireArray(cmd, 'updates');
  checkBatchSize(statements);
  for (const s of statements) if (isPlainObject(s)) rejectUnknownFields(s, 'update.updates', false);
  for (const s of statements) if (isPlainObject(s)) checkHintType(s.hint);
  const ordered = optionalBool(cmd, 'ordered') ?? true;
  refuseView(engine, dbName, name);
  const writeErrors: WriteError[] = [];
  const upserted: Document[] = [];
  let n = 0;
  let nModified = 0;
  for (let i = 0; i < statements.length; i++) {
    engine.opcounters.update++;
    try {
      const s = statements[i];
      if (!isPlainObject(s)) fail('TypeMismatch', 'Each update statement must be an object {q, u, upsert?, multi?}.');
      const upsert = optionalBool(s, 'upsert') ?? false;
      const prepared = prepareUpdate(optionalDocument(s, 'q') ?? {}, s.u, {
        multi: optionalBool(s, 'multi') ?? false,
        upsert,
        arrayFilters: s.arrayFilters,
        arrayFiltersField: 'update.updates.arrayFilters',
        constants: s.c,
        now: engine.now(),
      });
      const coll = upsert ? engine.ensureCollection(dbName, name).collection : engine.getCollection(dbName, name);
      if (!coll) continue;
      const collator = operationCollator(engine, dbName, name, s.collation);
      const r = withCollator(collator, () => runUpdate(engine, coll, prepared, { hint: s.hint }));
      if (r.upsertedId !== undefined) {
        upserted.push({ index: i, _id: r.upsertedId });
        n++;
      } else {
        n += r.matched;
        nModified += r.modified;
      }
    } catch (err) {
      writeErrors.push(writeErrorOf(i, err));
      if (ordered) break;
    }
  }
  return {
    n,
    nModified,
    ...(upserted.length ? { upserted } : {}),
    ...(writeErrors.length ? { writeErrors } : {}),
    ok: 1,
  };
}

export function runDelete(
  engine: EngineContext,
  coll: Collection,
  q: Document,
  limit: number,
  hint?: unknown,
  sort?: Document,
): StoredRecord[] {
  const records = queryRecords(coll, { filter: q, limit, hint, sort });
  for (const record of records) {
    checkForInterrupt(); // between documents: each delete is whole
    coll.remove(record);
    engine.documentMetrics.deleted++;
  }
  return records;
}

function del({ engine, dbName }: CommandContext, cmd: Document): Document {
  const name = collectionNameOf(cmd, 'delete');
  rejectUnknownFields(cmd, 'delete', true);
  const statements = requireArray(cmd, 'deletes');
  checkBatchSize(statements);
  for (const s of statements) if (isPlainObject(s)) checkHintType(s.hint);
  const ordered = optionalBool(cmd, 'ordered') ?? true;
  refuseView(engine, dbName, name);
  // The statements are parsed before any runs: a malformed one fails the whole command.
  const parsed = statements.map((s) => {
    if (!isPlainObject(s)) fail('TypeMismatch', 'Each delete statement must be an object {q, limit}.');
    rejectUnknownFields(s, 'delete.deletes', false);
    if (s.limit === undefined)
      fail(
        40414,
        "BSON field 'delete.deletes.limit' is missing but a required field: use limit: 0 (all matches) or 1 (one).",
      );
    const limit = optionalNumber(s, 'limit');
    if (limit !== 0 && limit !== 1)
      fail('FailedToParse', 'The limit field in delete objects must be 0 or 1 (0 deletes all matches, 1 deletes one).');
    return { q: optionalDocument(s, 'q') ?? {}, limit, hint: s.hint, collation: s.collation };
  });
  const writeErrors: WriteError[] = [];
  let n = 0;
  for (let i = 0; i < parsed.length; i++) {
    engine.opcounters.delete++;
    try {
      const s = parsed[i];
      const coll = engine.getCollection(dbName, name);
      if (!coll) continue;
      const collator = operationCollator(engine, dbName, name, s.collation);
      n += withCollator(collator, () => runDelete(engine, coll, s.q, s.limit, s.hint)).length;
    } catch (err) {
      writeErrors.push(writeErrorOf(i, err));
      if (ordered) break;
    }
  }
  return { n, ...(writeErrors.length ? { writeErrors } : {}), ok: 1 };
}

/** findAndModify's remove / update / upsert / new combination, refused as mongod parses it (explain too). */
export function findAndModifyMode(cmd: Document): { remove: boolean; returnNew: boolean; upsert: boolean } {
  const remove = optionalBool(cmd, 'remove') ?? false;
  const returnNew = optionalBool(cmd, 'new') ?? false;
  const upsert = optionalBool(cmd, 'upsert') ?? false;
  if (remove && cmd.update !== undefined)
    fail('FailedToParse', 'Cannot specify both an update and remove=true in findAndModify.');
  if (!remove && cmd.update === undefined)
    fail('FailedToParse', 'Either an update or remove=true must be specified in findAndModify.');
  if (remove && (upsert || returnNew))
    fail('FailedToParse', 'Cannot specify both upsert=true or new=true and remove=true.');
  return { remove, returnNew, upsert };
}

function findAndModify({ engine, dbName }: CommandContext, cmd: Document): Document {
  const name = collectionNameOf(cmd, Object.keys(cmd)[0]);
  refuseView(engine, dbName, name);
  const query = optionalDocument(cmd, 'query') ?? {};
  const sort = optionalDocument(cmd, 'sort');
  const { remove, returnNew, upsert } = findAndModifyMode(cmd);
  const projection = compileProjection(optionalDocument(cmd, 'fields') ?? optionalDocument(cmd, 'projection'), {
    query,
    vars: { NOW: engine.now() },
  });
  const shape = (d: Document | undefined) => (d ? (projection ?? cloneDocument)(d) : null);
  if (remove) {
    engine.opcounters.delete++;
    const coll = engine.getCollection(dbName, name);
    const removed = coll ? runDelete(engine, coll, query, 1, cmd.hint, sort) : [];
    return { lastErrorObject: { n: removed.length }, value: shape(removed[0]?.doc), ok: 1 };
  }
  engine.opcounters.update++;
  const prepared = prepareUpdate(query, cmd.update, {
    multi: false,
    upsert,
    arrayFilters: cmd.arrayFilters,
    arrayFiltersField: 'findAndModify.arrayFilters',
    now: engine.now(),
  });
  const coll = upsert ? engine.ensureCollection(dbName, name).collection : engine.getCollection(dbName, name);
  if (!coll) return { lastErrorObject: { n: 0, updatedExisting: false }, value: null, ok: 1 };
  const r = runUpdate(engine, coll, prepared, { sort, hint: cmd.hint });
  if (r.upsertedId !== undefined) {
    return {
      lastErrorObject: { n: 1, updatedExisting: false, upserted: r.upsertedId },
      value: returnNew ? shape(r.after) : null,
      ok: 1,
    };
  }
  return {
    lastErrorObject: { n: r.matched, updatedExisting: r.matched > 0 },
    value: shape(returnNew ? r.after : r.before),
    ok: 1,
  };
}

function count({ engine, dbName }: CommandContext, cmd: Document): Document {
  const name = collectionNameOrUuidOf(engine, dbName, cmd, 'count');
  engine.opcounters.query++;
  const coll = engine.getCollection(dbName, name);
  const query = optionalDocument(cmd, 'query');
  // Options are parsed before the collection is looked up: a negative skip fails on a missing one too.
  const skip = optionalNumber(cmd, 'skip', { min: 0 }) ?? 0;
  const limit = Math.abs(optionalNumber(cmd, 'limit') ?? 0);
  if (!coll) {
    compileFilter(query ?? {});
    return { n: 0, ok: 1 };
  }
  if (coll.isView) {
    const stages = viewReadStages(query, undefined, skip, limit);
    return { n: readView(engine, dbName, coll, stages, engineCatalog(engine, dbName)).length, ok: 1 };
  }
  // A hint is obeyed even when it gives another answer (a sparse index leaves documents out).
  if ((!query || Object.keys(query).length === 0) && cmd.hint === undefined) {
    // Metadata count, like mongod's fast count without a query.
    const total = Math.max(0, coll.count - skip);
    return { n: limit ? Math.min(limit, total) : total, ok: 1 };
  }
  const covered = coveredCount(coll, query ?? {}, cmd.hint);
  if (covered !== undefined) {
    const n = Math.max(0, covered - skip);
    return { n: limit ? Math.min(limit, n) : n, ok: 1 };
  }
  const records = queryRecords(coll, { filter: query, skip, limit, hint: cmd.hint });
  return { n: records.length, ok: 1 };
}

function distinct({ engine, dbName }: CommandContext, cmd: Document): Document {
  const name = collectionNameOrUuidOf(engine, dbName, cmd, 'distinct');
  engine.opcounters.query++;
  const key = cmd.key;
  if (typeof key !== 'string' || key.length === 0)
    fail('TypeMismatch', 'distinct needs a field name: {distinct: "c", key: "field"}.');
  if (key.includes('\0')) fail(31032, `Key field cannot contain an embedded null byte: remove it from '${key}'.`);
  const coll = engine.getCollection(dbName, name);
  if (!coll) return { values: [], ok: 1 };
  const query = optionalDocument(cmd, 'query');
  const docs = coll.isView
    ? readView(engine, dbName, coll, viewReadStages(query), engineCatalog(engine, dbName))
    : queryRecords(coll, { filter: query }).map((r) => r.doc);
  const all: unknown[] = [];
  const parts = key.split('.');
  for (const doc of docs) {
    checkForInterrupt();
    const k = fieldKeys(doc, key, parts, false);
    if (k.missing) continue;
    for (const v of k.values) if (v !== undefined) all.push(v);
  }
  all.sort(compareValues);
  checkForInterrupt();
  const values: unknown[] = [];
  for (const v of all) if (values.length === 0 || compareValues(values[values.length - 1], v) !== 0) values.push(v);
  return { values: values.map(cloneValue), ok: 1 };
}

function aggregate({ engine, dbName }: CommandContext, cmd: Document): Document {
  const target = cmd.aggregate;
  const pipelineArg = cmd.pipeline;
  const firstStage: unknown = Array.isArray(pipelineArg) ? pipelineArg[0] : undefined;
  // {aggregate: 1}: a driver sends the 1 as an int32.
  const collectionless = isNumeric(target) && toDouble(target) === 1;
  if (collectionless && isPlainObject(firstStage) && Object.keys(firstStage).some((k) => COLLECTIONLESS.has(k))) {
    // Collection-less aggregate ({aggregate: 1}): its first stage makes the documents.
    requireOptionalCursor(cmd);
    engine.opcounters.command++;
    const docs = runPipeline([], pipelineArg as Document[], {
      now: engine.now(),
      catalog: engineCatalog(engine, dbName),
      introspection: engineIntrospection(engine, undefined),
    });
    return { cursor: engine.cursors.openCursor(`${dbName}.$cmd.aggregate`, docs, undefined), ok: 1 };
  }
  if (typeof target !== 'string')
    fail(
      'InvalidNamespace',
      'Collection-less aggregation ({aggregate: 1}) needs a first stage that makes documents ($documents, $currentOp, $listLocalSessions): otherwise aggregate over a collection.',
    );
  const pipeline = requireArray(cmd, 'pipeline') as Document[];
  // Parsed before the cursor option, as mongod does: a stage that is not a document is TypeMismatch.
  if (pipeline.some((stage) => !isPlainObject(stage)))
    fail('TypeMismatch', "Each element of the 'pipeline' array must be an object, e.g. {$match: {...}}.");
  if (cmd.explain) fail('InvalidOptions', 'Use the explain command: {explain: {aggregate: ...}}.');
  const cursorOpt = optionalDocument(cmd, 'cursor');
  if (!cursorOpt)
    fail(
      'FailedToParse',
      "The 'cursor' option is required, except for aggregate with the explain argument: pass cursor: {}.",
    );
  engine.opcounters.command++;
  checkPipelineViewCollations(engine, dbName, pipeline);
  const coll = engine.getCollection(dbName, target);
  const ns = `${dbName}.${target}`;
  const context = () => ({
    now: engine.now(),
    catalog: engineCatalog(engine, dbName),
    introspection: engineIntrospection(engine, target),
  });
  // $collStats first reports on the view's own namespace: the view is not resolved.
  const read = () =>
    coll?.isView && !startsWithCollStats(pipeline)
      ? readView(engine, dbName, coll, pipeline, engineCatalog(engine, dbName))
      : coll
        ? aggregateCollection(engine, coll, pipeline)
        : runPipeline([], pipeline, context());
  const batchSize = isNumeric(cursorOpt.batchSize) ? toDouble(cursorOpt.batchSize) : undefined;
  if (batchSize === 0 && canDefer(pipeline)) {
    const { docs, guard } = deferredRead(pipeline, context(), read);
    return { cursor: engine.cursors.openCursor(ns, docs, 0, undefined, undefined, guard), ok: 1 };
  }
  return { cursor: engine.cursors.openCursor(ns, read(), batchSize), ok: 1 };
}

function requireOptionalCursor(cmd: Document): void {
  if (!optionalDocument(cmd, 'cursor'))
    fail(
      'FailedToParse',
      "The 'cursor' option is required, except for aggregate with the explain argument: pass cursor: {}.",
    );
}

/** A find, count or distinct on a view: its filter, sort, skip and limit as stages after the view's pipeline. */
function viewReadStages(filter?: Document, sort?: Document, skip?: number, limit?: number): Document[] {
  const stages: Document[] = [];
  if (filter && !isMatchAll(filter)) stages.push({ $match: filter });
  // A view is read through its pipeline, which has no natural order to follow (mongod: 168).
  if (sort && Object.prototype.hasOwnProperty.call(sort, '$natural'))
    fail(
      ErrorCode.InvalidPipelineOperator,
      'a view has no natural order: sort a view by its fields, or find on the collection it reads for $natural order.',
    );
  if (sort && Object.keys(sort).length > 0) stages.push({ $sort: sort });
  if (skip) stages.push({ $skip: skip });
  if (limit) stages.push({ $limit: limit });
  return stages;
}

/** A leading $match goes through the planner, so indexed pipelines do not scan the collection. */
export function aggregateCollection(engine: EngineContext, coll: Collection, pipeline: Document[]): Document[] {
  let input: Iterable<Document>;
  let rest = pipeline;
  checkStagePositions(pipeline);
  const first = pipeline[0];
  if (isPlainObject(first) && Object.keys(first).length === 1 && isPlainObject(first.$match)) {
    input = queryRecords(coll, { filter: first.$match }).map((r) => r.doc);
    rest = pipeline.slice(1);
  } else {
    input = (function* () {
      for (const r of coll.scanRecords()) {
        checkForInterrupt();
        yield r.doc;
      }
    })();
  }
  return runPipeline(input, rest, {
    now: engine.now(),
    catalog: engineCatalog(engine, coll.dbName),
    introspection: engineIntrospection(engine, coll.name),
  });
}

/** First stages that make the documents of a collection-less {aggregate: 1}. */
const COLLECTIONLESS = new Set(['$documents', '$currentOp', '$listLocalSessions']);

export const crudCommands: Record<string, CommandHandler> = {
  insert: unacknowledgedAware(insert),
  find,
  getMore,
  killCursors,
  update: unacknowledgedAware(update),
  delete: unacknowledgedAware(del),
  findAndModify,
  findandmodify: findAndModify,
  count,
  distinct,
  aggregate,
};
