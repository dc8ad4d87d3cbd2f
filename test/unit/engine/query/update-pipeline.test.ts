/**
 * Pipeline-style updates (an array of stages as `u`) through update and findAndModify, as mongod's
 * PipelineExecutor runs them (src/mongo/db/update/pipeline_executor.cpp, update_driver.cpp).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Timestamp } from 'bson';
import { Engine, type Document } from '../../../../src/engine';
import { VirtualClock } from '../../../../src/engine/clock';
import { compilePipelineUpdate } from '../../../../src/engine/query/update';
import { expectError } from '../../helpers/expect-error';

const DB = 'app';
const START = Date.parse('2030-01-02T03:04:05Z');

function seeded(docs: Document[]): Engine {
  const engine = new Engine({ clock: new VirtualClock(START) });
  if (docs.length) engine.runCommand(DB, { insert: 'c', documents: docs });
  return engine;
}

function update(engine: Engine, statement: Document, coll = 'c'): Document {
  return engine.runCommand(DB, { update: coll, updates: [statement] });
}

function all(engine: Engine): Document[] {
  return (engine.runCommand(DB, { find: 'c', filter: {} }).cursor as Document).firstBatch as Document[];
}

function writeError(reply: Document): [number, string] {
  const errors = reply.writeErrors as Document[] | undefined;
  assert.ok(errors && errors.length === 1, `expected one write error, got ${JSON.stringify(reply)}`);
  return [errors[0].code as number, errors[0].errmsg as string];
}

describe('pipeline-style updates', () => {
  it('pipeline update: $set computes from the document, in every matched document', () => {
    const engine = seeded([
      { _id: 1, price: 2, qty: 3 },
      { _id: 2, price: 5, qty: 1 },
    ]);
    const reply = update(engine, {
      q: {},
      u: [{ $set: { total: { $multiply: ['$price', '$qty'] } } }, { $unset: 'qty' }],
      multi: true,
    });
    assert.equal(reply.n, 2);
    assert.equal(reply.nModified, 2);
    assert.deepEqual(all(engine), [
      { _id: 1, price: 2, total: 6 },
      { _id: 2, price: 5, total: 5 },
    ]);
  });

  it('pipeline update: $project, $addFields and $replaceWith keep the _id', () => {
    const engine = seeded([{ _id: 1, a: { b: 1, c: 2 }, d: 3 }]);
    update(engine, { q: { _id: 1 }, u: [{ $replaceWith: '$a' }, { $addFields: { e: { $add: ['$b', '$c'] } } }] });
    assert.deepEqual(all(engine), [{ _id: 1, b: 1, c: 2, e: 3 }]);
    update(engine, { q: { _id: 1 }, u: [{ $project: { _id: 0, e: 1 } }] });
    assert.deepEqual(all(engine), [{ _id: 1, e: 3 }]);
    update(engine, { q: { _id: 1 }, u: [{ $replaceRoot: { newRoot: { x: '$e' } } }] });
    assert.deepEqual(all(engine), [{ _id: 1, x: 3 }]);
  });

  it('pipeline update: changing the _id is ImmutableField (66)', () => {
    const engine = seeded([{ _id: 1 }]);
    const [code, msg] = writeError(update(engine, { q: { _id: 1 }, u: [{ $set: { _id: 2 } }] }));
    assert.equal(code, 66);
    assert.match(msg, /the \(immutable\) field '_id' was found to have been altered/);
  });

  it('pipeline update: a result identical to the document is not counted as modified', () => {
    const engine = seeded([{ _id: 1, a: 1 }]);
    const reply = update(engine, { q: { _id: 1 }, u: [{ $set: { a: 1 } }] });
    assert.equal(reply.n, 1);
    assert.equal(reply.nModified, 0);
  });

  it('pipeline update: $$NOW and $$CLUSTER_TIME come from the virtual clock, one value per statement', () => {
    const engine = seeded([{ _id: 1 }, { _id: 2 }]);
    update(engine, { q: {}, u: [{ $set: { at: '$$NOW', ct: '$$CLUSTER_TIME' } }], multi: true });
    const docs = all(engine);
    assert.deepEqual(docs[0].at, new Date(START));
    assert.deepEqual(docs[1].at, new Date(START));
    assert.ok(docs[0].ct instanceof Timestamp);
    assert.equal(docs[0].ct.high, START / 1000);
    assert.deepEqual(docs[0].ct, docs[1].ct);
  });

  it('pipeline update: an upsert applies the pipeline to the equality fields of the query', () => {
    const engine = seeded([]);
    const reply = update(engine, {
      q: { _id: 5, kind: 'x' },
      u: [{ $set: { label: { $concat: ['$kind', '-', 'new'] } } }],
      upsert: true,
    });
    assert.deepEqual(reply.upserted, [{ index: 0, _id: 5 }]);
    assert.deepEqual(all(engine), [{ _id: 5, kind: 'x', label: 'x-new' }]);
  });

  it('pipeline update: the c option holds constants read as $$name', () => {
    const engine = seeded([{ _id: 1 }]);
    update(engine, { q: { _id: 1 }, u: [{ $set: { v: '$$factor' } }], c: { factor: 3 } });
    assert.deepEqual(all(engine), [{ _id: 1, v: 3 }]);
    assert.equal(writeError(update(engine, { q: { _id: 1 }, u: { $set: { v: 1 } }, c: { factor: 3 } }))[0], 51198);
  });

  it('pipeline update: refused stages are InvalidOptions (72), unknown ones 40324, even with no collection', () => {
    const engine = seeded([]);
    for (const stage of [{ $match: {} }, { $group: { _id: null } }, { $sort: { a: 1 } }, { $limit: 1 }]) {
      const name = Object.keys(stage)[0];
      assert.deepEqual(writeError(update(engine, { q: {}, u: [stage] }, 'none')), [
        72,
        `${name} is not allowed to be used within an update`,
      ]);
    }
    assert.equal(writeError(update(engine, { q: {}, u: [{ $bogus: {} }] }, 'none'))[0], 40324);
  });

  it('pipeline update: arrayFilters are refused with FailedToParse (9)', () => {
    const engine = seeded([{ _id: 1, a: [1] }]);
    assert.deepEqual(writeError(update(engine, { q: {}, u: [{ $set: { b: 1 } }], arrayFilters: [{ x: 1 }] })), [
      9,
      'arrayFilters may not be specified for pipeline-style updates',
    ]);
  });

  it('pipeline update in findAndModify returns the new document', () => {
    const engine = seeded([{ _id: 1, n: 1 }]);
    const reply = engine.runCommand(DB, {
      findAndModify: 'c',
      query: { _id: 1 },
      update: [{ $set: { n: { $add: ['$n', 1] } } }],
      new: true,
    });
    assert.deepEqual(reply.value, { _id: 1, n: 2 });
  });
});

describe('compilePipelineUpdate: malformed stages', () => {
  const now = new Date(START);

  it('a stage with two fields is refused as malformed (40323), whichever stages it names', () => {
    const message = 'A pipeline stage specification object must contain exactly one field.';
    expectError(() => compilePipelineUpdate([{ $set: { a: 1 }, $unset: 'b' }], now), 40323, message);
    expectError(() => compilePipelineUpdate([{ $match: {}, $set: { a: 1 } }], now), 40323, message);
  });

  it('a stage that is null or an array is refused as not an object (14)', () => {
    const message = "Each element of the 'pipeline' array must be an object";
    expectError(() => compilePipelineUpdate([null], now), 14, message);
    expectError(() => compilePipelineUpdate([[{ a: 1 }]], now), 14, message);
  });
});
