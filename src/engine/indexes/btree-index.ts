/**
 * One index of a collection: its spec as listIndexes shows it, and a sorted-btree B+ tree of
 * entries `[key values..., rid] -> record`. Special index types (text, 2dsphere, 2d, wildcard) are
 * catalogued with their spec but keep no entries: the engine never plans queries on them.
 */
import BTree from 'sorted-btree';
import type { StoredRecord } from '../catalog/record';
import { EngineError } from '../errors';
import type { Document } from '../values/types';
import { encodeEntry, entryComparator, entryOf, entryValue, KeyBound, MAX_BOUND, MIN_BOUND, type EntryKey } from './key-order';
import { parseKeyPattern, type KeyPattern } from './key-pattern';
import { documentKeys } from './keys';

export type PartialMatcher = (doc: Document) => boolean;

export class BTreeIndex {
  readonly pattern: KeyPattern;
  readonly directions: Array<1 | -1>;
  readonly tree: BTree<EntryKey, StoredRecord>;
  /** True once any document contributed more than one key or an array: range bounds must loosen. */
  multikey = false;
  private readonly fieldParts: string[][];
  private readonly maintained: boolean;

  constructor(
    /** The listIndexes document: `{v: 2, key, name, ...options}`; collMod edits it in place. */
    public spec: Document,
    private readonly partial?: PartialMatcher,
  ) {
    this.pattern = parseKeyPattern(spec.key);
    this.directions = this.pattern.fields.map((f) => (f.direction === -1 ? -1 : 1));
    this.fieldParts = this.pattern.fields.map((f) => f.path.split('.'));
    this.tree = new BTree<EntryKey, StoredRecord>(undefined, entryComparator(this.directions));
    this.maintained = this.pattern.plugin === 'btree' || this.pattern.plugin === 'hashed';
  }

  get name(): string {
    return this.spec.name as string;
  }
  /** The _id index is unique without saying so in its spec (listIndexes shows no `unique`). */
  get unique(): boolean {
    return this.spec.unique === true || this.spec.name === '_id_';
  }
  get sparse(): boolean {
    return this.spec.sparse === true;
  }
  get hidden(): boolean {
    return this.spec.hidden === true;
  }
  get isPartial(): boolean {
    return this.partial !== undefined;
  }
  get fieldCount(): number {
    return this.directions.length;
  }
  /** Whether the planner may scan this index for queries. */
  get queryable(): boolean {
    return this.maintained && !this.hidden;
  }
  get size(): number {
    return this.tree.size;
  }

  /** The keys a document contributes, or null when the index leaves it out (sparse, partial). */
  keysOf(doc: Document): unknown[][] | null {
    if (!this.maintained) return null;
    if (this.partial && !this.partial(doc)) return null;
    const k = documentKeys(doc, this.pattern.fields, this.fieldParts);
    if (this.sparse && k.allMissing) return null;
    if (k.multikey) this.multikey = true;
    return k.keys;
  }

  add(record: StoredRecord, keys: unknown[][] | null): void {
    if (!keys) return;
    for (const key of keys) this.tree.set(entryOf(key, record.rid), record);
  }

  remove(record: StoredRecord, keys: unknown[][] | null): void {
    if (!keys) return;
    for (const key of keys) this.tree.delete(entryOf(key, record.rid));
  }

  /** A record other than `exceptRid` that already holds one of these keys (unique indexes). */
  findDuplicate(keys: unknown[][] | null, exceptRid: number): { record: StoredRecord; key: unknown[] } | undefined {
    if (!keys || !this.unique) return undefined;
    const cmp = this.tree._compare;
    for (const key of keys) {
      // Entries holding these values lie strictly between [values, -inf] and [values, +inf].
      const low = entryOf(key, -Infinity);
      const high = entryOf(key, Infinity);
      let pair = this.tree.nextHigherPair(low);
      while (pair && cmp(pair[0], high) < 0) {
        if (pair[1].rid !== exceptRid) return { record: pair[1], key };
        pair = this.tree.nextHigherPair(pair[0]);
      }
    }
    return undefined;
  }

  /**
   * Entries in [start, end] (entry keys built with bounds), in tree order or reversed. Walks the
   * leaves directly: callers must not modify the tree until they are done iterating (queries and
   * TTL batches collect their records first).
   */
  *scan(start: EntryKey, end: EntryKey, forward = true): IterableIterator<[EntryKey, StoredRecord]> {
    const cmp = this.tree._compare;
    if (forward) {
      for (const pair of this.tree.entries(start)) {
        if (cmp(pair[0], end) > 0) return;
        yield pair;
      }
    } else {
      for (const pair of this.tree.entriesReversed(end)) {
        if (cmp(pair[0], start) < 0) return;
        yield pair;
      }
    }
  }

  /** Entries holding exactly these key values, as a [start, end] range for scan(). */
  pointRange(values: readonly unknown[]): [EntryKey, EntryKey] {
    return [encodeEntry([...values, MIN_BOUND]), encodeEntry([...values, MAX_BOUND])];
  }

  /** The key values of an entry (Dates as Date objects). */
  valuesOf(entry: EntryKey): unknown[] {
    return this.directions.map((_, i) => entryValue(entry, i));
  }

  clear(): void {
    this.tree.clear();
    this.multikey = false;
  }
}

/** DuplicateKey (11000) the way mongod words it, with keyPattern and keyValue in the reply. */
export function duplicateKeyError(ns: string, index: BTreeIndex, key: unknown[], describe: (v: unknown) => string): EngineError {
  const keyValue: Document = {};
  index.pattern.fields.forEach((f, i) => {
    keyValue[f.path] = key[i];
  });
  const shown = index.pattern.fields.map((f, i) => `${f.path}: ${describe(key[i])}`).join(', ');
  return new EngineError(
    'DuplicateKey',
    `E11000 duplicate key error collection: ${ns} index: ${index.name} dup key: { ${shown} }`,
    { keyPattern: index.spec.key, keyValue },
  );
}

export { KeyBound, MIN_BOUND, MAX_BOUND };
