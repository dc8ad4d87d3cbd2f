/**
 * $merge: each result document is matched against the target collection on the `on` fields
 * (`_id` by default, otherwise fields backed by a unique index) and then replaced, merged, kept,
 * run through a pipeline, or refused (whenMatched); unmatched ones are inserted, discarded or
 * refused (whenNotMatched). Writes go through the catalog, so they are validated, indexed and
 * journaled like the insert and update commands.
 */
import { isBsonUndefined } from '../../values/bson-undefined';
import { calculateObjectSize } from 'bson';
import { valuesEqual } from '../../values/compare';
import { isPlainObject, objectIdAt, type Document } from '../../values/types';
import { compileExpression, type CompiledExpression } from '../expressions';
import { checkUserVariableName, fail, fieldPathParts, hasOwn, put, typeName } from './shared';
import type { StageParser } from './types';

type WhenMatched = 'replace' | 'keepExisting' | 'merge' | 'fail' | 'pipeline';
type WhenNotMatched = 'insert' | 'discard' | 'fail';

const SUPPORTED: Record<WhenMatched, WhenNotMatched[]> = {
  replace: ['insert', 'discard', 'fail'],
  merge: ['insert', 'discard', 'fail'],
  pipeline: ['insert', 'discard', 'fail'],
  keepExisting: ['insert'],
  fail: ['insert'],
};

/** Stages an update pipeline (whenMatched: [...]) may hold. */
const UPDATE_STAGES = new Set(['$addFields', '$set', '$project', '$unset', '$replaceRoot', '$replaceWith']);

function parseTarget(v: unknown, defaultDb: string): { db: string; coll: string } {
  if (typeof v === 'string') return { db: defaultDb, coll: v };
  if (isPlainObject(v)) {
    let db = defaultDb;
    let coll: string | undefined;
    for (const [k, x] of Object.entries(v)) {
      if (k !== 'db' && k !== 'coll') fail(40415, `BSON field 'into.${k}' is an unknown field.`);
      if (typeof x !== 'string')
        fail(14, `BSON field 'into.${k}' is the wrong type '${typeName(x)}', expected type 'string'`);
      if (k === 'db') db = x;
      else coll = x;
    }
    if (coll === undefined) fail(40414, "BSON field 'into.coll' is missing but a required field");
    return { db, coll };
  }
  fail(51178, `$merge 'into' field must be either a string or an object, but found ${typeName(v)}`);
}

function parseOn(v: unknown): string[] {
  const list = typeof v === 'string' ? [v] : v;
  if (!Array.isArray(list))
    fail(51186, `$merge 'on' field must be either a string or an array of strings, but found ${typeName(v)}`);
  if (list.length === 0) fail(51187, "If explicitly specifying $merge 'on', must include at least one field");
  const seen = new Set<string>();
  for (const f of list) {
    if (typeof f !== 'string') fail(51134, `$merge 'on' array elements must be strings, but found ${typeName(f)}`);
    fieldPathParts(f);
    if (seen.has(f)) fail(31465, `Found a duplicate field '${f}'`);
    seen.add(f);
  }
  return list as string[];
}

