/**
 * Bulk operations on sorted-btree trees, which the library only offers entry by entry:
 *
 * - `loadSorted` fills an empty tree from entries already in order, bottom up: full leaves, then
 *   each level of internal nodes over the one below. Inserting the same entries one by one costs a
 *   root-to-leaf descent with comparisons per entry (about 0.6 s for 1M sorted entries, 3 s when
 *   they come in random order); building the levels directly costs one pass.
 * - `deleteRangeInBulk` is `deleteRange` with each leaf's run of entries cut in one splice, and
 *   `deleteSortedInBulk` deletes a sorted batch with each leaf compacted once: the library's
 *   edit walk splices keys and values once per deleted entry (about 0.7 µs each, a quarter of a
 *   TTL batch), while its internal-node bookkeeping (sizes, max keys, merging small nodes,
 *   collapsing the root) is kept as it is.
 *
 * Both use the node classes sorted-btree exports but documents as internal (`BNode`,
 * `BNodeInternal`). Without them (another version) both fall back to the public, entry-by-entry
 * API, which is correct and only slower. Unit tests check the trees with the library's own
 * `checkValid`.
 */
import type BTree from 'sorted-btree';
import * as sortedBtree from 'sorted-btree';

interface TreeNode {
  size(): number;
}
interface NodeClasses {
  BNode: (new (keys: unknown[], values: unknown[]) => TreeNode) & { prototype: LeafPrototype };
  BNodeInternal: new (children: TreeNode[], size: number) => TreeNode;
}
type RangeWalk = (this: LeafNode, low: unknown, high: unknown, includeHigh: boolean, editMode: boolean, tree: unknown, count: number, onFound?: unknown) => unknown;
interface LeafPrototype {
  forRange: RangeWalk;
}
interface LeafNode {
  keys: unknown[];
  values: unknown[];
  isShared?: boolean;
  indexOf(key: unknown, failXor: number, cmp: (a: unknown, b: unknown) => number): number;
}

function nodeClasses(): NodeClasses | undefined {
  const m = sortedBtree as unknown as Partial<NodeClasses>;
  return typeof m.BNode === 'function' && typeof m.BNodeInternal === 'function' ? (m as NodeClasses) : undefined;
}

/** Split `count` items into the fewest groups of at most `max`, as even as possible (each ≥ max/2). */
function groupSizes(count: number, max: number): number[] {
  const groups = Math.ceil(count / max);
  const base = Math.floor(count / groups);
  const extra = count % groups;
  const out: number[] = new Array(groups);
  for (let g = 0; g < groups; g++) out[g] = base + (g < extra ? 1 : 0);
  return out;
}

/**
 * Put `keys[i] → values[i]` into the empty `tree`. `keys` must be strictly ascending in the tree's
 * order (callers sort, or check that they are); the arrays are taken over, not copied.
 */
export function loadSorted<K, V>(tree: BTree<K, V>, keys: K[], values: V[]): void {
  const classes = nodeClasses();
  if (!classes || tree.size !== 0 || keys.length === 0) {
    for (let i = 0; i < keys.length; i++) tree.set(keys[i], values[i]);
    return;
  }
  const max = tree.maxNodeSize;
  let level: TreeNode[] = [];
  let at = 0;
  for (const n of groupSizes(keys.length, max)) {
    level.push(new classes.BNode(keys.slice(at, at + n), values.slice(at, at + n)));
    at += n;
  }
  while (level.length > 1) {
    const next: TreeNode[] = [];
    let i = 0;
    for (const n of groupSizes(level.length, max)) {
      const children = level.slice(i, i + n);
      let size = 0;
      for (const c of children) size += c.size();
      next.push(new classes.BNodeInternal(children, size));
      i += n;
    }
    level = next;
  }
  (tree as unknown as { _root: TreeNode })._root = level[0];
}

/** The edit callback that marks a bulk deletion; without the patch it deletes entry by entry. */
const DELETE_ALL = (): { delete: true } => ({ delete: true });

/**
 * An edit callback that deletes the entries of `sorted` (in tree order; absent ones and repeats are
 * passed over), carrying them for the patched leaves with a cursor that moves leaf to leaf.
 */
interface SortedWalk {
  (): { delete: true } | undefined;
  sorted: readonly unknown[];
  at: number;
}

/**
 * Leaves of a walk whose callback is DELETE_ALL cut their whole run at once. The index arithmetic
 * is the library's own (first key ≥ low, last key ≤ high or < high); any other walk goes to the
 * original method untouched.
 */
