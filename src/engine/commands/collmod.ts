/**
 * collMod: changing an index (expireAfterSeconds, hidden, unique/prepareUnique; rules 3.1–3.11) and
 * a clustered or time-series collection's own expireAfterSeconds (rule 5.5). Every check runs
 * before anything changes, so a refused collMod changes nothing.
 */
import { Int32, Long } from 'bson';
import type { Collection } from '../catalog/collection';
import { EngineError, fail } from '../errors';
import type { BTreeIndex } from '../indexes/btree-index';
import { formatKeyPattern } from '../indexes/key-pattern';
import {
  checkClusteredExpireAfterSeconds,
  checkCollModIndexExpireAfterSeconds,
  effectiveExpireAfterSeconds,
  isTTLIndexSpec,
} from '../ttl/validation';
import { valuesEqual } from '../values/compare';
import { formatValue } from '../values/format';
import { isNumeric, isPlainObject, type Document } from '../values/types';
import { parseValidationOptions } from '../validation/validator';
import { collectionNameOf, optionalBool, type CommandContext, type CommandHandler } from './context';
import { engineCatalog } from './pipeline-catalog';
import { checkViewDefinition, parseViewOptions } from './views';
import { storeViewDefinition } from './system-views';

const TOP_LEVEL = new Set([
  'collMod',
  'index',
  'expireAfterSeconds',
  'writeConcern',
  'comment',
  'lsid',
  '$db',
  'dryRun',
  'validator',
  'validationLevel',
  'validationAction',
]);
const UNSUPPORTED = new Set([
  'changeStreamPreAndPostImages',
  'timeseries',
  'cappedSize',
  'cappedMax',
  'recordIdsReplicated',
  'timeseriesBucketsMayHaveMixedSchemaData',
]);
const INDEX_FIELDS = new Set([
  'keyPattern',
  'name',
  'expireAfterSeconds',
  'hidden',
  'unique',
  'prepareUnique',
  'forceNonUnique',
]);

function findIndex(coll: Collection, spec: Document): BTreeIndex {
  if (spec.keyPattern !== undefined && spec.name !== undefined)
    fail('InvalidOptions', 'Cannot specify both key pattern and name.');
  if (spec.keyPattern === undefined && spec.name === undefined)
    fail('InvalidOptions', 'Must specify either index name or key pattern.');
  if (spec.name !== undefined) {
    const index = typeof spec.name === 'string' ? coll.indexes.get(spec.name) : undefined;
    if (!index)
      fail(
        'IndexNotFound',
        `cannot find index ${String(spec.name)} for ns ${coll.ns}. List the indexes with db.${coll.name}.getIndexes().`,
      );
    return index;
  }
  if (!isPlainObject(spec.keyPattern)) fail('TypeMismatch', "'keyPattern' must be an object such as {createdAt: 1}.");
  const matches = [...coll.indexes.values()].filter((i) => valuesEqual(i.spec.key, spec.keyPattern));
  if (matches.length === 0)
    fail(
      'IndexNotFound',
      `cannot find index ${formatKeyPattern(spec.keyPattern)} for ns ${coll.ns}. List the indexes with db.${coll.name}.getIndexes().`,
    );
  if (matches.length > 1) {
    fail(
      'AmbiguousIndexKeyPattern',
      `index keyPattern ${formatKeyPattern(spec.keyPattern)} matches ${matches.length} indexes (${matches.map((m) => m.name).join(', ')}): name the index instead, e.g. index: {name: "${matches[0].name}", ...}.`,
    );
  }
  return matches[0];
}

interface IndexChange {
  apply(): void;
  reply: Document;
}

