/**
 * Compaction's picture of the engine (durable storage issue): taken without per-document work, read
 * a batch at a time while writes go on, it still holds exactly the documents (and Cosmos `_ts`
 * stamps) of the moment it was taken, in natural order — whatever the writes in between do:
 * updates, deletes, TTL deletions, inserts, drops.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EJSON, Int32, Long } from 'bson';
import { Engine, VirtualClock, type Document } from '../../../src/engine';
import { captureSnapshot, snapshotRecords } from '../../../src/engine/storage/snapshot';
import { decodeFlatBatch } from '../../../src/engine/storage/flat-batch';
import { documentFromStorage } from '../../../src/engine/storage/values';
import { cosmosStampOf } from '../../../src/engine/ttl/cosmos';
import { prng } from '../helpers/prng';

const T0 = Date.UTC(2026, 0, 1);

/** What each collection holds now: ns → [{doc, ts}] in natural order, as canonical EJSON. */
function eagerPicture(engine: Engine): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const db of engine.databases.values()) {
    for (const coll of db.collections.values()) {
      out.set(
        coll.ns,
        [...coll.records.values()].map((r) =>
          EJSON.stringify(
            { doc: r.doc, ts: engine.flavor === 'cosmos' ? cosmosStampOf(coll, r.rid) : null },
            { relaxed: false },
          ),
        ),
      );
    }
  }
  return out;
}

function valueOf(r: () => number): unknown {
  switch (Math.floor(r() * 5)) {
    case 0:
      return new Int32(Math.floor(r() * 100));
    case 1:
      return Long.fromNumber(Math.floor(r() * 100));
    case 2:
      return -0;
    default:
      return Math.floor(r() * 100);
  }
}

function populate(engine: Engine, r: () => number): void {
  for (const name of ['a', 'b', 'c']) {
    engine.runCommand('app', {
      createIndexes: name,
      indexes: [{ key: { at: 1 }, name: 'at_1', expireAfterSeconds: 60 }],
    });
    const docs: Document[] = [];
    for (let i = 0; i < 3000; i++)
      docs.push({ _id: `${name}${i}`, at: new Date(T0 + Math.floor(r() * 600_000)), v: valueOf(r), tag: `t${i % 7}` });
    engine.runCommand('app', { insert: name, documents: docs });
  }
}

/** One random write of any kind. */
function randomWrite(engine: Engine, clock: VirtualClock, r: () => number): void {
  const name = ['a', 'b', 'c'][Math.floor(r() * 3)];
  const id = `${name}${Math.floor(r() * 3500)}`;
  switch (Math.floor(r() * 8)) {
    case 0:
    case 1:
      engine.runCommand('app', {
        update: name,
        updates: [{ q: { _id: id }, u: { $set: { v: valueOf(r) }, $inc: { n: 1 } } }],
      });
      return;
    case 2:
      engine.runCommand('app', {
        update: name,
        updates: [{ q: { tag: `t${Math.floor(r() * 7)}` }, u: { $set: { bulk: true } }, multi: true }],
      });
      return;
    case 3:
      engine.runCommand('app', { delete: name, deletes: [{ q: { _id: id }, limit: 1 }] });
      return;
    case 4:
      engine.runCommand('app', { delete: name, deletes: [{ q: { tag: `t${Math.floor(r() * 7)}` }, limit: 0 }] });
      return;
    case 5:
      engine.runCommand('app', {
        insert: name,
        documents: [{ _id: `new${Math.floor(r() * 1e9)}`, at: new Date(clock.now()), v: 1 }],
      });
      return;
    case 6:
      // A TTL pass deletes a slice of the expired documents.
      clock.advance(61_000);
      return;
    default:
      if (r() < 0.1) engine.runCommand('app', { drop: name });
  }
}

/** Read the captured records while writing in between; returns what the snapshot holds. */
function readWhileWriting(
  engine: Engine,
  clock: VirtualClock,
  r: () => number,
  writesBetween: number,
): Map<string, string[]> {
  const state = captureSnapshot(engine);
  const out = new Map<string, string[]>();
  let current: string[] = [];
  try {
    for (const rec of snapshotRecords(state)) {
      if (rec.coll !== undefined) {
        current = [];
        out.set(String(rec.coll), current);
      } else if (rec.flat !== undefined || rec.plain !== undefined || rec.typed !== undefined) {
        const docs = rec.flat !== undefined ? decodeFlatBatch(rec) : ((rec.plain ?? rec.typed) as Document[]);
        docs.forEach((d, i) => {
          const doc = rec.typed !== undefined ? documentFromStorage(d) : d;
          current.push(
            EJSON.stringify({ doc, ts: (rec.ts as unknown[] | undefined)?.[i] ?? null }, { relaxed: false }),
          );
        });
      }
      for (let w = 0; w < writesBetween; w++) randomWrite(engine, clock, r);
    }
  } finally {
    state.release();
  }
  return out;
}

