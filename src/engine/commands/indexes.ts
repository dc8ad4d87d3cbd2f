/** Index commands: createIndexes, listIndexes, dropIndexes, with mongod's replies and conflict codes. */
import { fail } from '../errors';
import { BTreeIndex } from '../indexes/btree-index';
import { recordIndexBuilt } from '../indexes/usage';
import { compareSpecs, conflictError, normalizeIndexSpec, withoutUnknownIndexOptions } from '../indexes/index-spec';
import { formatKeyPattern } from '../indexes/key-pattern';
import { compileFilter } from '../query/matcher';
import { valuesAtPath } from '../query/stages/shared';
import type { FieldSample } from '../ttl/ttl-field-choice';
import { validatePartialFilterExpression } from '../query/partial-filter';
import { cloneDocument } from '../values/clone';
import { valuesEqual } from '../values/compare';
import { exactDouble, toDouble } from '../values/numbers';
import { isNumeric, isPlainObject, type Document } from '../values/types';
import type { Collection } from '../catalog/collection';
import type { EngineContext } from '../engine-context';
import {
  checkTTLIndexSpec,
  isTTLIndexSpec,
  listedExpireAfterSeconds,
  type TTLCollectionFacts,
} from '../ttl/validation';
import {
  collectionNameOf,
  collectionNameOrUuidOf,
  optionalDocument,
  requireArray,
  type CommandContext,
  type CommandHandler,
} from './context';
import { isGenericArgument } from './known-fields';
import { refuseView } from './views';

export const MAX_INDEXES = 64;

/** createIndexes' own fields (mongod 8.0 parses the command strictly: anything else is 40415). */
const CREATE_INDEXES_FIELDS = new Set([
  'createIndexes',
  'indexes',
  'commitQuorum',
  'ignoreUnknownIndexOptions',
  'isTimeseriesNamespace',
  'collectionUUID',
]);

function createIndexes({ engine, dbName }: CommandContext, cmd: Document): Document {
  const name = collectionNameOf(cmd, 'createIndexes');
  for (const field of Object.keys(cmd))
    if (!CREATE_INDEXES_FIELDS.has(field) && !isGenericArgument(field))
      fail(
        40415,
        `BSON field 'createIndexes.${field}' is an unknown field. Index options go inside each spec of 'indexes'.`,
      );
  refuseView(engine, dbName, name, 'a view has no indexes of its own; index the collection it reads');
  const specs = requireArray(cmd, 'indexes');
  if (specs.length === 0)
    fail(
      'BadValue',
      'Must specify at least one index to create: {createIndexes: "c", indexes: [{key: {t: 1}, name: "t_1"}]}.',
    );
  const ignoreUnknown = cmd.ignoreUnknownIndexOptions;
  if (ignoreUnknown !== undefined && typeof ignoreUnknown !== 'boolean')
    fail(
      'TypeMismatch',
      "BSON field 'createIndexes.ignoreUnknownIndexOptions' is the wrong type, expected type 'bool': pass true or false.",
    );
  // Validate every spec before creating anything: one bad spec creates nothing (mongod does the same).
  const existing = engine.getCollection(dbName, name);
  const normalized = specs.map((s) => {
    const n = normalizeIndexSpec(ignoreUnknown === true ? withoutUnknownIndexOptions(s) : s);
    // An index without a collation of its own takes the collection's default (a v1 index cannot hold one).
    if (!n.collationGiven && existing?.options.collation && n.spec.v !== 1)
      n.spec.collation = existing.options.collation;
    if (n.spec.partialFilterExpression !== undefined) validatePartialFilterExpression(n.spec.partialFilterExpression);
    // Rule 1.5: TTL options are checked after the whole spec, against the original value.
    if (isTTLIndexSpec(n.spec))
      n.spec.expireAfterSeconds = checkTTLIndexSpec(n.spec, ttlFactsOf(engine, existing)).stored;
    return n;
  });
  const { collection, created } = engine.ensureCollection(dbName, name);
  const before = collection.indexes.size;
  const toCreate: Document[] = [];
  try {
    for (const { spec } of normalized) {
      if (checkAgainstExisting(collection, spec, toCreate) === 'exists') continue;
      toCreate.push(spec);
    }
    // Building an index locks the collection exclusively: open transactions that used it go first.
    // An index that already exists is a no-op that takes no such lock.
    if (toCreate.length > 0 && !created) engine.waitForTransactionLocks?.(collection.ns, exactDouble(cmd.maxTimeMS));
    if (collection.indexes.size + toCreate.length > MAX_INDEXES) {
      fail(
        'CannotCreateIndex',
        `add index fails, too many indexes for ${collection.ns}: a collection can have at most ${MAX_INDEXES} indexes. Drop unused ones first.`,
      );
    }
    const built: string[] = [];
    try {
      for (const spec of toCreate) {
        const partial = spec.partialFilterExpression
          ? compileFilter(spec.partialFilterExpression as Document)
          : undefined;
        const index = new BTreeIndex(spec, partial);
        collection.addIndex(index);
        recordIndexBuilt(index, engine.now());
        built.push(spec.name as string);
      }
    } catch (err) {
      // All or nothing: a DuplicateKey while building the second index removes the first too.
      for (const n of built) collection.dropIndex(n);
      throw err;
    }
    if (built.length) engine.recordEvent({ kind: 'indexesCreated', db: dbName, collection: name, names: built });
  } catch (err) {
    if (created && !existing) engine.dropCollection(dbName, name);
    throw err;
  }
  const reply: Document = {
    numIndexesBefore: before,
    numIndexesAfter: collection.indexes.size,
    // mongod leaves the field out only when nothing was built.
    ...(created || toCreate.length > 0 ? { createdCollectionAutomatically: created } : {}),
  };
  if (toCreate.length === 0) reply.note = 'all indexes already exist';
  else if (toCreate.length < normalized.length) reply.note = 'index already exists';
  if (engine.flavor === 'cosmos') reply._t = 'CreateIndexesResponse';
  reply.ok = 1;
  return reply;
}

