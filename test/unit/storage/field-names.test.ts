/**
 * Field names are data on disk (issue 27, item 1): a document with a field named `__proto__`,
 * `constructor`, `toString`… comes back from the journal, from a snapshot (flat, plain and typed
 * batches) and from a compaction exactly as it was written: same own keys in the same order, same
 * values and types, no prototype changed. The property test writes random documents with such
 * names (nested, in arrays) through a durable store and compares what a reopen, and a compaction
 * plus a reopen, give back.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BSON, Decimal128, EJSON, Int32, Long, ObjectId } from 'bson';
import { Engine, VirtualClock, type Document } from '../../../src/engine';
import { exportDatabaseText, importDatabaseText } from '../../../src/engine/storage/export';
import { decodeFlatBatch, FlatBatchWriter, flatFields } from '../../../src/engine/storage/flat-batch';
import { documentFromStorage, storableDocument } from '../../../src/engine/storage/values';
import { setField } from '../../../src/engine/values/fields';
import { closeStoredEngine, compact, openStoredEngine, type OpenedEngine } from '../../../src/storage/engine-store';
import { prng } from '../helpers/prng';
import { assertPlain, INHERITED_NAMES } from '../helpers/plain-objects';

const T0 = Date.UTC(2026, 0, 1);
const tmpDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-field-names-'));

const NAMES = [...INHERITED_NAMES, 'length', 'then', 'toJSON', 'x', 'a b', 'é', '0', '1', ''];

const open = (dir: string): OpenedEngine => openStoredEngine(dir, { engine: { clock: new VirtualClock(T0) } });

/** Canonical EJSON: own keys in order, values with their BSON types. */
const canonical = (doc: unknown): string => EJSON.stringify(doc, { relaxed: false });

function allDocs(engine: Engine, coll: string): Document[] {
  const r = engine.runCommand('t', { find: coll, batchSize: 1_000_000 });
  return (r.cursor as Document).firstBatch as Document[];
}

describe('stored documents keep fields named __proto__ (issue 27 item 1)', () => {
  it('the issue: insert {_id: 1, __proto__: 5, x: 1}, reopen: findOne finds it with its three fields', () => {
    const dir = tmpDir();
    let o = open(dir);
    o.engine.runCommand('t', { insert: 'p', documents: [JSON.parse('{"_id": 1, "__proto__": 5, "x": 1}')] });
    assert.equal(EJSON.stringify(allDocs(o.engine, 'p')[0]), '{"_id":1,"__proto__":5,"x":1}');
    closeStoredEngine(o);
    o = open(dir);
    const found = (o.engine.runCommand('t', { find: 'p', filter: { _id: 1 } }).cursor as Document)
      .firstBatch as Document[];
    assert.equal(found.length, 1);
    assert.equal(EJSON.stringify(found[0]), '{"_id":1,"__proto__":5,"x":1}');
    assert.equal(o.engine.runCommand('t', { count: 'p' }).n, 1);
    closeStoredEngine(o);
  });

  it('EJSON export and import keep __proto__ and inherited names (indexes on them too)', () => {
    const engine = new Engine({ clock: new VirtualClock(T0) });
    const doc = JSON.parse(
      '{"_id": 1, "__proto__": {"__proto__": 2}, "constructor": [{"__proto__": 3}], "toString": 4}',
    ) as Document;
    engine.runCommand('t', { insert: 'p', documents: [doc, { _id: 2 }] });
    engine.runCommand('t', {
      createIndexes: 'p',
      indexes: [
        { key: JSON.parse('{"__proto__.__proto__": 1}') as Document, name: 'pp' },
        { key: { toString: 1 }, name: 'ts' },
      ],
    });
    const text = exportDatabaseText(engine, 't');
    const other = new Engine({ clock: new VirtualClock(T0) });
    importDatabaseText(other, text, 'u');
    const back = (other.runCommand('u', { find: 'p', filter: { _id: 1 } }).cursor as Document).firstBatch as Document[];
    assertPlain(back, 'imported');
    assert.equal(EJSON.stringify(back[0]), EJSON.stringify(doc));
    const keys = ((other.runCommand('u', { listIndexes: 'p' }).cursor as Document).firstBatch as Document[]).map((i) =>
      EJSON.stringify(i.key as Document),
    );
    assert.deepEqual(keys, ['{"_id":1}', '{"__proto__.__proto__":1}', '{"toString":1}']);
    const viaIndex = (other.runCommand('u', { find: 'p', filter: { toString: null }, hint: 'ts' }).cursor as Document)
      .firstBatch as Document[];
    assert.deepEqual(
      viaIndex.map((d) => d._id),
      [2],
    );
  });

  it('storableDocument / documentFromStorage keep __proto__ at every level', () => {
    const doc = JSON.parse('{"_id": 1, "__proto__": {"__proto__": [{"__proto__": 1}]}, "constructor": 2}') as Document;
    const stored = storableDocument(doc);
    assert.deepEqual(Object.keys(stored), ['_id', '__proto__', 'constructor']);
    assertPlain(stored, 'stored');
    const back = documentFromStorage(BSON.deserialize(BSON.serialize(stored), { promoteValues: false }));
    assertPlain(back, 'back');
    assert.equal(EJSON.stringify(back), '{"_id":1,"__proto__":{"__proto__":[{"__proto__":1}]},"constructor":2}');
  });

  it('bson 7 itself keeps __proto__ both ways (serialize and deserialize, promoteValues on and off)', () => {
    const bytes = BSON.serialize(JSON.parse('{"__proto__": {"a": 1}, "n": {"__proto__": 2}}') as Document);
    for (const promoteValues of [true, false]) {
      const back = BSON.deserialize(bytes, { promoteValues });
      assert.deepEqual(Object.keys(back), ['__proto__', 'n']);
      assertPlain(back, 'back');
      assert.ok(Object.prototype.hasOwnProperty.call(back.n, '__proto__'));
    }
  });

  it('a flat batch whose shape names __proto__ (a file not written by this writer) decodes it as a field', () => {
    const writer = new FlatBatchWriter();
    const doc = { _id: 1, proto: 5, constructor: 'c' } as Document;
    writer.add(doc, flatFields(doc)!);
    const record = writer.take();
    (record.k as string[][])[0][1] = '__proto__';
    const [back] = decodeFlatBatch(BSON.deserialize(BSON.serialize(record), { promoteValues: false }));
    assertPlain(back, 'back');
    assert.equal(EJSON.stringify(back), '{"_id":1,"__proto__":5,"constructor":"c"}');
  });

  it('flat batches hold inherited names other than __proto__ as ordinary fields', () => {
    const writer = new FlatBatchWriter();
    const doc = JSON.parse(
      '{"_id": 1, "constructor": 1, "toString": "s", "valueOf": null, "hasOwnProperty": true}',
    ) as Document;
    const fields = flatFields(doc);
    assert.deepEqual(fields, ['_id', 'constructor', 'toString', 'valueOf', 'hasOwnProperty']);
    writer.add(doc, fields);
    const [back] = decodeFlatBatch(writer.take());
    assertPlain(back, 'back');
    assert.equal(canonical(back), canonical(doc));
  });
});

