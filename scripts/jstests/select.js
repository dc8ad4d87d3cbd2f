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
const CHANGED_PLANS_AND_EXPLAIN = [
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
  [
    'idhack',
    'changed since 4.2: asserts an IDHACK stage for find({_id: {x: 2}}) and find(query, {_id: 1}); 8.0 answers such plain _id lookups on its express path (EXPRESS_IXSCAN) and asserts isIdhackOrExpress, IDHACK only for a non-simple projection, batchSize or returnKey (mongodb/mongo jstests/core/query/idhack.js @07c8efab)',
  ],
  [
    'agg_hint',
    'changed since 4.2: asserts that a hinted [$match, $sort] whose index needs a blocking sort, and a hinted [$match, $project] that the index does not cover, keep a $cursor stage; since 4.4 the sort and the projection join the query, and 8.0 asserts pipelineOptimizedAway: true for both (mongodb/mongo jstests/core/query/agg_hint.js @07c8efab)',
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
    // It checks that planCacheListPlans / planCacheListQueryShapes answer after restartCatalog.
    'restart_catalog',
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
  ]
    .map(([name, _what]) => [`jstests/core/${name}.js`, LEGACY_SHELL])
    .concat([
      // Which $readPreference DBCollection.aggregate adds (none with $out), seen through a mock
      // connection that answers every command itself: nothing reaches a server.
      ['jstests/aggregation/bugs/server18198.js', LEGACY_SHELL],
    ]),
);

/**
 * Tests that assert 4.2 behaviour MongoDB later changed, by file, each with the evidence: the
 * engine follows 8.0, so these would fail however right it is.
 */
const MERGE_PIPELINE_INSERT =
  "asserts 4.2's $merge whenMatched:[pipeline] + whenNotMatched:'insert' (the pipeline run on the unmatched document); since 4.4 the source document is inserted as it is: mongodb/mongo src/mongo/db/pipeline/merge_processor.cpp maps kPipelineInsertMode to UpsertType::kInsertSuppliedDoc, and the later jstests/aggregation/sources/merge/all_modes.js expects the unmatched documents 'copied directly into the target collection' (upsertSupplied=true)";
const MERGE_SAME_COLLECTION =
  "asserts 4.2's refusal (51188/51079) of a $merge into a collection the pipeline reads; 4.4 allowed it: the later mongodb/mongo jstests/aggregation/sources/merge/merge_to_same_collection.js ('$merge does not fail when the target collection is the aggregation collection') and merge_to_referenced_collection.js (assert.doesNotThrow for the source, $lookup, $graphLookup, $facet and view cases)";
const DISK_USE_BY_DEFAULT =
  "asserts 4.2's refusal (16819/16820/16945) of a pipeline stage past 100 MB without allowDiskUse; since 6.0 allowDiskUseByDefault is true, so mongod spills to disk instead (the 8.0 manual, cursor.allowDiskUse(): 'Starting in MongoDB 6.0, pipeline stages that require more than 100 megabytes of memory to execute write temporary files to disk by default'; DOCS-15236)";
