/**
 * Building an index in one pass (createIndex on a full collection, restores) must give exactly the
 * tree that inserting the entries one by one gives: same entries, same order, a valid B+ tree by
 * sorted-btree's own check, and a tree that keeps working under later inserts and deletes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import BTree from 'sorted-btree';
import { Decimal128, Int32, Long } from 'bson';
import { Engine, type Document } from '../../../../src/engine';
import { deleteSortedInBulk, loadSorted, takeRangeInBulk } from '../../../../src/engine/indexes/btree-bulk';
import { entryOrder } from '../../../../src/engine/indexes/entry-order';
import { entryComparator, entryOf } from '../../../../src/engine/indexes/key-order';
import { prng } from '../../helpers/prng';

const cmp = (a: number, b: number) => a - b;

function entriesOf(tree: { keysArray(): unknown[] }): unknown[] {
  return tree.keysArray();
}

describe('bulk load of a B+ tree', () => {
  for (const n of [1, 2, 31, 32, 33, 64, 65, 1000, 1025, 40_000]) {
    it(`${n.toLocaleString('en-US')} sorted keys give a valid tree holding them all, in order`, () => {
      const keys = Array.from({ length: n }, (_, i) => i * 2);
      const tree = new BTree<number, string>(undefined, cmp);
      loadSorted(
        tree,
        [...keys],
        keys.map((k) => `v${k}`),
      );
      tree.checkValid(true);
      assert.equal(tree.size, n);
      assert.deepEqual(tree.keysArray(), keys);
      assert.equal(tree.get(keys[n >> 1]), `v${keys[n >> 1]}`);
      // Later writes split and merge the built nodes as the library does its own.
      for (let i = 0; i < n; i += 3) tree.set(i * 2 + 1, 'odd');
      for (let i = 0; i < n; i += 2) tree.delete(i * 2);
      tree.checkValid(true);
      const expected = [
        ...keys.filter((_, i) => i % 2 === 1),
        ...Array.from({ length: Math.ceil(n / 3) }, (_, j) => j * 3 * 2 + 1),
      ].sort(cmp);
      assert.deepEqual(tree.keysArray(), expected);
    });
  }

  it('fills a tree that already holds entries one by one instead (still correct)', () => {
    const tree = new BTree<number, number>([[5, 5]], cmp);
    loadSorted(tree, [1, 2, 3], [1, 2, 3]);
    tree.checkValid(true);
    assert.deepEqual(tree.keysArray(), [1, 2, 3, 5]);
  });
});

describe('bulk range deletion', () => {
  it('takeRangeInBulk deletes and returns what a capped walk of the range finds, leaves a valid tree, over random trees, ranges and caps', () => {
    const r = prng(99);
    for (let round = 0; round < 400; round++) {
      const n = Math.floor(r() * 3000);
      const keys = new Set<number>();
      while (keys.size < n) keys.add(Math.floor(r() * 10_000));
      const a = new BTree<number, number>(undefined, cmp, 4 + Math.floor(r() * 60));
      const b = new BTree<number, number>(undefined, cmp, a.maxNodeSize);
      for (const k of keys) {
        a.set(k, -k);
        b.set(k, -k);
      }
      // Ranges from a prefix (what TTL batches delete) to anywhere, bounds present or not; caps
      // from one entry to more than the range holds.
      const low = r() < 0.5 ? -1 : Math.floor(r() * 10_000);
      const high = low + Math.floor(r() * (r() < 0.2 ? 10_000 : 500));
      const room = r() < 0.3 ? Infinity : 1 + Math.floor(r() * (r() < 0.5 ? 40 : 2000));
      const expected: number[] = [];
      b.forRange(low, high, true, (k, v) => {
        expected.push(v);
        return expected.length >= room ? { break: true } : undefined;
      });
      for (const v of expected) b.delete(-v);
      assert.deepEqual(takeRangeInBulk(a, low, high, room), expected, `round ${round}: taken values`);
      a.checkValid(true);
      assert.deepEqual(a.toArray(), b.toArray(), `round ${round}: what stays`);
      // The tree keeps working after the cut.
      for (let i = 0; i < 50; i++) {
        const k = Math.floor(r() * 10_000);
        a.set(k, -k);
        b.set(k, -k);
      }
      a.checkValid(true);
      assert.deepEqual(a.toArray(), b.toArray());
    }
  });

  it('deleteSortedInBulk deletes exactly the listed entries (absent ones and repeats passed over), leaves a valid tree', () => {
    const r = prng(98);
    for (let round = 0; round < 300; round++) {
      const n = Math.floor(r() * 3000);
      const a = new BTree<number, number>(undefined, cmp, 4 + Math.floor(r() * 60));
      const b = new BTree<number, number>(undefined, cmp, a.maxNodeSize);
      for (let i = 0; i < n; i++) {
        const k = Math.floor(r() * 10_000) * 2;
        a.set(k, i);
        b.set(k, i);
      }
      // Present keys (even), absent ones (odd), repeats, from sparse to dense batches.
      const density = r() < 0.3 ? r() * 0.01 : r();
      const doomed: number[] = [];
      for (const k of b.keysArray()) {
        if (r() < density) doomed.push(k);
        if (r() < density * 0.2) doomed.push(k + 1);
        if (r() < density * 0.1) doomed.push(k);
      }
      doomed.sort(cmp);
      let expected = 0;
      for (const k of doomed) if (b.delete(k)) expected++;
      assert.equal(deleteSortedInBulk(a, doomed), expected, `round ${round}: count`);
      a.checkValid(true);
      assert.deepEqual(a.toArray(), b.toArray(), `round ${round}`);
    }
  });

  it('deleteSortedInBulk descends only into nodes that hold a target: a sparse batch costs comparisons per target, not per leaf', () => {
    let compares = 0;
    const counting = (a: number, b: number) => {
      compares++;
      return a - b;
    };
    const tree = new BTree<number, number>(undefined, counting, 32);
    loadSorted(
      tree,
      Array.from({ length: 200_000 }, (_, i) => i),
      Array.from({ length: 200_000 }, (_, i) => i),
    );
    const doomed = Array.from({ length: 100 }, (_, i) => 1000 + i * 1990);
    compares = 0;
    assert.equal(deleteSortedInBulk(tree, doomed), 100);
    // ~6,250 leaves lie between the first and the last target; a descent per target is ~25 comparisons.
    assert.ok(compares < 100 * 40, `${compares} comparisons for 100 targets`);
    tree.checkValid(true);
    assert.equal(tree.size, 199_900);
    assert.equal(tree.has(1000), false);
    assert.equal(tree.has(1001), true);
  });

  it('deleteSortedInBulk keeps deep trees valid when whole subtrees empty and merge', () => {
    const r = prng(97);
    for (let round = 0; round < 30; round++) {
      const n = 5000 + Math.floor(r() * 20_000);
      const a = new BTree<number, number>(undefined, cmp, 4);
      const b = new BTree<number, number>(undefined, cmp, 4);
      for (let i = 0; i < n; i++) {
        a.set(i, i);
        b.set(i, i);
      }
      // Runs of consecutive keys (whole leaves and subtrees) mixed with scattered ones.
      const doomed: number[] = [];
      for (let k = 0; k < n; k++) {
        const inRun = Math.floor(k / 500) % 3 === 0;
        if (inRun ? r() < 0.97 : r() < 0.05) doomed.push(k);
      }
      for (const k of doomed) b.delete(k);
      assert.equal(deleteSortedInBulk(a, doomed), doomed.length);
      a.checkValid(true);
      assert.deepEqual(a.toArray(), b.toArray(), `round ${round}`);
    }
  });

  it('a single-key range takes that key only when present; an empty range or no room takes nothing', () => {
    const tree = new BTree<number, number>(
      [
        [1, 10],
        [3, 30],
      ],
      cmp,
    );
    assert.deepEqual(takeRangeInBulk(tree, 2, 2, 5), []);
    assert.deepEqual(takeRangeInBulk(tree, 0, 9, 0), []);
    assert.deepEqual(takeRangeInBulk(tree, 3, 3, 5), [30]);
    assert.deepEqual(tree.keysArray(), [1]);
  });

  it('takeRangeInBulk on a tree without values (leaves share one values array) goes entry by entry, with the same result', () => {
    const tree = new BTree<number, undefined>(undefined, cmp, 8);
    for (let k = 0; k < 200; k++) tree.set(k, undefined);
    const taken = takeRangeInBulk(tree, 50, 150, 60);
    assert.equal(taken.length, 60);
    tree.checkValid(true);
    assert.deepEqual(tree.keysArray(), [
      ...Array.from({ length: 50 }, (_, i) => i),
      ...Array.from({ length: 90 }, (_, i) => 110 + i),
    ]);
  });

  it('other edit walks keep their per-entry behaviour', () => {
    const tree = new BTree<number, number>(
      Array.from({ length: 100 }, (_, i) => [i, i] as [number, number]),
      cmp,
    );
    tree.editRange(0, 99, true, (k) => (k % 2 === 0 ? { delete: true } : { value: k * 10 }));
    tree.checkValid(true);
    assert.deepEqual(tree.toArray().slice(0, 3), [
      [1, 10],
      [3, 30],
      [5, 50],
    ]);
    assert.equal(tree.size, 50);
  });
});

describe('createIndex on a full collection builds the index in one pass', () => {
  function fill(seed: number): Engine {
    const r = prng(seed);
    const engine = new Engine();
    const docs: Document[] = [];
    const values = () => {
      const k = Math.floor(r() * 9);
      switch (k) {
        case 0:
          return new Date(Date.UTC(2026, 0, 1) + Math.floor(r() * 1e9));
        case 1:
          return Math.floor(r() * 50) - 25;
        case 2:
          return new Int32(Math.floor(r() * 50));
        case 3:
          return Long.fromNumber(Math.floor(r() * 50));
        case 4:
          return Decimal128.fromString(String(Math.floor(r() * 50) / 2));
        case 5:
          return `s${Math.floor(r() * 30)}`;
        case 6:
          return [Math.floor(r() * 10), Math.floor(r() * 10), 3];
        case 7:
          return null;
        default:
          return undefined;
      }
    };
    for (let i = 0; i < 3000; i++) {
      const v = values();
      const w = values();
      // One array field per document at most: a compound index refuses parallel arrays.
      docs.push(v === undefined ? { _id: i } : { _id: i, v, w: w === undefined || Array.isArray(w) ? 0 : w });
    }
    engine.db('t').collection('c').insertMany(docs);
    return engine;
  }

  const specs: Document[] = [
    { key: { v: 1 }, name: 'v_1' },
    { key: { v: -1 }, name: 'v_-1' },
    { key: { v: 1, w: -1 }, name: 'v_1_w_-1' },
    { key: { v: 1 }, name: 'v_sparse', sparse: true },
    { key: { v: 1 }, name: 'v_partial', partialFilterExpression: { w: { $gt: 0 } } },
  ];
  for (const spec of specs) {
    it(`${String(spec.name)}: the same entries in the same order as inserting each document into an existing index`, () => {
      // Built after the documents (one pass) …
      const bulk = fill(7);
      bulk.db('t').runCommand({ createIndexes: 'c', indexes: [spec] });
      // … and built before them (one insert per document into the tree).
      const stepwise = new Engine();
      stepwise.db('t').runCommand({ createIndexes: 'c', indexes: [spec] });
      const source = fill(7).getCollection('t', 'c')!;
      stepwise
        .db('t')
        .collection('c')
        .insertMany([...source.records.values()].map((r) => r.doc));
      const a = bulk.getCollection('t', 'c')!.indexes.get(String(spec.name))!;
      const b = stepwise.getCollection('t', 'c')!.indexes.get(String(spec.name))!;
      a.tree.checkValid(true);
      assert.equal(a.size, b.size);
      assert.ok(a.size > 0);
      const ids = (tree: BTree<unknown[], { doc: Document }>) => tree.valuesArray().map((rec) => rec.doc._id);
      assert.deepEqual(ids(a.tree), ids(b.tree));
      assert.equal(a.multikey, b.multikey);
      assert.deepEqual(
        entriesOf(a.tree).map((e) => (e as unknown[]).slice(0, -1)),
        entriesOf(b.tree).map((e) => (e as unknown[]).slice(0, -1)),
      );
    });
  }

  it('a date index over documents already in date order is built without sorting and stays valid', () => {
    const engine = new Engine();
    const docs = Array.from({ length: 5000 }, (_, i) => ({ _id: i, at: new Date(Date.UTC(2026, 0, 1) + i * 1000) }));
    engine.db('t').collection('c').insertMany(docs);
    engine.db('t').runCommand({ createIndexes: 'c', indexes: [{ key: { at: 1 }, name: 'at_1' }] });
    const index = engine.getCollection('t', 'c')!.indexes.get('at_1')!;
    index.tree.checkValid(true);
    assert.deepEqual(
      index.tree.valuesArray().map((r) => r.doc._id),
      docs.map((d) => d._id),
    );
    const found = engine
      .db('t')
      .collection('c')
      .find({ at: { $gte: new Date(Date.UTC(2026, 0, 1) + 4000_000) } });
    assert.equal(found.length, 1000);
  });
});

describe('entry order for a one-pass build', () => {
  const specials = [
    0,
    -0,
    1,
    -1,
    Infinity,
    -Infinity,
    Number.MIN_VALUE,
    -Number.MIN_VALUE,
    Number.MAX_VALUE,
    -Number.MAX_VALUE,
    0.1,
    2 ** 53,
    -(2 ** 53),
    1e-300,
  ];
  for (const direction of [1, -1] as const) {
    for (const kind of ['numbers', 'dates'] as const) {
      it(`${kind}, direction ${direction}: the radix order equals the entry comparator's, equal values in rid order`, () => {
        const r = prng(direction === 1 ? 11 : 12);
        const entries: unknown[][] = [];
        for (let rid = 1; rid <= 20_000; rid++) {
          const v =
            kind === 'dates'
              ? new Date(Date.UTC(2026, 0, 1) + Math.floor((r() - 0.5) * 4e12))
              : r() < 0.2
                ? specials[Math.floor(r() * specials.length)]
                : r() < 0.5
                  ? Math.floor(r() * 100) - 50
                  : (r() - 0.5) * 10 ** Math.floor(r() * 40 - 20);
          entries.push(entryOf([v], rid));
        }
        const cmp = entryComparator([direction]);
        const expected = [...entries].sort(cmp);
        const order = entryOrder(entries, cmp, direction);
        assert.deepEqual(
          Array.from(order, (i) => entries[i]),
          expected,
        );
      });
    }
  }

  it('mixed ranks (numbers and strings) fall back to the comparator', () => {
    const entries = [entryOf(['b'], 1), entryOf([2], 2), entryOf(['a'], 3), entryOf([1], 4)];
    const cmp = entryComparator([1]);
    assert.deepEqual(Array.from(entryOrder(entries, cmp, 1)), [3, 1, 2, 0]);
  });
});
