/** Catalog commands: create, drop, dropDatabase, renameCollection, listDatabases, listCollections, stats. */
import { Binary, Int32, Long } from 'bson';
import type { Collection, CollectionOptions } from '../catalog/collection';
import { parseTimeseries } from './timeseries-options';
import { collationDocument, parseCollation } from '../collation/spec';
import { BTreeIndex } from '../indexes/btree-index';
import { fail } from '../errors';
import { compileFilter } from '../query/matcher';
import { valuesEqual } from '../values/compare';
import { formatValue } from '../values/format';
import { exactDouble, toDouble } from '../values/numbers';
import { checkClusteredExpireAfterSeconds } from '../ttl/validation';
import { parseValidationOptions } from '../validation/validator';
import { validateCollectionName } from '../catalog/namespaces';
import { engineCatalog } from './pipeline-catalog';
import { checkViewDefinition, parseViewOptions, refuseView } from './views';
import { filterMayListViews, removeViewDefinition, requireValidViews, storeViewDefinition } from './system-views';
import { parseIndexOptionDefaults, parseStorageEngineOptions } from './storage-engine-options';
import { isNumeric, isPlainObject, type Document } from '../values/types';
import { collectionNameOf, optionalBool, optionalDocument, type CommandContext, type CommandHandler } from './context';

const CREATE_FIELDS = new Set([
  'create',
  'capped',
  'size',
  'max',
  'timeseries',
  'clusteredIndex',
  'expireAfterSeconds',
  'validator',
  'validationLevel',
  'validationAction',
  'viewOn',
  'pipeline',
  'collation',
  'storageEngine',
  'indexOptionDefaults',
  'writeConcern',
  'comment',
  'lsid',
  '$db',
  'autoIndexId',
  'changeStreamPreAndPostImages',
  'encryptedFields',
]);

function create({ engine, dbName }: CommandContext, cmd: Document): Document {
  const name = collectionNameOf(cmd, 'create');
  for (const field of Object.keys(cmd)) {
    if (!CREATE_FIELDS.has(field)) fail(40415, `BSON field 'create.${field}' is an unknown field.`);
  }
  if (cmd.viewOn !== undefined) return createView(engine, dbName, name, cmd);
  if (cmd.pipeline !== undefined)
    fail(
      'BadValue',
      '\'pipeline\' requires \'viewOn\' to also be specified: {create: "v", viewOn: "<collection>", pipeline: [...]}.',
    );
  if (cmd.encryptedFields !== undefined)
    fail('InvalidOptions', 'Queryable Encryption is not supported by the TTL Workbench engine.');
  const options: CollectionOptions = {
    ...parseValidationOptions(cmd, 'create', dbName, name),
    ...defaultCollationOption(cmd.collation),
  };
  if (cmd.storageEngine !== undefined)
    options.storageEngine = parseStorageEngineOptions('create.storageEngine', cmd.storageEngine);
  if (cmd.indexOptionDefaults !== undefined)
    options.indexOptionDefaults = parseIndexOptionDefaults(cmd.indexOptionDefaults);
  const capped = optionalBool(cmd, 'capped') ?? false;
  if (capped) {
    if (!isNumeric(cmd.size))
      fail(
        'InvalidOptions',
        "the 'size' field is required when 'capped' is true: give the maximum size in bytes, e.g. {capped: true, size: 1048576}.",
      );
    const size = toDouble(cmd.size);
    if (size <= 0) fail('BadValue', "'size' of a capped collection must be greater than 0.");
    options.capped = true;
    // Since 6.2 the size is kept as given (no rounding to 256 bytes).
    options.size = size;
    if (cmd.max !== undefined) {
      if (!isNumeric(cmd.max)) fail('TypeMismatch', "'max' must be a number of documents.");
      options.max = Math.trunc(toDouble(cmd.max));
    }
  }
  if (cmd.timeseries !== undefined) options.timeseries = parseTimeseries(cmd.timeseries, capped);
  if (cmd.clusteredIndex !== undefined) {
    if (options.timeseries)
      fail('InvalidOptions', 'Time-series collections are clustered internally: remove clusteredIndex.');
    options.clusteredIndex = parseClusteredIndex(cmd.clusteredIndex);
  }
  if (cmd.expireAfterSeconds !== undefined) {
    if (!options.clusteredIndex && !options.timeseries) {
      fail(
        'InvalidOptions',
        "'expireAfterSeconds' requires clustering to be enabled: create a clustered collection ({clusteredIndex: {key: {_id: 1}, unique: true}}) or a time-series collection, or put expireAfterSeconds on an index instead.",
      );
    }
    // Rules 5.3 / 6.1: an int64 of seconds, not negative, not reaching back before 1970.
    options.expireAfterSeconds = checkClusteredExpireAfterSeconds(cmd.expireAfterSeconds, engine.clock.now());
  }
  const existing = engine.getCollection(dbName, name);
  if (existing) {
    // Since 7.0 (SERVER-60064) create is idempotent when the options are the same.
    if (valuesEqual(collectionOptionsDocument(existing), optionsDocumentOf(options))) return { ok: 1 };
    fail(
      'NamespaceExists',
      `Collection ${dbName}.${name} already exists with different options. Drop it first or pick another name.`,
    );
  }
  const coll = engine.createCollection(dbName, name, options);
  if (options.timeseries?.metaField) {
    // 6.3+ creates a {meta: 1, time: 1} index on time-series collections that have a metaField.
    const { metaField, timeField } = options.timeseries;
    coll.addIndex(
      new BTreeIndex({ v: 2, key: { [metaField]: 1, [timeField]: 1 }, name: `${metaField}_1_${timeField}_1` }),
    );
  }
  return { ok: 1 };
}