const CHANGED_AGGREGATION_AND_VIEWS = new Map([
  ['jstests/aggregation/sources/merge/all_modes.js', MERGE_PIPELINE_INSERT],
  ['jstests/aggregation/sources/merge/mode_pipeline_insert.js', MERGE_PIPELINE_INSERT],
  ['jstests/aggregation/sources/merge/merge_to_same_collection.js', MERGE_SAME_COLLECTION],
  ['jstests/aggregation/sources/merge/merge_to_referenced_collection.js', MERGE_SAME_COLLECTION],
  [
    'jstests/aggregation/bugs/ifnull.js',
    "asserts 4.2's fixed two-argument $ifNull (16020 for 1 or 3 arguments); 5.0 made it variadic: the later mongodb/mongo jstests/aggregation/bugs/ifnull.js asserts assertError(1257300, []) / (['$one']) and accepts three or more arguments",
  ],
  [
    'jstests/aggregation/sources/collStats/count.js',
    "asserts 4.2's hand-written $collStats codes: 40480 for a count that is not an object and 40481 for a missing collection; 8.0 parses the stage with IDL (mongodb/mongo src/mongo/db/pipeline/document_source_coll_stats.cpp @01beeb4c: DocumentSourceCollStatsSpec::parse, so a non-object count is TypeMismatch 14) and wraps appendRecordCount's NamespaceNotFound (26) as 'Unable to retrieve count in $collStats stage'; neither 40480 nor 40481 is raised there",
  ],
  ['jstests/aggregation/bugs/server9444.js', DISK_USE_BY_DEFAULT],
  ['jstests/core/views/views_aggregation.js', DISK_USE_BY_DEFAULT],
  [
    'jstests/aggregation/expressions/regex_limits.js',
    "asserts 4.2's PCRE pattern limit (32764 bytes); 6.1 moved to PCRE2 with a 16384-byte limit: the later mongodb/mongo jstests/aggregation/expressions/regex_limits.js says 'Our limit on regex pattern length is 2^14' (kMaxRegexPatternLen = 16384)",
  ],
  [
    'jstests/aggregation/sources/merge/bypass_doc_validation.js',
    'asserts 4.2\'s coercion of bypassDocumentValidation: "false" (a string) to true; in 8.0 the field is an IDL safeBool (mongodb/mongo src/mongo/db/pipeline/aggregate_command.idl), which takes a bool or a number and refuses a string with TypeMismatch',
  ],
  [
    'jstests/aggregation/bugs/server6239.js',
    "asserts 4.2's code 16556 for $subtract of a date from a number; the later mongodb/mongo jstests/aggregation/bugs/server6239.js accepts [16556, ErrorCodes.TypeMismatch], and 8.0 answers TypeMismatch (14)",
  ],
  [
    'jstests/aggregation/bugs/server6240.js',
    "asserts 4.2's codes 16609 ($divide) and 16556 ($subtract) for date arithmetic; the later mongodb/mongo jstests/aggregation/bugs/server6240.js accepts [16609, ErrorCodes.TypeMismatch] for $divide (and [16555, ErrorCodes.TypeMismatch] for $multiply), and 8.0 answers TypeMismatch (14)",
  ],
  [
    'jstests/aggregation/expressions/let.js',
    "asserts 4.2's read-side codes 16870/16871 for an invalid variable name ('$$_underbar', '$$with spaces'); the later mongodb/mongo jstests/aggregation/expressions/let.js asserts 16867 and 16868, the codes 8.0 shares between defining and reading a variable",
  ],
  [
    'jstests/aggregation/use_query_projection.js',
    'asserts that [$match, {$project: {notThere: 1}}] and the multikey cases keep a $cursor stage; since 4.4 a leading $project joins the query (projection pushdown): the later mongodb/mongo jstests/aggregation/use_query_projection.js (@01f08b9b) expects the pipeline optimized away in each (assertQueryDoesNotCoverProjection with pipelineOptimizedAway true) and hints the index where two plans tie',
  ],
  [
    'jstests/aggregation/sources/project/remove_redundant_projects.js',
    "asserts that a $project with computed fields ({f: '$a'}, {$sum: '$a'}, $filter) is not pushed into the query and that [$sort, {$project: {_id: 1, b: 1}}] keeps its $project; 8.0 pushes every leading $project down: mongodb/mongo jstests/aggregation/sources/project/remove_redundant_projects.js (@e6efe197) expects each coalesced, optimized away, with its transformBy (and $group pipelines pushed into SBE)",
  ],
  [
    'jstests/aggregation/sources/sort/explain_sort.js',
    'asserts that every explained [$sort, $project] pipeline keeps a $cursor stage and that [$project, $limit: 5, $sort] examines all 10 documents; since 4.4 such a pipeline joins the query: the later mongodb/mongo jstests/aggregation/sources/sort/explain_sort.js (@1e98a0f2) accepts no $cursor stage when the pipeline was optimized away (isQueryPlan) and expects 5 documents examined under the pushed-down $limit',
  ],
  [
    'jstests/aggregation/bugs/skip_limit_overflow.js',
    "asserts 4.2's $skip stages and '$cursor.limit' after a $sort; since 4.4 the $skip and $limit join the query: the later mongodb/mongo jstests/aggregation/bugs/skip_limit_overflow.js (@0b12606a) reads the query plan's SKIP skipAmount and SORT limitAmount instead, and expects the absorbed $skip and $limit stages gone",
  ],
  [
    'jstests/aggregation/bugs/server6177.js',
    "asserts 4.2's code 40176 for a $project path collision; since 4.4 $project and find share one projection parser: mongodb/mongo 3257557c jstests/aggregation/bugs/server6177.js asserts 31249 for {x: {$add: [1]}, 'x.b': 1} and 31250 for the other three (src/mongo/db/query/projection_parser.cpp, addNodeAtPathHelper)",
  ],
  [
    'jstests/aggregation/explain_limit.js',
    "asserts 4.2's $cursor stage with a 'limit' field; since 4.4 a $limit after $match is pushed into the query plan: the later mongodb/mongo jstests/aggregation/explain_limit.js reads getAggPlanStages(results, 'LIMIT') and its limitAmount",
  ],
]);

