/**
 * The rules about definitions relative to each other in one file (src/analysis/checks/file-rules.ts):
 * TTL015, the same index defined twice with different options (rules 2.3–2.5: the second createIndex
 * fails with the engine's conflict), and TTL016, options written in createIndex's third argument
 * (commitQuorum), which never reach the index. The fixtures pin where they are reported; these pin
 * what they say, where they point back, their fixes, and where they stay silent.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeText, applyEdits, type Problem } from '../../../src/analysis';

function problems(text: string): Problem[] {
  return analyzeText(text, 'a.js', {}).problems;
}

function only(text: string, code: string): Problem {
  const all = problems(text);
  assert.deepEqual(
    all.map((p) => p.code),
    [code],
    `expected exactly one ${code}: ${all.map((p) => p.message).join('\n')}`,
  );
  return all[0];
}

const CONFLICT_85 =
  'IndexOptionsConflict (85): An equivalent index already exists with the same name but different options.';

describe('TTL015: the same index twice with different options', () => {
  it("rule 2.3 (TTL015): the second definition is reported at its TTL option with the engine's error, pointing back at the first key", () => {
    const text = `db.sessions.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 3600 });\ndb.sessions.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 7200 });`;
    const p = only(text, 'TTL015');
    assert.equal(text.slice(p.start, p.end), 'expireAfterSeconds: 7200');
    assert.equal(p.severity, 'warning');
    assert.ok(
      p.message.startsWith(
        `sessions gets this index twice with different options in this file: run after the first definition, this one fails with ${CONFLICT_85} Requested index: { key: { lastSeen: 1 }, name: "lastSeen_1", expireAfterSeconds: 7200 }, existing index: { key: { lastSeen: 1 }, name: "lastSeen_1", expireAfterSeconds: 3600 }.`,
      ),
      p.message,
    );
    assert.deepEqual(p.fixes, []);
    assert.equal(p.related?.length, 1);
    const first = p.related?.[0];
    assert.ok(first);
    assert.equal(text.slice(first.start, first.end), '{ lastSeen: 1 }');
    assert.ok(first.end < text.indexOf('\n'), 'the first definition, on line 1');
    assert.equal(first.message, 'first defined here');
  });

  it('rule 2.4 (TTL015): two indexes under one name: the second key is pointed at when it has no TTL, and the namespace names its database', () => {
    const text = `db.getSiblingDB('app').c.createIndex({ a: 1 }, { name: 'x' });\ndb.getSiblingDB('app').c.createIndex({ b: 1 }, { name: 'x' });`;
    const p = only(text, 'TTL015');
    assert.equal(text.slice(p.start, p.end), '{ b: 1 }');
    assert.ok(p.start > text.indexOf('\n'));
    assert.match(p.message, /^app\.c gets this index twice .* fails with IndexKeySpecsConflict \(86\): /);
  });

  it('TTL015: each later definition is reported once, against the first one it clashes with', () => {
    const text = [1, 2, 3].map((s) => `db.c.createIndex({ a: 1 }, { expireAfterSeconds: ${s} });`).join('\n');
    const found = problems(text);
    assert.deepEqual(
      found.map((p) => [p.code, text.slice(p.start, p.end), p.related?.map((r) => r.start)]),
      [
        ['TTL015', 'expireAfterSeconds: 2', [17]],
        ['TTL015', 'expireAfterSeconds: 3', [17]],
      ],
    );
  });

  it('TTL015: an earlier definition the server refuses creates nothing, so a later one does not clash with it', () => {
    const text = `db.c.createIndex({ a: 1 }, { expireAfterSeconds: -1 });\ndb.c.createIndex({ a: 1 }, { expireAfterSeconds: 2 });`;
    assert.deepEqual(
      problems(text).map((p) => p.code),
      ['TTL003'],
    );
  });

  it('rule 2.3 (TTL015): two createIndexes calls that take their keys from one constant array clash like any two; the first call is pointed at', () => {
    const text = `const KEYS = [{ a: 1 }];\ndb.c.createIndexes(KEYS, { expireAfterSeconds: 1 });\ndb.c.createIndexes(KEYS, { expireAfterSeconds: 2 });`;
    const p = only(text, 'TTL015');
    assert.equal(text.slice(p.start, p.end), 'expireAfterSeconds: 2');
    assert.match(p.message, /^c gets this index twice .* fails with IndexOptionsConflict \(85\): /);
    assert.equal(p.related?.length, 1);
    const first = p.related?.[0];
    assert.ok(first);
    // The shared key `{ a: 1 }` in the constant would not say which call came first.
    assert.equal(text.slice(first.start, first.end), 'db.c.createIndexes(KEYS, { expireAfterSeconds: 1 })');
    // The same constant array with the same options, or an array of whole specs used twice, is one index.
    for (const again of [
      `const KEYS = [{ a: 1 }];\ndb.c.createIndexes(KEYS, { expireAfterSeconds: 1 });\ndb.c.createIndexes(KEYS, { expireAfterSeconds: 1 });`,
      `const SPECS = [{ key: { a: 1 }, name: 'a_1', expireAfterSeconds: 1 }];\ndb.c.createIndexes(SPECS);\ndb.c.createIndexes(SPECS);`,
    ])
      assert.deepEqual(problems(again), [], again);
  });

  it('TTL015: another database, another collection, or the same definition again is not reported', () => {
    for (const text of [
      `db.getSiblingDB('x').c.createIndex({ a: 1 }, { expireAfterSeconds: 1 });\ndb.c.createIndex({ a: 1 }, { expireAfterSeconds: 2 });`,
      `db.getSiblingDB('x').c.createIndex({ a: 1 }, { expireAfterSeconds: 1 });\ndb.getSiblingDB('y').c.createIndex({ a: 1 }, { expireAfterSeconds: 2 });`,
      `db.c.createIndex({ a: 1 }, { expireAfterSeconds: 1 });\ndb.d.createIndex({ a: 1 }, { expireAfterSeconds: 2 });`,
      `db.c.createIndex({ a: 1 }, { expireAfterSeconds: 1 });\ndb.c.createIndex({ a: 1 }, { expireAfterSeconds: 1 });`,
    ])
      assert.deepEqual(problems(text), [], text);
  });
});

describe('TTL016: index options in the third argument', () => {
  it('rule 1.1 (TTL016): one option, expireAfterSeconds: it is lost, so the index has no TTL; the fix moves it after the last option', () => {
    const text = `db.w.createIndex({ t: 1 }, { sparse: true }, { expireAfterSeconds: 60 });`;
    const p = only(text, 'TTL016');
    assert.equal(text.slice(p.start, p.end), '{ expireAfterSeconds: 60 }');
    assert.equal(p.severity, 'error');
    assert.equal(
      p.message,
      'expireAfterSeconds is in the third argument of createIndex, which is not index options: mongosh reads it as commitQuorum and the Node driver ignores it, so it is silently lost. This index is created without a TTL: nothing ever expires through it. Put every option in the second argument.',
    );
    assert.deepEqual(
      p.fixes.map((f) => [f.title, f.preferred]),
      [['Move { expireAfterSeconds: 60 } into the index options', true]],
    );
    assert.equal(
      applyEdits(text, p.fixes[0].edits),
      `db.w.createIndex({ t: 1 }, { sparse: true, expireAfterSeconds: 60 });`,
    );
  });

  it('TTL016: several options without a TTL: "are", "they are", and no word of a TTL; only the index options are named', () => {
    const p = only(`db.w.createIndex({ t: 1 }, { sparse: true }, { unique: true, w: 1, name: 'x' });`, 'TTL016');
    assert.equal(
      p.message,
      'unique, name are in the third argument of createIndex, which is not index options: mongosh reads it as commitQuorum and the Node driver ignores it, so they are silently lost. Put every option in the second argument.',
    );
  });

  it('TTL016: every index option in the third argument is named as lost, in the order written', () => {
    const options = [
      'partialFilterExpression: { k: 1 }',
      'sparse: true',
      'hidden: false',
      "collation: { locale: 'en' }",
      'background: true',
      'weights: { a: 1 }',
      'wildcardProjection: { a: 1 }',
    ];
    const p = only(`db.w.createIndex({ t: 1 }, { unique: true }, { ${options.join(', ')} });`, 'TTL016');
    assert.match(
      p.message,
      /^partialFilterExpression, sparse, hidden, collation, background, weights, wildcardProjection are in the third argument of createIndex,/,
    );
  });

  it('TTL016: into empty options the fix writes the third argument\'s properties; a long one is called "the options"; later arguments go too', () => {
    const text = `db.w.createIndex({ t: 1 }, {}, { expireAfterSeconds: 60, partialFilterExpression: { kind: 'session' } }, 5);`;
    const [fix] = only(text, 'TTL016').fixes;
    assert.equal(fix.title, 'Move the options into the index options');
    assert.equal(
      applyEdits(text, fix.edits),
      `db.w.createIndex({ t: 1 }, { expireAfterSeconds: 60, partialFilterExpression: { kind: 'session' } });`,
    );
    // 40 characters exactly is still written out.
    const forty = `{ expireAfterSeconds: 60, name: 'abcd' }`;
    assert.equal(forty.length, 40);
    assert.equal(
      only(`db.w.createIndex({ t: 1 }, {}, ${forty});`, 'TTL016').fixes[0].title,
      `Move ${forty} into the index options`,
    );
  });

  it('TTL016: options or a third argument held in a variable are reported without a fix', () => {
    assert.deepEqual(only(`db.w.createIndex({ t: 1 }, opts, { expireAfterSeconds: 60 });`, 'TTL016').fixes, []);
    // Options in a constant are read (an object), but a fix would edit the constant, not this call.
    assert.deepEqual(
      only(`const o = { sparse: true };\ndb.w.createIndex({ t: 1 }, o, { expireAfterSeconds: 60 });`, 'TTL016').fixes,
      [],
    );
    const text = `const third = { expireAfterSeconds: 60 };\ndb.w.createIndex({ t: 1 }, { sparse: true }, third);`;
    const p = only(text, 'TTL016');
    assert.equal(text.slice(p.start, p.end), 'third');
    assert.deepEqual(p.fixes, []);
  });

  it('TTL016: a third argument that is commitQuorum, or holds no index option, is not reported', () => {
    for (const third of [`'majority'`, '2', '{}', '{ w: 1 }', 'quorum'])
      assert.deepEqual(problems(`db.w.createIndex({ t: 1 }, { sparse: true }, ${third});`), [], third);
  });
});
