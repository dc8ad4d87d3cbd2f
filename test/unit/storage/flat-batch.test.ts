/**
 * Flat snapshot batches (engine/storage/flat-batch.ts) give back exactly what was written, through
 * the same BSON framing the snapshot file uses: every value with its JS type and bits (-0, NaN,
 * Invalid Date, astral characters, 32/33-character strings on both sides of the short-string path),
 * field order, awkward field names, shapes interleaved in one batch. Documents with anything else
 * are refused, never written approximately, and damaged bytes raise instead of inventing documents.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BSON, Int32, Long, ObjectId } from 'bson';
import { decodeFlatBatch, FlatBatchWriter, flatFields } from '../../../src/engine/storage/flat-batch';
import type { Document } from '../../../src/engine';
import { prng } from '../helpers/prng';

const NAMES = [
  '_id',
  'createdAt',
  'n',
  'name',
  'constructor',
  '0',
  '10',
  'a"b',
  'back\\slash',
  'line\u2028sep',
  'é',
  '',
  '$x',
  'a.b',
];

function randomString(r: () => number): string {
  const pieces = [
    '',
    'a',
    'user',
    'é',
    '𝄞',
    '\u2028',
    '"',
    '\\',
    'x'.repeat(31),
    'y'.repeat(32),
    'z'.repeat(33),
    '中文',
    '\n',
  ];
  let s = '';
  const n = Math.floor(r() * 4);
  for (let i = 0; i < n; i++) s += pieces[Math.floor(r() * pieces.length)];
  return s;
}

function randomValue(r: () => number): unknown {
  switch (Math.floor(r() * 9)) {
    case 0:
      return [0, -0, 1.5, NaN, Infinity, -Infinity, 2 ** 53 + 2, -1e-310, Number.MAX_VALUE][Math.floor(r() * 9)];
    case 1:
      return Math.floor(r() * 1e6);
    case 2:
      return randomString(r);
    case 3:
      return new ObjectId();
    case 4:
      return new Date(
        [0, -1, 8.64e15, -8.64e15, Date.UTC(2026, 0, 1) + Math.floor(r() * 1e10), NaN][Math.floor(r() * 6)],
      );
    case 5:
      return r() < 0.5;
    case 6:
      return null;
    default:
      return r() * 1e9;
  }
}

function randomDoc(r: () => number): Document {
  const doc: Document = {};
  const n = 1 + Math.floor(r() * 6);
  for (let i = 0; i < n; i++) doc[NAMES[Math.floor(r() * NAMES.length)]] = randomValue(r);
  return doc;
}

/** Exact equality: same keys in the same order, same JS types, same bits. */
function assertExact(actual: Document, expected: Document, where: string): void {
  assert.deepEqual(Object.keys(actual), Object.keys(expected), `${where}: field order`);
  assert.equal(Object.getPrototypeOf(actual), Object.prototype, `${where}: a plain object`);
  for (const key of Object.keys(expected)) {
    const a = actual[key];
    const e = expected[key];
    if (e instanceof Date) {
      assert.ok(a instanceof Date, `${where}.${key}: a Date`);
      assert.ok(Object.is(a.getTime(), e.getTime()), `${where}.${key}: ${a.getTime()} vs ${e.getTime()}`);
    } else if (e instanceof ObjectId) {
      assert.ok(a instanceof ObjectId, `${where}.${key}: an ObjectId`);
      assert.equal(a.toHexString(), e.toHexString());
    } else {
      assert.ok(Object.is(a, e), `${where}.${key}: ${String(a)} vs ${String(e)}`);
    }
  }
}

/** Through a snapshot frame's round trip: BSON out, BSON in unpromoted (as the file store reads it). */
function viaBson(record: Document): Document {
  return BSON.deserialize(BSON.serialize(record), { promoteValues: false });
}