function patchLeafWalk(): boolean {
  const classes = nodeClasses();
  if (!classes) return false;
  const proto = classes.BNode.prototype;
  const original = proto.forRange;
  if ((original as { bulkDelete?: boolean }).bulkDelete) return true;
  const walk: RangeWalk = function (this: LeafNode, low, high, includeHigh, editMode, tree, count, onFound) {
    const sortedWalk = onFound === DELETE_ALL ? undefined : (onFound as Partial<SortedWalk> | undefined)?.sorted ? (onFound as SortedWalk) : undefined;
    if ((onFound !== DELETE_ALL && sortedWalk === undefined) || editMode !== true) return original.call(this, low, high, includeHigh, editMode, tree, count, onFound);
    if (this.isShared === true) throw new Error('BTree illegally changed or cloned in editRange');
    // Sets share one values array between leaves; ours always hold values, but never cut a shared one.
    if (this.values.length !== this.keys.length) return original.call(this, low, high, includeHigh, editMode, tree, count, onFound);
    const cmp = (tree as { _compare: (a: unknown, b: unknown) => number })._compare;
    if (sortedWalk !== undefined) {
      // The whole leaf: keys outside [low, high] match no target, and the bounds' two binary
      // searches would cost more than the one comparison an untouched leaf needs.
      const before = this.keys.length;
      if (before > 0) deleteSortedInLeaf(this.keys, this.values, 0, before, sortedWalk, cmp);
      return count + before;
    }
    const iLow = this.indexOf(low, 0, cmp);
    let iHigh = this.indexOf(high, -1, cmp);
    if (iHigh < 0) iHigh = ~iHigh;
    else if (includeHigh === true) iHigh++;
    const n = iHigh - iLow;
    if (n <= 0) return count;
    cut(this.keys, iLow, n);
    cut(this.values, iLow, n);
    return count + n;
  };
  (walk as { bulkDelete?: boolean }).bulkDelete = true;
  proto.forRange = walk;
  return true;
}

/** Remove `n` items at `at` in place (splice would also build an array of the removed ones). */
function cut(items: unknown[], at: number, n: number): void {
  const end = items.length - n;
  for (let i = at; i < end; i++) items[i] = items[i + n];
  items.length = end;
}

const bulkDeletes = patchLeafWalk();

/** Delete every entry in [low, high] (high included); returns how many went. */
export function deleteRangeInBulk<K, V>(tree: BTree<K, V>, low: K, high: K): number {
  if (!bulkDeletes) return tree.deleteRange(low, high, true);
  return tree.editRange(low, high, true, DELETE_ALL);
}

/**
 * The entries of `walk.sorted` from its cursor on that lie in keys[iLow, iHigh), deleted with one
 * compaction of the leaf. A leaf without any costs one comparison: the walk visits every leaf
 * between the first and the last entry to delete, most of them untouched.
 */
function deleteSortedInLeaf(keys: unknown[], values: unknown[], iLow: number, iHigh: number, walk: SortedWalk, cmp: (a: unknown, b: unknown) => number): void {
  const sorted = walk.sorted;
  let at = walk.at;
  if (at >= sorted.length || cmp(sorted[at], keys[iHigh - 1]) > 0) return;
  let to = -1; // where kept entries move to, once something was deleted
  let i = iLow;
  while (at < sorted.length && i < iHigh) {
    const target = sorted[at];
    let lo = i;
    let hi = iHigh;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cmp(keys[mid], target) < 0) lo = mid + 1;
      else hi = mid;
    }
    if (lo >= iHigh) break; // beyond this leaf: the next one takes it
    if (to >= 0) {
      for (let k = i; k < lo; k++) {
        keys[to] = keys[k];
        values[to++] = values[k];
      }
    }
    at++;
    if (cmp(keys[lo], target) === 0) {
      if (to < 0) to = lo;
      i = lo + 1;
    } else {
      // Not in the tree (or a repeat): keys[lo] stays, and may be the next target.
      i = lo;
    }
  }
  walk.at = at;
  if (to < 0) return;
  const removed = i - to;
  keys.copyWithin(to, i);
  values.copyWithin(to, i);
  keys.length -= removed;
  values.length -= removed;
}

/**
 * Delete the entries of `sorted` (strictly in the tree's order; absent entries are passed over) in
 * one walk from the first to the last; returns how many went. Cheaper than one `delete` each once
 * the batch is more than a few per thousand of the tree.
 */
export function deleteSortedInBulk<K, V>(tree: BTree<K, V>, sorted: readonly K[]): number {
  const before = tree.size;
  if (sorted.length === 0 || before === 0) return 0;
  if (!bulkDeletes) {
    for (const key of sorted) tree.delete(key);
    return before - tree.size;
  }
  const walk = (() => ({ delete: true })) as unknown as SortedWalk;
  walk.sorted = sorted;
  walk.at = 0;
  tree.editRange(sorted[0], sorted[sorted.length - 1], true, walk as never);
  return before - tree.size;
}
