/**
 * count answered from index entries alone must give what counting the matched documents gives:
 * checked against the same filter wrapped in $and (which always takes the ordinary path).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Decimal128, Int32, Long } from 'bson';
import { Engine, type Document } from '../../../../src/engine';
import { coveredCount } from '../../../../src/engine/query/covered-count';
import { prng } from '../../helpers/prng';

function setup() {
  const engine = new Engine();
  const c = engine.db('t').collection('c');
  const r = prng(11);
  const docs: Document[] = [];
  for (let i = 0; i < 600; i++) {
    const k = Math.floor(r() * 40);
    const v = [
      k,
      new Int32(k),
      Long.fromNumber(k),
      k + 0.5,
      `s${k}`,
      new Date(k * 1000),
      k % 2 === 0,
      null,
      Number.NaN,
      Decimal128.fromString(String(k)),
    ][i % 10];
    const doc: Document = { n: i, a: v, m: i % 7 === 0 ? [k, k + 1] : k, s: k };
    if (i % 11 === 0) delete doc.a;
    docs.push(doc);
  }
  c.insertMany(docs);
  c.createIndex({ a: 1 });
  c.createIndex({ m: 1 });
  c.createIndex({ s: 1 }, { sparse: true });
  return { engine, c };
}

const filters: Document[] = [
  { a: 5 },
  { a: new Int32(7) },
  { a: Long.fromNumber(9) },
  { a: 's12' },
  { a: new Date(3000) },
  { a: true },
  { a: false },
  { a: { $gt: 10 } },
  { a: { $gte: 10, $lt: 20 } },
  { a: { $lte: 's2' } },
  { a: { $gt: new Date(10_000) } },
  { a: { $in: [1, 2, 's3', new Date(4000)] } },
  { a: { $in: [1, 1.0, new Int32(1)] } },
  { a: { $eq: 12.5 } },
  { a: null },
  { a: Number.NaN },
  { a: { $gt: Number.NaN } },
  { a: { $ne: 3 } },
  { a: Decimal128.fromString('4.0') },
  { m: 3 },
  { m: { $gt: 30 } },
  { s: { $gte: 20 } },
  { s: 4 },
];

describe('count from index entries (COUNT_SCAN)', () => {
  it('gives the same counts as the document path, with skip and limit', () => {
    const { engine, c } = setup();
    for (const filter of filters) {
      const expected = c.countDocuments({ $and: [filter] });
      assert.equal(c.countDocuments(filter), expected, JSON.stringify(filter));
      const reply = engine.runCommand('t', { count: 'c', query: filter, skip: 2, limit: 5 });
      assert.equal(reply.n, Math.min(5, Math.max(0, expected - 2)), `skip/limit ${JSON.stringify(filter)}`);
    }
  });

  it('is used only where the index is exact: not for multikey, sparse, null or NaN predicates', () => {
    const { engine } = setup();
    const coll = engine.getCollection('t', 'c')!;
    assert.equal(typeof coveredCount(coll, { a: { $gte: 10, $lt: 20 } }, undefined), 'number');
    assert.equal(typeof coveredCount(coll, { a: 's12' }, undefined), 'number');
    for (const filter of [
      { m: 3 },
      { s: 4 },
      { a: null },
      { a: Number.NaN },
      { a: { $ne: 3 } },
      { a: 1, n: 2 },
      { a: { $in: [1, 1.0] } },
    ]) {
      assert.equal(coveredCount(coll, filter, undefined), undefined, JSON.stringify(filter));
    }
  });
});
