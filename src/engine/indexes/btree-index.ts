/**
 * One index of a collection: its spec as listIndexes shows it, and a sorted-btree B+ tree of
 * entries `[key values..., rid] -> record`. A single-field wildcard index keeps `[path, value]`
 * entries (wildcard-keys.ts). Other special index types (text, 2dsphere, 2d, compound wildcard) are
 * catalogued with their spec but keep no entries: the engine never plans queries on them.
 */
import BTree from 'sorted-btree';
import type { StoredRecord } from '../catalog/record';
import { CollationScope } from '../collation/active';
import { collatorFor, type Collator } from '../collation/collator';
import { parseCollation } from '../collation/spec';
import { EngineError } from '../errors';
import { checkForInterrupt } from '../interrupt';
import { ownValue } from '../values/fields';
import type { Document } from '../values/types';
import { deleteSortedInBulk, loadSorted, takeRangeInBulk } from './btree-bulk';
import { entryOrder } from './entry-order';
import {
  encodeEntry,
  entryComparator,
  entryOf,
  entryValue,
  KeyBound,
  MAX_BOUND,
  MIN_BOUND,
  type EntryKey,
} from './key-order';
import { parseKeyPattern, type KeyPattern } from './key-pattern';
import { documentKeys } from './keys';
import { arrayPrefixes } from './multikey-paths';
import { wildcardKeys, wildcardScope, type WildcardScope } from './wildcard-keys';

/**
 * removeMany deletes a sorted batch in one walk (btree-bulk.ts) once it holds at least one entry
 * in BULK_DELETE_SHARE of the index; below that, one `delete` per entry. The walk visits every leaf
 * between the batch's first and last entry at about one comparison each, while a delete costs a
 * root-to-leaf descent (4–13 µs measured on string keys on this 2-core VM).
 */
const BULK_DELETE_SHARE = 500;

const STOP_VALUE = -1;
const STOP = { break: STOP_VALUE };

export type PartialMatcher = (doc: Document) => boolean;

export class BTreeIndex {
  readonly pattern: KeyPattern;
  readonly directions: Array<1 | -1>;
  /** Entry order (the tree's comparator), usable without touching the tree. */
  readonly compare: (a: EntryKey, b: EntryKey) => number;
  protected readonly entries: BTree<EntryKey, StoredRecord>;
  /** The index's collation (its spec's `collation`); null: strings in binary order. */
  readonly collator: Collator | null;
  /** True once any document contributed more than one key or an array: range bounds must loosen. */
  multikey = false;
  /** A wildcard index's indexed subtree and projection; its entries are `[path, value]`. */
  readonly wildcard: WildcardScope | undefined;
  /**
   * The paths that met an array: a wildcard index's indexed paths, or the prefixes of another
   * index's key paths (explain's multiKeyPaths; the planner keeps exact bounds, sorts and covering
   * on the fields none of whose prefixes are here).
   */
  readonly multikeyPaths = new Set<string>();
  private readonly fieldParts: string[][];
  private readonly maintained: boolean;
  /** The field of a single-field index on a top-level path (no dots), for keysOf's fast path. */
  private readonly topField: string | undefined;

  constructor(
    /** The listIndexes document: `{v: 2, key, name, ...options}`; collMod edits it in place. */
    public spec: Document,
    private readonly partial?: PartialMatcher,
  ) {
    this.pattern = parseKeyPattern(spec.key);
    const singleWildcard = this.pattern.plugin === 'wildcard' && this.pattern.fields.length === 1;
    this.wildcard = singleWildcard ? wildcardScope(this.pattern.fields[0].path, spec.wildcardProjection) : undefined;
    this.directions = this.wildcard ? [1, 1] : this.pattern.fields.map((f) => (f.direction === -1 ? -1 : 1));
    this.fieldParts = this.pattern.fields.map((f) => f.path.split('.'));
    this.collator = spec.collation === undefined ? null : collatorFor(parseCollation(spec.collation));
    // A wildcard entry's path is a field name, compared in binary whatever the collation: the
    // planner's subpath range ["a.", "a/") must hold every "a.<x>".
    this.compare = entryComparator(
      this.directions,
      this.collator ? new CollationScope(this.collator) : null,
      this.wildcard ? 1 : 0,
    );
    this.entries = new BTree<EntryKey, StoredRecord>(undefined, this.compare);
    this.maintained = this.pattern.plugin === 'btree' || this.pattern.plugin === 'hashed' || singleWildcard;
    this.topField =
      !this.wildcard && this.fieldParts.length === 1 && this.fieldParts[0].length === 1
        ? this.fieldParts[0][0]
        : undefined;
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
    return this.entries.size;
  }
  /** The B+ tree of entries in index order. */
  get tree(): BTree<EntryKey, StoredRecord> {
    return this.entries;
  }

  /** The keys a document contributes, or null when the index leaves it out (sparse, partial). */
  keysOf(doc: Document): unknown[][] | null {
    if (!this.maintained) return null;
    if (this.partial && !this.partial(doc)) return null;
    if (this.wildcard) {
      const before = this.multikeyPaths.size;
      const keys = wildcardKeys(doc, this.wildcard, this.multikeyPaths);
      if (this.multikeyPaths.size > before) this.multikey = true;
      return keys;
    }
    if (this.topField !== undefined) {
      // One top-level field holding a scalar: the key without documentKeys' result objects (this
      // runs for every index on every insert).
      const v = ownValue(doc, this.topField);
      if (v !== undefined && !Array.isArray(v)) return [[v]];
    }
    const k = documentKeys(doc, this.pattern.fields, this.fieldParts);
    if (this.sparse && k.allMissing) return null;
    if (k.multikey) {
      this.multikey = true;
      // Only documents holding arrays pay for the walk that says where.
      for (const parts of this.fieldParts) arrayPrefixes(doc, parts, this.multikeyPaths);
    }
    return k.keys;
  }

