/**
 * The analysis API apart from the rules: notebook cells analysed together, half-typed code, the
 * hover sites and runnable definitions the editor uses, words for durations, engine facts
 * look-up, and staying silent on what cannot be known.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  analyzeCells,
  analyzeText,
  durationWords,
  engineFactsFrom,
  secondsInWords,
  sourceKindOf,
} from '../../../src/analysis';

describe('analysis API', () => {
  test("TTL007 (rule 1.7): the message quotes the user's spec (their value and index name), not the analysis's stand-in", () => {
    const r = analyzeText('db.c.createIndex({ _id: 1 }, { expireAfterSeconds: 60 })', 'a.js');
    const p = r.problems.find((x) => x.code === 'TTL007');
    assert.ok(p);
    assert.match(p.message, /expireAfterSeconds: 60/);
    assert.match(p.message, /_id_1/);
    assert.doesNotMatch(p.message, /probe|3600/);
  });

  test("notebook cells: offsets per cell, and a later cell sees an earlier cell's capped collection (rule 1.8)", () => {
    // ttl-mongosh is the language of a playground notebook's code cells in the notebook editor.
    const r = analyzeCells([
      { text: "db.createCollection('log', { capped: true, size: 4096 })", language: 'ttl-mongosh' },
      { text: '# not code', language: 'markdown' },
      { text: 'db.log.createIndex({ at: 1 }, { expireAfterSeconds: -1 })', language: 'javascript' },
    ]);
    assert.deepEqual(
      r.problems.map((p) => [p.code, p.cell, p.start, p.end]),
      [
        ['TTL008', 2, 32, 54],
        ['TTL003', 2, 52, 54],
      ],
    );
  });

  test('half-typed code still yields problems for the complete parts, and says where reading stopped (TTL022)', () => {
    const text =
      'db.a.createIndex({ t: 1 }, { expireAfterSeconds: -1 });\ndb.b.createIndex({ t: 1 }, { expireAfterSeconds: ';
    const r = analyzeText(text, 'x.js');
    assert.ok(r.syntaxErrors >= 1);
    assert.equal(r.partial, true);
    assert.deepEqual(
      r.problems.map((p) => [p.code, p.severity]),
      [
        ['TTL003', 'error'],
        ['TTL022', 'information'],
      ],
    );
    // Where the parser gave up: the end of the open call, on the second line.
    assert.equal(r.problems[1].start, text.length);
    const multiLine =
      'db.a.createIndex({ t: 1 }, { expireAfterSeconds: 1.5 });\ndb.b.createIndex(\n  { t: 1 },\n  { expireAfterSeconds:\n';
    assert.deepEqual(
      analyzeText(multiLine, 'x.ts').problems.map((p) => p.code),
      ['TTL005', 'TTL022'],
    );
  });

  test('a half-typed call with an empty argument (a hole in the recovered tree) is analysed without a crash', () => {
    const text =
      'db.x.createIndex(,{ t: 1 }, { expireAfterSeconds: -1 }, { expireAfterSeconds: 5 });\ndb.runCommand(, {});\ndb.y.insertOne(, {});\ndb.z.createIndex({ t: 1 }, { expireAfterSeconds: -1 });';
    for (const file of ['x.js', 'x.ts']) {
      const r = analyzeText(text, file);
      assert.ok(r.syntaxErrors >= 1);
      const lastLine = text.lastIndexOf('\n');
      assert.deepEqual(
        r.problems.filter((p) => p.start > lastLine).map((p) => [p.code, text.slice(p.start, p.end)]),
        [['TTL003', '-1']],
        file,
      );
    }
  });

  test('values that cannot be known are left alone (no guessing)', () => {
    const text = [
      'let ttl = -1;',
      'if (process.env.LONG) ttl = 86400;',
      'var count = -1;',
      'count++;',
      'db.a.createIndex({ t: 1 }, { expireAfterSeconds: ttl });',
      'db.a2.createIndex({ t: 1 }, { expireAfterSeconds: count });',
      'const shadowed = -1;',
      'function f(shadowed) { db.b.createIndex({ t: 1 }, { expireAfterSeconds: shadowed }); }',
      'db.c.createIndex({ t: 1 }, { expireAfterSeconds: config.ttl, ...extra });',
      'db.d.createIndex(keys, { expireAfterSeconds: 60 });',
    ].join('\n');
    assert.deepEqual(analyzeText(text, 'x.js').problems, []);
  });

  test('hover sites carry the seconds, namespace, field and partial filter', () => {
    const text =
      "db.getSiblingDB('app').events.createIndex({ at: 1 }, { expireAfterSeconds: 60 * 60, partialFilterExpression: { kind: 'x' } });";
    const [site] = analyzeText(text, 'x.js').ttlValues;
    assert.deepEqual(
      { ...site, text: text.slice(site.start, site.end) },
      {
        start: site.start,
        end: site.end,
        seconds: 3600,
        ns: { collection: 'events', db: 'app' },
        field: 'at',
        partialFilterExpression: { kind: 'x' },
        text: 'expireAfterSeconds: 60 * 60',
      },
    );
  });

  test('runnable definitions are the commands the engine would get', () => {
    const text = [
      "db.createCollection('m', { timeseries: { timeField: 'ts', metaField: 'meta' }, expireAfterSeconds: 86400 });",
      'db.s.createIndex({ at: 1 }, { expireAfterSeconds: 60 });',
      "db.runCommand({ collMod: 's', index: { keyPattern: { at: 1 }, expireAfterSeconds: 120 } });",
      'db.t.createIndex({ at: 1 }, { expireAfterSeconds: unknownValue });',
    ].join('\n');
    assert.deepEqual(
      analyzeText(text, 'x.js').runnable.map((r) => [r.label, r.command]),
      [
        ['create m', { create: 'm', timeseries: { timeField: 'ts', metaField: 'meta' }, expireAfterSeconds: 86400 }],
        [
          'createIndexes on s',
          { createIndexes: 's', indexes: [{ key: { at: 1 }, name: 'at_1', expireAfterSeconds: 60 }] },
        ],
        ['collMod s', { collMod: 's', index: { keyPattern: { at: 1 }, expireAfterSeconds: 120 } }],
      ],
    );
  });

  test('durations in words', () => {
    assert.equal(secondsInWords(3600), '3,600 s = 1 hour');
    assert.equal(durationWords(86_400_000), '1,000 days (about 2.7 years)');
    assert.equal(durationWords(5400), '1 hour 30 minutes');
    assert.equal(durationWords(90061), 'about 1 day 1 hour');
    assert.equal(durationWords(0), '0 seconds');
  });

  test('file kinds: scripts, modules, TypeScript, JSX, notebooks; not declarations or other files', () => {
    assert.deepEqual(
      [
        'a.js',
        'a.mjs',
        'a.cjs',
        'a.jsx',
        'a.ts',
        'a.mts',
        'a.tsx',
        'a.ttlbook',
        'a.d.ts',
        'a.json',
        'typescriptreact',
        'ttl-mongosh',
      ].map(sourceKindOf),
      ['js', 'js', 'js', 'jsx', 'ts', 'ts', 'tsx', 'ttlbook', undefined, undefined, 'tsx', 'js'],
    );
  });

  test('engine facts: a namespace without a database matches only a collection name that is unique', () => {
    const facts = engineFactsFrom([
      { db: 'app', name: 'a', capped: false, clustered: false, indexes: [] },
      { db: 'app', name: 'b', capped: false, clustered: false, indexes: [] },
      { db: 'other', name: 'b', capped: false, clustered: false, indexes: [] },
    ]);
    assert.equal(facts.collection({ collection: 'a' })?.db, 'app');
    assert.equal(facts.collection({ collection: 'b' }), undefined);
    assert.equal(facts.collection({ collection: 'b', db: 'other' })?.db, 'other');
  });
});

describe('analysis short cut', () => {
  test('a text without index operations is not parsed and has nothing to report', () => {
    const r = analyzeText('const broken = {;\nexport function f() { return db.users.find({}); }', 'x.js');
    // Not parsed: the syntax error goes uncounted.
    assert.deepEqual(r, { problems: [], runnable: [], ttlValues: [], syntaxErrors: 0, partial: false });
    assert.equal(
      analyzeText('const broken = {;\ndb.a.createIndex({ t: 1 }, { expireAfterSeconds: -1 });', 'x.js').syntaxErrors >
        0,
      true,
    );
  });
});