export const parseMerge: StageParser = (spec, env) => {
  const catalog = env.ctx.catalog;
  const defaultDb = catalog?.dbName ?? 'test';
  if (typeof spec !== 'string' && !isPlainObject(spec))
    fail(51182, `$merge only supports a string or object argument, not ${typeName(spec)}`);
  let target = { db: defaultDb, coll: '' };
  let on: string[] | undefined;
  let whenMatched: WhenMatched = 'merge';
  let whenNotMatched: WhenNotMatched = 'insert';
  let pipeline: Document[] | undefined;
  let letSpec: Document | undefined;
  if (typeof spec === 'string') {
    target.coll = spec;
  } else {
    let into: unknown;
    for (const [k, v] of Object.entries(spec)) {
      switch (k) {
        case 'into':
          into = v;
          break;
        case 'on':
          on = parseOn(v);
          break;
        case 'let':
          // A null let is no let (mongod accepts it).
          if (v === null) break;
          if (!isPlainObject(v))
            fail(14, `BSON field '$merge.let' is the wrong type '${typeName(v)}', expected type 'object'`);
          letSpec = v;
          break;
        case 'whenMatched':
          if (Array.isArray(v)) {
            whenMatched = 'pipeline';
            pipeline = v as Document[];
          } else if (typeof v === 'string' && hasOwn.call(SUPPORTED, v) && v !== 'pipeline') {
            whenMatched = v as WhenMatched;
          } else if (typeof v === 'string') {
            fail(2, `Enumeration value '${v}' for field 'whenMatched' is not a valid value.`);
          } else {
            fail(
              14,
              `BSON field '$merge.whenMatched' is the wrong type '${typeName(v)}', expected types '[string, array]'`,
            );
          }
          break;
        case 'whenNotMatched':
          if (typeof v !== 'string')
            fail(14, `BSON field '$merge.whenNotMatched' is the wrong type '${typeName(v)}', expected type 'string'`);
          if (v !== 'insert' && v !== 'discard' && v !== 'fail')
            fail(2, `Enumeration value '${v}' for field '$merge.whenNotMatched' is not a valid value.`);
          whenNotMatched = v;
          break;
        case 'targetCollectionVersion':
          break;
        default:
          fail(40415, `BSON field '$merge.${k}' is an unknown field.`);
      }
    }
    if (into === undefined) fail(40414, "BSON field '$merge.into' is missing but a required field");
    target = parseTarget(into, defaultDb);
  }
  const { db, coll } = target;
  if (coll === '' || db === '') fail(73, `Invalid $merge target namespace: '${db}.${coll}'`);
  if (!SUPPORTED[whenMatched].includes(whenNotMatched))
    fail(
      51181,
      `Combination of $merge modes 'whenMatched: ${whenMatched === 'pipeline' ? '[pipeline]' : whenMatched}' and 'whenNotMatched: ${whenNotMatched}' is not supported`,
    );
  if (coll.startsWith('system.')) fail(31319, `Cannot $merge to special collection: ${coll}`);
  if (['admin', 'config', 'local'].includes(db)) fail(31320, `Cannot $merge to internal database: ${db}`);
  if (letSpec && whenMatched !== 'pipeline')
    fail(51199, `Cannot use 'let' variables with 'whenMatched: ${whenMatched}' mode`);
  const lets: Array<[string, CompiledExpression]> = [];
  // $$new is the default `let`; a `let` of its own defines it only when it names it ({new: "$$ROOT"}).
  const bindsNew = letSpec === undefined || hasOwn.call(letSpec, 'new');
  if (pipeline) {
    for (const [name, expr] of Object.entries(letSpec ?? {})) {
      if (name === 'new') {
        if (expr !== '$$ROOT')
          fail(51273, "'let' may not define a value for the reserved 'new' variable other than '$$ROOT'");
        continue;
      }
      checkUserVariableName(name);
      lets.push([name, compileExpression(expr)]);
    }
    for (const stage of pipeline) {
      const name = isPlainObject(stage) ? Object.keys(stage)[0] : undefined;
      if (name !== undefined && !UPDATE_STAGES.has(name))
        fail(72, `${name} is not allowed to be used within an update`);
    }
    // Compiled once here so a malformed pipeline fails before any document is read.
    env.compile(pipeline, { ...env, inFacet: false, place: 'mergeWhenMatched' });
  }
  const onFields = on ?? ['_id'];
  const onParts = onFields.map((f) => f.split('.'));
  const onIncludesId = onFields.includes('_id');

  // The target must have a unique index on exactly the `on` fields (checked before any document
  // is read, as mongod does while parsing).
  const checkTarget = (): void => {
    if (!catalog) fail(238, '$merge needs the engine: this pipeline runs without a catalog of collections.');
    const info = catalog.describe(db, coll);
    if (info?.timeseries)
      fail(
        166,
        `Namespace ${db}.${coll} is a view, not a collection: $merge cannot write into a time-series collection`,
      );
    if (on === undefined || (onFields.length === 1 && onIncludesId)) return;
    const wanted = new Set(onFields);
    const backed = (info?.uniqueKeys ?? []).some((key) => {
      const fields = Object.keys(key);
      return fields.length === wanted.size && fields.every((f) => wanted.has(f));
    });
    if (!backed) fail(51183, 'Cannot find index to verify that join fields will be unique');
  };
  if (catalog) checkTarget();

  return (input) => {
    // Everything is read before anything is written: $merge may target the collection it reads.
    const docs = Array.from(input);
    checkTarget();
    // Writes go in unordered batches, as mongod sends them: a document without a match (fail) or a
    // duplicate key (of any write: an insert, a replacement) is reported once the rest of its batch
    // is written.
    let batchError: Error | undefined;
    const unordered = (write: () => void): void => {
      try {
        write();
      } catch (e) {
        const code = (e as { code?: unknown }).code;
        if (!DEFERRED_WRITE_ERRORS.has(code as number)) throw e;
        batchError ??= e as Error;
      }
    };
    const runPipeline = (doc: Document, target: Document): Document | undefined => {
      const scope: Record<string, unknown> = bindsNew ? { ...env.vars, new: doc } : { ...env.vars };
      for (const [name, fn] of lets) {
        const v = fn(doc, env.vars);
        scope[name] = v === undefined ? null : v;
      }
      const run = env.compile(pipeline!, {
        ...env,
        vars: Object.freeze(scope),
        inFacet: false,
        place: 'mergeWhenMatched',
      });
      const [next] = Array.from(run([target]));
      return next;
    };
    let batchBytes = 0;
    let batchCount = 0;
    for (let doc of docs) {
      const size = calculateObjectSize(doc);
      if (batchCount > 0 && (batchBytes + size > MAX_BATCH_BYTES || batchCount >= MAX_BATCH_COUNT)) {
        // The batch is complete: a failure in it ends the stage before the next batch is sent.
        if (batchError !== undefined) throw batchError;
        batchBytes = 0;
        batchCount = 0;
      }
      batchBytes += size;
      batchCount++;
      if (onIncludesId && doc._id === undefined) doc = { _id: objectIdAt(Date.now()), ...doc };
      const filter: Document = {};
      onFields.forEach((field, i) => put(filter, field, { $eq: onValue(doc, onParts[i], field) }));
      const existing = first(catalog!.find(db, coll, filter));
      if (!existing) {
        // Since 4.4 a pipeline's unmatched document is inserted as it is (upsertSupplied), not run
        // through the pipeline.
        if (whenNotMatched === 'insert') unordered(() => catalog!.insert(db, coll, doc));
        else if (whenNotMatched === 'fail')
          unordered(() =>
            fail(
              13113,
              '$merge could not find a matching document in the target collection for at least one document in the source collection',
            ),
          );
        continue;
      }
      switch (whenMatched) {
        case 'keepExisting':
          break;
        case 'fail':
          // An insert: the unique index refuses it with a duplicate key error.
          unordered(() => catalog!.insert(db, coll, doc));
          break;
        case 'replace':
          unordered(() => catalog!.replace(db, coll, existing, checkedId(existing, doc)));
          break;
        case 'merge': {
          const next: Document = { ...existing };
          for (const k of Object.keys(doc)) put(next, k, doc[k]);
          unordered(() => catalog!.replace(db, coll, existing, checkedId(existing, next)));
          break;
        }
        case 'pipeline': {
          const next = runPipeline(doc, existing);
          unordered(() => catalog!.replace(db, coll, existing, checkedId(existing, next ?? {})));
          break;
        }
      }
    }
    if (batchError !== undefined) throw batchError;
    return [];
  };
};