/** Options a view takes besides viewOn and pipeline (the generic command fields). */
const VIEW_FIELDS = new Set(['create', 'viewOn', 'pipeline', 'collation', 'writeConcern', 'comment', 'lsid', '$db']);

/** A collection's or view's default collation as stored: the full document, or none for "simple". */
function defaultCollationOption(value: unknown): Pick<CollectionOptions, 'collation'> {
  if (value === undefined) return {};
  const spec = parseCollation(value);
  return spec ? { collation: collationDocument(spec) } : {};
}

function createView(engine: CommandContext['engine'], dbName: string, name: string, cmd: Document): Document {
  for (const field of Object.keys(cmd)) {
    if (!VIEW_FIELDS.has(field))
      fail('InvalidOptions', `'${field}' cannot be combined with 'viewOn': a view only has viewOn and pipeline.`);
  }
  const { viewOn, pipeline } = parseViewOptions(cmd);
  validateCollectionName(dbName, name);
  const options: CollectionOptions = { viewOn, pipeline, ...defaultCollationOption(cmd.collation) };
  const existing = engine.getCollection(dbName, name);
  if (existing) {
    if (valuesEqual(collectionOptionsDocument(existing), optionsDocumentOf(options))) return { ok: 1 };
    fail(
      'NamespaceExists',
      `${existing.isView ? 'View' : 'Collection'} ${dbName}.${name} already exists with different options. Drop it first or pick another name.`,
    );
  }
  checkViewDefinition(engine, dbName, name, viewOn, pipeline, engineCatalog(engine, dbName), options.collation);
  // mongod reloads every definition of system.views when it adds one: an invalid one fails the create.
  requireValidViews(engine, dbName);
  const view = engine.createCollection(dbName, name, options);
  storeViewDefinition(engine, dbName, view);
  return { ok: 1 };
}

function parseClusteredIndex(value: unknown): Document {
  if (!isPlainObject(value)) fail('TypeMismatch', "'clusteredIndex' must be an object: {key: {_id: 1}, unique: true}.");
  for (const k of Object.keys(value))
    if (!['key', 'unique', 'name', 'v'].includes(k))
      fail(40415, `BSON field 'clusteredIndex.${k}' is an unknown field.`);
  if (value.unique !== true)
    fail('Location5979700', "The 'clusteredIndex' option requires unique: true: {key: {_id: 1}, unique: true}.");
  const key = value.key;
  if (
    !isPlainObject(key) ||
    Object.keys(key).length !== 1 ||
    Object.keys(key)[0] !== '_id' ||
    toDouble(key._id) !== 1
  ) {
    fail('InvalidIndexSpecificationOption', `The clusteredIndex key must be {_id: 1}, got ${formatValue(key)}.`);
  }
  return { key: { _id: 1 }, unique: true, ...(value.name !== undefined ? { name: value.name } : {}), v: 2 };
}

