/**
 * What MongoDB 8.0's manual documents for a self-managed server, one entry per name, each with a
 * small valid use of it (its sample). The compatibility report runs every sample against a fresh
 * engine, so a row says what the engine does, not what a list in the code claims.
 *
 * The names are the manual's reference lists (Database Commands; Query Predicates and Projection;
 * Update Operators; Aggregation Stages; Aggregation Operators, with accumulators and window
 * operators; Indexes). Families a standalone engine leaves out on purpose carry a scope, which
 * the report counts apart from the rest.
 */
import { Int32, ObjectId, Timestamp } from 'bson';
import type { Document } from '../engine/values/types';

/** Why an entry is outside what the engine sets out to do. */
export type Scope =
  | 'atlas' // Atlas-only (Atlas Search, Vector Search): excluded from the denominators
  | 'text' // text search
  | 'geo' // geospatial
  | 'javascript' // server-side JavaScript
  | 'sharding'
  | 'replication' // a replica set's own machinery (a standalone mongod refuses it too)
  | 'users' // user and role management
  | 'enterprise'; // MongoDB Enterprise only (auditing, encryption)

export type Family =
  | 'command'
  | 'query'
  | 'projection'
  | 'update'
  | 'stage'
  | 'expression'
  | 'accumulator'
  | 'window'
  | 'indexType'
  | 'indexOption';

export interface Entry {
  readonly family: Family;
  readonly name: string;
  /** The manual's group for the name (e.g. "Array", "Administration"). */
  readonly group: string;
  /** A valid use, in the family's shape (see probe.ts). */
  readonly sample: unknown;
  readonly scope?: Scope;
}

const i = (n: number): Int32 => new Int32(n);

/** The documents every probe starts with, in database `compat`, collection `c` (index {a: 1}). */
export const SAMPLE_DOCUMENTS: readonly Document[] = [
  {
    _id: i(1),
    a: i(5),
    b: i(3),
    n: 2.5,
    s: 'Hello World',
    d: new Date('2026-03-04T05:06:07.089Z'),
    arr: [i(3), i(1), i(2)],
    o: { x: i(1), y: i(2) },
    t: new Timestamp({ t: 1_700_000_000, i: 3 }),
    items: [
      { k: 'a', v: i(1) },
      { k: 'b', v: i(2) },
    ],
    parent: i(7),
  },
  {
    _id: i(2),
    a: i(7),
    b: i(1),
    n: 1.5,
    s: 'abc',
    d: new Date('2026-03-05T00:00:00Z'),
    arr: [i(4), i(5)],
    o: { x: i(3) },
    t: new Timestamp({ t: 1_700_000_100, i: 1 }),
    items: [{ k: 'c', v: i(3) }],
    parent: null,
  },
];

type Group = readonly [group: string, entries: Readonly<Record<string, unknown>>, scope?: Scope];

function family(f: Family, groups: readonly Group[]): Entry[] {
  const out: Entry[] = [];
  for (const [group, entries, scope] of groups)
    for (const [name, sample] of Object.entries(entries))
      out.push(scope ? { family: f, name, group, sample, scope } : { family: f, name, group, sample });
  return out;
}

// ---------------------------------------------------------------------------------------------
// Commands: a sample is {db, command}, or a function of RunCommand for one that needs another first.
// ---------------------------------------------------------------------------------------------

/** Runs a command as a driver sends it and answers mongod's reply (an error is `{ok: 0, code, …}`). */
export type RunCommand = (db: string, command: Document) => Document;

const cmd = (command: Document, db = 'compat'): Document => ({ db, command });
const admin = (command: Document): Document => cmd(command, 'admin');