// ---- property test -------------------------------------------------------------------------------

type Rand = () => number;
const pick = <T>(rand: Rand, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];

function randomName(rand: Rand): string {
  if (rand() < 0.6) return pick(rand, NAMES);
  const alphabet = 'abcXYZ_-é😀 ';
  let s = '';
  const n = 1 + Math.floor(rand() * 4);
  for (let i = 0; i < n; i++) s += pick(rand, [...alphabet]);
  return s;
}

/** A value a flat batch can hold (double, string, ObjectId, date, boolean, null). */
function flatValue(rand: Rand): unknown {
  switch (Math.floor(rand() * 6)) {
    case 0:
      return Math.floor(rand() * 1000) / 4;
    case 1:
      return pick(rand, ['', 'x', 'constructor', '__proto__', 'é😀']);
    case 2:
      return new ObjectId(
        Math.floor(rand() * 2 ** 31)
          .toString(16)
          .padStart(24, '0'),
      );
    case 3:
      return new Date(T0 + Math.floor(rand() * 1e9));
    case 4:
      return rand() < 0.5;
    default:
      return null;
  }
}

function randomValue(rand: Rand, depth: number): unknown {
  const r = rand();
  if (depth >= 4 || r < 0.5) {
    switch (Math.floor(rand() * 5)) {
      case 0:
        return new Int32(Math.floor(rand() * 100) - 50);
      case 1:
        return Long.fromNumber(Math.floor(rand() * 1e6));
      case 2:
        return Decimal128.fromString(String(Math.floor(rand() * 1000) / 10));
      default:
        return flatValue(rand);
    }
  }
  if (r < 0.75) return randomObject(rand, depth + 1, 4);
  const n = Math.floor(rand() * 4);
  return Array.from({ length: n }, () => randomValue(rand, depth + 1));
}

