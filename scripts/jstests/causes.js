// Groups failures by cause: the server error a test ran into (codeName and message with its numbers
// and long literals blanked), a script error (a missing helper), or the kind of assertion that found
// a wrong result. Engineers read the groups, largest first.
'use strict';

function normalize(text) {
  return String(text)
    .replace(/ObjectId\("[0-9a-f]{24}"\)/g, 'ObjectId(…)')
    .replace(/"(?:[^"\\]|\\.){40,}"/g, '"…"')
    .replace(/\b\d+(\.\d+)?\b/g, 'N')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 160);
}

/** The server error inside an assertion message that prints a reply (`command failed: { … }`). */
function replyError(message) {
  const name = /"codeName" : "([A-Za-z0-9_]+)"/.exec(message);
  const errmsg = /"errmsg" : "((?:[^"\\]|\\.)*)"/.exec(message);
  if (!name && !errmsg) return null;
  return `${name ? name[1] : 'error'}: ${errmsg ? errmsg[1] : ''}`;
}

function causeOf(result) {
  if (result.timedOut) return 'timeout: the test did not finish in time';
  const e = result.error ?? {};
  const message = e.message ?? '';
  if (result.phase === 'harness' || result.phase === 'prelude') return `harness: ${normalize(message)}`;
  if (typeof e.codeName === 'string') return `server error ${e.codeName}: ${normalize(message)}`;
  if (
    /^assert: (command failed|command worked when|write failed|no write error|command did not fail|write did not fail)/.test(
      message,
    )
  ) {
    const kind = /^assert: ([a-z ]+?)(:| with| when)/.exec(message)[1];
    const inner = replyError(message);
    return inner ? `${kind}: ${normalize(inner)}` : `${kind}`;
  }
  if (/^assert: /.test(message)) {
    if (/are not equal|are equal/.test(message)) {
      // A test comparing an error code prints the reply it got: the server error is the cause.
      const inner = replyError(message);
      if (inner) return `different error: ${normalize(inner)}`;
      return 'wrong result: assert.eq / neq / docEq';
    }
    if (/did not throw/.test(message)) return 'expected an error, none was raised (assert.throws)';
    if (/threw unexpected exception: (.*)/.test(message))
      return `unexpected error (assert.doesNotThrow): ${normalize(/threw unexpected exception: (.*)/.exec(message)[1])}`;
    if (/is not (less|greater)/.test(message)) return 'wrong result: assert.lt / gt / lte / gte';
    if (/ != \[|sameMembers/.test(message)) return 'wrong result: assert.sameMembers / setEq';
    return `assertion failed: ${normalize(message.slice(0, 80))}`;
  }
  return `${e.name ?? 'Error'}: ${normalize(message)}`;
}

/**
 * The area a failure belongs to, for the summary engineers start from: an unsupported feature, a
 * missing command or expression, the shape of explain output, validation mongod does and the
 * engine does not (or the reverse), or a plainly wrong result. First rule that matches wins.
 */
const AREAS = [
  [(t) => t.timedOut, 'timeouts (the test did not finish in 20 s)'],
  // Views and schema validation are supported: what fails there is a detail of them, not the feature.
  [(t) => /\/views\//.test(t.all), 'views'],
  [(t) => /Collations are not supported/.test(t.all), 'collation (not supported)'],
  [(t) => /collation/i.test(t.all), 'collation'],
  [(t) => /\$jsonSchema|'validator'|json_schema\/|validationLevel|validationAction/.test(t.all), 'schema validation'],
  [
    // What only the legacy mongo binary offered (its own processes, benchmarks, deprecated BSON):
    // nothing the engine could answer.
    (t) =>
      /\b(DBPointer|benchRun|runProgram|shellHelper|MongoURI|_DummyDriverSession|testingReplication|dropAllUsers|rs|m\.put|noPassthrough\/libs)\b/.test(
        t.error?.message ?? '',
      ),
    'legacy shell only (not the engine: DBPointer, benchRun, runProgram, shellHelper, …)',
  ],
  [
    (t) => t.phase !== 'test' || /^(ReferenceError|TypeError|Error|BSONError)\b/.test(t.cause),
    'script errors: a legacy-shell feature the harness lacks, or a reply field the engine omits',
  ],
  [(t) => /validate\(|'validate'/.test(t.all), 'the validate command (missing)'],
  [(t) => /capped/i.test(t.all), 'capped collections'],
  [(t) => /no such command/.test(t.all), 'other missing commands'],
  [(t) => /Unrecognized expression/.test(t.all), 'missing aggregation expressions'],
  [
    (t) => /Unrecognized pipeline stage|stage is not supported|is not supported by the embedded engine/.test(t.all),
    'missing aggregation stages',
  ],
  [(t) => /\$\*\*|wildcard/.test(t.all), 'wildcard indexes'],
  [(t) => /\$natural/.test(t.all), '$natural sort and hint'],
  [
    (t) =>
      /explain|indexOnly|isIndexOnly|covered|isIxscan|isIdhack|planHasStage|getPlanStage|getAggPlanStage|executionStats|winningPlan|rejectedPlans|IXSCAN|COLLSCAN|FETCH|DISTINCT_SCAN|totalKeysExamined|totalDocsExamined|multiKeyPaths/.test(
        t.all,
      ),
    'explain output and plan shape',
  ],
  [(t) => /^different error/.test(t.cause), 'a different error (code or message) than mongod gives'],
  [
    (t) => /^(command worked|expected an error|no write error|command did not fail|write did not fail)/.test(t.cause),
    'accepted what mongod refuses (missing checks)',
  ],
  [
    (t) => /^(command failed|write failed|server error|unexpected error)/.test(t.cause),
    'refused (or failed on) what mongod accepts',
  ],
  [() => true, 'wrong results (queries, updates, aggregation, helpers)'],
];

function areaOf(result) {
  const cause = causeOf(result);
  const all = `${result.file ?? ''} ${result.error?.message ?? ''} ${result.source ?? ''}`;
  const facts = { ...result, cause, all };
  return AREAS.find(([test]) => test(facts))[1];
}

module.exports = { causeOf, areaOf, normalize };