const COMMANDS = family('command', [
  [
    'Aggregation',
    {
      aggregate: cmd({ aggregate: 'c', pipeline: [], cursor: {} }),
      count: cmd({ count: 'c' }),
      distinct: cmd({ distinct: 'c', key: 'a' }),
    },
  ],
  [
    'Aggregation',
    { mapReduce: cmd({ mapReduce: 'c', map: 'function(){}', reduce: 'function(){}', out: 'mr' }) },
    'javascript',
  ],
  [
    'Query and Write Operations',
    {
      bulkWrite: admin({ bulkWrite: 1, ops: [{ insert: 0, document: { x: 1 } }], nsInfo: [{ ns: 'compat.c' }] }),
      delete: cmd({ delete: 'c', deletes: [{ q: { _id: 99 }, limit: 0 }] }),
      find: cmd({ find: 'c', filter: {} }),
      findAndModify: cmd({ findAndModify: 'c', query: { _id: 1 }, update: { $set: { x: 1 } } }),
      getMore: (run: RunCommand) => {
        const opened = run('compat', { find: 'c', batchSize: 1 });
        return run('compat', { getMore: (opened.cursor as Document).id, collection: 'c' });
      },
      insert: cmd({ insert: 'c', documents: [{ x: 1 }] }),
      update: cmd({ update: 'c', updates: [{ q: { _id: 1 }, u: { $set: { x: 1 } } }] }),
    },
  ],
  [
    'Query Plan Cache',
    {
      planCacheClear: cmd({ planCacheClear: 'c' }),
      planCacheClearFilters: cmd({ planCacheClearFilters: 'c' }),
      planCacheListFilters: cmd({ planCacheListFilters: 'c' }),
      planCacheSetFilter: cmd({ planCacheSetFilter: 'c', query: { a: 1 }, indexes: [{ a: 1 }] }),
    },
  ],
  [
    'Authentication',
    { authenticate: admin({ authenticate: 1, mechanism: 'MONGODB-X509' }), logout: cmd({ logout: 1 }) },
  ],
  [
    'User Management',
    {
      createUser: admin({ createUser: 'u', pwd: 'p', roles: [] }),
      dropAllUsersFromDatabase: admin({ dropAllUsersFromDatabase: 1 }),
      dropUser: admin({ dropUser: 'u' }),
      grantRolesToUser: admin({ grantRolesToUser: 'u', roles: [] }),
      revokeRolesFromUser: admin({ revokeRolesFromUser: 'u', roles: [] }),
      updateUser: admin({ updateUser: 'u', pwd: 'q' }),
      usersInfo: admin({ usersInfo: 1 }),
    },
    'users',
  ],
  [
    'Role Management',
    {
      createRole: admin({ createRole: 'r', privileges: [], roles: [] }),
      dropRole: admin({ dropRole: 'r' }),
      dropAllRolesFromDatabase: admin({ dropAllRolesFromDatabase: 1 }),
      grantPrivilegesToRole: admin({ grantPrivilegesToRole: 'r', privileges: [] }),
      grantRolesToRole: admin({ grantRolesToRole: 'r', roles: [] }),
      invalidateUserCache: admin({ invalidateUserCache: 1 }),
      revokePrivilegesFromRole: admin({ revokePrivilegesFromRole: 'r', privileges: [] }),
      revokeRolesFromRole: admin({ revokeRolesFromRole: 'r', roles: [] }),
      rolesInfo: admin({ rolesInfo: 1 }),
      updateRole: admin({ updateRole: 'r', roles: [] }),
    },
    'users',
  ],
  ['Replication', { hello: admin({ hello: 1 }), isMaster: admin({ isMaster: 1 }) }],
  [
    'Replication',
    {
      appendOplogNote: admin({ appendOplogNote: 1, data: {} }),
      applyOps: admin({ applyOps: [] }),
      replSetAbortPrimaryCatchUp: admin({ replSetAbortPrimaryCatchUp: 1 }),
      replSetFreeze: admin({ replSetFreeze: 0 }),
      replSetGetConfig: admin({ replSetGetConfig: 1 }),
      replSetGetStatus: admin({ replSetGetStatus: 1 }),
      replSetInitiate: admin({ replSetInitiate: {} }),
      replSetMaintenance: admin({ replSetMaintenance: false }),
      replSetReconfig: admin({ replSetReconfig: {} }),
      replSetResizeOplog: admin({ replSetResizeOplog: 1, size: 990 }),
      replSetStepDown: admin({ replSetStepDown: 60 }),
      replSetSyncFrom: admin({ replSetSyncFrom: 'h:1' }),
    },
    'replication',
  ],
  [
    'Sharding',
    {
      addShard: admin({ addShard: 'rs/h:1' }),
      balancerStatus: admin({ balancerStatus: 1 }),
      enableSharding: admin({ enableSharding: 'compat' }),
      listShards: admin({ listShards: 1 }),
      moveChunk: admin({ moveChunk: 'compat.c', find: {}, to: 's' }),
      movePrimary: admin({ movePrimary: 'compat', to: 's' }),
      reshardCollection: admin({ reshardCollection: 'compat.c', key: { a: 1 } }),
      shardCollection: admin({ shardCollection: 'compat.c', key: { a: 1 } }),
      shardingState: admin({ shardingState: 1 }),
      split: admin({ split: 'compat.c', middle: { a: 1 } }),
      unshardCollection: admin({ unshardCollection: 'compat.c' }),
    },
    'sharding',
  ],
  [
    'Sessions',
    {
      abortTransaction: admin({ abortTransaction: 1 }),
      commitTransaction: admin({ commitTransaction: 1 }),
      endSessions: admin({ endSessions: [] }),
      killAllSessions: admin({ killAllSessions: [] }),
      killAllSessionsByPattern: admin({ killAllSessionsByPattern: [] }),
      killSessions: admin({ killSessions: [] }),
      refreshSessions: admin({ refreshSessions: [] }),
      startSession: admin({ startSession: 1 }),
    },
  ],
  [
    'Administration',
    {
      autoCompact: admin({ autoCompact: false }),
      cloneCollectionAsCapped: cmd({ cloneCollectionAsCapped: 'c', toCollection: 'capped', size: 4096 }),
      collMod: cmd({ collMod: 'c' }),
      compact: cmd({ compact: 'c' }),
      convertToCapped: cmd({ convertToCapped: 'c', size: 1 << 20 }),
      create: cmd({ create: 'created' }),
      createIndexes: cmd({ createIndexes: 'c', indexes: [{ key: { b: 1 }, name: 'b_1' }] }),
      currentOp: admin({ currentOp: 1 }),
      drop: cmd({ drop: 'c' }),
      dropDatabase: cmd({ dropDatabase: 1 }),
      dropConnections: admin({ dropConnections: 1, hostAndPort: [] }),
      dropIndexes: cmd({ dropIndexes: 'c', index: 'a_1' }),
      filemd5: cmd({ filemd5: new ObjectId('0123456789abcdef01234567'), root: 'fs' }),
      fsync: admin({ fsync: 1 }),
      fsyncUnlock: admin({ fsyncUnlock: 1 }),
      getClusterParameter: admin({ getClusterParameter: '*' }),
      getDefaultRWConcern: admin({ getDefaultRWConcern: 1 }),
      getParameter: admin({ getParameter: 1, ttlMonitorSleepSecs: 1 }),
      killCursors: cmd({ killCursors: 'c', cursors: [] }),
      killOp: admin({ killOp: 1, op: 12345 }),
      listCollections: cmd({ listCollections: 1 }),
      listDatabases: admin({ listDatabases: 1 }),
      listIndexes: cmd({ listIndexes: 'c' }),
      logRotate: admin({ logRotate: 1 }),
      reIndex: cmd({ reIndex: 'c' }),
      renameCollection: admin({ renameCollection: 'compat.c', to: 'compat.renamed' }),
      rotateCertificates: admin({ rotateCertificates: 1 }),
      setClusterParameter: admin({ setClusterParameter: { changeStreamOptions: { preAndPostImages: {} } } }),
      setDefaultRWConcern: admin({ setDefaultRWConcern: 1, defaultWriteConcern: { w: 1 } }),
      setFeatureCompatibilityVersion: admin({ setFeatureCompatibilityVersion: '8.0', confirm: true }),
      setIndexCommitQuorum: cmd({ setIndexCommitQuorum: 'c', indexNames: ['a_1'], commitQuorum: 1 }),
      setParameter: admin({ setParameter: 1, ttlMonitorSleepSecs: 60 }),
      setUserWriteBlockMode: admin({ setUserWriteBlockMode: 1, global: false }),
      shutdown: admin({ shutdown: 1, comment: 'probe: a standalone engine may refuse' }),
    },
  ],
  [
    'Diagnostic',
    {
      buildInfo: admin({ buildInfo: 1 }),
      collStats: cmd({ collStats: 'c' }),
      connPoolStats: admin({ connPoolStats: 1 }),
      connectionStatus: admin({ connectionStatus: 1 }),
      dataSize: cmd({ dataSize: 'compat.c' }),
      dbHash: cmd({ dbHash: 1 }),
      dbStats: cmd({ dbStats: 1 }),
      explain: cmd({ explain: { find: 'c', filter: { a: 5 } } }),
      getCmdLineOpts: admin({ getCmdLineOpts: 1 }),
      getLog: admin({ getLog: 'global' }),
      hostInfo: admin({ hostInfo: 1 }),
      listCommands: admin({ listCommands: 1 }),
      lockInfo: admin({ lockInfo: 1 }),
      ping: admin({ ping: 1 }),
      profile: cmd({ profile: -1 }),
      serverStatus: admin({ serverStatus: 1 }),
      top: admin({ top: 1 }),
      validate: cmd({ validate: 'c' }),
      validateDBMetadata: cmd({ validateDBMetadata: 1, apiParameters: { version: '1', strict: true } }),
      whatsmyuri: admin({ whatsmyuri: 1 }),
    },
  ],
  ['Auditing', { logApplicationMessage: admin({ logApplicationMessage: 'probe' }) }, 'enterprise'],
  [
    'Atlas Search',
    {
      createSearchIndexes: cmd({
        createSearchIndexes: 'c',
        indexes: [{ definition: { mappings: { dynamic: true } } }],
      }),
      dropSearchIndex: cmd({ dropSearchIndex: 'c', name: 'default' }),
      listSearchIndexes: cmd({ listSearchIndexes: 'c' }),
      updateSearchIndex: cmd({ updateSearchIndex: 'c', name: 'default', definition: {} }),
    },
    'atlas',
  ],
]);