function ttlFactsOf(engine: EngineContext, coll: Collection | undefined): TTLCollectionFacts {
  return {
    capped: coll?.isCapped ?? false,
    clustered: coll?.isClustered ?? false,
    timeseries: coll?.options.timeseries,
    serverVersion: engine.serverVersion,
    ...(coll && coll.count > 0 ? { sample: (field: string) => sampleField(coll, field) } : {}),
  };
}

/** Documents looked at to tell which field holds dates: enough to see a pattern, cheap on a large collection. */
const SAMPLE_SIZE = 100;

/** What the first documents of the collection hold at `field`: read only when a compound TTL key is refused. */
function sampleField(coll: Collection, field: string): FieldSample {
  const parts = field.split('.');
  let seen = 0;
  let dates = 0;
  let looked = 0;
  for (const record of coll.records.values()) {
    if (looked++ >= SAMPLE_SIZE) break;
    const values = valuesAtPath(record.doc, parts);
    if (values.length === 0) continue;
    seen++;
    if (values.some((v) => v instanceof Date)) dates++;
  }
  return { seen, dates };
}

/** 'exists' for an identical index (a no-op), otherwise throws on conflicts; 'new' to create. */
function checkAgainstExisting(coll: Collection, spec: Document, pending: Document[]): 'exists' | 'new' {
  for (const other of [...[...coll.indexes.values()].map((i) => i.spec), ...pending]) {
    const kind = compareSpecs(spec, other);
    if (kind === 'identical') return 'exists';
    // {_id: 1} is always there under the name _id_; asking for it again under a generated name
    // (the shells send "_id_1") finds it, as on mongod.
    if (kind === 'equivalentOtherName' && other.name === '_id_') return 'exists';
    const err = conflictError(kind, spec, other, coll.name);
    if (err) throw err;
  }
  return 'new';
}

function listIndexes({ engine, dbName }: CommandContext, cmd: Document): Document {
  const name = collectionNameOrUuidOf(engine, dbName, cmd, 'listIndexes');
  refuseView(engine, dbName, name);
  const coll = engine.requireCollection(dbName, name);
  const docs = [...coll.indexes.values()].map((i) => indexSpecForListing(coll, i));
  const cursor = optionalDocument(cmd, 'cursor');
  const batchSize = cursor && isNumeric(cursor.batchSize) ? toDouble(cursor.batchSize) : undefined;
  return { cursor: engine.cursors.openCursor(coll.ns, docs, batchSize), ok: 1 };
}

/** The spec as listIndexes shows it (a copy; the clustered _id index carries `clustered: true`). */
export function indexSpecForListing(coll: Collection, index: BTreeIndex): Document {
  const spec = cloneDocument(index.spec);
  // Rule 9.1 / 4.2: reported as an int32; invalid stored values (NaN, out of range) as 2147483647.
  if (isTTLIndexSpec(spec)) spec.expireAfterSeconds = listedExpireAfterSeconds(spec.expireAfterSeconds);
  if (coll.isClustered && index.name === '_id_') {
    spec.unique = true;
    spec.clustered = true;
  }
  return spec;
}

function dropIndexes({ engine, dbName }: CommandContext, cmd: Document): Document {
  const name = collectionNameOf(cmd, Object.keys(cmd)[0]);
  refuseView(engine, dbName, name);
  const coll = engine.requireCollection(dbName, name);
  const target = cmd.index;
  const before = coll.indexes.size;
  const names = resolveIndexesToDrop(coll, target);
  for (const n of names) coll.dropIndex(n);
  if (names.length) engine.recordEvent({ kind: 'indexesDropped', db: dbName, collection: name, names });
  return { nIndexesWas: before, ...(target === '*' ? { msg: 'non-_id indexes dropped for collection' } : {}), ok: 1 };
}

function resolveIndexesToDrop(coll: Collection, target: unknown): string[] {
  if (target === '*') return [...coll.indexes.keys()].filter((n) => n !== '_id_');
  const list = Array.isArray(target) ? target : [target];
  const names: string[] = [];
  for (const t of list) {
    let found: BTreeIndex | undefined;
    if (typeof t === 'string') {
      found = coll.indexes.get(t);
      if (!found)
        fail('IndexNotFound', `index not found with name [${t}] on ${coll.ns}. List the indexes with getIndexes().`);
    } else if (isPlainObject(t)) {
      const matches = [...coll.indexes.values()].filter((i) => valuesEqual(i.spec.key, t));
      if (matches.length === 0)
        fail('IndexNotFound', `can't find index with key: ${formatKeyPattern(t)} on ${coll.ns}.`);
      if (matches.length > 1)
        fail(
          'AmbiguousIndexKeyPattern',
          `${matches.length} indexes found for key: ${formatKeyPattern(t)}, identify by name instead. Conflicting indexes: ${matches.map((m) => m.name).join(', ')}`,
        );
      found = matches[0];
    } else {
      fail('TypeMismatch', 'dropIndexes \'index\' must be a name, a key pattern, an array of names, or "*".');
    }
    if (found.name === '_id_') fail('InvalidOptions', 'cannot drop _id index: every collection keeps its _id index.');
    names.push(found.name);
  }
  return names;
}

export const indexCommands: Record<string, CommandHandler> = {
  createIndexes,
  listIndexes,
  dropIndexes,
};
