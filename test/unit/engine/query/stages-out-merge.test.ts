/**
 * $out and $merge through the aggregate command: they write other collections of the same engine
 * through the normal write paths (validated, indexed, journaled; TTL indexes of the target apply).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine, VirtualClock, type Document } from '../../../../src/engine';
import { closeStoredEngine, openStoredEngine } from '../../../../src/storage/engine-store';
import { expectError } from '../../helpers/expect-error';

const DB = 'app';

function agg(engine: Engine, coll: string, pipeline: Document[], db = DB): Document[] {
  const reply = engine.runCommand(db, { aggregate: coll, pipeline, cursor: {} });
  return (reply.cursor as Document).firstBatch as Document[];
}

function seed(engine: Engine, coll: string, docs: Document[], db = DB): void {
  engine.runCommand(db, { insert: coll, documents: docs });
}

function all(engine: Engine, coll: string, db = DB): Document[] {
  const reply = engine.runCommand(db, { find: coll, filter: {}, sort: { _id: 1 } });
  return (reply.cursor as Document).firstBatch as Document[];
}

function indexNames(engine: Engine, coll: string, db = DB): string[] {
  const reply = engine.runCommand(db, { listIndexes: coll, cursor: {} });
  return ((reply.cursor as Document).firstBatch as Document[]).map((i) => i.name as string);
}

describe('$out', () => {
  it('$out: replaces the target’s documents, keeps its indexes, returns no documents', () => {
    const engine = new Engine();
    seed(engine, 'src', [
      { _id: 1, v: 1 },
      { _id: 2, v: 2 },
    ]);
    seed(engine, 'dst', [{ _id: 9, old: true }]);
    engine.runCommand(DB, {
      createIndexes: 'dst',
      indexes: [
        { key: { at: 1 }, name: 'at_ttl', expireAfterSeconds: 60 },
        { key: { v: 1 }, name: 'v_u', unique: true },
      ],
    });
    const out = agg(engine, 'src', [{ $match: { v: { $gte: 1 } } }, { $out: 'dst' }]);
    assert.deepEqual(out, []);
    assert.deepEqual(all(engine, 'dst'), [
      { _id: 1, v: 1 },
      { _id: 2, v: 2 },
    ]);
    assert.deepEqual(indexNames(engine, 'dst').sort(), ['_id_', 'at_ttl', 'v_u']);
    const listed = engine.runCommand(DB, { listCollections: 1 });
    const names = ((listed.cursor as Document).firstBatch as Document[]).map((c) => c.name);
    assert.ok(!names.some((n) => String(n).startsWith('tmp.agg_out')), 'the temporary collection is gone');
  });

  it('$out: a duplicate key on a kept unique index leaves the target as it was', () => {
    const engine = new Engine();
    seed(engine, 'src', [
      { _id: 1, v: 1 },
      { _id: 2, v: 1 },
    ]);
    seed(engine, 'dst', [{ _id: 9, v: 7 }]);
    engine.runCommand(DB, { createIndexes: 'dst', indexes: [{ key: { v: 1 }, name: 'v_u', unique: true }] });
    expectError(() => agg(engine, 'src', [{ $out: 'dst' }]), 11000);
    assert.deepEqual(all(engine, 'dst'), [{ _id: 9, v: 7 }]);
    const listed = engine.runCommand(DB, { listCollections: 1 });
    assert.equal(((listed.cursor as Document).firstBatch as Document[]).length, 2);
  });

  it('$out: writes to another database with {db, coll}, creating it', () => {
    const engine = new Engine();
    seed(engine, 'src', [{ _id: 1 }]);
    agg(engine, 'src', [{ $out: { db: 'reports', coll: 'copy' } }]);
    assert.deepEqual(all(engine, 'copy', 'reports'), [{ _id: 1 }]);
  });

  it('$out: documents without _id get one; an empty result still creates the target', () => {
    const engine = new Engine();
    seed(engine, 'src', [{ _id: 1, v: 1 }]);
    agg(engine, 'src', [{ $project: { _id: 0, v: 1 } }, { $out: 'dst' }]);
    const docs = all(engine, 'dst');
    assert.equal(docs.length, 1);
    assert.ok(docs[0]._id !== undefined);
    agg(engine, 'src', [{ $match: { v: 99 } }, { $out: 'empty' }]);
    assert.deepEqual(indexNames(engine, 'empty'), ['_id_']);
  });

  it('$out: a capped target is refused with 17152; a bad argument with 16990', () => {
    const engine = new Engine();
    seed(engine, 'src', [{ _id: 1 }]);
    engine.runCommand(DB, { create: 'cap', capped: true, size: 4096 });
    expectError(
      () => agg(engine, 'src', [{ $out: 'cap' }]),
      17152,
      "namespace 'app.cap' is capped so it can't be used for $out",
    );
    expectError(() => agg(engine, 'src', [{ $out: 5 }]), 16990);
    expectError(() => agg(engine, 'src', [{ $out: { db: 'x' } }]), 40414);
  });

  it('$out: the result and the kept TTL index survive a reopen of the data folder (journaled)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-out-'));
    try {
      const first = openStoredEngine(dir, {
        engine: { clock: new VirtualClock(Date.UTC(2030, 0, 1)) },
        autoCompact: false,
      });
      seed(first.engine, 'src', [{ _id: 1, at: new Date(Date.UTC(2030, 0, 1)) }]);
      seed(first.engine, 'dst', [{ _id: 5 }]);
      first.engine.runCommand(DB, {
        createIndexes: 'dst',
        indexes: [{ key: { at: 1 }, name: 'at_ttl', expireAfterSeconds: 60 }],
      });
      agg(first.engine, 'src', [{ $out: 'dst' }]);
      agg(first.engine, 'src', [{ $merge: { into: 'merged' } }]);
      closeStoredEngine(first);
      const second = openStoredEngine(dir, {
        engine: { clock: new VirtualClock(Date.UTC(2030, 0, 1)) },
        autoCompact: false,
      });
      try {
        assert.deepEqual(ids(all(second.engine, 'dst')), [1]);
        assert.deepEqual(indexNames(second.engine, 'dst').sort(), ['_id_', 'at_ttl']);
        assert.deepEqual(ids(all(second.engine, 'merged')), [1]);
      } finally {
        closeStoredEngine(second);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

function ids(docs: Document[]): unknown[] {
  return docs.map((d) => d._id);
}

describe('$merge', () => {
  function target(engine: Engine): void {
    seed(engine, 'tgt', [
      { _id: 1, a: 1, keep: 'x' },
      { _id: 2, a: 2, keep: 'y' },
    ]);
  }

  it('$merge: defaults (on _id, merge, insert) merge top-level fields and insert the rest', () => {
    const engine = new Engine();
    target(engine);
    seed(engine, 'src', [
      { _id: 1, a: 10 },
      { _id: 3, a: 30 },
    ]);
    assert.deepEqual(agg(engine, 'src', [{ $merge: 'tgt' }]), []);
    assert.deepEqual(all(engine, 'tgt'), [
      { _id: 1, a: 10, keep: 'x' },
      { _id: 2, a: 2, keep: 'y' },
      { _id: 3, a: 30 },
    ]);
  });

  it('$merge: whenMatched replace drops fields the new document lacks; keepExisting changes nothing', () => {
    const engine = new Engine();
    target(engine);
    seed(engine, 'src', [{ _id: 1, a: 10 }]);
    agg(engine, 'src', [{ $merge: { into: 'tgt', whenMatched: 'keepExisting' } }]);
    assert.deepEqual(all(engine, 'tgt')[0], { _id: 1, a: 1, keep: 'x' });
    agg(engine, 'src', [{ $merge: { into: 'tgt', whenMatched: 'replace' } }]);
    assert.deepEqual(all(engine, 'tgt')[0], { _id: 1, a: 10 });
  });

  it('$merge: whenMatched fail is a duplicate key error (11000); documents before it stay written', () => {
    const engine = new Engine();
    target(engine);
    seed(engine, 'src', [
      { _id: 0, a: 0 },
      { _id: 1, a: 10 },
    ]);
    expectError(
      () => agg(engine, 'src', [{ $sort: { _id: 1 } }, { $merge: { into: 'tgt', whenMatched: 'fail' } }]),
      11000,
    );
    assert.deepEqual(ids(all(engine, 'tgt')), [0, 1, 2]);
  });

  it('$merge: whenNotMatched discard skips, fail stops with 13113', () => {
    const engine = new Engine();
    target(engine);
    seed(engine, 'src', [
      { _id: 2, a: 20 },
      { _id: 7, a: 70 },
    ]);
    agg(engine, 'src', [{ $merge: { into: 'tgt', whenMatched: 'replace', whenNotMatched: 'discard' } }]);
    assert.deepEqual(all(engine, 'tgt'), [
      { _id: 1, a: 1, keep: 'x' },
      { _id: 2, a: 20 },
    ]);
    expectError(
      () => agg(engine, 'src', [{ $merge: { into: 'tgt', whenMatched: 'merge', whenNotMatched: 'fail' } }]),
      13113,
    );
  });

  it('$merge: a whenMatched pipeline sees the stored document and $$new (and let variables)', () => {
    const engine = new Engine();
    target(engine);
    seed(engine, 'src', [
      { _id: 1, a: 5 },
      { _id: 4, a: 40 },
    ]);
    agg(engine, 'src', [
      {
        $merge: {
          into: 'tgt',
          let: { new: '$$ROOT', bonus: { $multiply: ['$a', 2] } },
          whenMatched: [{ $set: { a: { $add: ['$a', '$$new.a', '$$bonus'] } } }],
        },
      },
    ]);
    const docs = all(engine, 'tgt');
    assert.deepEqual(docs[0], { _id: 1, a: 16, keep: 'x' });
    // Unmatched, the source document is inserted as it is (mongod 4.4+: upsertSupplied).
    assert.deepEqual(docs[2], { _id: 4, a: 40 });
  });

  it('$merge: a null let is no let ($$new stays defined)', () => {
    const engine = new Engine();
    seed(engine, 'tgt', [{ _id: 1, c: 1 }]);
    seed(engine, 'src', [{ _id: 1, a: 1 }]);
    agg(engine, 'src', [{ $merge: { into: 'tgt', let: null, whenMatched: [{ $set: { x: '$$new.a' } }] } }]);
    assert.deepEqual(all(engine, 'tgt'), [{ _id: 1, c: 1, x: 1 }]);
  });

  it('$merge: with a let of its own, $$new is undefined (17276) unless the let names it', () => {
    const engine = new Engine();
    seed(engine, 'tgt', [{ _id: 1, c: 1 }]);
    seed(engine, 'src', [{ _id: 1, a: 1 }]);
    const merge = (letVars: Document) => ({
      $merge: { into: 'tgt', let: letVars, whenMatched: [{ $project: { x: '$$new.a' } }] },
    });
    expectError(() => agg(engine, 'src', [merge({ foo: 'bar' })]), 17276);
    agg(engine, 'src', [merge({ new: '$$ROOT' })]);
    assert.deepEqual(all(engine, 'tgt'), [{ _id: 1, x: 1 }]);
  });

  it('$merge: a failure ends the stage after its 16 MiB batch; later batches are not written', () => {
    const engine = new Engine();
    const padding = 'x'.repeat(1024 * 1024 - 40);
    const docs = Array.from({ length: 20 }, (_, i) => ({ _id: i, padding }));
    seed(engine, 'src', docs);
    seed(
      engine,
      'tgt',
      docs.filter((d) => d._id !== 3).map((d) => ({ _id: d._id })),
    );
    expectError(
      () =>
        agg(engine, 'src', [
          { $sort: { _id: 1 } },
          { $merge: { into: 'tgt', whenMatched: 'merge', whenNotMatched: 'fail' } },
        ]),
      13113,
    );
    const written = engine.runCommand(DB, { count: 'tgt', query: { padding: { $exists: true } } }).n;
    assert.equal(written, 15, 'the first batch (16 documents, one without a match) is written, the rest is not');
  });

  it('$merge: the batch is unordered: documents after one without a match (13113) or a duplicate (11000) are still written', () => {
    const engine = new Engine();
    seed(engine, 'tgt', [
      { _id: 1, b: 1 },
      { _id: 3, b: 3 },
    ]);
    seed(engine, 'src', [
      { _id: 1, a: 1 },
      { _id: 2, a: 2 },
      { _id: 3, a: 3 },
    ]);
    expectError(
      () => agg(engine, 'src', [{ $merge: { into: 'tgt', whenMatched: 'merge', whenNotMatched: 'fail' } }]),
      13113,
    );
    assert.deepEqual(all(engine, 'tgt'), [
      { _id: 1, b: 1, a: 1 },
      { _id: 3, b: 3, a: 3 },
    ]);
    expectError(() => agg(engine, 'src', [{ $merge: { into: 'tgt', whenMatched: 'fail' } }]), 11000);
    assert.deepEqual(ids(all(engine, 'tgt')), [1, 2, 3]);
  });

  it('$merge: a duplicate key from an insert or a replacement (another unique index) leaves the rest of the batch written', () => {
    for (const whenMatched of ['fail', 'replace', 'merge', 'keepExisting']) {
      const engine = new Engine();
      seed(engine, 'tgt', [{ _id: 2, a: 1 }]);
      engine.runCommand(DB, { createIndexes: 'tgt', indexes: [{ key: { a: 1 }, name: 'a_1', unique: true }] });
      seed(
        engine,
        'src',
        Array.from({ length: 10 }, (_, i) => ({ _id: i, a: i })),
      );
      // {_id: 1, a: 1} collides with the stored {_id: 2, a: 1} on `a`; every other document is written.
      expectError(
        () => agg(engine, 'src', [{ $merge: { into: 'tgt', whenMatched, whenNotMatched: 'insert' } }]),
        11000,
      );
      assert.deepEqual(ids(all(engine, 'tgt')), [0, 2, 3, 4, 5, 6, 7, 8, 9], whenMatched);
    }
  });

  it("$merge: a document the target's validator refuses (121) leaves the rest of the batch written", () => {
    const engine = new Engine();
    engine.runCommand(DB, { create: 'tgt', validator: { a: { $gte: 0 } } });
    seed(engine, 'src', [
      { _id: 1, a: -1 },
      { _id: 2, a: 2 },
    ]);
    expectError(() => agg(engine, 'src', [{ $merge: { into: 'tgt' } }]), 121);
    assert.deepEqual(all(engine, 'tgt'), [{ _id: 2, a: 2 }]);
    // bypassDocumentValidation writes both.
    engine.runCommand(DB, {
      aggregate: 'src',
      pipeline: [{ $merge: { into: 'tgt' } }],
      cursor: {},
      bypassDocumentValidation: true,
    });
    assert.deepEqual(ids(all(engine, 'tgt')), [1, 2]);
  });

  it('$merge: "on" other fields needs a unique index on exactly them (51183); with one it matches on them', () => {
    const engine = new Engine();
    target(engine);
    seed(engine, 'src', [{ a: 2, more: 1 }]);
    expectError(
      () => agg(engine, 'src', [{ $project: { _id: 0 } }, { $merge: { into: 'tgt', on: 'a' } }]),
      51183,
      'Cannot find index to verify that join fields will be unique',
    );
    engine.runCommand(DB, { createIndexes: 'tgt', indexes: [{ key: { a: 1 }, name: 'a_1', unique: true }] });
    agg(engine, 'src', [{ $project: { _id: 0 } }, { $merge: { into: 'tgt', on: 'a' } }]);
    assert.deepEqual(all(engine, 'tgt')[1], { _id: 2, a: 2, keep: 'y', more: 1 });
  });

  it('$merge: an "on" value that is missing (51132) or an array (51185) is refused', () => {
    const engine = new Engine();
    target(engine);
    engine.runCommand(DB, { createIndexes: 'tgt', indexes: [{ key: { a: 1 }, name: 'a_1', unique: true }] });
    seed(engine, 'src', [{ _id: 1, b: 1 }]);
    expectError(() => agg(engine, 'src', [{ $merge: { into: 'tgt', on: 'a' } }]), 51132);
    expectError(() => agg(engine, 'src', [{ $set: { a: [1] } }, { $merge: { into: 'tgt', on: 'a' } }]), 51185);
  });

  it('$merge: an array under a dotted "on" field is 51185, an array above its end 51132', () => {
    const engine = new Engine();
    engine.runCommand(DB, { createIndexes: 'tgt', indexes: [{ key: { 'a.b': 1 }, name: 'ab', unique: true }] });
    seed(engine, 'src', [{ _id: 1 }]);
    const merge = { $merge: { into: 'tgt', on: 'a.b' } };
    expectError(() => agg(engine, 'src', [{ $set: { a: { b: [1, 2] } } }, merge]), 51185);
    expectError(() => agg(engine, 'src', [{ $set: { a: [{ b: 1 }] } }, merge]), 51132);
  });

  it('$merge: unsupported mode combinations (51181), let without a pipeline (51199) and bad specs are refused', () => {
    const engine = new Engine();
    seed(engine, 'src', [{ _id: 1 }]);
    expectError(
      () => agg(engine, 'src', [{ $merge: { into: 'x', whenMatched: 'fail', whenNotMatched: 'discard' } }]),
      51181,
    );
    expectError(
      () => agg(engine, 'src', [{ $merge: { into: 'x', whenMatched: 'keepExisting', whenNotMatched: 'fail' } }]),
      51181,
    );
    expectError(() => agg(engine, 'src', [{ $merge: { into: 'x', let: { v: 1 } } }]), 51199);
    expectError(() => agg(engine, 'src', [{ $merge: 7 }]), 51182);
    expectError(() => agg(engine, 'src', [{ $merge: { whenMatched: 'merge' } }]), 40414);
    expectError(() => agg(engine, 'src', [{ $merge: { into: 'x', whenMatched: 'nope' } }]), 2);
    expectError(() => agg(engine, 'src', [{ $facet: { a: [{ $merge: 'x' }] } }]), 40600);
  });

  it('$merge: writes into another database and into the collection it reads', () => {
    const engine = new Engine();
    seed(engine, 'src', [{ _id: 1, n: 1 }]);
    agg(engine, 'src', [{ $merge: { into: { db: 'other', coll: 'copy' } } }]);
    assert.deepEqual(all(engine, 'copy', 'other'), [{ _id: 1, n: 1 }]);
    agg(engine, 'src', [{ $set: { _id: 2 } }, { $merge: 'src' }]);
    assert.deepEqual(ids(all(engine, 'src')), [1, 2]);
  });

  it('$merge: inserted documents are under the target’s TTL index like any insert', () => {
    const clock = new VirtualClock(Date.UTC(2030, 0, 1));
    const engine = new Engine({ clock });
    engine.runCommand(DB, { createIndexes: 'tgt', indexes: [{ key: { at: 1 }, name: 'ttl', expireAfterSeconds: 10 }] });
    seed(engine, 'src', [{ _id: 1, at: new Date(Date.UTC(2030, 0, 1)) }]);
    agg(engine, 'src', [{ $merge: 'tgt' }]);
    clock.advance(60_000);
    engine.ttl.runPass();
    assert.deepEqual(all(engine, 'tgt'), []);
  });
});