// ---------------------------------------------------------------------------------------------
// Query predicates: a sample is a find filter. Projection: {filter?, projection}.
// ---------------------------------------------------------------------------------------------

const QUERY = family('query', [
  [
    'Comparison',
    {
      $eq: { a: { $eq: 5 } },
      $gt: { a: { $gt: 5 } },
      $gte: { a: { $gte: 5 } },
      $in: { a: { $in: [5, 6] } },
      $lt: { a: { $lt: 5 } },
      $lte: { a: { $lte: 5 } },
      $ne: { a: { $ne: 5 } },
      $nin: { a: { $nin: [5, 6] } },
    },
  ],
  [
    'Logical',
    {
      $and: { $and: [{ a: 5 }, { b: 3 }] },
      $not: { a: { $not: { $gt: 6 } } },
      $nor: { $nor: [{ a: 5 }] },
      $or: { $or: [{ a: 5 }, { b: 1 }] },
    },
  ],
  ['Element', { $exists: { o: { $exists: true } }, $type: { s: { $type: 'string' } } }],
  [
    'Evaluation',
    {
      $expr: { $expr: { $gt: ['$a', '$b'] } },
      $jsonSchema: { $jsonSchema: { required: ['a'], properties: { a: { bsonType: 'int' } } } },
      $mod: { a: { $mod: [2, 1] } },
      $regex: { s: { $regex: '^h', $options: 'i' } },
    },
  ],
  ['Evaluation', { $text: { $text: { $search: 'hello' } } }, 'text'],
  ['Evaluation', { $where: { $where: 'this.a > 1' } }, 'javascript'],
  [
    'Geospatial',
    {
      $geoIntersects: { loc: { $geoIntersects: { $geometry: { type: 'Point', coordinates: [0, 0] } } } },
      $geoWithin: { loc: { $geoWithin: { $centerSphere: [[0, 0], 0.1] } } },
      $near: { loc: { $near: { $geometry: { type: 'Point', coordinates: [0, 0] } } } },
      $nearSphere: { loc: { $nearSphere: { $geometry: { type: 'Point', coordinates: [0, 0] } } } },
      $box: {
        loc: {
          $geoWithin: {
            $box: [
              [0, 0],
              [1, 1],
            ],
          },
        },
      },
      $center: { loc: { $geoWithin: { $center: [[0, 0], 1] } } },
      $centerSphere: { loc: { $geoWithin: { $centerSphere: [[0, 0], 0.1] } } },
      $geometry: {
        loc: {
          $geoWithin: {
            $geometry: {
              type: 'Polygon',
              coordinates: [
                [
                  [0, 0],
                  [1, 0],
                  [1, 1],
                  [0, 0],
                ],
              ],
            },
          },
        },
      },
      $maxDistance: { loc: { $near: [0, 0], $maxDistance: 1 } },
      $minDistance: { loc: { $near: { $geometry: { type: 'Point', coordinates: [0, 0] }, $minDistance: 1 } } },
      $polygon: {
        loc: {
          $geoWithin: {
            $polygon: [
              [0, 0],
              [1, 0],
              [1, 1],
            ],
          },
        },
      },
    },
    'geo',
  ],
  [
    'Array',
    {
      $all: { arr: { $all: [1, 2] } },
      $elemMatch: { items: { $elemMatch: { k: 'a', v: { $gte: 1 } } } },
      $size: { arr: { $size: 3 } },
    },
  ],
  [
    'Bitwise',
    {
      $bitsAllClear: { a: { $bitsAllClear: [1] } },
      $bitsAllSet: { a: { $bitsAllSet: [0, 2] } },
      $bitsAnyClear: { a: { $bitsAnyClear: 2 } },
      $bitsAnySet: { a: { $bitsAnySet: [0] } },
    },
  ],
  [
    'Miscellaneous',
    {
      $comment: { a: 5, $comment: 'why this query runs' },
      $rand: { $expr: { $lt: [{ $rand: {} }, 2] } },
      $sampleRate: { $sampleRate: 0.5 },
    },
  ],
]);

