// Which upstream tests need only a standalone mongod: the file's @tags block and its text decide.
// A test is left out for the first reason that applies; the reason is reported with its count.
'use strict';

/** Tags that say the test needs more than one standalone mongod, or a feature kept out of scope. */
const EXCLUDED_TAGS = new Map([
  ['requires_sharding', 'needs sharding'],
  ['requires_replication', 'needs a replica set'],
  ['uses_prepare_transaction', 'needs prepared transactions (prepareTransaction: a sharded cluster two-phase commit)'],
  ['requires_profiling', 'needs the profiler'],
  ['requires_auth', 'needs authentication'],
  ['creates_and_authenticates_user', 'needs authentication'],
  ['requires_scripting', 'needs server-side JavaScript'],
  ['requires_javascript', 'needs server-side JavaScript'],
  ['requires_spawning_own_processes', 'starts its own processes'],
  ['uses_multiple_connections', 'needs several connections'],
  ['uses_parallel_shell', 'needs a parallel shell'],
  ['uses_testing_only_commands', 'uses test-only server commands'],
]);

/**
 * Tags of tests that run on a one-member replica-set engine (`new Engine({replSetName})`), which
 * has sessions, transactions and snapshot reads.
 */
const REPLICA_SET_TAGS = new Set(['uses_transactions', 'uses_snapshot_read_concern']);

