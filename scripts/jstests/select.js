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
/**
 * Tests whose 4.2 assertions MongoDB itself later changed: the same test in 8.0's tree
 * (mongodb/mongo, path and commit in the reason) asserts what the engine does.
 */
const SORT_SPILLS =
  'asserts that a large in-memory sort fails without allowDiskUse: since 6.0 a sort spills to disk by default (allowDiskUseByDefault); 8.0 passes allowDiskUse(false) and expects QueryExceededMemoryLimitNoDiskUseAllowed';
const CHANGED_SINCE_42 = [
  [
    'array_match4',
    'changed since 4.2: asserts 0 matches for {a: {$gte: [1, 2]}} with an index (a bug the 4.2 test documents); 8.0 asserts 1, as without the index (mongodb/mongo jstests/core/query/array/array_match4.js @07c8efab)',
  ],
  ['sortb', `changed since 4.2: ${SORT_SPILLS} (mongodb/mongo jstests/core/query/sort/sortb.js @6fdbf4c4)`],
  ['sortg', `changed since 4.2: ${SORT_SPILLS} (mongodb/mongo jstests/core/query/sort/sortg.js @169f8dc2)`],
  ['sortj', `changed since 4.2: ${SORT_SPILLS} (mongodb/mongo jstests/core/query/sort/sortj.js @1e2ef607)`],
  [
    'explain_execution_error',
    `changed since 4.2: ${SORT_SPILLS}, and explains that sort with allowDiskUse: false (mongodb/mongo jstests/core/query/explain/explain_execution_error.js @07c8efab)`,
  ],
  [
    'sortl',
    "changed since 4.2: asserts {$meta: 'sortKey'} as {'': 2}; since 4.4 it is an array of the sort key's values, and 8.0 asserts [2] (mongodb/mongo jstests/core/query/sort/sortl.js @169f8dc2)",
  ],
  [
    'return_key',
    "changed since 4.2: asserts {$meta: 'sortKey'} beside returnKey as {'': 3}; 8.0 asserts [3] (mongodb/mongo jstests/core/query/return_key.js @169f8dc2)",
  ],
  [
    'explain_upsert',
    'changed since 4.2: asserts drop() of a missing collection returns false; since 7.0 that drop succeeds, and 8.0 checks getCollectionInfos instead (mongodb/mongo jstests/core/query/explain/explain_upsert.js @07c8efab)',
  ],
  [
    'explain_shell_helpers',
    "changed since 4.2: asserts the UPDATE stage's wouldInsert; 8.0 asserts nWouldUpsert (mongodb/mongo jstests/core/query/explain/explain_shell_helpers.js @07c8efab)",
  ],
  [
    'explain_find_and_modify',
    "changed since 4.2: asserts the UPDATE stage's wouldInsert; 8.0 asserts nWouldUpsert (mongodb/mongo jstests/core/query/explain/explain_find_and_modify.js @07c8efab)",
  ],
].map(([name, reason]) => [`jstests/core/${name}.js`, reason]);

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
  ...CHANGED_SINCE_42,
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
    // `what` says which part of the shell each tests, for the reader of this list.
  ].map(([name, _what]) => [`jstests/core/${name}.js`, LEGACY_SHELL]),
);

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
  const byFile = file === undefined ? undefined : (REMOVED_COMMAND_TESTS.get(file) ?? LEGACY_SHELL_TESTS.get(file));
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