const PROJECTION = family('projection', [
  [
    'Projection',
    {
      $: { filter: { arr: { $gte: 2 } }, projection: { 'arr.$': 1 } },
      $elemMatch: { projection: { items: { $elemMatch: { k: 'a' } } } },
      $slice: { projection: { arr: { $slice: 2 } } },
    },
  ],
  [
    'Projection',
    { $meta: { filter: { $text: { $search: 'hello' } }, projection: { score: { $meta: 'textScore' } } } },
    'text',
  ],
]);

// ---------------------------------------------------------------------------------------------
// Update operators: a sample is {q?, u, arrayFilters?, upsert?}.
// ---------------------------------------------------------------------------------------------

const UPDATE = family('update', [
  [
    'Fields',
    {
      $currentDate: { u: { $currentDate: { seen: true } } },
      $inc: { u: { $inc: { a: 1 } } },
      $min: { u: { $min: { a: 1 } } },
      $max: { u: { $max: { a: 10 } } },
      $mul: { u: { $mul: { n: 2 } } },
      $rename: { u: { $rename: { s: 'str' } } },
      $set: { u: { $set: { 'o.z': 1 } } },
      $setOnInsert: { q: { _id: 3 }, u: { $setOnInsert: { created: true } }, upsert: true },
      $unset: { u: { $unset: { s: '' } } },
    },
  ],
  [
    'Array',
    {
      $: { q: { arr: 3 }, u: { $set: { 'arr.$': 30 } } },
      '$[]': { u: { $inc: { 'arr.$[]': 1 } } },
      '$[<identifier>]': { u: { $set: { 'items.$[it].v': 0 } }, arrayFilters: [{ 'it.k': 'a' }] },
      $addToSet: { u: { $addToSet: { arr: 9 } } },
      $pop: { u: { $pop: { arr: 1 } } },
      $pull: { u: { $pull: { arr: { $gte: 3 } } } },
      $push: { u: { $push: { arr: 9 } } },
      $pullAll: { u: { $pullAll: { arr: [1, 2] } } },
    },
  ],
  [
    'Modifiers',
    {
      $each: { u: { $push: { arr: { $each: [7, 8] } } } },
      $position: { u: { $push: { arr: { $each: [0], $position: 0 } } } },
      $slice: { u: { $push: { arr: { $each: [9], $slice: -2 } } } },
      $sort: { u: { $push: { arr: { $each: [0], $sort: 1 } } } },
    },
  ],
  ['Bitwise', { $bit: { u: { $bit: { a: { and: i(1) } } } } }],
]);

