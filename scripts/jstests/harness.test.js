// The harness's own tests (node --test scripts/jstests/): selection, grouping of causes, and the
// legacy helpers, which must fail a test file when its assertions fail (else every upstream test
// would "pass"). Not part of npm test, like the rest of scripts/jstests. Needs `npx tsc -p .`.
'use strict';
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { tagsOf, exclusionReason } = require('./select');
const { areaOf, causeOf } = require('./causes');
const { runOne } = require('./worker');

const CODES = { BadValue: 2, DuplicateKey: 11000, InvalidPipelineOperator: 168 };

/** Runs `source` as an upstream test file in a throwaway root. */
function run(source, libs = {}) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'jstests-harness-'));
  for (const [file, text] of Object.entries({ 'jstests/core/t.js': source, ...libs })) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
  try {
    return runOne(root, 'jstests/core/t.js', 10000, CODES);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

describe('selection', () => {
  it('reads a multi-line @tags block with comments', () => {
    const text = '/**\n * @tags: [\n *   requires_fastcount,  // why\n *   requires_sharding,\n * ]\n */\n';
    assert.deepEqual(tagsOf(text), ['requires_fastcount', 'requires_sharding']);
  });

  it('reads a @tags block written in line comments, leaving out its # remarks', () => {
    const text =
      '// @tags: [\n//   requires_capped,\n//   # uses_parallel_shell is not needed here\n//   uses_testing_only_commands,\n// ]\n';
    assert.deepEqual(tagsOf(text), ['requires_capped', 'uses_testing_only_commands']);
    assert.equal(exclusionReason(text), 'uses test-only server commands');
  });

  it('leaves out by tag first, then by text; a plain query test stays', () => {
    assert.equal(exclusionReason('// @tags: [requires_sharding]\ndb.c.find()'), 'needs sharding');
    assert.equal(exclusionReason('db.c.createIndex({loc: "2dsphere"})'), 'needs geo');
    assert.equal(exclusionReason('db.c.find({$text: {$search: "x"}})'), 'needs text search');
    assert.equal(exclusionReason('db.c.find({$where: "this.a"})'), 'needs server-side JavaScript');
    assert.equal(exclusionReason('configureFailPoint(db, "x")'), 'uses failpoints');
    assert.equal(exclusionReason('// @tags: [requires_fastcount]\ndb.c.find({a: 1})'), null);
    assert.equal(exclusionReason('db.runCommand({getLastError: 1})'), 'uses getLastError (removed in MongoDB 5.1)');
    assert.equal(exclusionReason('const cmds = {getLastError: {skip: true}};'), null);
  });

  it('leaves out by file the tests of commands MongoDB 8.0 no longer has, whatever their text', () => {
    assert.match(exclusionReason('db.c.find()', 'jstests/core/stages_ixscan.js'), /stageDebug/);
    assert.match(exclusionReason('db.c.find()', 'jstests/core/plan_cache_list_shapes.js'), /removed/);
    // stages_sort.js runs nothing (its body is `if (false)`): it stays, as does any other file.
    assert.equal(exclusionReason('db.c.find()', 'jstests/core/stages_sort.js'), null);
  });

  it('leaves out by file the tests whose assertion MongoDB changed after 4.2, naming the current test that says so', () => {
    assert.match(
      exclusionReason('coll.insert({$a: 1})', 'jstests/core/field_name_validation.js'),
      /changed later.*05a0f8e9/,
    );
    assert.match(exclusionReason('x', 'jstests/core/txns/concurrent_drops_and_creates.js'), /changed later/);
    assert.equal(exclusionReason('coll.insert({$a: 1})', 'jstests/core/field_name_validation2.js'), null);
  });

  it('leaves out by file the tests whose subject is the legacy mongo shell, not the server', () => {
    assert.match(exclusionReason('shellHelper("show", "tables")', 'jstests/core/shell1.js'), /legacy mongo shell/);
    assert.match(exclusionReason('x', 'jstests/core/txns/shell_prompt_in_transaction.js'), /legacy mongo shell/);
    // The same text in another file runs: the list names files, not helpers.
    assert.equal(exclusionReason('new NumberLong(4)', 'jstests/core/numberlong_other.js'), null);
  });
});

describe('causes', () => {
  it('groups by the server error inside an assertion message, with numbers blanked', () => {
    const r = {
      ok: false,
      phase: 'test',
      error: {
        message:
          'assert: command failed: { "ok" : 0, "errmsg" : "no such command: \'validate\' 12", "code" : 59, "codeName" : "CommandNotFound" }',
      },
    };
    assert.equal(causeOf(r), "command failed: CommandNotFound: no such command: 'validate' N");
    assert.equal(causeOf({ ok: false, timedOut: true }), 'timeout: the test did not finish in time');
    assert.equal(
      causeOf({ ok: false, phase: 'test', error: { message: 'assert: [1] != [2] are not equal' } }),
      'wrong result: assert.eq / neq / docEq',
    );
  });
});

describe('areas', () => {
  it('puts a failure in the first area that matches, a plain wrong result last', () => {
    const failure = (message, source, file = 'jstests/core/x.js') => ({
      ok: false,
      phase: 'test',
      file,
      source,
      error: { message },
    });
    assert.equal(
      areaOf(failure('assert: [1] != [2] are not equal', 't.find({a: 1}).count()')),
      'wrong results (queries, updates, aggregation, helpers)',
    );
    assert.equal(
      areaOf(failure('assert: assert failed', 'assert(isIndexOnly(db, plan))')),
      'explain output and plan shape',
    );
    assert.equal(
      areaOf(failure('assert: did not throw exception', 'coll.insert({})')),
      'accepted what mongod refuses (missing checks)',
    );
    // Views, schema validation and collation are supported: their failures are not labelled "not supported".
    assert.equal(areaOf(failure('x', 'y', 'jstests/core/views/views_basic.js')), 'views');
    assert.equal(areaOf(failure('x', 'y', 'jstests/core/json_schema/items.js')), 'schema validation');
    assert.equal(areaOf(failure('x', 'y', 'jstests/core/collation_find.js')), 'collation');
    assert.equal(areaOf({ ok: false, timedOut: true, file: 'a.js' }), 'timeouts (the test did not finish in 20 s)');
  });
});

describe('the legacy helpers fail a test when its assertion fails', () => {
  it('assert.eq passes on equal values and fails on different ones', () => {
    assert.equal(run('db.c.insert({_id: 1, a: [1, 2]}); assert.eq([1, 2], db.c.findOne().a);').ok, true);
    const failed = run('db.c.insert({_id: 1, a: 1}); assert.eq(2, db.c.findOne().a, "a is 2");');
    assert.equal(failed.ok, false);
    assert.match(failed.error.message, /\[2\] != \[1\] are not equal : a is 2/);
  });

  it('writes return WriteResults; writeError / writeErrorWithCode check the code', () => {
    const src = 'db.c.insert({_id: 1}); var r = db.c.insert({_id: 1});';
    assert.equal(run(`${src} assert.writeErrorWithCode(r, ErrorCodes.DuplicateKey);`).ok, true);
    assert.equal(run(`${src} assert.writeOK(r);`).ok, false);
    assert.equal(run(`${src} assert.writeErrorWithCode(r, ErrorCodes.BadValue);`).ok, false);
  });

  it('runCommand returns { ok: 0 } and commandFailedWithCode checks it', () => {
    const src = 'var r = db.runCommand({aggregate: "c", pipeline: [{$project: {x: {$noSuchOp: 1}}}], cursor: {}});';
    assert.equal(run(`${src} assert.commandFailedWithCode(r, ErrorCodes.InvalidPipelineOperator);`).ok, true);
    assert.equal(run(`${src} assert.commandWorked(r);`).ok, false);
    assert.equal(run(`${src} assert.commandFailedWithCode(r, ErrorCodes.BadValue);`).ok, false);
  });

  it('automsg forms evaluate their source text', () => {
    assert.equal(run('db.c.insert({a: 1}); t = db.c; assert.eq.automsg("1", "t.count()");').ok, true);
    assert.equal(run('db.c.insert({a: 1}); t = db.c; assert.eq.automsg("2", "t.count()");').ok, false);
  });

  it('assert.throws fails when nothing is thrown; legacy update takes positional upsert/multi', () => {
    assert.equal(run('assert.throws(function () { return 1; });').ok, false);
    const src =
      'db.c.insert([{a: 1}, {a: 1}]); var r = db.c.update({a: 1}, {$set: {b: 1}}, false, true); assert.eq(2, r.nModified);' +
      'assert.writeOK(db.c.update({a: 9}, {$set: {b: 2}}, true)); assert.eq(3, db.c.find().itcount());';
    assert.equal(run(src).ok, true);
  });

  it('load() reads upstream libraries, strict-mode ones included, into the global scope', () => {
    const lib = {
      'jstests/libs/helper.js': "'use strict';\nvar helperValue = 42;\nfunction helper() { return helperValue; }\n",
    };
    assert.equal(run('load("jstests/libs/helper.js"); assert.eq(42, helper());', lib).ok, true);
  });

  it("ISODate parses as the legacy shell's did: fields carry over, fractions round, zones shift, years below 100 stay", () => {
    const cases = [
      ['ISODate("1980-05-20 12:53:64.834Z")', 'ISODate("1980-05-20T12:54:04.834Z")'],
      ['ISODate("0000-01-01T00:00:00.1235Z")', 'ISODate("0000-01-01T00:00:00.124Z")'],
      ['ISODate("0069-01-01")', 'ISODate("0069-01-01T00:00:00Z")'],
      ['ISODate("2020-01-01T10:00:00+0130")', 'ISODate("2020-01-01T08:30:00Z")'],
      ['ISODate("2020-01-01T10:00:00-05:00")', 'ISODate("2020-01-01T15:00:00Z")'],
    ];
    for (const [expr, shown] of cases) assert.equal(run(`assert.eq(tojson(${expr}), '${shown}');`).ok, true, expr);
    assert.equal(run('ISODate("2020-13");').ok, false);
    assert.equal(run('ISODate("9999-12-31T23:59:60Z");').ok, false);
  });

  it("Object.bsonsize counts a number as a double (8 bytes), as the legacy shell's all are", () => {
    // {a: 1}: 4 (length) + 1 (type) + 2 ("a\0") + 8 (double) + 1 (end) = 16; an int32 would make 12.
    assert.equal(run('assert.eq(16, Object.bsonsize({a: 1}));').ok, true);
    assert.equal(run('assert.eq(12, Object.bsonsize({a: NumberInt(1)}));').ok, true);
  });

  it("saving BinData.prototype throws, as the legacy shell's BinData accessors do on it; a BinData value saves", () => {
    assert.equal(run('assert.throws(() => db.c.insert({a: BinData.prototype}));').ok, true);
    assert.equal(run('assert.writeOK(db.c.insert({a: BinData(0, "AAAA")}));').ok, true);
  });

  it('cursor[i] reads the results; next() past the end throws as the legacy shell does', () => {
    const src = 'db.c.insert([{_id: 1}, {_id: 2}]); assert.eq(2, db.c.find().sort({_id: -1})[0]._id);';
    assert.equal(run(src).ok, true);
    assert.equal(run('db.c.find().next();').ok, false);
  });
});
