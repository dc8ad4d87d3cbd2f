/** Cursors: modifiers, iteration, getMore batches, explain, and display 20 at a time with `it`. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { harness, plain } from './helpers';

function withDocs(n: number) {
  const h = harness();
  h.run(`db.c.insertMany(Array.from({ length: ${n} }, (_, i) => ({ _id: i, n: i, even: i % 2 === 0 })))`);
  return h;
}

describe('find cursor modifiers', () => {
  it('sort, skip, limit and project shape the results', () => {
    const h = withDocs(10);
    assert.deepEqual(
      plain(h.value('db.c.find({ even: true }).sort({ n: -1 }).skip(1).limit(2).project({ _id: 0, n: 1 }).toArray()')),
      [{ n: 6 }, { n: 4 }],
    );
    assert.deepEqual(plain(h.value('db.c.find({}, { n: 1 }).sort({ n: 1 }).limit(1).toArray()')), [{ _id: 0, n: 0 }]);
    assert.deepEqual(plain(h.value('db.c.find().projection({ _id: 1 }).limit(1).toArray()')), [{ _id: 0 }]);
    assert.deepEqual(plain(h.value('db.c.find({}, null, { sort: { n: -1 }, limit: 1 }).toArray()')), [
      { _id: 9, n: 9, even: false },
    ]);
  });

  it('a negative limit returns one batch of that many, sent as limit with singleBatch as the driver does', () => {
    const h = withDocs(150);
    assert.equal((h.value('db.c.find().limit(-3).toArray()') as unknown[]).length, 3);
    // One batch only: past the default first batch of 101 the rest is never fetched.
    assert.equal((h.value('db.c.find().limit(-120).toArray()') as unknown[]).length, 101);
  });

  it('hint is passed to the query', () => {
    const h = withDocs(3);
    h.run('db.c.createIndex({ n: 1 })');
    assert.equal((h.value('db.c.find({ n: 1 }).hint("n_1").toArray()') as unknown[]).length, 1);
    assert.equal(h.failure('db.c.find().hint("nope").toArray()').error?.name, 'MongoServerError');
  });

  it('modifiers after the first read are refused', () => {
    const h = withDocs(3);
    const failed = h.failure('const cur = db.c.find(); cur.next(); cur.sort({ n: 1 })');
    assert.equal(failed.error?.name, 'MongoshInvalidInputError');
    assert.match(failed.error?.message ?? '', /sort\(\).*already returned documents/);
  });
});

describe('iteration', () => {
  it('hasNext / next walk the results; next is null at the end', () => {
    const h = withDocs(2);
    assert.deepEqual(
      plain(
        h.value(
          'const c = db.c.find().sort({ n: 1 }); [c.hasNext(), c.next().n, c.next().n, c.hasNext(), c.next(), c.isExhausted()]',
        ),
      ),
      [true, 0, 1, false, null, true],
    );
  });

  it('forEach visits every document (and stops on false); map transforms lazily', () => {
    const h = withDocs(5);
    assert.deepEqual(
      plain(h.value('const seen = []; db.c.find().sort({ n: 1 }).forEach(d => { seen.push(d.n) }); seen')),
      [0, 1, 2, 3, 4],
    );
    assert.deepEqual(
      plain(
        h.value(
          'const some = []; db.c.find().sort({ n: 1 }).forEach(d => { some.push(d.n); return d.n < 1 ? undefined : false }); some',
        ),
      ),
      [0, 1],
    );
    assert.deepEqual(
      plain(h.value('db.c.find().sort({ n: 1 }).map(d => d.n * 10).map(x => x + 1).toArray()')),
      [1, 11, 21, 31, 41],
    );
  });

  it('for…of iterates a cursor', () => {
    const h = withDocs(3);
    assert.equal(h.value('let sum = 0; for (const d of db.c.find()) sum += d.n; sum'), 3);
  });

  it('getMore fetches later batches transparently', () => {
    const h = withDocs(250);
    assert.equal(h.value('db.c.find().batchSize(7).toArray().length'), 250);
    assert.equal(h.value('db.c.find().itcount()'), 250);
    assert.equal(h.value('db.c.aggregate([{ $match: {} }], { batchSize: 3 }).toArray().length'), 250);
  });

  it('close() kills the engine cursor', () => {
    const h = withDocs(300);
    h.run('const open = db.c.find(); open.next()');
    assert.equal(h.engine.cursors.count, 1);
    assert.deepEqual(plain(h.value('open.close(); [open.isClosed(), open.hasNext(), open.next()]')), [
      true,
      false,
      null,
    ]);
    assert.equal(h.engine.cursors.count, 0);
  });

  it('count ignores skip/limit unless asked; size applies them', () => {
    const h = withDocs(10);
    assert.equal(h.value('db.c.find({ even: true }).skip(1).limit(2).count()'), 5);
    assert.equal(h.value('db.c.find({ even: true }).skip(1).limit(2).count(true)'), 2);
    assert.equal(h.value('db.c.find({ even: true }).skip(1).limit(2).size()'), 2);
  });
});

describe('explain', () => {
  it('explains the find with the cursor modifiers, queryPlanner by default', () => {
    const h = withDocs(5);
    h.run('db.c.createIndex({ n: 1 })');
    const plan = h.value('db.c.find({ n: { $gt: 2 } }).sort({ n: 1 }).limit(2).explain()') as Record<string, any>;
    assert.equal(plan.ok, 1);
    assert.equal(plan.queryPlanner.namespace, 'test.c');
    assert.equal(plan.executionStats, undefined);
    assert.deepEqual(plan.command.limit, 2);
    const stats = h.value('db.c.find({ n: { $gt: 2 } }).explain("executionStats")') as Record<string, any>;
    assert.equal(stats.executionStats.nReturned, 2);
    const agg = h.value('db.c.aggregate([{ $match: { n: 1 } }]).explain()') as Record<string, any>;
    assert.equal(agg.ok, 1);
  });
});

describe('display', () => {
  it('a cursor statement shows the first 20 documents with hasMore, and `it` continues', () => {
    const h = withDocs(45);
    const first = h.last('db.c.find().sort({ n: 1 })');
    assert.equal((first.value as unknown[]).length, 20);
    assert.equal(first.hasMore, true);
    assert.match(first.rendered ?? '', /^\[\n {2}\{ _id: 0, n: 0, even: true \},/);
    assert.doesNotMatch(first.rendered ?? '', /Type "it"/);
    assert.equal((first.ejson as unknown[]).length, 20);
    const second = h.last('it');
    assert.deepEqual(
      (second.value as Array<{ n: number }>).map((d) => d.n),
      Array.from({ length: 20 }, (_, i) => i + 20),
    );
    assert.equal(second.hasMore, true);
    const third = h.last('it');
    assert.equal((third.value as unknown[]).length, 5);
    assert.equal(third.hasMore, false);
    const none = h.last('it');
    assert.deepEqual(none.value, []);
    assert.equal(none.rendered, 'no cursor');
  });

  it('exactly 20 documents show without hasMore; an empty result prints nothing', () => {
    const h = withDocs(20);
    const r = h.last('db.c.find()');
    assert.equal((r.value as unknown[]).length, 20);
    assert.equal(r.hasMore, false);
    const empty = h.last('db.c.find({ n: -1 })');
    assert.deepEqual(empty.value, []);
    assert.equal(empty.rendered, '');
    assert.equal(empty.hasMore, false);
  });

  it('`it` before any cursor says no cursor', () => {
    assert.equal(harness().rendered('it'), 'no cursor');
  });

  it('a cursor held in a variable continues where the display left it', () => {
    const h = withDocs(25);
    h.run('const cur = db.c.find().sort({ n: 1 })');
    assert.equal(h.last('cur').hasMore, true);
    assert.equal(h.value('cur.next().n'), 20);
  });

  it('aggregation cursors display the same way', () => {
    const h = withDocs(30);
    const r = h.last('db.c.aggregate([{ $sort: { n: -1 } }, { $project: { _id: 0, n: 1 } }])');
    assert.equal((r.value as unknown[]).length, 20);
    assert.equal(r.hasMore, true);
    // Short documents group into columns, as util.inspect (and so mongosh) lays them out.
    assert.match(r.rendered ?? '', /^\[\n {2}\{ n: 29 \}, \{ n: 28 \}, \{ n: 27 \},\n/);
  });

  it('print(cursor) prints its documents; nested in a value a cursor prints as its kind', () => {
    const h = withDocs(2);
    const expected = ['[ { _id: 0, n: 0, even: true }, { _id: 1, n: 1, even: false } ]'];
    assert.deepEqual(h.last('print(db.c.find().sort({ n: 1 }))').output, expected);
    assert.deepEqual(h.last('print(db.c.find().sort({ n: 1 }).toArray())').output, expected);
    assert.equal(h.rendered('({ cur: db.c.find() })'), '{ cur: FindCursor(test.c) }');
  });
});