// ---------------------------------------------------------------------------------------------
// Stages: a sample is the stage's argument, or {pipeline, aggregate?, db?} when it needs more.
// ---------------------------------------------------------------------------------------------

/** A stage that needs a whole pipeline of its own, or another namespace (`aggregate: 1` on a database). */
export class PipelineSample {
  constructor(
    readonly pipeline: Document[],
    readonly aggregate: string | 1 = 'c',
    readonly db = 'compat',
  ) {}
}

const onDatabase = (pipeline: Document[], db = 'compat'): PipelineSample => new PipelineSample(pipeline, 1, db);

const STAGES = family('stage', [
  [
    'Stages',
    {
      $addFields: { x: 1 },
      $bucket: { groupBy: '$a', boundaries: [0, 6, 10] },
      $bucketAuto: { groupBy: '$a', buckets: 2 },
      $changeStream: {},
      $changeStreamSplitLargeEvent: new PipelineSample([{ $changeStream: {} }, { $changeStreamSplitLargeEvent: {} }]),
      $collStats: { count: {} },
      $count: 'n',
      $currentOp: onDatabase([{ $currentOp: {} }], 'admin'),
      $densify: { field: 'a', range: { step: 1, bounds: 'full' } },
      $documents: onDatabase([{ $documents: [{ x: 1 }] }]),
      $facet: { counted: [{ $count: 'n' }] },
      $fill: { sortBy: { a: 1 }, output: { parent: { method: 'locf' } } },
      $graphLookup: { from: 'c', startWith: '$parent', connectFromField: 'parent', connectToField: 'a', as: 'chain' },
      $group: { _id: '$b', total: { $sum: '$a' } },
      $indexStats: {},
      $limit: 1,
      $listLocalSessions: onDatabase([{ $listLocalSessions: {} }], 'admin'),
      $listSampledQueries: onDatabase([{ $listSampledQueries: {} }], 'admin'),
      $listSessions: new PipelineSample([{ $listSessions: {} }], 'system.sessions', 'config'),
      $lookup: { from: 'c', localField: 'parent', foreignField: 'a', as: 'joined' },
      $match: { a: 5 },
      $merge: { into: 'merged' },
      $out: 'copied',
      $planCacheStats: {},
      $project: { a: 1 },
      $querySettings: onDatabase([{ $querySettings: {} }], 'admin'),
      $redact: '$$KEEP',
      $replaceRoot: { newRoot: '$o' },
      $replaceWith: '$o',
      $sample: { size: 1 },
      $set: { x: 1 },
      $setWindowFields: { sortBy: { a: 1 }, output: { r: { $rank: {} } } },
      $skip: 1,
      $sort: { a: -1 },
      $sortByCount: '$b',
      $unionWith: 'c',
      $unset: 'o',
      $unwind: '$arr',
    },
  ],
  ['Stages', { $geoNear: { near: { type: 'Point', coordinates: [0, 0] }, distanceField: 'dist' } }, 'geo'],
  ['Stages', { $shardedDataDistribution: onDatabase([{ $shardedDataDistribution: {} }], 'admin') }, 'sharding'],
  [
    'Stages',
    {
      $listSearchIndexes: {},
      $search: { text: { query: 'hello', path: 's' } },
      $searchMeta: { text: { query: 'hello', path: 's' } },
      $vectorSearch: { index: 'v', path: 'e', queryVector: [0.1], numCandidates: 10, limit: 1 },
    },
    'atlas',
  ],
]);

