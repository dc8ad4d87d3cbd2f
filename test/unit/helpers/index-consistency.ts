/**
 * Index consistency for tests: every index of a collection holds exactly the entries its
 * documents call for. Fast enough to run after every step of a stress test on 10k+ documents.
 */
import assert from 'node:assert/strict';
import type BTree from 'sorted-btree';
import type { Document } from '../../../src/engine';
import type { Collection } from '../../../src/engine/catalog/collection';
import { entryOf, type EntryKey } from '../../../src/engine/indexes/key-order';

type AnyIndex = Collection['indexes'] extends Map<string, infer I> ? I : never;

/**
 * The entries each stored document calls for, per index and record, kept with the document object
 * they were computed from: stored documents are never changed in place (an update stores a new
 * object), so the answer stays right while the record holds that object.
 */
const entryCache = new Map<AnyIndex, Array<{ doc: Document; entries: EntryKey[] } | undefined>>();

function entriesCalledFor(index: AnyIndex, rid: number, doc: Document): EntryKey[] {
  let perRid = entryCache.get(index);
  if (!perRid) entryCache.set(index, (perRid = []));
  const hit = perRid[rid];
  if (hit !== undefined && hit.doc === doc) return hit.entries;
  const entries: EntryKey[] = [];
  // A document contributing the same key twice (an array holding a value twice) is one entry.
  for (const k of index.keysOf(doc) ?? []) {
    const e = entryOf(k, rid);
    if (!entries.some((x) => index.compare(x, e) === 0)) entries.push(e);
  }
  perRid[rid] = { doc, entries };
  return entries;
}

/** Element-wise identity of two encoded entries (numbers, strings, ranks): the cheap first test. */
function sameEntry(a: EntryKey, b: EntryKey): boolean {
  const x = a;
  const y = b;
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

/**
 * Every index of `coll` holds exactly the entries of its documents (no entry of a removed
 * document, no key a document does not call for, none missing), and the `_id` index finds every
 * document; with `validTrees`, every B+ tree is checked for structure too. Returns the entries checked.
 */
export function assertIndexesConsistent(coll: Collection, where: string, validTrees: boolean): number {
  const liveByRid: Array<{ rid: number; doc: Document } | undefined> = new Array(coll.ridLimit);
  let live = 0;
  for (const r of coll.records.values()) {
    liveByRid[r.rid] = r;
    live++;
  }
  let checked = 0;
  for (const index of coll.indexes.values()) {
    if (index.name === '_id_') {
      for (const r of coll.records.values())
        if (coll.findById(r.doc._id) !== r) assert.fail(`${where}: _id_ does not find ${String(r.doc._id)}`);
      checked += live;
      continue;
    }
    const tree = index.tree as BTree<EntryKey, { rid: number; doc: Document }>;
    if (validTrees) tree.checkValid(true);
    const seen = new Int32Array(coll.ridLimit);
    // (Messages are built only on failure: this runs for every entry of every run.)
    tree.forEachPair((key, record) => {
      const rid = record.rid;
      if (liveByRid[rid] !== record)
        assert.fail(`${where}: ${index.name} has an entry of a removed document (rid ${rid})`);
      const want = entriesCalledFor(index, rid, record.doc);
      let found = false;
      for (let i = 0; i < want.length && !found; i++) found = sameEntry(want[i], key);
      for (let i = 0; i < want.length && !found; i++) found = index.compare(want[i], key) === 0;
      if (!found) assert.fail(`${where}: ${index.name} holds a key the document (rid ${rid}) does not call for`);
      seen[rid]++;
      checked++;
    });
    for (const r of coll.records.values()) {
      const want = entriesCalledFor(index, r.rid, r.doc).length;
      if (seen[r.rid] !== want)
        assert.fail(
          `${where}: ${index.name} has ${seen[r.rid]} entries of rid ${r.rid}, its document calls for ${want}`,
        );
    }
  }
  return checked;
}

/**
 * The same property checked step by step over a changing collection: `check()` looks at what
 * changed since the last check — documents added, removed or replaced (stored documents are
 * copy-on-write, so a replaced one is a new object) — and requires every index to hold each new
 * document's entries, none of each old one's, and exactly as many entries as all live documents
 * call for. Every `fullEvery` checks (and on demand) it runs `assertIndexesConsistent` as well.
 */
export class IndexWatcher {
  private known: Array<{ doc: Document } | undefined> = [];
  private checks = 0;
  entriesChecked = 0;
  fullChecks = 0;

  constructor(
    private readonly coll: Collection,
    private readonly fullEvery = 20,
  ) {
    this.full('start');
  }

  private full(where: string): void {
    this.entriesChecked += assertIndexesConsistent(this.coll, where, true);
    this.fullChecks++;
    this.known = [];
    for (const r of this.coll.records.values()) this.known[r.rid] = { doc: r.doc };
  }

  check(where: string, full = false): void {
    if (full || ++this.checks % this.fullEvery === 0) return this.full(where);
    const coll = this.coll;
    const live: Array<{ rid: number; doc: Document } | undefined> = new Array(coll.ridLimit);
    const changed: Array<{ rid: number; doc: Document }> = [];
    for (const r of coll.records.values()) {
      live[r.rid] = r;
      if (this.known[r.rid]?.doc !== r.doc) changed.push(r);
    }
    const gone: Array<{ rid: number; doc: Document }> = [];
    for (let rid = 0; rid < this.known.length; rid++) {
      const k = this.known[rid];
      if (k && (live[rid] === undefined || live[rid]!.doc !== k.doc)) gone.push({ rid, doc: k.doc });
    }
    for (const index of coll.indexes.values()) {
      if (index.name === '_id_') {
        for (const r of changed)
          if (coll.findById(r.doc._id) !== r) assert.fail(`${where}: _id_ does not find ${String(r.doc._id)}`);
        for (const g of gone)
          if (live[g.rid] === undefined && coll.findById(g.doc._id)?.rid === g.rid)
            assert.fail(`${where}: _id_ still finds removed ${String(g.doc._id)}`);
        if (index.size !== coll.count)
          assert.fail(`${where}: _id_ holds ${index.size} entries for ${coll.count} documents`);
        continue;
      }
      const tree = index.tree as BTree<EntryKey, { rid: number; doc: Document }>;
      // Old entries of removed or replaced documents are gone (unless the new document calls for them too).
      for (const g of gone) {
        const now = live[g.rid];
        const keep = now ? entriesCalledFor(index, g.rid, now.doc) : [];
        for (const k of index.keysOf(g.doc) ?? []) {
          const e = entryOf(k, g.rid);
          if (keep.some((x) => index.compare(x, e) === 0)) continue;
          if (tree.has(e))
            assert.fail(`${where}: ${index.name} still holds an entry of the old document (rid ${g.rid})`);
        }
      }
      for (const r of changed) {
        for (const e of entriesCalledFor(index, r.rid, r.doc))
          if (tree.get(e) !== r) assert.fail(`${where}: ${index.name} lacks an entry of rid ${r.rid}`);
        this.entriesChecked++;
      }
      let total = 0;
      for (const r of coll.records.values()) total += entriesCalledFor(index, r.rid, r.doc).length;
      if (tree.size !== total)
        assert.fail(`${where}: ${index.name} holds ${tree.size} entries, its documents call for ${total}`);
    }
    for (const g of gone) this.known[g.rid] = undefined;
    for (const r of changed) this.known[r.rid] = { doc: r.doc };
  }
}
