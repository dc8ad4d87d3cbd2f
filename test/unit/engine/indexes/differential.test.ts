/**
 * Differential test: thousands of random documents with mixed BSON types go into a collection with
 * an index; index order, indexed range queries and sorts are checked against a brute-force answer
 * computed with a comparator written here, independently of the engine's.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Decimal128, Int32, Long, MaxKey, MinKey, ObjectId } from 'bson';
import { Engine } from '../../../../src/engine';
import { prng } from '../../helpers/prng';

// ---- an independent model of MongoDB's order for the types generated below -------------------
function rank(v: unknown): number {
  if (v === null || v === undefined) return 2;
  if (typeof v === 'number') return 3;
  if (typeof v === 'string') return 4;
  if (typeof v === 'boolean') return 9;
  if (v instanceof Date) return 10;
  if (Array.isArray(v)) return 6;
  const t = (v as { _bsontype?: string })._bsontype;
  if (t === 'Int32' || t === 'Long' || t === 'Decimal128') return 3;
  if (t === 'ObjectId') return 8;
  if (t === 'MinKey') return 1;
  if (t === 'MaxKey') return 13;
  return 5; // plain object
}

function num(v: unknown): number {
  return typeof v === 'number' ? v : Number(String(v));
}

function model(a: unknown, b: unknown): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 3:
      return Math.sign(num(a) - num(b));
    case 4:
      return Math.sign(Buffer.compare(Buffer.from(a as string, 'utf8'), Buffer.from(b as string, 'utf8')));
    case 5:
      return Math.sign(num((a as { x: number }).x) - num((b as { x: number }).x));
    case 8:
      return (a as ObjectId).toHexString() < (b as ObjectId).toHexString()
        ? -1
        : (a as ObjectId).toHexString() > (b as ObjectId).toHexString()
          ? 1
          : 0;
    case 9:
      return a === b ? 0 : a ? 1 : -1;
    case 10:
      return Math.sign((a as Date).getTime() - (b as Date).getTime());
    default:
      return 0;
  }
}

// ---- random documents ------------------------------------------------------------------------

function randomScalar(r: () => number): unknown {
  const n = Math.floor(r() * 200) - 100;
  switch (Math.floor(r() * 12)) {
    case 0:
      return n + 0.5;
    case 1:
      return new Int32(n);
    case 2:
      return Long.fromNumber(n * 3);
    case 3:
      return Decimal128.fromString(`${n}.25`);
    case 4:
      return ['', 'a', 'ab', 'b', 'Z', 'é', '\u{1F600}', 'zz'][Math.floor(r() * 8)];
    case 5:
      return new Date(Date.UTC(2026, 0, 1) + n * 3600_000);
    case 6:
      return new ObjectId(
        Math.floor(r() * 0xffffff)
          .toString(16)
          .padStart(24, '0'),
      );
    case 7:
      return r() < 0.5;
    case 8:
      return null;
    case 9:
      return { x: n };
    case 10:
      return r() < 0.5 ? new MinKey() : new MaxKey();
    default:
      return n;
  }
}

function randomDoc(r: () => number, i: number): Record<string, unknown> {
  const roll = r();
  if (roll < 0.05) return { _id: i };
  if (roll < 0.2) {
    const len = 1 + Math.floor(r() * 4);
    return { _id: i, v: Array.from({ length: len }, () => randomScalar(r)) };
  }
  return { _id: i, v: randomScalar(r) };
}

function values(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [v];
}

describe('differential: index scans and sorts against a brute-force model', () => {
  const r = prng(20261121);
  const docs = Array.from({ length: 4000 }, (_, i) => randomDoc(r, i));
  const engine = new Engine();
  const coll = engine.db('diff').collection('mixed');
  coll.createIndex({ v: 1 });
  coll.insertMany(docs);
  const plain = engine.db('diff').collection('plain');
  plain.insertMany(docs);

  test('index entries are in BSON order by the independent comparator', () => {
    const index = engine.getCollection('diff', 'mixed')!.indexes.get('v_1')!;
    const keys = [...index.tree.keys()].map((k) => index.valuesOf(k)[0]);
    assert.ok(keys.length > docs.length, 'multikey documents add entries');
    for (let i = 1; i < keys.length; i++) {
      assert.ok(
        model(keys[i - 1], keys[i]) <= 0,
        `entry ${i - 1} (${String(keys[i - 1])}) <= entry ${i} (${String(keys[i])})`,
      );
    }
  });

  const probes: Array<[string, unknown, unknown]> = [
    ['numbers', -20, 35.5],
    ['strings', 'a', 'z'],
    ['dates', new Date(Date.UTC(2026, 0, 1) - 30 * 3600_000), new Date(Date.UTC(2026, 0, 1) + 10 * 3600_000)],
    ['ObjectIds', new ObjectId('000000000000000000100000'), new ObjectId('000000000000000000c00000')],
    ['mixed numeric bounds', new Int32(-50), Long.fromNumber(0)],
  ];
  for (const [label, low, high] of probes) {
    test(`range $gte/$lt on ${label} matches the brute-force answer and uses the index`, () => {
      const filter = { v: { $gte: low, $lt: high } };
      const expected = docs
        .filter(
          (d) =>
            'v' in d &&
            values(d.v).some((e) => rank(e) === rank(low) && model(e, low) >= 0) &&
            values(d.v).some((e) => rank(e) === rank(high) && model(e, high) < 0),
        )
        .map((d) => d._id)
        .sort((a, b) => (a as number) - (b as number));
      const viaIndex = coll
        .find(filter)
        .map((d) => d._id as number)
        .sort((a, b) => a - b);
      const viaScan = plain
        .find(filter)
        .map((d) => d._id as number)
        .sort((a, b) => a - b);
      assert.deepEqual(viaIndex, expected);
      assert.deepEqual(viaScan, expected);
      assert.ok(expected.length > 0, 'the probe selects something');
      const plan = coll.explain(filter).queryPlanner as Record<string, Record<string, unknown>>;
      assert.equal((plan.winningPlan.inputStage as Record<string, unknown>).stage, 'IXSCAN');
    });
  }

  test('equality on a mixed-type value finds scalars and array elements', () => {
    for (const probe of [new Int32(7), 'ab', true, null]) {
      const expected = docs
        .filter(
          (d) =>
            (probe === null && !('v' in d)) ||
            values(d.v).some((e) => rank(e) === rank(probe) && model(e, probe) === 0),
        )
        .map((d) => d._id as number)
        .sort((a, b) => a - b);
      const got = coll
        .find({ v: probe })
        .map((d) => d._id as number)
        .sort((a, b) => a - b);
      assert.deepEqual(got, expected, `v == ${String(probe)}`);
    }
  });

  test('sort ascending orders by the smallest element of arrays, descending by the largest', () => {
    const sortKey = (d: Record<string, unknown>, dir: 1 | -1) => {
      if (!('v' in d)) return null;
      const vs = values(d.v);
      return vs.reduce((m, e) => (model(e, m) * dir < 0 ? e : m));
    };
    for (const dir of [1, -1] as const) {
      const got = coll.find({}, { sort: { v: dir } });
      assert.equal(got.length, docs.length);
      for (let i = 1; i < got.length; i++) {
        const c = model(sortKey(got[i - 1], dir), sortKey(got[i], dir));
        assert.ok(c * dir <= 0, `sort ${dir}: ${String(got[i - 1]._id)} before ${String(got[i]._id)}`);
      }
    }
  });
});
