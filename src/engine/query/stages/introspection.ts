/**
 * The stages that report on the server rather than read documents, as a standalone mongod 8.0 has
 * them: $collStats, $indexStats, $planCacheStats (on a collection), $currentOp and
 * $listLocalSessions ({aggregate: 1}), $listSessions (on config.system.sessions). Each must be the
 * first stage and reads the engine through the pipeline's introspection, never made-up figures.
 *
 * What the engine keeps no state for answers as mongod does when that state is empty: it has no
 * plan cache (queries are planned each time) and no in-memory session cache.
 */
import { Long } from 'bson';
import { toDouble } from '../../values/numbers';
import { isNumeric, isPlainObject, type Document } from '../../values/types';
import { fail, hasOwn, show, typeName } from './shared';
import type { PipelineIntrospection, StageEnv, StageParser } from './types';

function introspectionOf(env: StageEnv, name: string): PipelineIntrospection {
  const found = env.ctx.introspection;
  if (!found) fail(238, `${name} needs the engine's state: run it with the aggregate command, not on documents alone.`);
  return found;
}

function unknownField(path: string): never {
  fail(40415, `BSON field '${path}' is an unknown field.`);
}

function requireObject(path: string, v: unknown): Document {
  if (!isPlainObject(v)) fail(14, `BSON field '${path}' is the wrong type '${typeName(v)}', expected type 'object'`);
  return v;
}

function requireBool(path: string, v: unknown): void {
  if (typeof v !== 'boolean') fail(14, `BSON field '${path}' is the wrong type '${typeName(v)}', expected type 'bool'`);
}

function dbOf(env: StageEnv): string {
  return env.ctx.catalog?.dbName ?? 'test';
}

function collectionOf(intro: PipelineIntrospection, name: string): string {
  if (intro.collection === undefined)
    fail(73, `${name} must be run against a collection: aggregate over one, not {aggregate: 1}.`);
  return intro.collection;
}

// ---------------------------------------------------------------------------------------------
// $collStats
// ---------------------------------------------------------------------------------------------

export const parseCollStats: StageParser = (spec, env, name) => {
  if (!isPlainObject(spec)) fail(5447000, `$collStats must take a nested object but found: ${name}: ${show(spec)}`);
  let scale = 1;
  for (const [k, v] of Object.entries(spec)) {
    if (k === 'storageStats') {
      const opts = requireObject('$collStats.storageStats', v);
      for (const [o, ov] of Object.entries(opts)) {
        if (o === 'scale') {
          if (!isNumeric(ov))
            fail(
              14,
              `BSON field '$collStats.storageStats.scale' is the wrong type '${typeName(ov)}', expected type 'int'`,
            );
          scale = Math.trunc(toDouble(ov));
          if (scale < 1) fail(51024, `BSON field 'scale' value must be >= 1, actual value '${scale}'`);
        } else if (o === 'verbose' || o === 'waitForLock' || o === 'numericOnly') {
          requireBool(`$collStats.storageStats.${o}`, ov);
        } else unknownField(`$collStats.storageStats.${o}`);
      }
    } else if (k === 'count' || k === 'queryExecStats') {
      requireObject(`$collStats.${k}`, v);
    } else if (k === 'latencyStats') {
      const opts = requireObject('$collStats.latencyStats', v);
      for (const [o, ov] of Object.entries(opts)) {
        if (o !== 'histograms') unknownField(`$collStats.latencyStats.${o}`);
        requireBool('$collStats.latencyStats.histograms', ov);
        if (ov === true)
          fail(
            238,
            '$collStats latencyStats histograms are not kept by the embedded engine: it keeps the total latency and count of each kind; drop histograms: true.',
          );
      }
    } else unknownField(`$collStats.${k}`);
  }
  const intro = introspectionOf(env, name);
  const db = dbOf(env);
  const coll = collectionOf(intro, name);
  // A view keeps no documents of its own: only its latency has a meaning (mongod: 166).
  if (intro.isView(db, coll) && (hasOwn.call(spec, 'storageStats') || hasOwn.call(spec, 'count')))
    fail(
      166,
      `Namespace ${db}.${coll} is a view, not a collection: $collStats on a view takes latencyStats only; ask the collection it reads for storageStats or count.`,
    );
  return function* () {
    const stats = intro.collectionStats(db, coll);
    const out: Document = { ns: `${db}.${coll}`, host: intro.host, localTime: env.ctx.now };
    if (hasOwn.call(spec, 'latencyStats')) out.latencyStats = intro.latencyStats(db, coll);
    const missing: (what: string) => never = (what) =>
      fail(26, `Unable to retrieve ${what} in $collStats stage :: caused by :: Collection [${db}.${coll}] not found.`);
    if (hasOwn.call(spec, 'storageStats')) {
      if (!stats) missing('storageStats');
      out.storageStats = storageStats(stats, scale);
    }
    if (hasOwn.call(spec, 'count')) {
      if (!stats) missing('count');
      out.count = stats.count;
    }
    if (hasOwn.call(spec, 'queryExecStats')) {
      const scans = Long.fromNumber(stats?.collectionScans ?? 0);
      out.queryExecStats = { collectionScans: { total: scans, nonTailable: scans } };
    }
    yield out;
  };
};