/** Plan every requested modification of one index; nothing is applied until all are valid. */
function planIndexChange(ctx: CommandContext, coll: Collection, request: Document): IndexChange {
  for (const field of Object.keys(request)) {
    if (!INDEX_FIELDS.has(field)) fail(40415, `BSON field 'collMod.index.${field}' is an unknown field.`);
  }
  const { expireAfterSeconds, hidden, unique, prepareUnique, forceNonUnique } = request;
  if (
    expireAfterSeconds === undefined &&
    hidden === undefined &&
    unique === undefined &&
    prepareUnique === undefined &&
    forceNonUnique === undefined
  ) {
    fail(
      'InvalidOptions',
      'no expireAfterSeconds, hidden, unique, or prepareUnique field: say what to change, e.g. index: {name: "createdAt_1", expireAfterSeconds: 3600}.',
    );
  }
  if (
    prepareUnique !== undefined &&
    (expireAfterSeconds !== undefined || hidden !== undefined || unique !== undefined || forceNonUnique !== undefined)
  ) {
    fail(
      'InvalidOptions',
      'prepareUnique cannot be combined with other modifications: run it in a collMod of its own.',
    );
  }
  if (expireAfterSeconds !== undefined && coll.options.timeseries) {
    fail(
      'InvalidOptions',
      "TTL indexes are not supported for time-series collections. Please refer to the documentation and use the top-level 'expireAfterSeconds' option instead: db.runCommand({collMod: \"" +
        coll.name +
        '", expireAfterSeconds: <seconds>}).',
    );
  }
  const index = findIndex(coll, request);
  const spec = index.spec;
  const reply: Document = {};
  const edits: Array<() => void> = [];

  if (expireAfterSeconds !== undefined) {
    const seconds = checkCollModIndexExpireAfterSeconds(expireAfterSeconds);
    if (isTTLIndexSpec(spec)) {
      // Rules 3.6 / 3.9: change an existing value.
      if (!isNumeric(spec.expireAfterSeconds))
        fail('InvalidOptions', 'existing expireAfterSeconds field is not a number: drop and recreate the index.');
      const old = effectiveExpireAfterSeconds(spec.expireAfterSeconds);
      reply.expireAfterSeconds_old = Long.fromNumber(old ?? 0);
    } else {
      // Rule 3.5: convert a non-TTL index.
      if (index.name === '_id_')
        fail(
          'InvalidOptions',
          'the _id field does not support TTL indexes: put the date in another field and index that.',
        );
      if (index.fieldCount > 1)
        fail(
          'InvalidOptions',
          `TTL indexes are single-field indexes, compound indexes do not support TTL: ${formatKeyPattern(spec.key as Document)} has ${index.fieldCount} fields.`,
        );
      if (coll.isCapped && ctx.engine.serverVersion === '7.0') {
        fail(
          'InvalidOptions',
          'TTL indexes are not supported for capped collections. (MongoDB 7.0; 7.1+ allows them: use serverVersion "8.0".)',
        );
      }
    }
    reply.expireAfterSeconds_new = Long.fromNumber(seconds);
    edits.push(() => {
      spec.expireAfterSeconds = new Int32(seconds);
    });
  }

  if (hidden !== undefined) {
    const h = optionalBool(request, 'hidden')!;
    if (index.name === '_id_') fail('BadValue', "can't hide _id index");
    reply.hidden_old = spec.hidden === true;
    reply.hidden_new = h;
    edits.push(() => {
      if (h) spec.hidden = true;
      else delete spec.hidden;
    });
  }

  if (prepareUnique !== undefined) {
    const p = optionalBool(request, 'prepareUnique')!;
    reply.prepareUnique_old = spec.prepareUnique === true;
    reply.prepareUnique_new = p;
    edits.push(() => {
      if (p) spec.prepareUnique = true;
      else delete spec.prepareUnique;
    });
  }

  if (unique !== undefined) {
    if (optionalBool(request, 'unique') !== true)
      fail('BadValue', 'Cannot make index non-unique: use forceNonUnique: true.');
    if (spec.unique !== true) {
      if (spec.prepareUnique !== true)
        fail(
          'InvalidOptions',
          `Cannot make index unique with 'prepareUnique' not set: run collMod with index: {name: "${index.name}", prepareUnique: true} first.`,
        );
      const dup = firstDuplicate(index);
      if (dup)
        throw new EngineError(
          359,
          `Cannot convert the index to unique. Please resolve conflicting documents before running collMod again. Violation: ${dup}`,
        );
      reply.unique_new = true;
      edits.push(() => {
        spec.unique = true;
        delete spec.prepareUnique;
      });
    }
  }

  if (forceNonUnique !== undefined) {
    if (optionalBool(request, 'forceNonUnique') !== true) fail('BadValue', "'forceNonUnique' can only be true.");
    if (index.name === '_id_') fail('BadValue', 'The _id index must stay unique.');
    reply.forceNonUnique_new = true;
    edits.push(() => {
      delete spec.unique;
    });
  }

  return { reply, apply: () => edits.forEach((e) => e()) };
}

function firstDuplicate(index: BTreeIndex): string | undefined {
  let previous: unknown[] | undefined;
  let previousRid = -1;
  for (const [entry, record] of index.tree.entries()) {
    const values = index.valuesOf(entry);
    if (previous && record.rid !== previousRid && valuesEqual(previous, values)) return `key ${formatValue(values)}`;
    previous = values;
    previousRid = record.rid;
  }
  return undefined;
}