  add(record: StoredRecord, keys: unknown[][] | null): void {
    if (!keys) return;
    for (const key of keys) this.tree.set(entryOf(key, record.rid), record);
  }

  /**
   * Fill this empty index from `records` in one build: keys computed, sorted (skipped when they
   * already come in order), then laid out bottom up. For createIndex on a full collection and for
   * restores; unique keys are not checked here (callers that need it check first). Stopped at a
   * safe point (a time limit, an interrupt) while computing keys, it leaves the index empty.
   */
  load(records: Iterable<StoredRecord>): void {
    const entries: EntryKey[] = [];
    const holders: StoredRecord[] = [];
    for (const record of records) {
      checkForInterrupt();
      const keys = this.keysOf(record.doc);
      if (!keys) continue;
      for (const key of keys) {
        entries.push(entryOf(key, record.rid));
        holders.push(record);
      }
    }
    const cmp = this.compare;
    let ordered = true;
    for (let i = 1; i < entries.length && ordered; i++) ordered = cmp(entries[i - 1], entries[i]) < 0;
    const order = ordered
      ? undefined
      : entryOrder(entries, cmp, this.directions.length === 1 ? this.directions[0] : undefined);
    const keys: EntryKey[] = new Array<EntryKey>(entries.length);
    const values: StoredRecord[] = new Array<StoredRecord>(entries.length);
    let n = 0;
    for (let i = 0; i < entries.length; i++) {
      const at = order ? order[i] : i;
      const entry = entries[at];
      // A document contributing the same key twice (an array holding a value twice) is one entry.
      if (this.multikey && n > 0 && cmp(keys[n - 1], entry) === 0) continue;
      keys[n] = entry;
      values[n++] = holders[at];
    }
    keys.length = n;
    values.length = n;
    loadSorted(this.entries, keys, values);
  }

  /** `add` with the keys computed here (restores, which skip the uniqueness checks that need them first). */
  addRecord(record: StoredRecord): void {
    this.add(record, this.keysOf(record.doc));
  }

  remove(record: StoredRecord, keys: unknown[][] | null): void {
    if (!keys) return;
    for (const key of keys) this.tree.delete(entryOf(key, record.rid));
  }

  /** A record other than `exceptRid` that already holds one of these keys (unique indexes). */
  findDuplicate(keys: unknown[][] | null, exceptRid: number): { record: StoredRecord; key: unknown[] } | undefined {
    if (!keys || !this.unique) return undefined;
    const cmp = this.compare;
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
    const cmp = this.compare;
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

  /** The first entry past [start, end] in the scan's direction: the key an index scan reads to learn it is done. */
  keyBeyond(start: EntryKey, end: EntryKey, forward: boolean): EntryKey | undefined {
    return forward ? this.tree.nextHigherKey(end) : this.tree.nextLowerKey(start);
  }

  /**
   * The record holding exactly these key values (all fields), or the first of them in index order
   * when the index is not unique: one descent instead of a range iterator.
   */
  findEqual(values: readonly unknown[]): StoredRecord | undefined {
    const [start, end] = this.pointRange(values);
    const pair = this.tree.getPairOrNextHigher(start);
    return pair && this.compare(pair[0], end) <= 0 ? pair[1] : undefined;
  }

  /** Remove many records' entries at once (TTL batches), in the tree's order. */
  removeMany(records: StoredRecord[]): void {
    const tree = this.entries;
    const entries: EntryKey[] = [];
    for (const r of records) {
      const keys = this.keysOf(r.doc);
      if (keys) for (const key of keys) entries.push(entryOf(key, r.rid));
    }
    entries.sort(this.compare);
    if (entries.length * BULK_DELETE_SHARE >= tree.size) deleteSortedInBulk(tree, entries);
    else for (const entry of entries) tree.delete(entry);
  }

  /**
   * Delete the first `max` entries of [start, end] and return their records, in index order (the
   * TTL batch of a range walk). Only for an index that is not multikey: there each record has this
   * one entry, so the records leave this index whole.
   */
  takeRange(start: EntryKey, end: EntryKey, max: number): StoredRecord[] {
    if (this.multikey)
      throw new Error(`takeRange on multikey index ${this.name}: its documents hold entries outside the range`);
    return takeRangeInBulk(this.entries, start, end, max);
  }

  /**
   * Calls `fn` with each record of [start, end] in tree order or reversed, until it returns true;
   * returns whether it did. The forward walk is sorted-btree's callback walk, which costs about half
   * of scan()'s generator over the tree iterator on short ranges (the point reads).
   */
  visitRange(start: EntryKey, end: EntryKey, forward: boolean, fn: (record: StoredRecord) => boolean): boolean {
    if (forward) {
      const stopped = this.tree.forRange(start, end, true, (_k, record) => (fn(record) ? STOP : undefined));
      return stopped === STOP_VALUE;
    }
    for (const [, record] of this.scan(start, end, false)) if (fn(record)) return true;
    return false;
  }

  /** How many entries [start, end] holds: leaves are counted by their slices, no entry is visited. */
  countRange(start: EntryKey, end: EntryKey): number {
    return this.tree.forRange(start, end, true);
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
    this.entries.clear();
    this.multikey = false;
    this.multikeyPaths.clear();
  }
}

/** DuplicateKey (11000) the way mongod words it, with keyPattern and keyValue in the reply. */
export function duplicateKeyError(
  ns: string,
  index: BTreeIndex,
  key: unknown[],
  describe: (v: unknown) => string,
): EngineError {
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