// ---------------------------------------------------------------------------------------------
// Expression operators: a sample is the expression, evaluated in a $project over both documents.
// ---------------------------------------------------------------------------------------------

const EXPRESSIONS = family('expression', [
  [
    'Arithmetic',
    {
      $abs: { $subtract: ['$b', '$a'] },
      $add: ['$a', 1],
      $ceil: '$n',
      $divide: ['$a', 2],
      $exp: 1,
      $floor: '$n',
      $ln: 2,
      $log: [100, 10],
      $log10: 100,
      $mod: ['$a', 2],
      $multiply: ['$a', 2],
      $pow: [2, 3],
      $round: ['$n', 0],
      $sqrt: 16,
      $subtract: ['$a', 1],
      $trunc: ['$n', 0],
    },
  ],
  [
    'Array',
    {
      $arrayElemAt: ['$arr', 0],
      $arrayToObject: { $literal: [['k', 1]] },
      $concatArrays: ['$arr', [9]],
      $filter: { input: '$arr', cond: { $gt: ['$$this', 1] } },
      $first: '$arr',
      $firstN: { n: 2, input: '$arr' },
      $in: [1, '$arr'],
      $indexOfArray: ['$arr', 2],
      $isArray: ['$arr'],
      $last: '$arr',
      $lastN: { n: 2, input: '$arr' },
      $map: { input: '$arr', in: { $add: ['$$this', 1] } },
      $maxN: { n: 2, input: '$arr' },
      $minN: { n: 2, input: '$arr' },
      $objectToArray: '$o',
      $range: [0, 5, 2],
      $reduce: { input: '$arr', initialValue: 0, in: { $add: ['$$value', '$$this'] } },
      $reverseArray: '$arr',
      $size: '$arr',
      $slice: ['$arr', 1, 1],
      $sortArray: { input: '$arr', sortBy: 1 },
      $zip: { inputs: ['$arr', [7, 8, 9]], useLongestLength: true },
    },
  ],
  [
    'Bitwise',
    {
      $bitAnd: ['$a', '$b'],
      $bitNot: '$a',
      $bitOr: ['$a', '$b'],
      $bitXor: ['$a', '$b'],
    },
  ],
  ['Boolean', { $and: [true, '$a'], $not: [false], $or: [false, '$a'] }],
  [
    'Comparison',
    {
      $cmp: ['$a', 5],
      $eq: ['$a', 5],
      $gt: ['$a', 5],
      $gte: ['$a', 5],
      $lt: ['$a', 5],
      $lte: ['$a', 5],
      $ne: ['$a', 5],
    },
  ],
  [
    'Conditional',
    {
      $cond: [{ $gt: ['$a', 5] }, 'big', 'small'],
      $ifNull: ['$missing', 'default'],
      $switch: { branches: [{ case: { $gt: ['$a', 5] }, then: 'big' }], default: 'small' },
    },
  ],
  [
    'Custom Aggregation Expression',
    { $function: { body: 'function(a) { return a; }', args: ['$a'], lang: 'js' } },
    'javascript',
  ],
  ['Data Size', { $binarySize: '$s', $bsonSize: '$o' }],
  [
    'Date',
    {
      $dateAdd: { startDate: '$d', unit: 'day', amount: 1 },
      $dateDiff: { startDate: '$d', endDate: new Date('2026-04-01T00:00:00Z'), unit: 'day' },
      $dateFromParts: { year: 2026, month: 3, day: 4, hour: 5 },
      $dateFromString: { dateString: '2026-03-04T05:06:07Z' },
      $dateSubtract: { startDate: '$d', unit: 'hour', amount: 2 },
      $dateToParts: { date: '$d', iso8601: true },
      $dateToString: { date: '$d', format: '%Y-%m-%d %H:%M', timezone: 'Europe/Paris' },
      $dateTrunc: { date: '$d', unit: 'week', startOfWeek: 'monday' },
      $dayOfMonth: '$d',
      $dayOfWeek: '$d',
      $dayOfYear: '$d',
      $hour: { date: '$d', timezone: '+02:00' },
      $isoDayOfWeek: '$d',
      $isoWeek: '$d',
      $isoWeekYear: '$d',
      $millisecond: '$d',
      $minute: '$d',
      $month: '$d',
      $second: '$d',
      $toDate: '$d',
      $week: '$d',
      $year: '$d',
    },
  ],
  ['Literal', { $literal: '$a' }],
  [
    'Miscellaneous',
    {
      $getField: { field: 'a', input: '$$ROOT' },
      $rand: {},
      $toHashedIndexKey: '$a',
    },
  ],
  [
    'Object',
    {
      $mergeObjects: ['$o', { z: 1 }],
      $setField: { field: 'z', input: '$o', value: 1 },
      $unsetField: { field: 'x', input: '$o' },
    },
  ],
  [
    'Set',
    {
      $allElementsTrue: [[true, 1]],
      $anyElementTrue: [[false, 0, 1]],
      $setDifference: ['$arr', [1]],
      $setEquals: ['$arr', [1, 2, 3]],
      $setIntersection: ['$arr', [1, 2]],
      $setIsSubset: [[1], '$arr'],
      $setUnion: ['$arr', [9]],
    },
  ],
  [
    'String',
    {
      $concat: ['$s', '!'],
      $indexOfBytes: ['$s', 'o'],
      $indexOfCP: ['$s', 'o'],
      $ltrim: { input: '  x' },
      $regexFind: { input: '$s', regex: 'o.' },
      $regexFindAll: { input: '$s', regex: 'o' },
      $regexMatch: { input: '$s', regex: '^h', options: 'i' },
      $replaceAll: { input: '$s', find: 'o', replacement: '0' },
      $replaceOne: { input: '$s', find: 'o', replacement: '0' },
      $rtrim: { input: 'x  ' },
      $split: ['$s', ' '],
      $strLenBytes: '$s',
      $strLenCP: '$s',
      $strcasecmp: ['$s', 'hello world'],
      $substr: ['$s', 0, 2],
      $substrBytes: ['$s', 0, 2],
      $substrCP: ['$s', 0, 2],
      $toLower: '$s',
      $toString: '$a',
      $toUpper: '$s',
      $trim: { input: ' x ', chars: ' ' },
    },
  ],
  ['Text', { $meta: 'textScore' }, 'text'],
  ['Timestamp', { $tsIncrement: '$t', $tsSecond: '$t' }],
  [
    'Trigonometry',
    {
      $sin: 0,
      $cos: 0,
      $tan: 0,
      $asin: 0,
      $acos: 1,
      $atan: 0,
      $atan2: [1, 1],
      $asinh: 0,
      $acosh: 1,
      $atanh: 0,
      $sinh: 0,
      $cosh: 0,
      $tanh: 0,
      $degreesToRadians: 90,
      $radiansToDegrees: Math.PI,
    },
  ],
  [
    'Type',
    {
      $convert: { input: '$a', to: 'string', onError: 'x', onNull: 'y' },
      $isNumber: '$a',
      $toBool: '$a',
      $toDecimal: '$a',
      $toDouble: '$a',
      $toInt: '$n',
      $toLong: '$a',
      $toObjectId: '0123456789abcdef01234567',
      $toUUID: '123e4567-e89b-12d3-a456-426614174000',
      $type: '$a',
    },
  ],
  ['Variable', { $let: { vars: { twice: { $multiply: ['$a', 2] } }, in: { $add: ['$$twice', 1] } } }],
]);