describe('snapshot capture', () => {
  for (const flavor of ['mongodb', 'cosmos'] as const) {
    for (const seed of [1, 2, 3]) {
      it(`${flavor}, seed ${seed}: read between random writes, the snapshot holds exactly the documents of its moment, in natural order`, () => {
        const r = prng(seed * 7919);
        const clock = new VirtualClock(T0);
        const engine = new Engine({ clock, flavor });
        populate(engine, r);
        // Some history first, so rids have gaps and chunks have holes.
        for (let i = 0; i < 200; i++) randomWrite(engine, clock, r);
        const expected = eagerPicture(engine);
        const got = readWhileWriting(engine, clock, r, 5);
        assert.deepEqual([...got.keys()], [...expected.keys()]);
        for (const [ns, docs] of expected) {
          assert.equal(got.get(ns)!.length, docs.length, `${ns}: document count`);
          assert.deepEqual(got.get(ns), docs, `${ns}: documents and order`);
        }
        // The writes did change the engine: the picture is not simply the present.
        assert.notDeepEqual(eagerPicture(engine), expected);
        engine.close();
      });
    }
  }

  it('whole chunks of records removed before the reader gets there still come back, in order', () => {
    const engine = new Engine({ clock: new VirtualClock(T0) });
    const docs = Array.from({ length: 6000 }, (_, i) => ({ _id: i, v: i }));
    engine.runCommand('app', { insert: 'c', documents: docs });
    const expected = eagerPicture(engine);
    const state = captureSnapshot(engine);
    const got: string[] = [];
    try {
      let removed = false;
      for (const rec of snapshotRecords(state)) {
        const docs = rec.flat !== undefined ? decodeFlatBatch(rec) : undefined;
        for (const d of docs ?? []) got.push(EJSON.stringify({ doc: d, ts: null }, { relaxed: false }));
        if (!removed && docs) {
          // After the first batch: records 1,500…4,999 go, which empties (and drops) whole chunks.
          engine.runCommand('app', { delete: 'c', deletes: [{ q: { _id: { $gte: 1500, $lt: 5000 } }, limit: 0 }] });
          assert.ok(engine.getCollection('app', 'c')!.count === 2500);
          removed = true;
        }
      }
    } finally {
      state.release();
    }
    assert.deepEqual(got, expected.get('app.c'));
  });

  it('writes three batch kinds: flat documents as rows, plain ones decode as they are, Int32 / Long / nested -0 ones go typed', () => {
    const engine = new Engine({ clock: new VirtualClock(T0) });
    engine.runCommand('app', {
      insert: 'c',
      documents: [
        { _id: 1, n: 2 },
        { _id: 2, n: new Int32(2) },
        { _id: 3, n: -0 },
        { _id: 4, n: 2.5 },
        { _id: 5, sub: { a: 1 } },
        { _id: 6, sub: { a: -0 } },
      ],
    });
    const state = captureSnapshot(engine);
    const batches = [...snapshotRecords(state)].filter(
      (rec) => rec.flat !== undefined || rec.plain !== undefined || rec.typed !== undefined,
    );
    state.release();
    const kind = (b: Document) => (b.flat !== undefined ? 'flat' : b.plain !== undefined ? 'plain' : 'typed');
    const docs = (b: Document) => (b.flat !== undefined ? decodeFlatBatch(b) : ((b.plain ?? b.typed) as Document[]));
    assert.deepEqual(
      batches.map((b) => [kind(b), docs(b).map((d) => Number(d._id))]),
      [
        ['flat', [1]],
        ['typed', [2]],
        ['flat', [3, 4]],
        ['plain', [5]],
        ['typed', [6]],
      ],
    );
    assert.ok(Object.is(docs(batches[2])[0].n, -0), 'a flat double keeps its sign');
  });

  it('release stops watching: the collections keep no observer and no kept documents', () => {
    const engine = new Engine({ clock: new VirtualClock(T0) });
    engine.runCommand('app', { insert: 'c', documents: [{ _id: 1 }, { _id: 2 }] });
    const coll = engine.getCollection('app', 'c')!;
    const before = coll.observers.length;
    const state = captureSnapshot(engine);
    assert.equal(coll.observers.length, before + 1);
    state.release();
    assert.equal(coll.observers.length, before);
  });
});