/**
 * Tests whose failing assertion is 4.2 behaviour that MongoDB changed later: the server's current
 * copy of the same test (mongodb/mongo, the commit read) asserts what 8.0 does, which the engine
 * follows. By file, each with the evidence.
 */
const CHANGED_SINCE_42 = 'asserts MongoDB 4.2 behaviour that changed later';
const CHANGED_CORE_WRITES = new Map(
  [
    [
      'field_name_validation',
      '5.0 allows $-prefixed top-level fields in an insert: mongodb/mongo 05a0f8e9 jstests/core/field_name_validation.js asserts insert({$a: 1}) works (4.2: BadValue)',
    ],
    [
      'batch_write_command_insert',
      'mongodb/mongo 169f8dc2 jstests/core/write/insert/batch_write_command_insert.js dropped "Document with illegal key should fail" (insert of {$set: {a: 1}}): a valid document since 5.0',
    ],
    [
      'update_addToSet',
      'mongodb/mongo 28eb8d29 jstests/core/write/update/update_addToSet.js asserts $addToSet of {"$bad": "bad"} works once dots and dollars (5.0) are on (4.2: write error)',
    ],
    [
      'push_sort',
      'mongodb/mongo 43b87324 jstests/core/query/push/push_sort.js asserts $push {x: {$sort: {a: -1}}} pushes that document (4.2: DollarPrefixedFieldName)',
    ],
    [
      'null_query_semantics',
      'MongoDB 8.0: {$eq: null} no longer matches undefined (manual v8.0 release-notes/8.0-compatibility; mongodb/mongo 056154d0 jstests/core/query/null_query_semantics.js expects [a_null, no_a])',
    ],
    [
      'elemMatchProjection',
      "4.4 projection rules: {'x.$': {$slice: 1}} is 31271; mongodb/mongo 169f8dc2 jstests/core/query/project/positional_projection.js asserts it (4.2 accepted it)",
    ],
    [
      'find_and_modify_server6865',
      "4.4 projection rules: a positional $ mid-path ({'b.$.value': 1}) is 31394; mongodb/mongo 28eb8d29 jstests/core/write/find_and_modify/find_and_modify_server6865.js dropped that case",
    ],
    [
      'slice1',
      "4.4 projection rules: {comments: {$slice: 2}, 'comments.id': true} is a path collision (31249); mongodb/mongo 05a9f6fe jstests/core/query/project/slice1.js replaced those cases",
    ],
    [
      'update_with_pipeline',
      "mongodb/mongo 4be00f9a jstests/core/write/update/update_with_pipeline.js asserts an expression in an update's constants (c) is a plain value (4.2: DollarPrefixedFieldName)",
    ],
    [
      'txns/no_implicit_collection_creation_in_txn',
      '4.4 creates collections inside transactions: mongodb/mongo 0893121f jstests/core/txns/implicit_collection_creation_in_txn.js asserts insert, upsert and findAndModify into a missing collection work in one',
    ],
    [
      'txns/concurrent_drops_and_creates',
      'mongodb/mongo 0893121f jstests/core/txns/concurrent_drops_and_creates.js expects WriteConflict for a write to a collection dropped since the snapshot, and an insert into one created since to work (commit: WriteConflict); 4.2: OperationNotSupportedInTransaction / SnapshotUnavailable',
    ],
    [
      'doc_validation',
      'its last check wants $divide by zero as 16608: mongodb/mongo 07247e5f src/mongo/db/exec/expression/evaluate_math.cpp evaluateDivide returns BadValue (2) "can\'t $divide by zero", which the engine answers',
    ],
    [
      'json_schema/json_schema',
      "asserts FailedToParse for find commands that carry their filter in a 'query' field; since find's parser became strict IDL an unknown field is IDLUnknownField (40415) first: mongodb/mongo 22ee8713 jstests/core/query/json_schema/json_schema.js accepts [ErrorCodes.FailedToParse, ErrorCodes.IDLUnknownField] for the same commands",
    ],
    [
      'txns/noop_createIndexes_not_blocked_by_txn',
      "asserts IndexOptionsConflict for {a: 1} unique under a new name beside a_1; since FCV 4.9 'unique' and 'sparse' are part of an index's signature, so that is a new index (whose build waits for the transaction): mongodb/mongo src/mongo/db/index/index_descriptor.cpp compareIndexOptions returns kDifferent when unique() or isSparse() differ",
    ],
    [
      'txns/multi_statement_transaction_write_error',
      'asserts a delete from a capped collection inside a transaction is a write error IllegalOperation (20); later servers refuse every capped write in a transaction with OperationNotSupportedInTransaction (263): mongodb/mongo accbdf6f jstests/core/txns/transaction_ops_against_capped_collection.js asserts it for insert, update and both findAndModify forms',
    ],
    [
      'txns/no_read_concern_snapshot_outside_txn',
      '5.0 allows readConcern snapshot for find and aggregate outside a transaction: its successor, mongodb/mongo 0893121f jstests/core/txns/no_snapshot_writes_outside_txn.js, keeps only the write cases (InvalidOptions)',
    ],
  ].map(([name, evidence]) => [`jstests/core/${name}.js`, `${CHANGED_SINCE_42}: ${evidence}`]),
);

/**
 * Tests whose 4.2 assertions MongoDB later changed on purpose, by file: the same test in the 8.0-era
 * tree (path and commit in each reason) asserts the newer behaviour, which the engine follows.
 */
const CHANGED_CATALOG_AND_ADMIN = new Map([
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
    'jstests/core/commands_with_uuid.js',
    'asserts that each spec listIndexes answers for a collection named by UUID has ns "test.main_coll"; 4.4 removed ns from index specs (mongodb/mongo jstests/core/catalog/list_indexes.js @1ffbc6c2 checks name, key and unique only). The rest of the test (find, count, distinct and listIndexes by UUID, NamespaceNotFound for an unknown one) passes',
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

/** Every test left out because MongoDB changed what it asserts after 4.2 (the lists above, by area). */
const CHANGED_SINCE_42_TESTS = new Map([
  ...CHANGED_AGGREGATION_AND_VIEWS,
  ...CHANGED_CORE_WRITES,
  ...CHANGED_PLANS_AND_EXPLAIN,
  ...CHANGED_CATALOG_AND_ADMIN,
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
