// Which upstream tests need only a standalone mongod: the file's @tags block and its text decide.
// A test is left out for the first reason that applies; the reason is reported with its count.
'use strict';

/** Tags that say the test needs more than one standalone mongod, or a feature kept out of scope. */
const EXCLUDED_TAGS = new Map([
  ['requires_sharding', 'needs sharding'],
  ['requires_replication', 'needs a replica set'],
  ['uses_transactions', 'needs transactions (a replica set)'],
  ['uses_snapshot_read_concern', 'needs snapshot reads (a replica set)'],
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
  [/startTransaction|\btxnNumber\b|\$changeStream|\.watch\(/, 'needs a replica set'],
  [/\bcreateUser\(|\.auth\(|createRole\(/, 'needs authentication'],
  [/\bsetFeatureCompatibilityVersion\b|\bfsync\b/, 'needs server administration'],
];

function tagsOf(text) {
  const m = /@tags\s*:\s*\[([\s\S]*?)\]/.exec(text);
  if (!m) return [];
  return m[1]
    .split('\n')
    .map((line) => line.replace(/\/\/.*$/, '').replace(/^\s*\*/, ''))
    .join(',')
    .split(/[\s,]+/)
    .filter((t) => /^[a-z0-9_]+$/.test(t));
}

/** The reason a test is left out, or null when it needs only a standalone. */
function exclusionReason(text) {
  for (const tag of tagsOf(text)) {
    const reason = EXCLUDED_TAGS.get(tag);
    if (reason) return reason;
  }
  for (const [pattern, reason] of EXCLUDED_TEXT) if (pattern.test(text)) return reason;
  return null;
}

module.exports = { tagsOf, exclusionReason };