/** Rule 5.5: top-level expireAfterSeconds of clustered and time-series collections. */
function planCollectionTTL(ctx: CommandContext, coll: Collection, value: unknown): () => void {
  if (!coll.isClustered && !coll.options.timeseries) {
    fail(
      'InvalidOptions',
      "'expireAfterSeconds' option is only supported on collections clustered by _id: for an ordinary collection, put expireAfterSeconds on an index of a date field.",
    );
  }
  if (typeof value === 'string') {
    if (value !== 'off')
      fail(
        'InvalidOptions',
        `Invalid string value for the 'clusteredIndex::expireAfterSeconds' option. Got: '${value}'. Accepted value is 'off'`,
      );
    return () => {
      delete coll.options.expireAfterSeconds;
    };
  }
  const seconds = checkClusteredExpireAfterSeconds(value, ctx.engine.clock.now());
  return () => {
    coll.options.expireAfterSeconds = seconds;
  };
}

const VIEW_FIELDS = new Set(['collMod', 'viewOn', 'pipeline', 'writeConcern', 'comment', 'lsid', '$db']);

/** collMod of a view: a new viewOn and pipeline, checked like a create (cycles, depth, stages). */
function collModView(ctx: CommandContext, view: Collection, cmd: Document): Document {
  for (const field of Object.keys(cmd)) {
    if (!VIEW_FIELDS.has(field))
      fail('InvalidOptions', `option not supported on a view: ${field}. A view only has viewOn and pipeline.`);
  }
  if (cmd.viewOn === undefined && cmd.pipeline === undefined)
    fail(
      'InvalidOptions',
      "collMod of a view needs 'viewOn', 'pipeline' or both: the view has nothing else to change.",
    );
  if (cmd.pipeline !== undefined && !Array.isArray(cmd.pipeline))
    fail('InvalidOptions', "'pipeline' must be an array of aggregation stages when modifying a view");
  // Either may come alone (mongod asks for both only when auth is on); the other stays as it was.
  const { viewOn, pipeline } = parseViewOptions({
    viewOn: cmd.viewOn ?? view.options.viewOn,
    pipeline: cmd.pipeline ?? view.options.pipeline ?? [],
  });
  checkViewDefinition(
    ctx.engine,
    ctx.dbName,
    view.name,
    viewOn,
    pipeline,
    engineCatalog(ctx.engine, ctx.dbName),
    view.options.collation,
  );
  view.options.viewOn = viewOn;
  view.options.pipeline = pipeline;
  storeViewDefinition(ctx.engine, ctx.dbName, view);
  ctx.engine.recordEvent({ kind: 'collectionChanged', db: ctx.dbName, collection: view.name });
  return { ok: 1 };
}

function collMod(ctx: CommandContext, cmd: Document): Document {
  const name = collectionNameOf(cmd, 'collMod');
  const view = ctx.engine.getCollection(ctx.dbName, name);
  if (view?.isView) return collModView(ctx, view, cmd);
  for (const field of Object.keys(cmd)) {
    if (field === 'viewOn' || field === 'pipeline')
      fail('InvalidOptions', `'${field}' option only supported on a view: ${ctx.dbName}.${name} is a collection.`);
    if (UNSUPPORTED.has(field))
      fail('InvalidOptions', `collMod '${field}' is not supported by the TTL Workbench engine.`);
    if (!TOP_LEVEL.has(field)) fail(40415, `BSON field 'collMod.${field}' is an unknown field.`);
  }
  const coll = ctx.engine.getCollection(ctx.dbName, name);
  if (!coll) fail('NamespaceNotFound', `ns does not exist: ${ctx.dbName}.${name}`);
  let reply: Document = {};
  const applies: Array<() => void> = [];
  let indexName: string | undefined;
  if (cmd.index !== undefined) {
    if (!isPlainObject(cmd.index))
      fail('TypeMismatch', "'index' must be an object: {keyPattern | name, expireAfterSeconds | hidden | ...}.");
    const change = planIndexChange(ctx, coll, cmd.index);
    reply = change.reply;
    applies.push(change.apply);
    indexName = findIndex(coll, cmd.index).name;
  }
  if (cmd.expireAfterSeconds !== undefined) applies.push(planCollectionTTL(ctx, coll, cmd.expireAfterSeconds));
  const validation = parseValidationOptions(cmd, 'collMod', ctx.dbName, name);
  const changesValidation = Object.keys(validation).length > 0;
  if (changesValidation) applies.push(() => Object.assign(coll.options, validation));
  if (optionalBool(cmd, 'dryRun')) return { ...reply, ok: 1 };
  for (const apply of applies) apply();
  if (indexName) ctx.engine.recordEvent({ kind: 'indexChanged', db: ctx.dbName, collection: name, names: [indexName] });
  if (cmd.expireAfterSeconds !== undefined || changesValidation)
    ctx.engine.recordEvent({ kind: 'collectionChanged', db: ctx.dbName, collection: name });
  return { ...reply, ok: 1 };
}

export const collModCommands: Record<string, CommandHandler> = { collMod };