/**
 * Errors of one write in an unordered batch: the rest of the batch is still written, then the first
 * is reported. No match for whenNotMatched "fail" (13113), a duplicate key (11000), a document the
 * target's validator refuses (121).
 */
const DEFERRED_WRITE_ERRORS = new Set([13113, 11000, 121]);

/** mongod's write batches: up to 16 MiB of documents (plus its 16 KiB margin) and 100,000 writes. */
const MAX_BATCH_BYTES = 16 * 1024 * 1024 + 16 * 1024;
const MAX_BATCH_COUNT = 100_000;

function first(docs: Iterable<Document>): Document | undefined {
  for (const d of docs) return d;
  return undefined;
}

/** The value of one `on` field: an array is refused (51185); null, missing or under an array too (51132). */
function onValue(doc: Document, parts: string[], field: string): unknown {
  let v: unknown = doc;
  for (let i = 0; i < parts.length; i++) {
    v = isPlainObject(v) && hasOwn.call(v, parts[i]) ? v[parts[i]] : undefined;
    if (Array.isArray(v)) {
      if (i === parts.length - 1) fail(51185, `$merge write error: 'on' field '${field}' is an array`);
      // An array before the end leaves the path without one value: as if it were missing.
      v = undefined;
      break;
    }
  }
  if (v === undefined || v === null || isBsonUndefined(v))
    fail(51132, `$merge write error: 'on' field '${field}' cannot be missing, null, undefined or an array`);
  return v;
}

/** A replacement keeps the matched document's _id; a different one is refused, as mongod does. */
function checkedId(existing: Document, next: Document): Document {
  if (next._id !== undefined && !valuesEqual(next._id, existing._id))
    fail(
      66,
      `$merge failed to update the matching document, did you attempt to modify the _id or the shard key? :: caused by :: Performing an update on the path '_id' would modify the immutable field '_id'`,
    );
  const out: Document = { _id: existing._id };
  for (const k of Object.keys(next)) if (k !== '_id') put(out, k, next[k]);
  return out;
}
