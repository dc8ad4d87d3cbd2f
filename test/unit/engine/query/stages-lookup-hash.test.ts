/**
 * $lookup's hash join (stages/hash-join.ts): with no index on the foreign field, the equality part
 * is answered from a hash table of the foreign collection. It must find exactly the documents that
 * the query `{foreignField: {$eq: value}}` finds, in the collection's order: checked against that
 * query run document by document, on random documents of mixed types.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Decimal128, Int32, Long } from 'bson';
import { Engine, type Document } from '../../../../src/engine';
import { compileFilter } from '../../../../src/engine/query/matcher';
import { equalityFilter } from '../../../../src/engine/query/stages/lookup';

const DB = 'app';

function agg(engine: Engine, coll: string, pipeline: Document[]): Document[] {
  const reply = engine.runCommand(DB, { aggregate: coll, pipeline, cursor: { batchSize: 100_000 } });
  return (reply.cursor as Document).firstBatch as Document[];
}

/** A small deterministic generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Values that are equal across types (1, Int32 1, Long 1, 1.0, Decimal 1), and ones that are not. */
function randomValue(r: () => number, depth = 0): unknown {
  const pick = Math.floor(r() * 14);
  const n = Math.floor(r() * 4);
  switch (pick) {
    case 0:
      return n;
    case 1:
      return new Int32(n);
    case 2:
      return Long.fromNumber(n);
    case 3:
      return Decimal128.fromString(String(n));
    case 4:
      return n + 0.5;
    case 5:
      return `s${n}`;
    case 6:
      return null;
    case 7:
      return undefined; // the field is left out
    case 8:
      return new Date(Date.UTC(2026, 0, n + 1));
    case 9:
      return { x: n };
    case 10:
      return depth < 2 ? [randomValue(r, depth + 1), randomValue(r, depth + 1)] : n;
    case 11:
      return depth < 2 ? [] : n;
    case 12:
      return n % 2 === 0;
    default:
      return NaN;
  }
}

function randomDoc(r: () => number, id: number, field: string): Document {
  const doc: Document = { _id: id };
  const shape = r();
  const v = randomValue(r);
  if (v === undefined) return doc;
  if (shape < 0.7) doc[field] = v;
  else if (shape < 0.85) doc.sub = { [field]: v };
  else doc.sub = [{ [field]: v }, { [field]: randomValue(r) }, 5];
  return doc;
}

/** What the query path finds for each local document, in the foreign collection's order. */
function expected(local: Document[], foreign: Document[], localField: string, foreignField: string): unknown[][] {
  return local.map((doc) => {
    const matches = compileFilter(equalityFilter(doc, localField.split('.'), foreignField));
    return foreign.filter((f) => matches(f)).map((f) => f._id);
  });
}

describe('$lookup hash join', () => {
  for (const [localField, foreignField] of [
    ['k', 'k'],
    ['k', 'sub.k'],
    ['sub.k', 'k'],
    ['sub.k', 'sub.k'],
  ]) {
    it(`finds what {${foreignField}: {$eq: value}} finds, on random mixed values (${localField} → ${foreignField})`, () => {
      for (let seed = 1; seed <= 15; seed++) {
        const r = rng(seed * 7919);
        const local = Array.from({ length: 40 }, (_, i) => randomDoc(r, i, 'k'));
        const foreign = Array.from({ length: 60 }, (_, i) => randomDoc(r, 1000 + i, 'k'));
        const engine = new Engine();
        engine.runCommand(DB, { insert: 'local', documents: local });
        engine.runCommand(DB, { insert: 'foreign', documents: foreign });
        const got = agg(engine, 'local', [
          { $lookup: { from: 'foreign', localField, foreignField, as: 'j' } },
          { $sort: { _id: 1 } },
        ]).map((d) => (d.j as Document[]).map((f) => f._id));
        // The oracle reads the documents back as stored (an undefined value is stored as null).
        const stored = (coll: string) => agg(engine, coll, [{ $sort: { _id: 1 } }]);
        assert.deepEqual(got, expected(stored('local'), stored('foreign'), localField, foreignField), `seed ${seed}`);
        engine.close();
      }
    });
  }

  it('gives the same joined documents with and without an index on the foreign field', () => {
    const r = rng(42);
    const local = Array.from({ length: 80 }, (_, i) => randomDoc(r, i, 'k'));
    const foreign = Array.from({ length: 120 }, (_, i) => randomDoc(r, 1000 + i, 'k'));
    const engine = new Engine();
    engine.runCommand(DB, { insert: 'local', documents: local });
    engine.runCommand(DB, { insert: 'foreign', documents: foreign });
    const pipeline = [
      { $lookup: { from: 'foreign', localField: 'k', foreignField: 'k', as: 'j' } },
      { $sort: { _id: 1 } },
    ];
    const hashed = agg(engine, 'local', pipeline);
    engine.runCommand(DB, { createIndexes: 'foreign', indexes: [{ key: { k: 1 }, name: 'k_1' }] });
    const indexed = agg(engine, 'local', pipeline);
    const sortedIds = (docs: Document[]) => docs.map((d) => (d.j as Document[]).map((f) => f._id).sort());
    assert.deepEqual(sortedIds(hashed), sortedIds(indexed));
  });

  it("applies a sub-pipeline and its leading $match to the hash join's documents", () => {
    const engine = new Engine();
    engine.runCommand(DB, {
      insert: 'orders',
      documents: [
        { _id: 1, c: 1 },
        { _id: 2, c: 2 },
      ],
    });
    engine.runCommand(DB, {
      insert: 'lines',
      documents: [
        { _id: 10, c: 1, qty: 5 },
        { _id: 11, c: 1, qty: 0 },
        { _id: 12, c: 2, qty: 7 },
        { _id: 13, c: 1, qty: 9 },
      ],
    });
    const out = agg(engine, 'orders', [
      {
        $lookup: {
          from: 'lines',
          localField: 'c',
          foreignField: 'c',
          pipeline: [{ $match: { qty: { $gt: 0 } } }, { $sort: { qty: -1 } }, { $project: { _id: 1 } }],
          as: 'j',
        },
      },
    ]);
    assert.deepEqual(out, [
      { _id: 1, c: 1, j: [{ _id: 13 }, { _id: 10 }] },
      { _id: 2, c: 2, j: [{ _id: 12 }] },
    ]);
  });

  it('sees the foreign collection as it is at each run (the table is built per run)', () => {
    const engine = new Engine();
    engine.runCommand(DB, { insert: 'l', documents: [{ _id: 1, k: 1 }] });
    engine.runCommand(DB, { insert: 'f', documents: [{ _id: 1, k: 1 }] });
    const pipeline = [{ $lookup: { from: 'f', localField: 'k', foreignField: 'k', as: 'j' } }];
    assert.equal((agg(engine, 'l', pipeline)[0].j as Document[]).length, 1);
    engine.runCommand(DB, { insert: 'f', documents: [{ _id: 2, k: 1.0 }] });
    assert.equal((agg(engine, 'l', pipeline)[0].j as Document[]).length, 2);
  });
});
