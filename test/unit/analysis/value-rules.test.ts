/**
 * TTL001–TTL005 and TTL014, pinned to what the user sees: the rule, the severity, the message's
 * opening, and every quick fix with its title, its text and whether it is the preferred one, in
 * each place a value can appear (createIndex, collMod's index, a clustered collection).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { analyzeText } from '../../../src/analysis';
import { INT32_MAX } from '../../../src/engine/ttl/validation';

const createIndex = (v: string) => `db.s.createIndex({ lastSeen: 1 }, { expireAfterSeconds: ${v} });`;
const collMod = (v: string) =>
  `db.runCommand({ collMod: 's', index: { keyPattern: { lastSeen: 1 }, expireAfterSeconds: ${v} } });`;
const collection = (v: string) =>
  `db.createCollection('c', { clusteredIndex: { key: { _id: 1 }, unique: true }, expireAfterSeconds: ${v} });`;

/** [title, preferred, replacement text (or "<input>" for a fix that asks)] */
type FixShape = [string, boolean, string];

function problemsOf(text: string) {
  return analyzeText(text, 'a.js').problems.map((p) => ({
    code: p.code,
    severity: p.severity,
    message: p.message,
    fixes: p.fixes.map((f): FixShape => [
      f.title,
      f.preferred === true,
      f.edits.map((e) => (e.fromInput ? '<input>' : e.newText)).join('|'),
    ]),
    input: p.fixes.find((f) => f.input)?.input,
  }));
}

function expectOne(text: string, code: string, severity: string, messageStart: string, fixes: FixShape[]) {
  const got = problemsOf(text);
  assert.equal(got.length, 1, JSON.stringify(got));
  const [p] = got;
  assert.equal(p.code, code);
  assert.equal(p.severity, severity);
  assert.ok(p.message.startsWith(messageStart), `message: ${p.message}`);
  assert.deepEqual(p.fixes, fixes);
  return p;
}

const CI = 'createIndex fails with CannotCreateIndex (67): ';

describe('value rules: fixes and messages', () => {
  test('TTL001: a string of digits is fixed to the number, preferred', () => {
    expectOne(createIndex('"3600"'), 'TTL001', 'error', CI, [
      ['Use 3600 (the number instead of a string)', true, '3600'],
    ]);
    expectOne(createIndex('" 60 "'), 'TTL001', 'error', CI, [['Use 60 (the number instead of a string)', true, '60']]);
  });

  test('TTL001: a duration string is fixed to its seconds, naming the string', () => {
    expectOne(createIndex('"2h"'), 'TTL001', 'error', CI, [['Use 7200 (the number of seconds in "2h")', true, '7200']]);
    expectOne(createIndex('"0x10"'), 'TTL001', 'error', CI, [['Use 16 (the number of seconds in "0x10")', true, '16']]);
  });

  test('TTL001: no fix for text that is no duration, a blank string, milliseconds that are no whole second, or seconds the server refuses', () => {
    for (const v of ['"abc"', '"  "', '"1500ms"', '"99999999999"'])
      expectOne(createIndex(v), 'TTL001', 'error', CI, []);
  });

  test('TTL002: NaN is replaced by a value the user types, preferred', () => {
    const p = expectOne(createIndex('NaN'), 'TTL002', 'error', CI, [
      ['Replace NaN with a number of seconds…', true, '<input>'],
    ]);
    assert.deepEqual(p.input, { prompt: 'expireAfterSeconds in seconds (3600, or 1h, 30d)', placeholder: '3600' });
    const [edit] = analyzeText(createIndex('NaN'), 'a.js').problems[0].fixes[0].edits;
    assert.equal(edit.newText, '', 'the typed value is the whole replacement');
  });

  test('TTL003: a negative value offers its absolute value (preferred) and 0', () => {
    expectOne(createIndex('-3600'), 'TTL003', 'error', CI, [
      ['Use 3600 (1 hour)', true, '3600'],
      ['Use 0 (expire at the date stored in the field)', false, '0'],
    ]);
  });

  test('TTL003: a negative value whose absolute value is refused too offers only 0', () => {
    expectOne(createIndex('-1e12'), 'TTL003', 'error', CI, [
      ['Use 0 (expire at the date stored in the field)', false, '0'],
    ]);
  });

  test('TTL004: too large: the value read as milliseconds (preferred) and INT32_MAX', () => {
    expectOne(createIndex('3600000000'), 'TTL004', 'error', CI, [
      ['Use 3600000 (if 3600000000 was milliseconds: 41 days 16 hours)', true, '3600000'],
      [`Use ${INT32_MAX} (the largest allowed, about 68 years)`, false, String(INT32_MAX)],
    ]);
  });

  test('TTL004: too large and no whole number of seconds as milliseconds: INT32_MAX only', () => {
    expectOne(createIndex('2147483648'), 'TTL004', 'error', CI, [
      [`Use ${INT32_MAX} (the largest allowed, about 68 years)`, false, String(INT32_MAX)],
    ]);
  });

  test('TTL005: a fraction offers what the server keeps (preferred) and, when it differs, the rounded value', () => {
    const p = expectOne(createIndex('3600.7'), 'TTL005', 'warning', 'expireAfterSeconds counts whole seconds', [
      ['Use 3600 (what the server keeps)', true, '3600'],
      ['Use 3601 (rounded)', false, '3601'],
    ]);
    assert.equal(
      p.message,
      'expireAfterSeconds counts whole seconds: the server truncates 3600.7 to 3600 (1 hour) and expires documents by that. Write 3600 so the code says what happens.',
    );
    expectOne(createIndex('3600.2'), 'TTL005', 'warning', 'expireAfterSeconds counts whole seconds', [
      ['Use 3600 (what the server keeps)', true, '3600'],
    ]);
  });

  test('TTL005: the rounded value is not offered when the server would refuse it', () => {
    expectOne(createIndex('2147483647.6'), 'TTL005', 'warning', 'expireAfterSeconds counts whole seconds', [
      [`Use ${INT32_MAX} (what the server keeps)`, true, String(INT32_MAX)],
    ]);
  });

  test('TTL014: a whole number of minutes in milliseconds, over a day as seconds, offers the seconds meant', () => {
    const p = expectOne(createIndex('86400000'), 'TTL014', 'warning', 'expireAfterSeconds: 86400000 is', [
      ['Use 86400 (1 day)', true, '86400'],
    ]);
    assert.match(p.message, /did you mean 86400 \(1 day\)\? .*documents stay 1000 times longer than 1 day\.$/);
    expectOne(createIndex('120000'), 'TTL014', 'warning', 'expireAfterSeconds: 120000 is', [
      ['Use 120 (2 minutes)', true, '120'],
    ]);
  });

  test('TTL014: a day, a non-minute or a non-thousand is left alone', () => {
    for (const v of ['86400', '87000', '90061', '3600']) assert.deepEqual(problemsOf(createIndex(v)), [], v);
  });
});