describe('flat snapshot batches', () => {
  it('give back every document exactly, in order, with shapes interleaved in one batch', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const r = prng(seed);
      const docs = Array.from({ length: 300 }, () => randomDoc(r));
      const writer = new FlatBatchWriter();
      for (const doc of docs) {
        const fields = flatFields(doc);
        assert.ok(fields, `flat: ${Object.keys(doc).join(',')}`);
        writer.add(doc, fields);
      }
      assert.equal(writer.count, docs.length);
      const record = writer.take();
      assert.ok((record.k as unknown[]).length > 10, 'many shapes in one batch');
      const back = decodeFlatBatch(viaBson(record));
      assert.equal(back.length, docs.length);
      back.forEach((doc, i) => assertExact(doc, docs[i], `seed ${seed} doc ${i}`));
      assert.equal(writer.count, 0, 'take empties the writer');
      assert.deepEqual(decodeFlatBatch(viaBson(writer.take())), []);
    }
  });

  it("fieldsOf answers as flatFields does, reusing the previous document's field list only when it fits", () => {
    const writer = new FlatBatchWriter();
    const seq: Document[] = [
      { a: 1, b: 'x' },
      { a: 2, b: 'y' },
      { a: 3, b: new Int32(1) },
      { a: 4, b: 'z', c: true },
      { a: 5 },
      { b: 'w', a: 6 },
      { a: 7, b: '\ud800' },
      { a: 8, b: null },
    ];
    let previous: string[] | undefined;
    for (const doc of seq) {
      const got = writer.fieldsOf(doc);
      assert.deepEqual(got, flatFields(doc), JSON.stringify(Object.keys(doc)));
      if (got) {
        if (previous && previous.join() === got.join()) assert.equal(got, previous, 'the same list object, no new one');
        writer.add(doc, got);
        previous = got;
      }
    }
    const back = decodeFlatBatch(viaBson(writer.take()));
    assert.deepEqual(
      back.map((d) => d.a),
      [1, 2, 4, 5, 6, 8],
    );
    assert.deepEqual(Object.keys(back[4]), ['b', 'a']);
  });

  it('a decoded document is its own object: changing one changes no other', () => {
    const writer = new FlatBatchWriter();
    for (let i = 0; i < 3; i++) {
      const doc = { _id: i, at: new Date(i) };
      writer.add(doc, flatFields(doc)!);
    }
    const [a, b] = decodeFlatBatch(viaBson(writer.take()));
    (a.at as Date).setTime(99);
    a._id = 'changed';
    assert.equal(b._id, 1);
    assert.equal((b.at as Date).getTime(), 1);
  });

  it('refuse documents they cannot hold exactly (typed numbers, nested values, lone surrogates, __proto__)', () => {
    const refused: Document[] = [
      { a: new Int32(1) },
      { a: Long.fromNumber(1) },
      { a: { b: 1 } },
      { a: [1] },
      { a: undefined },
      { a: /x/ },
      { a: 'ok', b: '\ud800' },
      { a: '\udc00x' },
      JSON.parse('{"__proto__": 1}') as Document,
      { 'a\0b': 1 },
      Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`f${i}`, i])),
    ];
    for (const doc of refused) assert.equal(flatFields(doc), undefined, JSON.stringify(Object.keys(doc)));
    assert.deepEqual(flatFields({ a: '𝄞', b: 'é' }), ['a', 'b'], 'a paired surrogate is well formed');
  });

  it('damaged bytes raise an error, never made-up documents', () => {
    const writer = new FlatBatchWriter();
    const doc = { _id: new ObjectId(), name: 'user1', at: new Date(5) };
    for (let i = 0; i < 4; i++) writer.add(doc, flatFields(doc)!);
    const record = viaBson(writer.take());
    const bytes = (record.flat as { buffer: Uint8Array }).buffer;
    const whole = bytes.slice();
    for (let cut = 1; cut < whole.length; cut++) {
      const cutRecord = { ...record, flat: whole.subarray(0, cut) };
      let docs: Document[] | undefined;
      try {
        docs = decodeFlatBatch(cutRecord);
      } catch (err) {
        assert.match((err as Error).message, /flat batch/);
        continue;
      }
      // A cut on a document boundary is a shorter, valid batch: whole documents only.
      assert.ok(docs.length < 4);
      docs.forEach((d, i) => assertExact(d, doc, `cut ${cut} doc ${i}`));
    }
    const badTag = whole.slice();
    badTag[1] = 99;
    assert.throws(() => decodeFlatBatch({ ...record, flat: badTag }), /unknown value tag 99/);
    const badShape = whole.slice();
    badShape[0] = 7;
    assert.throws(() => decodeFlatBatch({ ...record, flat: badShape }), /unknown shape 7/);
  });
});