function storageStats(
  stats: NonNullable<ReturnType<PipelineIntrospection['collectionStats']>>,
  scale: number,
): Document {
  const scaled = (n: number) => Math.trunc(n / scale);
  const indexSizes: Document = {};
  let totalIndexSize = 0;
  for (const [name, bytes] of Object.entries(stats.indexSizes)) {
    indexSizes[name] = scaled(bytes);
    totalIndexSize += bytes;
  }
  return {
    size: scaled(stats.size),
    count: stats.count,
    avgObjSize: stats.count ? Math.round(stats.size / stats.count) : 0,
    numOrphanDocs: 0,
    storageSize: scaled(stats.size),
    freeStorageSize: 0,
    capped: stats.capped,
    ...(stats.capped ? { max: stats.max ?? 0, maxSize: scaled(stats.maxSize ?? 0) } : {}),
    nindexes: Object.keys(stats.indexSizes).length,
    indexBuilds: [],
    totalIndexSize: scaled(totalIndexSize),
    totalSize: scaled(stats.size + totalIndexSize),
    indexSizes,
    scaleFactor: scale,
  };
}

// ---------------------------------------------------------------------------------------------
// $indexStats, $planCacheStats
// ---------------------------------------------------------------------------------------------

export const parseIndexStats: StageParser = (spec, env, name) => {
  if (!isPlainObject(spec) || Object.keys(spec).length > 0)
    fail(28803, 'The $indexStats stage specification must be an empty object');
  const intro = introspectionOf(env, name);
  const db = dbOf(env);
  const coll = collectionOf(intro, name);
  return () => intro.indexStats(db, coll);
};

export const parsePlanCacheStats: StageParser = (spec, env, name) => {
  if (!isPlainObject(spec)) fail(9, `$planCacheStats value must be an object. Found: ${typeName(spec)}`);
  for (const [k, v] of Object.entries(spec)) {
    if (k === 'allHosts') requireBool('$planCacheStats.allHosts', v);
    else unknownField(`$planCacheStats.${k}`);
  }
  collectionOf(introspectionOf(env, name), name);
  // The engine plans every query afresh and caches no plan: the cache is always empty.
  return () => [];
};

// ---------------------------------------------------------------------------------------------
// $currentOp
// ---------------------------------------------------------------------------------------------

const CURRENT_OP_FLAGS = new Set([
  'allUsers',
  'idleConnections',
  'idleCursors',
  'idleSessions',
  'localOps',
  'backtrace',
  'truncateOps',
  'targetAllNodes',
]);

export const parseCurrentOp: StageParser = (spec, env, name) => {
  if (!isPlainObject(spec)) fail(9, `$currentOp options must be specified in an object, but found: ${typeName(spec)}`);
  for (const [k, v] of Object.entries(spec)) {
    if (!CURRENT_OP_FLAGS.has(k)) fail(9, `Unrecognized option '${k}' in $currentOp stage.`);
    if (typeof v !== 'boolean')
      fail(9, `The '${k}' parameter of the $currentOp stage must be a boolean value, but found: ${typeName(v)}`);
  }
  const intro = introspectionOf(env, name);
  if (intro.collection !== undefined || dbOf(env) !== 'admin')
    fail(73, "$currentOp must be run against the 'admin' database with {aggregate: 1}");
  // mongod lists idle sessions (open transactions between statements) unless told not to.
  const idleSessions = spec.idleSessions !== false;
  return () => intro.currentOps({ idleSessions });
};

// ---------------------------------------------------------------------------------------------
// $listLocalSessions, $listSessions
// ---------------------------------------------------------------------------------------------

interface SessionsSpec {
  allUsers?: boolean;
  users?: { user: string; db: string }[];
}

function parseSessionUser(name: string, value: unknown): { user: string; db: string } {
  if (!isPlainObject(value))
    fail(
      14,
      `BSON field '${name}.users' holds a '${typeName(value)}': each user is an object {user: "name", db: "database"}`,
    );
  for (const field of ['user', 'db'] as const) {
    if (value[field] === undefined) fail(40414, `BSON field '${name}.users.${field}' is missing but a required field`);
    if (typeof value[field] !== 'string')
      fail(
        14,
        `BSON field '${name}.users.${field}' is the wrong type '${typeName(value[field])}', expected type 'string'`,
      );
  }
  for (const k of Object.keys(value)) if (k !== 'user' && k !== 'db') unknownField(`${name}.users.${k}`);
  return { user: value.user as string, db: value.db as string };
}

function parseSessionsSpec(spec: unknown, name: string): SessionsSpec {
  if (!isPlainObject(spec))
    fail(14, `BSON field '${name}' is the wrong type '${typeName(spec)}', expected type 'object'`);
  const parsed: SessionsSpec = {};
  for (const [k, v] of Object.entries(spec)) {
    if (k === 'allUsers') {
      requireBool(`${name}.allUsers`, v);
      parsed.allUsers = v as boolean;
    } else if (k === 'users') {
      if (!Array.isArray(v))
        fail(14, `BSON field '${name}.users' is the wrong type '${typeName(v)}', expected type 'array'`);
      parsed.users = v.map((u) => parseSessionUser(name, u));
    } else unknownField(`${name}.${k}`);
  }
  return parsed;
}

export const parseListLocalSessions: StageParser = (spec, env, name) => {
  const options = parseSessionsSpec(spec, name);
  const intro = introspectionOf(env, name);
  if (intro.collection !== undefined)
    fail(73, `${name} must be run against the database with {aggregate: 1}, not a collection`);
  return () => intro.localSessions(options);
};

export const parseListSessions: StageParser = (spec, env, name) => {
  parseSessionsSpec(spec, name);
  const intro = introspectionOf(env, name);
  if (dbOf(env) !== 'config' || intro.collection !== 'system.sessions')
    fail(73, `${name} must be run against the 'system.sessions' collection in the 'config' database.`);
  // The stored session records are the collection's documents: they pass through.
  return (input) => input;
};
