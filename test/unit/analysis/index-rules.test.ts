/**
 * Rules about a whole TTL index definition (src/analysis/checks/index-rules.ts): the fixtures pin
 * where TTL006–TTL013 are reported; these pin what they say (mongod's code and message, which
 * collection and where its facts come from, the durations, the type a field gets) and the split
 * fixes of TTL006 to the character.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeText, applyEdits, type AnalysisOptions, type Problem } from '../../../src/analysis';
import { Engine, VirtualClock } from '../../../src/engine';
import { factsOf } from './engine-fixture';

function problems(text: string, options: AnalysisOptions = {}): Problem[] {
  return analyzeText(text, 'a.js', options).problems;
}

function only(text: string, code: string, options: AnalysisOptions = {}): Problem {
  const all = problems(text, options);
  assert.deepEqual(
    all.map((p) => p.code),
    [code],
    `expected exactly one ${code}: ${all.map((p) => p.message).join('\n')}`,
  );
  return all[0];
}

const fixed = (text: string, p: Problem) =>
  p.fixes.map((f) => ({ title: f.title, preferred: f.preferred === true, text: applyEdits(text, f.edits) }));

describe('TTL006: a compound or wildcard TTL key', () => {
  it("rule 1.6 (TTL006): mongod's 67 and its message, and one split per field with the date-looking field first and preferred", () => {
    const text = `db.s.createIndex({ a: 1, createdAt: -1 }, { expireAfterSeconds: 60 });`;
    const p = only(text, 'TTL006');
    assert.equal(p.severity, 'error');
    assert.equal(text.slice(p.start, p.end), '{ a: 1, createdAt: -1 }');
    assert.equal(
      p.message,
      'createIndex fails with CannotCreateIndex (67): TTL indexes are single-field indexes, compound indexes do not support TTL. Cannot create TTL index on { a: 1, createdAt: -1 }: create {createdAt: 1} with expireAfterSeconds (createdAt is named like a date field), and the compound index without it.',
    );
    assert.deepEqual(fixed(text, p), [
      {
        title:
          'Split: a TTL index on createdAt (createdAt is named like a date field) plus the compound index without expireAfterSeconds',
        preferred: true,
        text: 'db.s.createIndex({ createdAt: -1 }, { expireAfterSeconds: 60 });\ndb.s.createIndex({ a: 1, createdAt: -1 });',
      },
      {
        title: 'Split: a TTL index on a plus the compound index without expireAfterSeconds',
        preferred: false,
        text: 'db.s.createIndex({ a: 1 }, { expireAfterSeconds: 60 });\ndb.s.createIndex({ a: 1, createdAt: -1 });',
      },
    ]);
  });

  it('TTL006: a split keeps await, the partial filter on both, quotes a field that is no identifier, and offers no split on a text field', () => {
    const text = `await db.collection('s').createIndex({ 'a b': 1, at: 1, t: 'text' }, { expireAfterSeconds: 60, partialFilterExpression: { a: 1 } });`;
    assert.deepEqual(
      fixed(text, only(text, 'TTL006')).map((f) => f.text),
      [
        `await db.collection('s').createIndex({ at: 1 }, { expireAfterSeconds: 60, partialFilterExpression: { a: 1 } });\nawait db.collection('s').createIndex({ 'a b': 1, at: 1, t: 'text' }, { partialFilterExpression: { a: 1 } });`,
        `await db.collection('s').createIndex({ "a b": 1 }, { expireAfterSeconds: 60, partialFilterExpression: { a: 1 } });\nawait db.collection('s').createIndex({ 'a b': 1, at: 1, t: 'text' }, { partialFilterExpression: { a: 1 } });`,
      ],
    );
  });

  it('TTL006: a split keeps the indentation and the other options of ensureIndex, and the statement around the call', () => {
    const indented = `  db.s.ensureIndex({ a: 1, b: 1 }, { expireAfterSeconds: 60, name: 'x' });`;
    assert.deepEqual(
      fixed(indented, only(indented, 'TTL006')).map((f) => f.text),
      [
        `  db.s.ensureIndex({ a: 1 }, { expireAfterSeconds: 60 });\n  db.s.ensureIndex({ a: 1, b: 1 }, { name: 'x' });`,
        `  db.s.ensureIndex({ b: 1 }, { expireAfterSeconds: 60 });\n  db.s.ensureIndex({ a: 1, b: 1 }, { name: 'x' });`,
      ],
    );
    const assigned = `x = db.s.createIndex({ a: 1, b: 1 }, { expireAfterSeconds: 60 });`;
    assert.equal(
      fixed(assigned, only(assigned, 'TTL006'))[0].text,
      `db.s.createIndex({ a: 1 }, { expireAfterSeconds: 60 });\nx = db.s.createIndex({ a: 1, b: 1 });`,
    );
    const third = `db.s.createIndex({ a: 1, b: 1 }, { expireAfterSeconds: 60 }, { commitQuorum: 1 });`;
    assert.equal(
      fixed(third, only(third, 'TTL006'))[0].text,
      `db.s.createIndex({ a: 1 }, { expireAfterSeconds: 60 });\ndb.s.createIndex({ a: 1, b: 1 }, {  }, { commitQuorum: 1 });`,
    );
  });

  it('rule 1.6 (TTL006): what the file inserts into the collection names the TTL field, in the message and the preferred split; inserts elsewhere do not', () => {
    const index = `db.s.createIndex({ a: 1, b: 1 }, { expireAfterSeconds: 60 });`;
    const seen = only(`db.s.insertOne({ a: 1, b: new Date() });\n${index}`, 'TTL006');
    assert.match(
      seen.message,
      /: create \{b: 1\} with expireAfterSeconds \(b holds dates in 1 of the 1 document seen with it\), and the compound index without it\.$/,
    );
    assert.deepEqual(
      seen.fixes.map((f) => [f.title, f.preferred === true]),
      [
        [
          'Split: a TTL index on b (b holds dates in 1 of the 1 document seen with it) plus the compound index without expireAfterSeconds',
          true,
        ],
        ['Split: a TTL index on a plus the compound index without expireAfterSeconds', false],
      ],
    );
    const elsewhere = only(`db.other.insertOne({ a: 1, b: new Date() });\n${index}`, 'TTL006');
    assert.match(
      elsewhere.message,
      /: create \{a: 1\} with expireAfterSeconds \(a assumed: no field of the key is named like a date field;/,
    );
  });

  it("rule 1.9 (TTL006): a wildcard key is refused with mongod's wildcard message, and no split puts the TTL on a wildcard", () => {
    const p = only(`db.s.createIndex({ 'a.$**': 1 }, { expireAfterSeconds: 60 });`, 'TTL006');
    assert.equal(
      p.message,
      "createIndex fails with CannotCreateIndex (67): cannot make a TTL index: Index type 'wildcard' does not support the 'expireAfterSeconds' option. Index a single date field instead, e.g. {createdAt: 1}.",
    );
    assert.deepEqual(p.fixes, []);
    const compound = `db.s.createIndex({ at: 1, '$**': 1 }, { expireAfterSeconds: 60 });`;
    assert.deepEqual(
      fixed(compound, only(compound, 'TTL006')).map((f) => f.text),
      [`db.s.createIndex({ at: 1 }, { expireAfterSeconds: 60 });\ndb.s.createIndex({ at: 1, '$**': 1 });`],
    );
  });
});

describe('TTL006: which documents and calls the split fixes read', () => {
  const index = `db.getSiblingDB('app').s.createIndex({ a: 1, b: 1 }, { expireAfterSeconds: 60 });`;

  it('rule 1.6 (TTL006): documents inserted into a same-named collection of another database do not name the TTL field', () => {
    const other = only(`db.getSiblingDB('logs').s.insertOne({ a: 1, b: new Date() });\n${index}`, 'TTL006');
    assert.match(other.message, /: create \{a: 1\} with expireAfterSeconds \(a assumed: no field of the key is named/);
    const same = only(`db.getSiblingDB('app').s.insertOne({ a: 1, b: new Date() });\n${index}`, 'TTL006');
    assert.match(same.message, /: create \{b: 1\} with expireAfterSeconds \(b holds dates in 1 of the 1 document/);
  });

  it('TTL006: createIndexes gets no split fix (its first argument is a list of keys, not a key)', () => {
    const p = only(`db.s.createIndexes([{ a: 1, b: 1 }], { expireAfterSeconds: 60 });`, 'TTL006');
    assert.deepEqual(p.fixes, []);
  });

  it('TTL006: the chosen field is split out first, the other fields follow in key order', () => {
    const text = `db.s.createIndex({ a: 1, b: 1, createdAt: 1 }, { expireAfterSeconds: 60 });`;
    assert.deepEqual(
      fixed(text, only(text, 'TTL006')).map((f) => f.text.split('\n')[0]),
      [
        'db.s.createIndex({ createdAt: 1 }, { expireAfterSeconds: 60 });',
        'db.s.createIndex({ a: 1 }, { expireAfterSeconds: 60 });',
        'db.s.createIndex({ b: 1 }, { expireAfterSeconds: 60 });',
      ],
    );
  });
});

describe('TTL007: a TTL option on _id', () => {
  it("rule 1.7 (TTL007): mongod's 197 quotes the spec with the user's own index name, then says what to do", () => {
    const text = `db.s.createIndex({ _id: 1 }, { expireAfterSeconds: 60, name: 'mine' });`;
    const p = only(text, 'TTL007');
    assert.equal(text.slice(p.start, p.end), '{ _id: 1 }');
    assert.equal(
      p.message,
      `createIndex fails with InvalidIndexSpecificationOption (197): The field 'expireAfterSeconds' is not valid for an _id index specification. Specification: { key: { _id: 1 }, name: "mine", expireAfterSeconds: 60 } The _id field does not support TTL indexes. Index a date field instead (e.g. { createdAt: 1 }), or use a clustered collection with a collection-level expireAfterSeconds to expire by _id.`,
    );
  });
});

describe('TTL007: only the _id refusal', () => {
  it('rule 1.7 (TTL007): a key or name the engine refuses for another reason (67) is not called an _id problem', () => {
    for (const text of [
      `db.s.createIndex({ a: 'bogus' }, { expireAfterSeconds: 60 });`,
      `db.s.createIndex({ a: 0 }, { expireAfterSeconds: 60 });`,
      `db.s.createIndex({ a: 1 }, { expireAfterSeconds: 60, name: '' });`,
    ])
      assert.ok(!problems(text).some((p) => p.code === 'TTL007'), text);
  });
});

describe('TTL008: a TTL index on a capped collection', () => {
  it('rule 1.8 (TTL008): on 8.0 a warning that 7.0 and earlier refuse it, naming the collection made in this file', () => {
    const p = only(
      `db.createCollection('c', { capped: true, size: 1000 });\ndb.c.createIndex({ at: 1 }, { expireAfterSeconds: 60 });`,
      'TTL008',
    );
    assert.equal(p.severity, 'warning');
    assert.equal(
      p.message,
      'c (created in this file) is capped: MongoDB 7.1 and later accept this TTL index and delete by date as well as by size, but MongoDB 7.0 and earlier refuse it with CannotCreateIndex (67). Keep it only if every server you deploy to is 7.1 or later.',
    );
  });

  it("rule 1.8 (TTL008): on 7.0 an error with mongod's 67", () => {
    const p = only(
      `db.createCollection('c', { capped: true, size: 1000 });\ndb.c.createIndex({ at: 1 }, { expireAfterSeconds: 60 });`,
      'TTL008',
      { serverVersion: '7.0' },
    );
    assert.equal(p.severity, 'error');
    assert.equal(
      p.message,
      'createIndex on the capped collection c (created in this file) fails with CannotCreateIndex (67): Cannot create TTL index on a capped collection (MongoDB 7.0). Capped collections remove their oldest documents by size; TTL indexes on capped collections need MongoDB 7.1+ (serverVersion "8.0").',
    );
  });
});

describe('facts from the connected engine', () => {
  const engine = new Engine({ clock: new VirtualClock(new Date('2026-01-01T00:00:00Z')) });
  engine.runCommand('app', { create: 'c', capped: true, size: 4096 });
  engine.runCommand('app', { create: 'w', timeseries: { timeField: 'ts', metaField: 'm' }, expireAfterSeconds: 600 });
  engine.runCommand('app', {
    create: 'k',
    clusteredIndex: { key: { _id: 1 }, unique: true },
    capped: true,
    size: 4096,
  });
  const options = { engine: factsOf(engine) };

  it('TTL008: a capped collection of the connected engine is named as such', () => {
    const p = only(`use('app');\ndb.c.createIndex({ at: 1 }, { expireAfterSeconds: 60 });`, 'TTL008', options);
    assert.match(p.message, /^c \(in the connected engine\) is capped: MongoDB 7\.1 and later accept/);
  });

  it("rule 1.5 (TTL008): a capped clustered collection is mongod's 6049202, an error whatever the version", () => {
    const p = only(`use('app');\ndb.k.createIndex({ at: 1 }, { expireAfterSeconds: 60 });`, 'TTL008', options);
    assert.equal(p.severity, 'error');
    assert.equal(
      p.message,
      'createIndex on the capped collection k (in the connected engine) fails with Location6049202 (6049202): TTL secondary indexes are not allowed on a capped clustered collection. Use a non-capped clustered collection with a collection-level expireAfterSeconds instead.',
    );
  });

  it("rule 6.4 (TTL010): a partial TTL longer than the collection's own is said to delete nothing, with both durations", () => {
    const text = `use('app');\ndb.w.createIndex({ ts: 1 }, { expireAfterSeconds: 900, partialFilterExpression: { m: 1 } });`;
    const p = only(text, 'TTL010', options);
    assert.equal(text.slice(p.start, p.end), '900');
    assert.equal(
      p.message,
      "This partial TTL (15 minutes) is not shorter than the collection's own expireAfterSeconds (10 minutes) on w (in the connected engine): the collection TTL deletes every bucket first, so this index never deletes anything. A partial TTL index only helps with a shorter duration for the measurements its filter selects.",
    );
  });
});

describe('TTL009 / TTL010: time-series collections', () => {
  const created = `db.createCollection('w', { timeseries: { timeField: 'ts', metaField: 'm' }, expireAfterSeconds: 600 });\n`;

  it('rule 6.4 (TTL010): an equal duration is not shorter either; one second less is fine', () => {
    const equal = only(
      `${created}db.w.createIndex({ ts: 1 }, { expireAfterSeconds: 600, partialFilterExpression: { m: 1 } });`,
      'TTL010',
    );
    assert.match(
      equal.message,
      /^This partial TTL \(10 minutes\) is not shorter than the collection's own expireAfterSeconds \(10 minutes\) on w \(created in this file\)/,
    );
    assert.deepEqual(
      problems(
        `${created}db.w.createIndex({ ts: 1 }, { expireAfterSeconds: 599, partialFilterExpression: { m: 1 } });`,
      ),
      [],
    );
  });

  it('rule 6.4 (TTL009): a filter off the metaField is pointed at on the timeField; without one, the TTL option is', () => {
    const ts = `db.createCollection('w', { timeseries: { timeField: 'ts', metaField: 'm' } });\n`;
    const bad = `${ts}db.w.createIndex({ ts: 1 }, { expireAfterSeconds: 60, partialFilterExpression: { x: 1 } });`;
    const p = only(bad, 'TTL009');
    assert.equal(p.severity, 'error');
    assert.equal(bad.slice(p.start, p.end), 'partialFilterExpression: { x: 1 }');
    assert.equal(
      p.message,
      `createIndex on the time-series collection w (created in this file) fails with InvalidOptions (72): TTL indexes on time-series collections require a partialFilterExpression on the metaField ('m'): e.g. {partialFilterExpression: {"m.kind": "debug"}}. For the whole collection use the top-level expireAfterSeconds (collMod).`,
    );
    const none = `${ts}db.w.createIndex({ ts: 1 }, { expireAfterSeconds: 60 });`;
    const q = only(none, 'TTL009');
    assert.equal(none.slice(q.start, q.end), 'expireAfterSeconds: 60');
  });

  it('rule 6.4 (TTL009): on a field that is not the timeField the TTL option is pointed at, even with a filter', () => {
    const text = `db.createCollection('w', { timeseries: { timeField: 'ts', metaField: 'm' } });\ndb.w.createIndex({ temp: 1 }, { expireAfterSeconds: 60, partialFilterExpression: { x: 1 } });`;
    const p = only(text, 'TTL009');
    assert.equal(text.slice(p.start, p.end), 'expireAfterSeconds: 60');
    assert.match(p.message, /not supported on time-series collections: index 'ts' \(the timeField\), not 'temp'\.$/);
  });

  it('TTL009: a filter the analysis cannot read is not judged', () => {
    assert.deepEqual(
      problems(
        `db.createCollection('w', { timeseries: { timeField: 'ts', metaField: 'm' } });\ndb.w.createIndex({ ts: 1 }, { expireAfterSeconds: 60, partialFilterExpression: filterFor(kind) });`,
      ),
      [],
    );
  });
});

describe('TTL013: 0 on a creation time', () => {
  it('rule 7.8 (TTL013): 0 on a field named as a creation time, in any case and nested, is a hint that names the field', () => {
    const text = `db.s.createIndex({ 'meta.CreatedAt': 1 }, { expireAfterSeconds: 0 });`;
    const p = only(text, 'TTL013');
    assert.equal(p.severity, 'hint');
    assert.equal(text.slice(p.start, p.end), '0');
    assert.equal(
      p.message,
      "expireAfterSeconds: 0 expires a document at the moment stored in 'meta.CreatedAt', and 'meta.CreatedAt' sounds like a creation time: documents would be deleted at the next TTL pass after they are inserted. Did you mean a delay (e.g. 86400 for one day)? Use 0 only on a field that holds the expiry time itself (such as expireAt).",
    );
  });

  it('TTL013: every creation word counts; an expiry field or a delay other than 0 does not', () => {
    for (const field of ['insertedAt', 'insertionTime', 'creation', 'addedAt', 'added_at', 'dateAdded', 'date_added'])
      assert.deepEqual(
        problems(`db.s.createIndex({ ${field}: 1 }, { expireAfterSeconds: 0 });`).map((p) => p.code),
        ['TTL013'],
        field,
      );
    assert.deepEqual(problems(`db.s.createIndex({ expireAt: 1 }, { expireAfterSeconds: 0 });`), []);
    assert.deepEqual(problems(`db.s.createIndex({ created: 1 }, { expireAfterSeconds: 1 });`), []);
    assert.deepEqual(problems(`db.s.createIndex({ 'createdAt.x': 1 }, { expireAfterSeconds: 0 });`), []);
  });
});

describe('TTL012: a TTL field filled with non-dates', () => {
  it('rule 7.8 (TTL012): the message names the field, the collection and the type, and points at the value', () => {
    const text = `db.e.insertOne({ b: { c: 'x' } });\ndb.e.createIndex({ 'b.c': 1 }, { expireAfterSeconds: 60 });`;
    const p = only(text, 'TTL012');
    assert.equal(p.severity, 'warning');
    assert.equal(text.slice(p.start, p.end), `'b.c': 1`);
    assert.equal(
      p.message,
      "The TTL index on 'b.c' only deletes documents whose 'b.c' is a BSON date, but e gets 'b.c' as a string in this file: those documents never expire. Store a Date (new Date(...)) instead.",
    );
    assert.ok(p.related);
    assert.equal(p.related.length, 1);
    const [rel] = p.related;
    assert.equal(text.slice(rel.start, rel.end), `'x'`);
    assert.equal(rel.message, "'b.c' set to a string here");
  });

  it('rule 7.8 (TTL012): each kind of non-date value is named; Date.now() (and only Date.now()) is called milliseconds', () => {
    const words: Array<[string, string]> = [
      ['5', 'a number'],
      ['Number(s)', 'a number'],
      ['new Date().getTime()', 'a number'],
      ['true', 'a boolean'],
      ['null', 'null'],
      ['{}', 'an object'],
      ['[1]', 'an array without dates'],
      ['Date.now()', 'a number (Date.now() is milliseconds, not a Date)'],
    ];
    for (const [value, what] of words) {
      const p = only(
        `db.e.insertOne({ a: ${value} });\ndb.e.createIndex({ a: 1 }, { expireAfterSeconds: 60 });`,
        'TTL012',
      );
      assert.match(p.message, new RegExp(`but e gets 'a' as ${what.replace(/[().]/g, '\\$&')} in this file`), value);
    }
  });

  it('rule 7.8 (TTL012): a string built from Date.now() is named a string, not milliseconds', () => {
    const p = only(
      `db.e.insertOne({ a: String(Date.now()) });\ndb.e.createIndex({ a: 1 }, { expireAfterSeconds: 60 });`,
      'TTL012',
    );
    assert.match(p.message, /but e gets 'a' as a string in this file/);
  });

  it('rule 7.8 (TTL012): an array is reported only when every element is known and none is a date', () => {
    const index = `db.e.createIndex({ a: 1 }, { expireAfterSeconds: 60 });`;
    // An element the analysis cannot read may be the date the array expires by.
    assert.deepEqual(problems(`db.e.insertOne({ a: [1, someDate()] });\n${index}`), []);
    assert.match(
      only(`db.e.insertOne({ a: [1, 'x'] });\n${index}`, 'TTL012').message,
      /gets 'a' as an array without dates in this file/,
    );
  });

  it('rule 7.8 (TTL012): an array with a date, a date, an unknown value or another collection is not reported', () => {
    for (const value of ['[new Date(), 1]', 'new Date()', "ISODate('2024-01-01')", 'someDate()'])
      assert.deepEqual(
        problems(`db.e.insertOne({ a: ${value} });\ndb.e.createIndex({ a: 1 }, { expireAfterSeconds: 60 });`),
        [],
        value,
      );
    assert.deepEqual(
      problems(`db.other.insertOne({ a: 5 });\ndb.e.createIndex({ a: 1 }, { expireAfterSeconds: 60 });`),
      [],
    );
  });
});