describe('value rules: collMod', () => {
  test("rule 3.1: a negative collMod value's fix is judged by collMod's own bounds (int32), not the collection's (the clock)", () => {
    // 2,100,000,000 seconds fits an int32 but reaches back before 1970 (until 2036): collMod takes it.
    expectOne(collMod('-2100000000'), 'TTL003', 'error', 'collMod fails with InvalidOptions (72): ', [
      ['Use 2100000000 (about 24,305 days 13 hours (about 66.5 years))', true, '2100000000'],
      ['Use 0 (expire at the date stored in the field)', false, '0'],
    ]);
  });

  test('TTL005 on collMod: fractions are truncated there too', () => {
    expectOne(collMod('3600.7'), 'TTL005', 'warning', 'expireAfterSeconds counts whole seconds', [
      ['Use 3600 (what the server keeps)', true, '3600'],
      ['Use 3601 (rounded)', false, '3601'],
    ]);
  });

  test('TTL014 on collMod: milliseconds are caught there too', () => {
    expectOne(collMod('86400000'), 'TTL014', 'warning', 'expireAfterSeconds: 86400000 is', [
      ['Use 86400 (1 day)', true, '86400'],
    ]);
  });

  test('rule 3.1: TTL004 on collMod is a warning that the value is clamped, with INT32_MAX preferred', () => {
    expectOne(collMod('3e9'), 'TTL004', 'warning', 'collMod silently clamps 3000000000 to 2147483647', [
      [`Use ${INT32_MAX} (what collMod would store)`, true, String(INT32_MAX)],
    ]);
  });

  test('rule 3.1: TTL002 on collMod says NaN is read as 0', () => {
    expectOne(collMod('NaN'), 'TTL002', 'error', 'collMod reads a NaN expireAfterSeconds as 0 (rule 3.1)', [
      ['Replace NaN with a number of seconds…', true, '<input>'],
    ]);
  });

  test('collMod refusals name the error collMod fails with', () => {
    expectOne(collMod('-5'), 'TTL003', 'error', 'collMod fails with InvalidOptions (72): ', [
      ['Use 5 (5 seconds)', true, '5'],
      ['Use 0 (expire at the date stored in the field)', false, '0'],
    ]);
    expectOne(collMod('"x"'), 'TTL001', 'error', 'collMod fails with TypeMismatch (14): ', []);
  });
});

describe('value rules: a clustered collection', () => {
  test('TTL005 and TTL014 on a collection-level value', () => {
    expectOne(collection('3600.7'), 'TTL005', 'warning', 'expireAfterSeconds counts whole seconds', [
      ['Use 3600 (what the server keeps)', true, '3600'],
      ['Use 3601 (rounded)', false, '3601'],
    ]);
    expectOne(collection('86400000'), 'TTL014', 'warning', 'expireAfterSeconds: 86400000 is', [
      ['Use 86400 (1 day)', true, '86400'],
    ]);
  });

  test('rule 5.3: TTL002 on a collection says NaN is read as 0', () => {
    expectOne(
      collection('NaN'),
      'TTL002',
      'error',
      'A NaN collection-level expireAfterSeconds is read as 0 (rule 5.3',
      [['Replace NaN with a number of seconds…', true, '<input>']],
    );
  });

  test("refusals of a collection's value name the error", () => {
    expectOne(collection('-5'), 'TTL003', 'error', "the collection's TTL is refused with InvalidOptions (72): ", [
      ['Use 5 (5 seconds)', true, '5'],
      ['Use 0 (expire at the date stored in the field)', false, '0'],
    ]);
    expectOne(collection('"1h"'), 'TTL001', 'error', "the collection's TTL is refused with TypeMismatch (14): ", [
      ['Use 3600 (the number of seconds in "1h")', true, '3600'],
    ]);
  });

  test('rule 5.3: a too-large collection value is offered INT32_MAX only once the clock has passed that many seconds since 1970 (2038)', () => {
    const text = collection('3000000000000');
    const fixesAt = (iso: string) =>
      analyzeText(text, 'a.js', { nowMs: Date.parse(iso) }).problems.map((p) => [p.code, p.fixes.map((f) => f.title)]);
    assert.deepEqual(fixesAt('2026-01-01T00:00:00Z'), [['TTL004', []]]);
    assert.deepEqual(fixesAt('2040-01-01T00:00:00Z'), [
      ['TTL004', [`Use ${INT32_MAX} (the largest allowed, about 68 years)`]],
    ]);
  });
});
