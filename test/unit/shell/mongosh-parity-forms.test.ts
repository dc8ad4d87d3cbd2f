/**
 * Forms and helpers where the shell follows what the real mongosh 2.x prints or does, each found by
 * the differential test (test/unit/parity) and pinned here so a change shows up in seconds.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { harness, plain } from './helpers';

describe('printing as mongosh 2.x prints', () => {
  it('print shows undefined as nothing and strings raw', () => {
    assert.deepEqual(harness().last('print(null, undefined, "a\\u0001b")').output, ['null  a\u0001b']);
  });

  it('printjson: every member on its own line, strings raw, no 100-element cut', () => {
    const h = harness();
    assert.deepEqual(h.last('printjson({ a: [1, { b: 2 }] })').output, [
      '{',
      '  a: [',
      '    1,',
      '    {',
      '      b: 2',
      '    }',
      '  ]',
      '}',
    ]);
    assert.deepEqual(h.last('printjson("s")').output, ['s']);
    assert.equal(h.last('printjson(Array.from({ length: 150 }, (_, i) => i))').output.length, 152);
  });

  it('an array over 100 numbers is cut with "... n more items" and keeps the numbers right-aligned', () => {
    const lines = harness().last('print(Array.from({ length: 120 }, (_, i) => i))').output;
    // Right-aligned (padStart): the one-digit numbers get a space more than the two-digit ones.
    assert.match(lines[1], /^ {3}0, {2}1,/);
    assert.equal(lines.at(-2), '  ... 20 more items');
  });

  it('holes of a sparse array print as empty items', () => {
    assert.equal(harness().rendered('[1, , 3]'), '[ 1, <1 empty item>, 3 ]');
  });

  it('an object with a nodejs.util.inspect.custom method prints what it returns, nested too', () => {
    const h = harness();
    assert.deepEqual(h.last("print({ [Symbol.for('nodejs.util.inspect.custom')]() { return 'CUSTOM'; } })").output, [
      'CUSTOM',
    ]);
    assert.equal(h.rendered("({ x: { [Symbol.for('nodejs.util.inspect.custom')]() { return 'IN'; } } })"), '{ x: IN }');
  });

  it('printing a cursor shows its first 20 documents and "Type "it" for more" when more are left', () => {
    const h = harness();
    h.run('db.c.insertMany(Array.from({ length: 25 }, (_, i) => ({ _id: i })))');
    const lines = h.last('print(db.c.find())').output;
    assert.equal(lines.at(-1), 'Type "it" for more');
    assert.equal(h.last('print(db.c.find().limit(3))').output.at(-1), '[ { _id: 0 }, { _id: 1 }, { _id: 2 } ]');
  });

  it('NumberLong and NumberDecimal of a number warn on the output, as mongosh does', () => {
    assert.deepEqual(harness().last('NumberLong(5)').output, [
      'Warning: NumberLong: specifying a number as argument is deprecated and may lead to loss of precision, pass a string instead',
    ]);
    assert.deepEqual(harness().last('NumberLong("5")').output, []);
  });

  it('a legacy method prints its DeprecationWarning once per session', () => {
    const h = harness();
    const first = h.run('db.c.insert({ _id: 1 }); db.c.insert({ _id: 2 })');
    assert.deepEqual(first.output, [
      'DeprecationWarning: Collection.insert() is deprecated. Use insertOne, insertMany, or bulkWrite.',
    ]);
    assert.deepEqual(h.last('db.c.insert({ _id: 3 })').output, []);
  });
});

describe('helpers mongosh has', () => {
  it('hideIndex / unhideIndex by name or key pattern answer hidden_old and hidden_new, and getIndexes shows hidden', () => {
    const h = harness();
    h.run('db.c.createIndex({ at: 1 }, { expireAfterSeconds: 60 })');
    assert.deepEqual(h.value('db.c.hideIndex("at_1")'), { hidden_old: false, hidden_new: true, ok: 1 });
    assert.equal(h.value('db.c.getIndexes()[1].hidden'), true);
    assert.deepEqual(h.value('db.c.unhideIndex({ at: 1 })'), { hidden_old: true, hidden_new: false, ok: 1 });
    assert.equal(h.value('db.c.getIndexes()[1].hidden'), undefined);
    assert.equal(h.failure('db.c.hideIndex("nope_1")').error?.codeName, 'IndexNotFound');
  });

  it('insertMany of more than 100,000 documents is split into batches the server takes, as the driver does', () => {
    const h = harness({ timeoutMs: 120_000 });
    const r = h.value(
      'Object.keys(db.big.insertMany(Array.from({ length: 100_005 }, (_, i) => ({ _id: i }))).insertedIds).length',
    );
    assert.equal(r, 100_005);
    assert.equal(h.value('db.big.countDocuments()'), 100_005);
  });

  it('an ordered insertMany over several batches stops at the first error, with its index in the whole array', () => {
    const h = harness({ timeoutMs: 120_000 });
    h.run('db.big.insertOne({ _id: 100_002 })');
    const failed = h.failure('db.big.insertMany(Array.from({ length: 100_005 }, (_, i) => ({ _id: i })))');
    assert.equal(failed.error?.code, 11000);
    assert.equal(h.value('db.big.countDocuments()'), 100_003, 'the 100,002 before it, and the one already there');
    assert.equal(
      h.value(
        'try { db.big.insertMany(Array.from({ length: 100_003 }, (_, i) => ({ _id: i + 1 })), { ordered: false }) } catch (e) { e.writeErrors[e.writeErrors.length - 1].index }',
      ),
      100_001,
      'ids 1..100,002 are there: the last duplicate, id 100,002, is item 100,001 of the whole array (in the second batch)',
    );
  });

  it('insertMany([]) fails as the driver does (MongoInvalidArgumentError)', () => {
    assert.equal(harness().failure('db.c.insertMany([])').error?.name, 'MongoInvalidArgumentError');
  });

  it('show("dbs") and show("collections") print mongosh\'s tables', () => {
    const h = harness();
    h.run(
      'db.b.insertOne({}); db.createCollection("a"); db.createCollection("ts", { timeseries: { timeField: "t" } })',
    );
    assert.equal(h.rendered('show("collections")'), 'a\nb\nts  [time-series]');
    assert.match(h.rendered('show("dbs")') ?? '', /^test {2}\d+ (B|KiB)$/m);
    assert.equal(h.failure('show("nothing")').error?.name, 'MongoshInvalidInputError');
  });

  it("cursor.sort takes the driver's directions and refuses others before reaching the server", () => {
    const h = harness();
    h.run('db.c.insertMany([{ _id: 1 }, { _id: 2 }])');
    assert.deepEqual(h.value('db.c.find().sort({ _id: "desc" }).toArray().map((d) => d._id)'), [2, 1]);
    const bad = h.failure('db.c.find().sort({ _id: 2 }).toArray()');
    assert.equal(bad.error?.name, 'MongoInvalidArgumentError');
    assert.match(bad.error?.message ?? '', /Invalid sort direction: 2/);
  });

  it('cursor min, max, returnKey, comment and collation reach the find command; allowDiskUse needs a sort first', () => {
    const h = harness();
    h.run('db.c.insertMany([{ _id: 1, w: "b" }, { _id: 2, w: "A" }, { _id: 3, w: "a" }]); db.c.createIndex({ w: 1 })');
    assert.deepEqual(h.value('db.c.find().min({ w: "a" }).max({ w: "b" }).hint({ w: 1 }).returnKey().toArray()'), [
      { w: 'a' },
    ]);
    assert.deepEqual(
      plain(
        h.value(
          'db.c.find().sort({ w: 1, _id: 1 }).collation({ locale: "en", strength: 1 }).comment("x").toArray().map((d) => d._id)',
        ),
      ),
      [2, 3, 1],
    );
    assert.equal(h.failure('db.c.find().allowDiskUse()').error?.name, 'MongoInvalidArgumentError');
    assert.equal(h.value('db.c.find().sort({ _id: 1 }).allowDiskUse().toArray().length'), 3);
  });

  it('getCollectionInfos with nameOnly answers names and types only; isCapped; dropDatabase answers ok first', () => {
    const h = harness();
    h.run('db.createCollection("cap", { capped: true, size: 4096 }); db.createCollection("x")');
    assert.deepEqual(h.value('db.getCollectionInfos({ name: "x" }, { nameOnly: true })'), [
      { name: 'x', type: 'collection' },
    ]);
    assert.deepEqual(plain(h.value('[db.cap.isCapped(), db.x.isCapped()]')), [true, false]);
    assert.deepEqual(Object.keys(h.value('db.dropDatabase()') as object), ['ok', 'dropped']);
  });

  it("db.getMongo() reaches the engine's databases", () => {
    const h = harness();
    h.run('db.getSiblingDB("other").c.insertOne({})');
    assert.deepEqual(h.value('db.getMongo().getDBNames().includes("other")'), true);
    assert.equal(h.value('db.getMongo().getDB("other").getName()'), 'other');
  });
});
