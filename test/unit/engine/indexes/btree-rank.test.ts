/**
 * countBefore / countBetween (src/engine/indexes/btree-rank.ts) against the library's own counting
 * walk, on trees grown entry by entry, bulk-loaded, cut by deletes and bulk takes, and cloned.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import BTree from 'sorted-btree';
import { loadSorted, takeRangeInBulk } from '../../../../src/engine/indexes/btree-bulk';
import { countBefore, countBetween } from '../../../../src/engine/indexes/btree-rank';
import { prng } from '../../helpers/prng';

const byNumber = (a: number, b: number) => a - b;

/** Bounds between whole numbers, as the index's MIN/MAX markers lie between entries. */
function checkAgainstWalk(tree: BTree<number, number>, rand: () => number, span: number, label: string): void {
  for (let q = 0; q < 200; q++) {
    const a = Math.floor(rand() * (span + 20)) - 10 + 0.5;
    const b = a + Math.floor(rand() * span * 0.5) + (rand() < 0.1 ? -3 : 0);
    const walk = a <= b ? tree.forRange(a, b, true) : 0;
    assert.equal(countBetween(tree, a, b), walk, `${label}: [${a}, ${b}]`);
    const min = tree.minKey();
    assert.equal(
      countBefore(tree, a),
      min === undefined || min > a ? 0 : tree.forRange(min, a, false),
      `${label}: before ${a}`,
    );
  }
}

describe('B+ tree range counts by subtree sizes', () => {
  it('equal the library walk on trees grown, bulk-loaded, cut and cloned (random, 40 trees)', () => {
    const rand = prng(4242);
    for (let t = 0; t < 40; t++) {
      const n = Math.floor(rand() * 5000);
      const keys = Array.from(new Set(Array.from({ length: n }, () => Math.floor(rand() * n * 2)))).sort(byNumber);
      const grown = new BTree<number, number>(undefined, byNumber, 8 + Math.floor(rand() * 60));
      for (const k of [...keys].sort(() => rand() - 0.5)) grown.set(k, k);
      checkAgainstWalk(grown, rand, n * 2, `grown ${t}`);
      const loaded = new BTree<number, number>(undefined, byNumber);
      loadSorted(loaded, keys, keys);
      checkAgainstWalk(loaded, rand, n * 2, `loaded ${t}`);
      // Deletes and bulk takes change subtree sizes; a clone shares nodes until written.
      const copy = loaded.clone();
      for (const k of keys) if (rand() < 0.3) loaded.delete(k);
      if (keys.length) takeRangeInBulk(loaded, keys[0] - 0.5, keys[keys.length >> 1] + 0.5, Math.floor(rand() * 500));
      checkAgainstWalk(loaded, rand, n * 2, `cut ${t}`);
      checkAgainstWalk(copy, rand, n * 2, `clone ${t}`);
    }
  });

  it('an empty tree and a range that ends before it starts count 0', () => {
    const tree = new BTree<number, number>(undefined, byNumber);
    assert.equal(countBefore(tree, 5.5), 0);
    assert.equal(countBetween(tree, 0.5, 9.5), 0);
    tree.set(3, 3);
    assert.equal(countBetween(tree, 5.5, 1.5), 0);
    assert.equal(countBetween(tree, 2.5, 3.5), 1);
  });
});