/** Text that means a replica set: a test with a replica-set tag passes this check. */
const REPLICA_SET_TEXT = /startTransaction|\btxnNumber\b|\$changeStream|\.watch\(/;

/** Text that says the same when the tags do not (older files carry few tags). */
const EXCLUDED_TEXT = [
  [/configureFailPoint|failpoint/i, 'uses failpoints'],
  [
    /\$where|mapReduce|mapreduce|\$function|\$accumulator|db\.eval\(|\beval\s*:|system\.js\b|\$reduce.*Code\(/,
    'needs server-side JavaScript',
  ],
  [/\$text\b|["']text["']\s*[,}]|textScore|createSearchIndex|\$search\b/, 'needs text search'],
  [
    /["']2d["']|2dsphere|geoHaystack|\$near\b|\$nearSphere|\$geoWithin|\$geoIntersects|\$within\b|geoNear|geoSearch|\$box|\$polygon|\$center/,
    'needs geo',
  ],
  [
    /startParallelShell|new Mongo\(|ReplSetTest|ShardingTest|MongoRunner|parallelTester\.js|\bThread\(|ScopedThread/,
    'starts its own processes',
  ],
  [/setProfilingLevel|system\.profile/, 'needs the profiler'],
  [REPLICA_SET_TEXT, 'needs a replica set'],
  [/\bcreateUser\(|\.auth\(|createRole\(/, 'needs authentication'],
  [/\bsetFeatureCompatibilityVersion\b|\bfsync\b/, 'needs server administration'],
  // 8.0 has no getLastError: removed in 5.1 (SERVER-57390; the 8.0 manual lists it as removed).
  [/runCommand\(\{\s*getLastError\b|\.getLastError(Obj)?\(|getPrevError/, 'uses getLastError (removed in MongoDB 5.1)'],
  // Checked against the server: SERVER-39576 removed the doTxn test command in 4.4.
  [/\bdoTxn\b/, 'uses doTxn, a test command MongoDB removed in 4.4 (SERVER-39576): 8.0 has none'],
];

/**
 * Tests of commands MongoDB 8.0 no longer has, by file: their subject is the removed command, so no
 * engine change could make them pass.
 */
const STAGE_DEBUG =
  'uses stageDebug, a test-only command (enableTestCommands) that hand-builds plan stages; no 8.0-era source or jstest has it (last seen in 4.2-era src/mongo/db/exec/stagedebug_cmd.cpp, mongodb/mongo 75d6c511)';
const PLAN_CACHE_LIST =
  'asserts planCacheListQueryShapes / planCacheListPlans (or their shell helpers listQueryShapes, getPlansByQuery), which MongoDB 4.4 removed (docs v4.4 $planCacheStats: use $planCacheStats / PlanCache.list())';
const REMOVED_COMMAND_TESTS = new Map([
  ...['and_hash', 'and_sorted', 'collection_scan', 'delete', 'fetch', 'ixscan', 'limit_skip', 'mergesort', 'or'].map(
    (name) => [`jstests/core/stages_${name}.js`, STAGE_DEBUG],
  ),
  ...[
    'plan_cache_list_plans',
    'plan_cache_list_shapes',
    'plan_cache_shell_helpers',
    'plan_cache_clear',
    'collation_plan_cache',
    'index_filter_commands',
  ].map((name) => [`jstests/core/${name}.js`, PLAN_CACHE_LIST]),
]);

/**
 * Tests whose subject is the legacy `mongo` shell itself (its helpers, types and JavaScript engine),
 * not the server: MongoDB removed that shell from the server's distribution in 6.0, and mongosh,
 * the shell 8.0 ships with, has none of these. By file, each with what it tests.
 */
const LEGACY_SHELL =
  'tests the legacy mongo shell itself (its helpers, types or JavaScript engine), not the server: MongoDB 6.0 removed that shell';
const LEGACY_SHELL_TESTS = new Map(
  [
    ['shell1', 'shellHelper("show", …)'],
    ['shell_connection_strings', 'its MongoURI parser'],
    ['shell_writeconcern', "db/collection write concern inheritance in the shell's objects"],
    ['shelltypes', "its BSON types' constructors and tojson"],
    ['run_program1', 'runProgram'],
    ['map1', 'its Map class with put/get'],
    ['numberint', "NumberInt's arithmetic, toNumber and toString"],
    ['numberlong', "NumberLong's arithmetic, floatApprox and toString"],
    ['objid7', "ObjectId's toString and constructor forms"],
    ['type5', "HexData's prototype guards"],
    ['type6', "MinKey/MaxKey's prototype guards"],
    ['optime_cmp', 'rs.compareOpTimes'],
    ['txns/shell_prompt_in_transaction', 'its prompt (__promptWrapper__) inside a transaction'],
    ['js_jit', "its JavaScript engine's JIT over DBCollection"],
    ['jssymbol', 'Symbol conversions of its db object'],
    ['json1', "tojson's formatting"],
    ['bench_test1', 'benchRun, its load generator'],
    [
      'SERVER-23626',
      'its conversion of Date.prototype, Function.prototype and RegExp.prototype to a BSON date, code and regex',
    ],
    // `what` says which part of the shell each tests, for the reader of this list.
  ].map(([name, _what]) => [`jstests/core/${name}.js`, LEGACY_SHELL]),
);

/**
 * Tests whose 4.2 assertions MongoDB later changed on purpose, by file: the same test in the 8.0-era
 * tree (path and commit in each reason) asserts the newer behaviour, which the engine follows.
 */
const CHANGED_SINCE_42_TESTS = new Map([
  [
    'jstests/core/drop.js',
    'asserts that dropping a missing collection fails; since 7.0 drop is idempotent (mongodb/mongo jstests/core/ddl/drop_collection.js @0893121f asserts commandWorked for "Drop Unexistent collection")',
  ],
  [
    'jstests/core/dbstats.js',
    'asserts dbStats has numExtents (an MMAPv1 field); 8.0 has none (mongodb/mongo jstests/core/catalog/db_stats.js @530723c3 checks storageSize, totalSize and indexSize instead)',
  ],
  [
    'jstests/core/list_indexes.js',
    'asserts each listIndexes spec has ns; 4.4 removed ns from index specs (mongodb/mongo jstests/core/catalog/list_indexes.js @1ffbc6c2 checks name, key and unique only)',
  ],
  [
    'jstests/core/create_indexes.js',
    'asserts an unknown top-level createIndexes field is BadValue (2); since 4.9 the IDL parser refuses it with 40415 (mongodb/mongo jstests/core/ddl/create_indexes.js @00a866a0: kUnknownIDLFieldError = 40415)',
  ],
  [
    'jstests/core/indexes_multiple_commands.js',
    'asserts {a: 1} with sparse: true conflicts with the same non-sparse index; since 4.9 sparse is one of what identifies an index, so it is a new index (mongodb/mongo jstests/core/index/indexes_multiple_commands.js @1ffbc6c2 makes the conflict with expireAfterSeconds: 3600 instead)',
  ],
  [
    'jstests/core/create_collection.js',
    'asserts a collection name of 8192 characters is accepted (4.4 lifted the old limit); later versions cap a namespace at 255 bytes (mongodb/mongo jstests/core/ddl/create_collection.js @01c56acd: "a".repeat(250) works, "a".repeat(255) fails with InvalidNamespace)',
  ],
  [
    'jstests/core/rename8.js',
    "asserts renaming to and from <db>.system.users works outside admin; since 7.2 system.users is not on the allowlist there (mongodb/mongo's rename8.js tagged requires_fcv_72 asserts commandFailed both ways)",
  ],
  [
    'jstests/core/hashindex1.js',
    'asserts a compound hashed index {a: "hashed", b: 1} is refused with 16763; 4.4 added compound hashed indexes (mongodb/mongo jstests/core/index/hashed/hashed_index_queries.js @1e98a0f2 creates {b: "hashed", c: -1} and {a: 1, b: "hashed", c: -1})',
  ],
  [
    'jstests/core/validate_cmd_ns.js',
    'sends commands as OP_QUERY on <db>.$cmd with a numberToReturn; 5.1 removed OP_QUERY commands other than hello/isMaster (SERVER-57391; the 8.0 manual\'s "Legacy Opcodes" page: OP_MSG and OP_COMPRESSED are the only supported opcodes)',
  ],
  [
    'jstests/core/index_partial_create_drop.js',
    'asserts a partialFilterExpression with a nested $and is refused; since the time-series metric index work (featureFlagTimeseriesMetricIndexes, on in 8.0) only a tree deeper than internalPartialFilterExpressionMaxDepth (4) is (mongodb/mongo jstests/core/index/index_partial_create_drop.js @6fdbf4c4; docs/ttl-rules.md rule 8.3)',
  ],
  [
    'jstests/core/ttl_index_options.js',
    'asserts expireAfterSeconds above the seconds since the epoch is refused; 8.0 accepts it (mongodb/mongo jstests/core/ddl/ttl_index_options.js @73612fec asserts commandWorked for secondsSinceEpoch + 1000; docs/ttl-rules.md rule 1.4)',
  ],
]);

function tagsOf(text) {
  const m = /@tags\s*:\s*\[([\s\S]*?)\]/.exec(text);
  if (!m) return [];
  return (
    m[1]
      .split('\n')
      // A line's comment marker first (`//` headers of older files, ` *` of block comments), then
      // what comments the line carries (`// why`, `# why`).
      .map((line) =>
        line
          .replace(/^\s*(\/\/|\*)/, '')
          .replace(/\/\/.*$/, '')
          .replace(/#.*$/, ''),
      )
      .join(',')
      .split(/[\s,]+/)
      .filter((t) => /^[a-z0-9_]+$/.test(t))
  );
}

/** Whether a test runs on the replica-set engine (its tags say it uses transactions or snapshot reads). */
function needsReplicaSet(text) {
  return tagsOf(text).some((t) => REPLICA_SET_TAGS.has(t));
}

/** The reason a test is left out, or null when it runs (on a standalone, or on a replica set: needsReplicaSet). */
function exclusionReason(text, file) {
  const byFile =
    file === undefined
      ? undefined
      : (REMOVED_COMMAND_TESTS.get(file) ?? LEGACY_SHELL_TESTS.get(file) ?? CHANGED_SINCE_42_TESTS.get(file));
  if (byFile) return byFile;
  for (const tag of tagsOf(text)) {
    const reason = EXCLUDED_TAGS.get(tag);
    if (reason) return reason;
  }
  const replicaSet = needsReplicaSet(text);
  for (const [pattern, reason] of EXCLUDED_TEXT) {
    if (replicaSet && pattern === REPLICA_SET_TEXT) continue;
    if (pattern.test(text)) return reason;
  }
  return null;
}

module.exports = { tagsOf, exclusionReason, needsReplicaSet };
