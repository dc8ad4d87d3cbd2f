/** The 8.0 bulkWrite admin command: ops over several namespaces by nsInfo index, mongod's reply shape. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Long } from 'bson';
import { Engine, type Document } from '../../../../src/engine';
import { expectError } from '../../helpers/expect-error';

function find(engine: Engine, db: string, coll: string): Document[] {
  return (engine.runCommand(db, { find: coll, filter: {} }).cursor as Document).firstBatch as Document[];
}

describe('bulkWrite command', () => {
  it('bulkWrite command: runs inserts, updates and deletes over several collections, one item per op', () => {
    const engine = new Engine();
    engine.runCommand('app', { insert: 'a', documents: [{ _id: 1, n: 1, l: [1, 5] }] });
    const reply = engine.runCommand('admin', {
      bulkWrite: 1,
      ops: [
        { insert: 0, document: { _id: 2, n: 2 } },
        { insert: 1, document: { _id: 'x' } },
        { update: 0, filter: { _id: 1 }, updateMods: { $set: { 'l.$[big]': 0 } }, arrayFilters: [{ big: { $gt: 2 } }] },
        { update: 0, filter: { _id: 9 }, updateMods: [{ $set: { made: true } }], upsert: true },
        { update: 0, filter: {}, updateMods: { $inc: { n: 10 } }, multi: true },
        { delete: 1, filter: { _id: 'x' } },
      ],
      nsInfo: [{ ns: 'app.a' }, { ns: 'other.b' }],
    });
    const cursor = reply.cursor as Document;
    assert.equal(cursor.ns, 'admin.$cmd.bulkWrite');
    assert.ok(Long.fromValue(cursor.id as Long).isZero());
    assert.deepEqual(cursor.firstBatch, [
      { ok: 1, idx: 0, n: 1 },
      { ok: 1, idx: 1, n: 1 },
      { ok: 1, idx: 2, n: 1, nModified: 1 },
      { ok: 1, idx: 3, n: 1, nModified: 0, upserted: { _id: 9 } },
      { ok: 1, idx: 4, n: 3, nModified: 3 },
      { ok: 1, idx: 5, n: 1 },
    ]);
    const { cursor: _c, ...totals } = reply;
    assert.deepEqual(totals, {
      nErrors: 0,
      nInserted: 2,
      nMatched: 4,
      nModified: 4,
      nUpserted: 1,
      nDeleted: 1,
      ok: 1,
    });
    assert.deepEqual(find(engine, 'app', 'a'), [
      { _id: 1, n: 11, l: [1, 0] },
      { _id: 2, n: 12 },
      { _id: 9, made: true, n: 10 },
    ]);
    assert.deepEqual(find(engine, 'other', 'b'), []);
  });

  it('bulkWrite command: ordered stops at the first error; unordered goes on; errorsOnly lists only errors', () => {
    const engine = new Engine();
    const ops = [
      { insert: 0, document: { _id: 1 } },
      { insert: 0, document: { _id: 1 } },
      { update: 0, filter: { _id: 1 }, updateMods: { $rename: { a: 'a' } } },
      { insert: 0, document: { _id: 2 } },
    ];
    const ordered = engine.runCommand('admin', { bulkWrite: 1, ops, nsInfo: [{ ns: 'app.c' }] });
    const batch = (ordered.cursor as Document).firstBatch as Document[];
    assert.equal(batch.length, 2);
    assert.deepEqual(
      [batch[1].ok, batch[1].idx, batch[1].code, batch[1].codeName, batch[1].n],
      [0, 1, 11000, 'DuplicateKey', 0],
    );
    assert.equal(ordered.nErrors, 1);
    assert.equal(ordered.nInserted, 1);

    const fresh = new Engine();
    const unordered = fresh.runCommand('admin', {
      bulkWrite: 1,
      ops,
      nsInfo: [{ ns: 'app.c' }],
      ordered: false,
      errorsOnly: true,
    });
    const errors = (unordered.cursor as Document).firstBatch as Document[];
    assert.deepEqual(
      errors.map((e) => [e.idx, e.code]),
      [
        [1, 11000],
        [2, 2],
      ],
    );
    assert.equal(unordered.nInserted, 2);
    assert.equal(unordered.nErrors, 2);
  });

  it('bulkWrite command: only on admin (13); an nsInfo index out of range is refused', () => {
    const engine = new Engine();
    expectError(
      () => engine.runCommand('app', { bulkWrite: 1, ops: [], nsInfo: [] }),
      13,
      'bulkWrite may only be run against the admin database.',
    );
    const reply = engine.runCommand('admin', {
      bulkWrite: 1,
      ops: [{ insert: 3, document: {} }],
      nsInfo: [{ ns: 'app.c' }],
    });
    assert.equal(((reply.cursor as Document).firstBatch as Document[])[0].code, 2);
  });
});