// ---------------------------------------------------------------------------------------------
// Accumulators ($group), and the operators only $setWindowFields takes.
// ---------------------------------------------------------------------------------------------

const ACCUMULATORS = family('accumulator', [
  [
    'Accumulators',
    {
      $addToSet: '$b',
      $avg: '$a',
      $bottom: { sortBy: { a: 1 }, output: '$s' },
      $bottomN: { n: 2, sortBy: { a: 1 }, output: '$s' },
      $count: {},
      $first: '$a',
      $firstN: { n: 2, input: '$a' },
      $last: '$a',
      $lastN: { n: 2, input: '$a' },
      $max: '$a',
      $maxN: { n: 2, input: '$a' },
      $median: { input: '$a', method: 'approximate' },
      $mergeObjects: '$o',
      $min: '$a',
      $minN: { n: 2, input: '$a' },
      $percentile: { input: '$a', p: [0.5, 0.9], method: 'approximate' },
      $push: '$a',
      $stdDevPop: '$a',
      $stdDevSamp: '$a',
      $sum: '$a',
      $top: { sortBy: { a: 1 }, output: '$s' },
      $topN: { n: 2, sortBy: { a: 1 }, output: '$s' },
    },
  ],
  [
    'Accumulators',
    {
      $accumulator: {
        init: 'function() { return 0; }',
        accumulate: 'function(s, a) { return s + a; }',
        accumulateArgs: ['$a'],
        merge: 'function(x, y) { return x + y; }',
        lang: 'js',
      },
    },
    'javascript',
  ],
]);

