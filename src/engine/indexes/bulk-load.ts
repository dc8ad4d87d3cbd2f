/**
 * Filling an empty B+ tree from entries that are already in order, bottom up: full leaves, then
 * each level of internal nodes over the one below. Inserting the same entries one by one costs a
 * root-to-leaf descent with comparisons per entry (about 0.6 s for 1M sorted entries, 3 s when
 * they come in random order); building the levels directly costs one pass.
 *
 * sorted-btree has no bulk-load API, but it exports its node classes (`BNode`, `BNodeInternal`,
 * documented as internal). When they are not there (another version), the entries go in with
 * `set`, in order, which is correct and only slower. Unit tests check the built tree with the
 * library's own `checkValid`.
 */
import type BTree from 'sorted-btree';
import * as sortedBtree from 'sorted-btree';

interface TreeNode {
  size(): number;
}
interface NodeClasses {
  BNode: new (keys: unknown[], values: unknown[]) => TreeNode;
  BNodeInternal: new (children: TreeNode[], size: number) => TreeNode;
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