function randomObject(rand: Rand, depth: number, maxFields: number): Document {
  const out: Document = {};
  const n = Math.floor(rand() * (maxFields + 1));
  for (let i = 0; i < n; i++) {
    const name = randomName(rand);
    if (name === '_id') continue;
    setField(out, name, randomValue(rand, depth));
  }
  return out;
}

/** A document: flat ones (snapshot flat batches) half the time, else nested and typed. */
function randomDocument(rand: Rand, id: number): Document {
  const doc: Document = { _id: id };
  const flat = rand() < 0.5;
  const n = Math.floor(rand() * 6);
  for (let i = 0; i < n; i++) {
    const name = randomName(rand);
    setField(doc, name, flat ? flatValue(rand) : randomValue(rand, 1));
  }
  return doc;
}

/** Canonical EJSON by _id, as the engine shows them; every document plain all the way down. */
function state(engine: Engine, where: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const doc of allDocs(engine, 'docs')) {
    assertPlain(doc, `${where} _id ${String(doc._id)}`);
    out.set(doc._id as number, canonical(doc));
  }
  return out;
}

function assertSameState(engine: Engine, model: Map<number, string>, where: string): void {
  const got = state(engine, where);
  assert.deepEqual(
    [...got.keys()].sort((a, b) => a - b),
    [...model.keys()].sort((a, b) => a - b),
    `${where}: the same _ids`,
  );
  for (const [id, text] of model) {
    assert.equal(got.get(id), text, `${where}: document ${id}`);
    const one = (engine.runCommand('t', { find: 'docs', filter: { _id: id } }).cursor as Document)
      .firstBatch as Document[];
    assert.equal(one.length, 1, `${where}: find by _id ${id}`);
    assert.equal(canonical(one[0]), text, `${where}: find by _id ${id}`);
  }
  assert.equal(engine.runCommand('t', { count: 'docs' }).n, model.size, `${where}: count`);
}

describe('property: random field names survive reopen and compaction', () => {
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    it(`seed ${seed}: journal, reopen, compaction + reopen, later writes + reopen give back the same documents`, async () => {
      const rand = prng(0xf1e1d + seed);
      const dir = tmpDir();
      try {
        let o = open(dir);
        const model = new Map<number, string>();
        let nextId = 0;
        const write = (engine: Engine, count: number): void => {
          for (let i = 0; i < count; i++) {
            const r = rand();
            const ids = [...model.keys()];
            if (r < 0.7 || ids.length === 0) {
              const doc = randomDocument(rand, nextId++);
              const res = engine.runCommand('t', { insert: 'docs', documents: [doc] });
              assert.equal(res.n, 1, EJSON.stringify(res));
              model.set(doc._id as number, canonical(doc));
            } else if (r < 0.85) {
              const id = pick(rand, ids);
              const doc = randomDocument(rand, id);
              const res = engine.runCommand('t', { update: 'docs', updates: [{ q: { _id: id }, u: doc }] });
              assert.equal(res.n, 1, EJSON.stringify(res));
              model.set(id, canonical(doc));
            } else if (r < 0.95) {
              // $set one field: replaced in place when present, else appended.
              const id = pick(rand, ids);
              const name = randomName(rand);
              if (name === '_id' || name === '') continue;
              const value = randomValue(rand, 1);
              const before = EJSON.parse(model.get(id)!, { relaxed: false }) as Document;
              const res = engine.runCommand('t', {
                update: 'docs',
                updates: [
                  {
                    q: { _id: id },
                    u: {
                      $set: ((): Document => {
                        const s: Document = {};
                        setField(s, name, value);
                        return s;
                      })(),
                    },
                  },
                ],
              });
              assert.equal(res.n, 1, EJSON.stringify(res));
              setField(before, name, value);
              model.set(id, canonical(before));
            } else {
              const id = pick(rand, ids);
              engine.runCommand('t', { delete: 'docs', deletes: [{ q: { _id: id }, limit: 1 }] });
              model.delete(id);
            }
          }
        };
        write(o.engine, 300);
        assertSameState(o.engine, model, 'as written');
        closeStoredEngine(o);

        o = open(dir);
        assertSameState(o.engine, model, 'reopened from the journal');
        await compact(o.engine, o.store);
        closeStoredEngine(o);

        o = open(dir);
        assertSameState(o.engine, model, 'reopened from the snapshot');
        write(o.engine, 100);
        closeStoredEngine(o);

        o = open(dir);
        assertSameState(o.engine, model, 'reopened from snapshot + journal');
        await compact(o.engine, o.store);
        write(o.engine, 20);
        closeStoredEngine(o);

        o = open(dir);
        assertSameState(o.engine, model, 'reopened after a second compaction');
        closeStoredEngine(o);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
