/**
 * Every rule on fixture files in three forms (mongosh JavaScript, TypeScript with the Node driver
 * or Mongoose, and a .ttlbook notebook): each marked range must be reported with exactly that
 * code and range, and nothing else may be reported (the unmarked lines are the negative cases).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { analyzeText, RULES, type AnalysisOptions } from '../../../src/analysis';
import { factsOf, sessionsEngine } from './engine-fixture';
import { actualProblems, describeAll, expectedProblems } from './fixture-markers';

const root = path.resolve(__dirname, '../../../..');
export const FIXTURES = path.join(root, 'test/unit/analysis/fixtures');

const RULE_TESTS: Record<string, string> = {
  TTL001: 'rule 1.2: a non-numeric expireAfterSeconds fails createIndex with 67',
  TTL002: 'rule 1.3 / 3.1 / 5.3: NaN fails createIndex with 67 and is read as 0 by collMod and collections',
  TTL003: 'rule 1.4 / 3.2: a negative expireAfterSeconds is refused',
  TTL004: 'rule 1.4 / 5.3 / 3.1: values beyond int32 (index) or now (clustered) are refused, collMod clamps',
  TTL005: 'rule 1.4: fractional values are truncated',
  TTL006: 'rule 1.6 / 1.9: compound and wildcard keys cannot be TTL indexes',
  TTL007: 'rule 1.7: the _id index takes no TTL option (197)',
  TTL008: 'rule 1.8: TTL on a capped collection created in the same input (7.1+ only)',
  TTL009: 'rule 6.4: time-series TTL indexes need the timeField and a metaField filter (72)',
  TTL010: 'rule 6.4: a partial TTL not shorter than the collection TTL has no effect',
  TTL011: 'rule 2.3: createIndex that changes expireAfterSeconds of an engine index fails with 85',
  TTL012: 'rule 7.8: documents whose TTL field is not a date never expire',
  TTL013: 'rule 7.8: expireAfterSeconds 0 on a creation time deletes at once',
  TTL014: 'rule 1.4: a value in milliseconds keeps documents 1000 times longer',
  TTL015: 'rule 2.3–2.5: the same index defined twice with different options fails the second time',
  TTL016: 'rule 1.1: options in the third argument (commitQuorum) are lost',
  TTL017: 'rule 1.1: a TTL option in the key pattern or the schema options makes no TTL index',
  TTL018: 'rule 1.1: a misspelled TTL option is refused by mongod (197) or ignored by Mongoose',
  TTL019: 'rule 7.8: a default date computed once makes later documents expire early',
  TTL020: 'rule 7.8: an expiry time stored and a delay added counts the delay twice',
  TTL021: 'rule 7.8: a TTL index on a path the schema never stores deletes nothing',
  TTL022: 'a file the parser cannot read to the end says where the checks stop',
};

function optionsFor(file: string): AnalysisOptions {
  const base: AnalysisOptions = { nowMs: Date.parse('2026-01-01T00:00:00Z') };
  return path.basename(file).startsWith('ttl011') ? { ...base, engine: factsOf(sessionsEngine()) } : base;
}

export function checkFixture(file: string, options: AnalysisOptions = optionsFor(file)): void {
  const text = fs.readFileSync(file, 'utf8');
  const result = analyzeText(text, file, options);
  const actual = actualProblems(text, result.problems);
  for (const a of actual)
    assert.equal(a.endLine, a.line, `${path.basename(file)}: ${a.code} spans lines ${a.line + 1}–${a.endLine + 1}`);
  assert.deepEqual(
    describeAll(actual, text),
    describeAll(expectedProblems(text), text),
    `${path.basename(file)}: problems differ from the markers`,
  );
  // TTL022's fixtures are about text the parser cannot read; every other fixture parses cleanly.
  if (!path.basename(file).startsWith('ttl022'))
    assert.equal(result.syntaxErrors, 0, `${path.basename(file)} has syntax errors`);
}

describe('analysis rules on fixtures', () => {
  for (const [code, title] of Object.entries(RULE_TESTS)) {
    for (const ext of ['js', 'ts', 'ttlbook']) {
      const file = path.join(FIXTURES, `${code.toLowerCase()}.${ext}`);
      test(`${code} ${title} (${ext})`, () => {
        const text = fs.readFileSync(file, 'utf8');
        assert.ok(
          expectedProblems(text).some((e) => e.code === code),
          `${path.basename(file)} has no positive case for ${code}`,
        );
        checkFixture(file);
      });
    }
  }

  test('every rule of the table has fixtures and a test', () => {
    assert.deepEqual(Object.keys(RULE_TESTS).sort(), Object.keys(RULES).sort());
  });

  test('rule 1.8: with serverVersion 7.0 a TTL index on a capped collection is an error (67)', () => {
    const text = fs.readFileSync(path.join(FIXTURES, 'ttl008.js'), 'utf8');
    const problems = analyzeText(text, 'ttl008.js', { serverVersion: '7.0' }).problems;
    assert.deepEqual(
      problems.map((p) => [p.code, p.severity]),
      [['TTL008', 'error']],
    );
    assert.match(problems[0].message, /Cannot create TTL index on a capped collection/);
  });

  test('rule 2.3: without engine facts TTL011 stays silent', () => {
    const text = fs.readFileSync(path.join(FIXTURES, 'ttl011.js'), 'utf8');
    const codes = analyzeText(text, 'ttl011.js').problems.map((p) => p.code);
    assert.ok(!codes.includes('TTL011'), codes.join());
    // Without the engine, the file's own first definition (7200) is what the later ones meet.
    assert.deepEqual(codes, ['TTL015']);
  });

  test('disabledRules turns rules off by code', () => {
    const text = fs.readFileSync(path.join(FIXTURES, 'ttl003.js'), 'utf8');
    assert.ok(analyzeText(text, 'x.js').problems.length > 0);
    assert.deepEqual(analyzeText(text, 'x.js', { disabledRules: ['TTL003'] }).problems, []);
  });

  test('every problem links its documentation page and says its spec rule', () => {
    for (const f of fs.readdirSync(FIXTURES)) {
      const file = path.join(FIXTURES, f);
      for (const p of analyzeText(fs.readFileSync(file, 'utf8'), file, optionsFor(file)).problems) {
        assert.match(p.docs, /^https:\/\/www\.mongodb\.com\/docs\//);
        assert.equal(p.specRule, RULES[p.code].specRule);
        assert.ok(p.message.length > 40, `${p.code}: "${p.message}" is too short to say what happens and what to do`);
      }
    }
  });
});
