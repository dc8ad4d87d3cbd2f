/**
 * Bulk operations on sorted-btree trees, which the library only offers entry by entry:
 *
 * - `loadSorted` fills an empty tree from entries already in order, bottom up: full leaves, then
 *   each level of internal nodes over the one below. Inserting the same entries one by one costs a
 *   root-to-leaf descent with comparisons per entry (about 0.6 s for 1M sorted entries, 3 s when
 *   they come in random order); building the levels directly costs one pass.
 * - `deleteRangeInBulk` is `deleteRange` with each leaf's run of entries cut in one splice, and
 *   `deleteWhereInBulk` an `editAll` deletion with each leaf compacted in one pass: the library's
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

/** An edit callback that deletes what `drop` picks, carrying `drop` for the patched leaves. */
interface DropWalk {
  (key: unknown, value: unknown): { delete: true } | undefined;
  drop: (key: unknown, value: unknown) => boolean;
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
    const drop = onFound === DELETE_ALL ? undefined : (onFound as Partial<DropWalk> | undefined)?.drop;
    if ((onFound !== DELETE_ALL && drop === undefined) || editMode !== true) return original.call(this, low, high, includeHigh, editMode, tree, count, onFound);
    if (this.isShared === true) throw new Error('BTree illegally changed or cloned in editRange');
    // Sets share one values array between leaves; ours always hold values, but never cut a shared one.
    if (this.values.length !== this.keys.length) return original.call(this, low, high, includeHigh, editMode, tree, count, onFound);
    const cmp = (tree as { _compare: (a: unknown, b: unknown) => number })._compare;
    const iLow = this.indexOf(low, 0, cmp);
    let iHigh = this.indexOf(high, -1, cmp);
    if (iHigh < 0) iHigh = ~iHigh;
    else if (includeHigh === true) iHigh++;
    const n = iHigh - iLow;
    if (n <= 0) return count;
    const keys = this.keys;
    const values = this.values;
    if (drop === undefined) {
      keys.splice(iLow, n);
      values.splice(iLow, n);
    } else {
      // Keep what `drop` spares, moved down in place; one truncation at the end.
      let to = iLow;
      for (let i = iLow; i < iHigh; i++) {
        if (drop(keys[i], values[i])) continue;
        keys[to] = keys[i];
        values[to++] = values[i];
      }
      if (to < iHigh) {
        keys.copyWithin(to, iHigh);
        values.copyWithin(to, iHigh);
        keys.length -= iHigh - to;
        values.length -= iHigh - to;
      }
    }
    return count + n;
  };
  (walk as { bulkDelete?: boolean }).bulkDelete = true;
  proto.forRange = walk;
  return true;
}

const bulkDeletes = patchLeafWalk();

/** Delete every entry in [low, high] (high included); returns how many went. */
export function deleteRangeInBulk<K, V>(tree: BTree<K, V>, low: K, high: K): number {
  if (!bulkDeletes) return tree.deleteRange(low, high, true);
  return tree.editRange(low, high, true, DELETE_ALL);
}

/** Delete every entry `drop` picks, in one walk over the tree; returns how many went. */
export function deleteWhereInBulk<K, V>(tree: BTree<K, V>, drop: (key: K, value: V) => boolean): number {
  const before = tree.size;
  if (before === 0) return 0;
  const walk = ((key: K, value: V) => (drop(key, value) ? { delete: true } : undefined)) as unknown as DropWalk;
  walk.drop = drop as DropWalk['drop'];
  tree.editRange(tree.minKey()!, tree.maxKey()!, true, walk as never);
  return before - tree.size;
}