function drop({ engine, dbName }: CommandContext, cmd: Document): Document {
  const name = collectionNameOf(cmd, 'drop');
  const coll = engine.getCollection(dbName, name);
  // Since 7.0 dropping a missing collection succeeds.
  if (!coll) return { ok: 1 };
  if (coll.isView) {
    engine.dropCollection(dbName, name);
    removeViewDefinition(engine, dbName, name);
    return { ns: `${dbName}.${name}`, ok: 1 };
  }
  // The drop locks the collection exclusively: open transactions that used it go first.
  engine.waitForTransactionLocks?.(`${dbName}.${name}`, exactDouble(cmd.maxTimeMS));
  const nIndexesWas = coll.indexes.size;
  engine.dropCollection(dbName, name);
  return { nIndexesWas, ns: `${dbName}.${name}`, ok: 1 };
}

function dropDatabase({ engine, dbName }: CommandContext): Document {
  // mongod names the database it dropped; a database that did not exist gets a bare ok.
  return engine.dropDatabase(dbName) ? { dropped: dbName, ok: 1 } : { ok: 1 };
}

function splitNs(ns: unknown, field: string): [string, string] {
  if (typeof ns !== 'string' || !ns.includes('.'))
    fail('InvalidNamespace', `Invalid ${field} namespace: ${formatValue(ns)}; use "<db>.<collection>".`);
  const i = ns.indexOf('.');
  return [ns.slice(0, i), ns.slice(i + 1)];
}

function renameCollection({ engine, dbName }: CommandContext, cmd: Document): Document {
  if (dbName !== 'admin')
    fail(
      'Unauthorized',
      'renameCollection may only be run against the admin database: db.adminCommand({renameCollection: "db.from", to: "db.to"}), or use db.from.renameCollection("to").',
    );
  const [fromDb, from] = splitNs(cmd.renameCollection, 'source');
  const [toDb, to] = splitNs(cmd.to, 'target');
  if (fromDb === toDb && from === to) fail('IllegalOperation', "Can't rename a collection to itself.");
  refuseView(engine, fromDb, from, 'a view cannot be renamed; drop it and create it again under the new name');
  refuseView(engine, toDb, to, 'renameCollection cannot replace a view; drop the view first');
  engine.requireCollection(fromDb, from);
  if (engine.getCollection(toDb, to)) {
    if (optionalBool(cmd, 'dropTarget')) engine.dropCollection(toDb, to);
    else fail('NamespaceExists', `target namespace exists: ${toDb}.${to}. Pass dropTarget: true to replace it.`);
  }
  engine.renameCollection(fromDb, from, toDb, to);
  return { ok: 1 };
}

