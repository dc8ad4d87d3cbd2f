/**
 * Tailable cursors on capped collections, as mongod 8.0 answers find and getMore with `tailable`
 * and `awaitData`.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type Long } from 'bson';
import { Engine, type Document } from '../../../../src/engine';
import { expectError } from '../../helpers/expect-error';

const DB = 'app';

function run(engine: Engine, cmd: Document): Document {
  return engine.runCommand(DB, cmd);
}

function cappedWith(ids: number[], size = 4096): Engine {
  const engine = new Engine();
  run(engine, { create: 'c', capped: true, size });
  if (ids.length) run(engine, { insert: 'c', documents: ids.map((_id) => ({ _id })) });
  return engine;
}

function idOf(reply: Document): Long {
  return (reply.cursor as Document).id as Long;
}

function ids(batch: unknown): unknown[] {
  return (batch as Document[]).map((d) => d._id);
}

function more(engine: Engine, id: Long, batchSize?: number): Document {
  return run(engine, { getMore: id, collection: 'c', ...(batchSize ? { batchSize } : {}) }).cursor as Document;
}

describe('tailable cursors', () => {
  it('tailable find: the cursor stays open past the last document and returns what is inserted later', () => {
    const engine = cappedWith([1, 2]);
    const reply = run(engine, { find: 'c', tailable: true });
    assert.deepEqual(ids((reply.cursor as Document).firstBatch), [1, 2]);
    const id = idOf(reply);
    assert.notEqual(Number(id), 0);
    // Nothing new: an empty batch, and the cursor lives on.
    const empty = more(engine, id);
    assert.deepEqual(empty.nextBatch, []);
    assert.equal(Number(empty.id), Number(id));
    run(engine, { insert: 'c', documents: [{ _id: 3 }, { _id: 4 }] });
    assert.deepEqual(ids(more(engine, id).nextBatch), [3, 4]);
  });

  it('tailable getMore: a batchSize smaller than the new documents returns that many, the rest next time', () => {
    const engine = cappedWith([1]);
    const id = idOf(run(engine, { find: 'c', tailable: true, awaitData: true }));
    run(engine, { insert: 'c', documents: [{ _id: 2 }, { _id: 3 }, { _id: 4 }] });
    assert.deepEqual(ids(more(engine, id, 2).nextBatch), [2, 3]);
    assert.deepEqual(ids(more(engine, id, 2).nextBatch), [4]);
  });

  it('tailable find: the filter applies to later documents, skip only to the first scan', () => {
    const engine = cappedWith([1, 2, 3]);
    const reply = run(engine, { find: 'c', tailable: true, skip: 2, filter: { _id: { $ne: 5 } } });
    assert.deepEqual(ids((reply.cursor as Document).firstBatch), [3]);
    run(engine, { insert: 'c', documents: [{ _id: 4 }, { _id: 5 }, { _id: 6 }] });
    assert.deepEqual(ids(more(engine, idOf(reply)).nextBatch), [4, 6]);
  });

  it('tailable find: the limit counts every document returned; the cursor closes when it is reached', () => {
    const engine = cappedWith([1, 2]);
    const reply = run(engine, { find: 'c', tailable: true, limit: 3 });
    run(engine, { insert: 'c', documents: [{ _id: 3 }, { _id: 4 }] });
    const next = more(engine, idOf(reply));
    assert.deepEqual(ids(next.nextBatch), [3]);
    assert.equal(Number(next.id), 0);
    assert.equal(Number(idOf(run(engine, { find: 'c', tailable: true, limit: 1 }))), 0);
  });

  it('tailable find: a missing or empty capped collection gives a dead cursor (id 0)', () => {
    assert.equal(Number(idOf(run(new Engine(), { find: 'c', tailable: true, awaitData: true, batchSize: 0 }))), 0);
    assert.equal(Number(idOf(run(cappedWith([]), { find: 'c', tailable: true }))), 0);
  });

  it('tailable find with batchSize 0: an empty first batch, the documents on getMore', () => {
    const engine = cappedWith([1, 2]);
    const reply = run(engine, { find: 'c', tailable: true, batchSize: 0 });
    assert.deepEqual((reply.cursor as Document).firstBatch, []);
    assert.deepEqual(ids(more(engine, idOf(reply)).nextBatch), [1, 2]);
  });

  it('tailable getMore: a dropped collection kills the cursor with QueryPlanKilled (175)', () => {
    const engine = cappedWith([1]);
    const id = idOf(run(engine, { find: 'c', tailable: true }));
    run(engine, { drop: 'c' });
    expectError(() => more(engine, id), 175);
  });

  it('tailable getMore: the position deleted by capped overflow is CappedPositionLost (136)', () => {
    const engine = cappedWith([], 4096);
    run(engine, { insert: 'c', documents: [{ _id: 0, pad: 'x'.repeat(1000) }] });
    const id = idOf(run(engine, { find: 'c', tailable: true }));
    for (let i = 1; i <= 8; i++) run(engine, { insert: 'c', documents: [{ _id: i, pad: 'x'.repeat(1000) }] });
    expectError(() => more(engine, id), 136, /position in capped collection/, 'CappedPositionLost');
    // The cursor is gone after the error.
    expectError(() => more(engine, id), 43);
  });

  it('a plain find over a capped collection: the scan position deleted by capped overflow is CappedPositionLost (136) on getMore', () => {
    const engine = cappedWith([], 4096);
    for (let i = 0; i < 3; i++) run(engine, { insert: 'c', documents: [{ _id: i, pad: 'x'.repeat(1000) }] });
    const id = idOf(run(engine, { find: 'c', batchSize: 1 }));
    for (let i = 3; i <= 10; i++) run(engine, { insert: 'c', documents: [{ _id: i, pad: 'x'.repeat(1000) }] });
    expectError(() => more(engine, id), 136, /position in capped collection/, 'CappedPositionLost');
    expectError(() => more(engine, id), 43);
  });

  it('a plain find over a capped collection goes on while its position is kept, and after a blocking sort', () => {
    const engine = cappedWith([], 4096);
    for (let i = 0; i < 3; i++) run(engine, { insert: 'c', documents: [{ _id: i, pad: 'x'.repeat(1000) }] });
    const kept = idOf(run(engine, { find: 'c', batchSize: 1 }));
    assert.deepEqual(ids(more(engine, kept).nextBatch), [1, 2]);
    const sorted = idOf(run(engine, { find: 'c', sort: { _id: -1 }, batchSize: 1 }));
    for (let i = 3; i <= 10; i++) run(engine, { insert: 'c', documents: [{ _id: i, pad: 'x'.repeat(1000) }] });
    assert.deepEqual(ids(more(engine, sorted).nextBatch), [1, 0]);
  });

  it('getMore takes maxTimeMS (the wait) on an awaitData cursor only: BadValue (2) on a tailable or plain one', () => {
    const engine = cappedWith([1, 2, 3]);
    const awaiting = idOf(run(engine, { find: 'c', tailable: true, awaitData: true, batchSize: 1 }));
    const reply = run(engine, { getMore: awaiting, collection: 'c', maxTimeMS: 60000 });
    assert.deepEqual(ids((reply.cursor as Document).nextBatch), [2, 3]);
    const tail = idOf(run(engine, { find: 'c', tailable: true, batchSize: 1 }));
    expectError(() => run(engine, { getMore: tail, collection: 'c', maxTimeMS: 60000 }), 2, /non-awaitData/);
    const plain = idOf(run(engine, { find: 'c', batchSize: 1 }));
    expectError(() => run(engine, { getMore: plain, collection: 'c', maxTimeMS: 60000 }), 2, /non-awaitData/);
  });

  it('tailable options: awaitData needs tailable (9); a sort other than $natural, singleBatch and a non-capped collection are BadValue (2)', () => {
    const engine = cappedWith([1]);
    run(engine, { insert: 'plain', documents: [{ _id: 1 }] });
    expectError(() => run(engine, { find: 'c', awaitData: true }), 9, /without also setting 'tailable'/);
    expectError(() => run(engine, { find: 'c', tailable: true, sort: { _id: 1 } }), 2, /sort other than/);
    run(engine, { find: 'c', tailable: true, sort: { $natural: 1 } });
    expectError(() => run(engine, { find: 'c', tailable: true, singleBatch: true }), 2, /singleBatch/);
    expectError(() => run(engine, { find: 'plain', tailable: true }), 2, /non capped collection/);
  });
});
