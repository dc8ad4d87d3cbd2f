/**
 * TTL006 (rule 1.6): the diagnostic and its preferred quick fix name the same TTL field as the
 * engine's refusal: the field the file's inserted documents hold dates in, else the field named
 * like a date, else the first field, with the reason in the message and the fix title.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { analyzeText, applyEdits } from '../../../src/analysis';

function ttl006(text: string) {
  const problem = analyzeText(text, 'a.js').problems.find((p) => p.code === 'TTL006');
  assert.ok(problem, 'TTL006 reported');
  const preferred = problem.fixes.find((f) => f.preferred);
  assert.ok(preferred, 'a preferred fix');
  return { problem, preferred, fixed: applyEdits(text, preferred.edits) };
}

describe('TTL006: the TTL field the compound key meant', () => {
  test('sampled: the file inserts dates into "seen", so the fix indexes seen (names aside)', () => {
    const text = [
      `db.events.insertMany([{ user: 'a', createdAt: 'x', seen: new Date() }, { user: 'b', seen: new Date() }]);`,
      `db.events.createIndex({ user: 1, createdAt: 1, seen: 1 }, { expireAfterSeconds: 3600 });`,
    ].join('\n');
    const { problem, preferred, fixed } = ttl006(text);
    assert.match(
      problem.message,
      /create \{seen: 1\} with expireAfterSeconds \(seen holds dates in 2 of the 2 documents seen with it\)/,
    );
    assert.equal(
      preferred.title,
      'Split: a TTL index on seen (seen holds dates in 2 of the 2 documents seen with it) plus the compound index without expireAfterSeconds',
    );
    assert.match(fixed, /db\.events\.createIndex\(\{ seen: 1 \}, \{ expireAfterSeconds: 3600 \}\);/);
  });

  test('name hints: {user: 1, createdAt: 1} with nothing inserted suggests createdAt', () => {
    const { problem, preferred, fixed } = ttl006(
      `db.events.createIndex({ user: 1, createdAt: 1 }, { expireAfterSeconds: 3600 });`,
    );
    assert.match(
      problem.message,
      /create \{createdAt: 1\} with expireAfterSeconds \(createdAt is named like a date field\)/,
    );
    assert.match(preferred.title, /^Split: a TTL index on createdAt \(createdAt is named like a date field\)/);
    assert.equal(
      fixed,
      `db.events.createIndex({ createdAt: 1 }, { expireAfterSeconds: 3600 });\ndb.events.createIndex({ user: 1, createdAt: 1 });`,
    );
  });

  test('assumed: no dates and no date-like name: the first field, and the message says it was assumed', () => {
    const { problem, preferred } = ttl006(
      `db.events.createIndex({ user: 1, score: 1 }, { expireAfterSeconds: 3600 });`,
    );
    assert.match(
      problem.message,
      /create \{user: 1\} with expireAfterSeconds \(user assumed: no field of the key is named like a date field/,
    );
    assert.match(preferred.title, /^Split: a TTL index on user \(user assumed:/);
  });
});