/** A window operator's sample is the whole output field: {operator: args, window?}. */
const WINDOW = family('window', [
  [
    'Window Operators',
    {
      $covariancePop: { $covariancePop: ['$a', '$b'] },
      $covarianceSamp: { $covarianceSamp: ['$a', '$b'] },
      $denseRank: { $denseRank: {} },
      $derivative: { $derivative: { input: '$b' }, window: { documents: [-1, 0] } },
      $documentNumber: { $documentNumber: {} },
      $expMovingAvg: { $expMovingAvg: { input: '$b', N: 2 } },
      $integral: { $integral: { input: '$b' }, window: { documents: ['unbounded', 'current'] } },
      $linearFill: { $linearFill: '$b' },
      $locf: { $locf: '$parent' },
      $rank: { $rank: {} },
      $shift: { $shift: { output: '$b', by: 1, default: 0 } },
    },
  ],
]);

// ---------------------------------------------------------------------------------------------
// Indexes: a type's sample is a createIndexes index spec; an option's, the spec it is used in.
// ---------------------------------------------------------------------------------------------

const INDEX_TYPES = family('indexType', [
  [
    'Index types',
    {
      'single field': { key: { s: 1 }, name: 's_1' },
      compound: { key: { a: 1, b: -1 }, name: 'a_1_b_-1' },
      multikey: { key: { arr: 1 }, name: 'arr_1' },
      hashed: { key: { s: 'hashed' }, name: 's_hashed' },
      wildcard: { key: { '$**': 1 }, name: '$**_1' },
    },
  ],
  ['Index types', { text: { key: { s: 'text' }, name: 's_text' } }, 'text'],
  [
    'Index types',
    { '2dsphere': { key: { loc: '2dsphere' }, name: 'loc_2dsphere' }, '2d': { key: { loc: '2d' }, name: 'loc_2d' } },
    'geo',
  ],
]);

const INDEX_OPTIONS = family('indexOption', [
  [
    'Index options',
    {
      unique: { key: { s: 1 }, name: 's_1', unique: true },
      sparse: { key: { s: 1 }, name: 's_1', sparse: true },
      partialFilterExpression: { key: { s: 1 }, name: 's_1', partialFilterExpression: { a: { $gt: 1 } } },
      expireAfterSeconds: { key: { d: 1 }, name: 'd_1', expireAfterSeconds: 3600 },
      hidden: { key: { s: 1 }, name: 's_1', hidden: true },
      collation: { key: { s: 1 }, name: 's_1', collation: { locale: 'en', strength: 2 } },
      name: { key: { s: 1 }, name: 'by_s' },
      wildcardProjection: { key: { '$**': 1 }, name: 'w', wildcardProjection: { o: 1 } },
      storageEngine: { key: { s: 1 }, name: 's_1', storageEngine: { wiredTiger: {} } },
      prepareUnique: { key: { s: 1 }, name: 's_1', prepareUnique: true },
    },
  ],
  [
    'Index options',
    {
      weights: { key: { s: 'text' }, name: 's_text', weights: { s: 2 } },
      default_language: { key: { s: 'text' }, name: 's_text', default_language: 'english' },
      language_override: { key: { s: 'text' }, name: 's_text', language_override: 'lang' },
      textIndexVersion: { key: { s: 'text' }, name: 's_text', textIndexVersion: 3 },
    },
    'text',
  ],
  [
    'Index options',
    {
      '2dsphereIndexVersion': { key: { loc: '2dsphere' }, name: 'loc_2dsphere', '2dsphereIndexVersion': 3 },
      bits: { key: { loc: '2d' }, name: 'loc_2d', bits: 26 },
      min: { key: { loc: '2d' }, name: 'loc_2d', min: -90 },
      max: { key: { loc: '2d' }, name: 'loc_2d', max: 90 },
    },
    'geo',
  ],
]);

export const REFERENCE: readonly Entry[] = [
  ...COMMANDS,
  ...QUERY,
  ...PROJECTION,
  ...UPDATE,
  ...STAGES,
  ...EXPRESSIONS,
  ...ACCUMULATORS,
  ...WINDOW,
  ...INDEX_TYPES,
  ...INDEX_OPTIONS,
];