function listDatabases({ engine, dbName }: CommandContext, cmd: Document): Document {
  if (dbName !== 'admin')
    fail(
      'Unauthorized',
      'listDatabases may only be run against the admin database: db.adminCommand({listDatabases: 1}).',
    );
  const nameOnly = optionalBool(cmd, 'nameOnly') ?? false;
  const filter = optionalDocument(cmd, 'filter');
  const matches = filter ? compileFilter(filter) : undefined;
  const databases: Document[] = [];
  let total = 0;
  for (const db of [...engine.databases.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    let size = 0;
    for (const coll of db.collections.values()) size += coll.dataSizeBytes;
    const entry: Document = nameOnly
      ? { name: db.name }
      : { name: db.name, sizeOnDisk: Long.fromNumber(size), empty: size === 0 };
    if (matches && !matches(entry)) continue;
    total += size;
    databases.push(entry);
  }
  return nameOnly
    ? { databases, ok: 1 }
    : {
        databases,
        totalSize: Long.fromNumber(total),
        totalSizeMb: Long.fromNumber(Math.round(total / 1048576)),
        ok: 1,
      };
}

/** listCollections' `options` document: what was given to create, in mongod's shape. */
export function collectionOptionsDocument(coll: Collection): Document {
  return optionsDocumentOf(coll.options);
}

function optionsDocumentOf(o: CollectionOptions): Document {
  const out: Document = {};
  if (o.capped) {
    out.capped = true;
    out.size = o.size;
    if (o.max !== undefined) out.max = o.max;
  }
  if (o.clusteredIndex) out.clusteredIndex = { ...o.clusteredIndex, name: o.clusteredIndex.name ?? '_id_' };
  if (o.timeseries) {
    const ts = o.timeseries;
    out.timeseries = {
      timeField: ts.timeField,
      ...(ts.metaField ? { metaField: ts.metaField } : {}),
      ...(ts.granularity ? { granularity: ts.granularity } : {}),
      bucketMaxSpanSeconds: new Int32(ts.bucketMaxSpanSeconds ?? 3600),
      ...(ts.bucketRoundingSeconds !== undefined ? { bucketRoundingSeconds: new Int32(ts.bucketRoundingSeconds) } : {}),
    };
  }
  if (o.expireAfterSeconds !== undefined)
    out.expireAfterSeconds = Long.fromNumber(Math.trunc(toDouble(o.expireAfterSeconds)));
  if (o.viewOn !== undefined) {
    out.viewOn = o.viewOn;
    out.pipeline = o.pipeline ?? [];
  }
  if (o.storageEngine !== undefined) out.storageEngine = o.storageEngine;
  if (o.indexOptionDefaults !== undefined) out.indexOptionDefaults = o.indexOptionDefaults;
  if (o.validator && Object.keys(o.validator).length > 0) out.validator = o.validator;
  if (o.validationLevel !== undefined) out.validationLevel = o.validationLevel;
  if (o.validationAction !== undefined) out.validationAction = o.validationAction;
  if (o.collation !== undefined) out.collation = o.collation;
  return out;
}

function listCollections({ engine, dbName }: CommandContext, cmd: Document): Document {
  const filter = optionalDocument(cmd, 'filter');
  const nameOnly = optionalBool(cmd, 'nameOnly') ?? false;
  const matches = filter ? compileFilter(filter) : undefined;
  // Listing views reads every definition of system.views (an invalid one fails the command); a
  // filter that keeps collections only reads none, as in mongod.
  if (filterMayListViews(filter)) requireValidViews(engine, dbName);
  const db = engine.getDatabase(dbName);
  const docs: Document[] = [];
  for (const coll of db ? db.collections.values() : []) {
    const full: Document = coll.isView
      ? { name: coll.name, type: 'view', options: collectionOptionsDocument(coll), info: { readOnly: true } }
      : {
          name: coll.name,
          type: coll.type,
          options: collectionOptionsDocument(coll),
          info: { readOnly: false, uuid: new Binary(coll.uuid.toBinary().buffer, Binary.SUBTYPE_UUID) },
          ...(coll.idIndex && !coll.isClustered ? { idIndex: { v: 2, key: { _id: 1 }, name: '_id_' } } : {}),
        };
    if (matches && !matches(full)) continue;
    docs.push(nameOnly ? { name: coll.name, type: coll.type } : full);
  }
  docs.sort((a, b) => (String(a.name) < String(b.name) ? -1 : 1));
  const cursor = optionalDocument(cmd, 'cursor');
  const batchSize = cursor && isNumeric(cursor.batchSize) ? toDouble(cursor.batchSize) : undefined;
  return { cursor: engine.cursors.openCursor(`${dbName}.$cmd.listCollections`, docs, batchSize), ok: 1 };
}

function collStats({ engine, dbName }: CommandContext, cmd: Document): Document {
  const name = collectionNameOf(cmd, 'collStats');
  refuseView(engine, dbName, name, 'collStats reads a collection; run it on the collection the view reads');
  const scale = scaleOf(cmd);
  const coll = engine.getCollection(dbName, name);
  // A missing collection has zeroed statistics (mongod fills them in on NamespaceNotFound).
  if (!coll)
    return {
      ns: `${dbName}.${name}`,
      size: 0,
      count: 0,
      storageSize: 0,
      totalIndexSize: 0,
      totalSize: 0,
      nindexes: 0,
      indexSizes: {},
      scaleFactor: scale,
      ok: 1,
    };
  // Sizes are reported in units of `scale` bytes, rounded down, as mongod does (avgObjSize stays in bytes).
  const scaled = (bytes: number) => Math.floor(bytes / scale);
  const size = coll.dataSizeBytes;
  const indexSizes: Document = {};
  let totalIndexSize = 0;
  for (const index of coll.indexes.values()) {
    indexSizes[index.name] = scaled(index.size * 40);
    totalIndexSize += index.size * 40;
  }
  return {
    ns: coll.ns,
    count: coll.count,
    size: scaled(size),
    avgObjSize: coll.count ? Math.round(size / coll.count) : 0,
    storageSize: scaled(size),
    capped: coll.isCapped,
    ...(coll.isCapped ? { max: coll.options.max ?? 0, maxSize: scaled(coll.options.size ?? 0) } : {}),
    nindexes: coll.indexes.size,
    indexSizes,
    totalIndexSize: scaled(totalIndexSize),
    totalSize: scaled(size + totalIndexSize),
    ...(optionalBool(cmd, 'indexDetails') ? { indexDetails: indexDetailsOf(coll, scaled) } : {}),
    scaleFactor: scale,
    ok: 1,
  };
}

/**
 * collStats' `indexDetails: true`: per index, what the engine's own structure holds (mongod
 * reports its storage engine's statistics for each index here).
 */
function indexDetailsOf(coll: Collection, scaled: (bytes: number) => number): Document {
  const details: Document = {};
  for (const index of coll.indexes.values()) {
    details[index.name] = {
      type: 'btree',
      entries: index.size,
      size: scaled(index.size * 40),
      multikey: index.multikey,
    };
  }
  return details;
}

/** collStats' `scale`: a positive number of bytes per reported unit (1 when absent). */
function scaleOf(cmd: Document): number {
  if (cmd.scale === undefined) return 1;
  if (!isNumeric(cmd.scale)) fail('TypeMismatch', `scale must be a number of bytes, not ${formatValue(cmd.scale)}.`);
  const scale = Math.trunc(toDouble(cmd.scale));
  if (!(scale >= 1)) fail(51024, 'scale has to be >= 1: give the number of bytes per unit, e.g. 1024 for KB.');
  return scale;
}

function dbStats({ engine, dbName }: CommandContext, cmd: Document): Document {
  const db = engine.getDatabase(dbName);
  const scale = scaleOf(cmd);
  const scaled = (bytes: number) => Math.floor(bytes / scale);
  let objects = 0;
  let dataSize = 0;
  let indexes = 0;
  let indexSize = 0;
  let views = 0;
  for (const coll of db ? db.collections.values() : []) {
    if (coll.isView) {
      views++;
      continue;
    }
    objects += coll.count;
    dataSize += coll.dataSizeBytes;
    indexes += coll.indexes.size;
    for (const index of coll.indexes.values()) indexSize += index.size * 40; // as collStats estimates
  }
  return {
    db: dbName,
    collections: (db?.collections.size ?? 0) - views,
    views,
    objects,
    avgObjSize: objects ? dataSize / objects : 0,
    dataSize: scaled(dataSize),
    storageSize: scaled(dataSize),
    indexes,
    indexSize: scaled(indexSize),
    totalSize: scaled(dataSize + indexSize),
    scaleFactor: scale,
    ok: 1,
  };
}

export const catalogCommands: Record<string, CommandHandler> = {
  create,
  drop,
  dropDatabase,
  renameCollection,
  listDatabases,
  listCollections,
  collStats,
  dbStats,
};
