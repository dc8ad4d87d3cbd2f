/**
 * A collection: its records in natural (insertion) order, its indexes, and the write primitives
 * that keep both consistent. Every write checks all unique indexes before touching anything, so a
 * failed write leaves no trace.
 */
import { calculateObjectSize, UUID } from 'bson';
import { type BTreeIndex, duplicateKeyError } from '../indexes/btree-index';
import { IdIndex } from '../indexes/id-index';
import { checkForInterrupt } from '../interrupt';
import type { EntryKey } from '../indexes/key-order';
import { compareUnder } from '../values/compare';
import { formatValue } from '../values/format';
import type { Document } from '../values/types';
import type { StoredRecord } from './record';
import { RecordStore } from './record-store';

export type CollectionType = 'collection' | 'timeseries' | 'view';

export interface TimeseriesOptions {
  timeField: string;
  metaField?: string;
  granularity?: 'seconds' | 'minutes' | 'hours';
  bucketMaxSpanSeconds?: number;
  bucketRoundingSeconds?: number;
}

export interface CollectionOptions {
  capped?: boolean;
  size?: number;
  max?: number;
  timeseries?: TimeseriesOptions;
  clusteredIndex?: Document;
  /** Collection-level TTL of clustered and time-series collections, as given. */
  expireAfterSeconds?: unknown;
  /** A query every stored document must match (validation/validator.ts). */
  validator?: Document;
  validationLevel?: 'off' | 'strict' | 'moderate';
  validationAction?: 'error' | 'warn';
  /** A read-only view: the namespace (in the same database) it reads and the pipeline it runs. */
  viewOn?: string;
  pipeline?: Document[];
  /** The default collation of the collection or view, as listCollections shows it; absent: "simple". */
  collation?: Document;
  /** create's per-storage-engine settings, kept and listed as given. */
  storageEngine?: Document;
  indexOptionDefaults?: Document;
}

/**
 * Something that keeps its own structure in step with a collection's records (time-series buckets,
 * the Cosmos expiry order). Called after the write has succeeded.
 */
export interface RecordObserver {
  inserted(record: StoredRecord): void;
  replaced(record: StoredRecord, before: Document): void;
  removed(record: StoredRecord): void;
}

export interface CollectionHost {
  readonly dbName: string;
  /** Called by every write with what changed; the engine turns it into batched events. */
  onDocuments(
    collection: Collection,
    kind: 'documentsInserted' | 'documentsUpdated' | 'documentsDeleted',
    count: number,
    cause: 'command' | 'ttl' | 'capped',
  ): void;
}

export class Collection {
  readonly records = new RecordStore();
  /** In creation order, which is listIndexes order. */
  readonly indexes = new Map<string, BTreeIndex>();
  readonly uuid = new UUID();
  readonly observers: RecordObserver[] = [];
  private nextRid = 1;
  /** Capped collections track BSON sizes to evict by `size`. */
  private readonly recordSizes?: Map<number, number>;
  private cappedBytes = 0;

  constructor(
    private host: CollectionHost,
    public name: string,
    public options: CollectionOptions,
  ) {
    if (options.capped) this.recordSizes = new Map();
  }

  get dbName(): string {
    return this.host.dbName;
  }
  get ns(): string {
    return `${this.host.dbName}.${this.name}`;
  }
  get type(): CollectionType {
    if (this.options.viewOn !== undefined) return 'view';
    return this.options.timeseries ? 'timeseries' : 'collection';
  }
  /** A view keeps no documents and no indexes: reads run its pipeline over `viewOn`. */
  get isView(): boolean {
    return this.options.viewOn !== undefined;
  }
  get isCapped(): boolean {
    return this.options.capped === true;
  }
  get isClustered(): boolean {
    return this.options.clusteredIndex !== undefined;
  }
  get count(): number {
    return this.records.size;
  }
  get idIndex(): BTreeIndex | undefined {
    return this.indexes.get('_id_');
  }
  /** Approximate data size (BSON bytes) for collStats; exact for capped collections. */
  get dataSizeBytes(): number {
    if (this.recordSizes) return this.cappedBytes;
    let total = 0;
    let n = 0;
    for (const r of this.records.values()) {
      total += calculateObjectSize(r.doc);
      if (++n === 1000) break;
    }
    return n === 0 ? 0 : Math.round((total / n) * this.records.size);
  }

  /** Records in natural order: insertion order, or `_id` order for clustered collections (`backward`: the reverse, as `$natural: -1`). */
  *scanRecords(backward = false): IterableIterator<StoredRecord> {
    if (this.isClustered && this.idIndex) {
      if (backward) for (const [, record] of this.idIndex.tree.entriesReversed()) yield record;
      else for (const record of this.idIndex.tree.values()) yield record;
      return;
    }
    yield* backward ? this.records.valuesReversed() : this.records.values();
  }

  /** Move to another database and/or name (renameCollection). */
  rehome(host: CollectionHost, name: string): void {
    this.host = host;
    this.name = name;
  }

  /** The rid the next insert gets: every record stored so far has a lower one. */
  get ridLimit(): number {
    return this.nextRid;
  }

  findById(id: unknown): StoredRecord | undefined {
    return this.idIndex?.findEqual([id]);
  }

  /** Insert a prepared (validated, cloned) document. Throws DuplicateKey without side effects. */
  insert(doc: Document, cause: 'command' | 'ttl' = 'command'): StoredRecord {
    // Every field present from the start: one object shape for all records.
    const record: StoredRecord = { rid: this.nextRid++, doc, idSlot: -1 };
    const keys = this.keysFor(doc);
    this.checkUnique(keys, -1);
    let i = 0;
    for (const index of this.indexes.values()) index.add(record, keys[i++]);
    this.records.add(record);
    for (const o of this.observers) o.inserted(record);
    this.host.onDocuments(this, 'documentsInserted', 1, cause);
    if (this.recordSizes) this.trackCappedSize(record);
    return record;
  }

  /**
   * Insert documents read back by a restore: validated and unique when they were first written,
   * so there is no uniqueness probe, and the batch is one event.
   */
  /** A restore's hint that about `count` more documents follow: tables are sized once, not grown step by step. */
  expectRecords(count: number): void {
    const id = this.idIndex;
    if (id instanceof IdIndex) id.expectRecords(this.records.size + count);
  }

  insertRestored(docs: readonly Document[]): StoredRecord[] {
    const out: StoredRecord[] = new Array<StoredRecord>(docs.length);
    for (let d = 0; d < docs.length; d++) {
      const record: StoredRecord = { rid: this.nextRid++, doc: docs[d], idSlot: -1 };
      for (const index of this.indexes.values()) index.addRecord(record);
      this.records.add(record);
      for (const o of this.observers) o.inserted(record);
      if (this.recordSizes) this.trackCappedSize(record);
      out[d] = record;
    }
    this.host.onDocuments(this, 'documentsInserted', docs.length, 'command');
    return out;
  }

  /** Replace a record's document (already validated). Throws DuplicateKey without side effects. */
  replace(record: StoredRecord, next: Document): void {
    const oldKeys = this.keysFor(record.doc);
    const newKeys = this.keysFor(next);
    this.checkUnique(newKeys, record.rid);
    let i = 0;
    for (const index of this.indexes.values()) {
      if (!sameKeys(oldKeys[i], newKeys[i])) {
        index.remove(record, oldKeys[i]);
        index.add(record, newKeys[i]);
      }
      i++;
    }
    const before = record.doc;
    record.doc = next;
    for (const o of this.observers) o.replaced(record, before);
    if (this.recordSizes) {
      const sizeBefore = this.recordSizes.get(record.rid) ?? 0;
      const sizeAfter = calculateObjectSize(next);
      this.recordSizes.set(record.rid, sizeAfter);
      this.cappedBytes += sizeAfter - sizeBefore;
    }
    this.host.onDocuments(this, 'documentsUpdated', 1, 'command');
  }

  remove(record: StoredRecord, cause: 'command' | 'ttl' | 'capped' = 'command'): void {
    if (!this.records.has(record.rid)) return;
    const keys = this.keysFor(record.doc);
    let i = 0;
    for (const index of this.indexes.values()) index.remove(record, keys[i++]);
    this.records.delete(record.rid);
    for (const o of this.observers) o.removed(record);
    if (this.recordSizes) {
      this.cappedBytes -= this.recordSizes.get(record.rid) ?? 0;
      this.recordSizes.delete(record.rid);
    }
    this.host.onDocuments(this, 'documentsDeleted', 1, cause);
  }

  /**
   * Remove many records at once (TTL batches). Index entries are deleted in each tree's own order,
   * which keeps the B+ tree walks local. The records must be distinct and stored (callers take them
   * from an index just before): checking each one again was a hash lookup per document.
   */
  removeMany(live: StoredRecord[], cause: 'command' | 'ttl' | 'capped'): void {
    if (live.length > 0) this.removeFromIndexesAndStore(live, cause, undefined);
  }

  /**
   * The TTL batch of a range walk: remove the documents of the first `max` entries of [start, end]
   * of `index`, which must not be multikey, and return how many went. The walk that finds them
   * deletes their entries from `index` as it goes (one pass over its leaves instead of a walk and
   * then a range delete).
   */
  removeIndexRange(index: BTreeIndex, start: EntryKey, end: EntryKey, max: number, cause: 'ttl'): number {
    const taken = index.takeRange(start, end, max);
    if (taken.length > 0) this.removeFromIndexesAndStore(taken, cause, index);
    return taken.length;
  }

  /** The rest of a batch removal: every index but `done` (whose entries are gone already), then the store. */
  private removeFromIndexesAndStore(
    live: StoredRecord[],
    cause: 'command' | 'ttl' | 'capped',
    done: BTreeIndex | undefined,
  ): void {
    for (const index of this.indexes.values()) if (index !== done) index.removeMany(live);
    // Indexed loops, and the observers' loop only when there are some: a TTL pass runs this for
    // every deleted document, and each for-of made an iterator (23 MB of garbage per 500k).
    const observers = this.observers;
    for (let i = 0; i < live.length; i++) {
      const r = live[i];
      this.records.delete(r.rid);
      if (observers.length > 0) for (let o = 0; o < observers.length; o++) observers[o].removed(r);
      if (this.recordSizes) {
        this.cappedBytes -= this.recordSizes.get(r.rid) ?? 0;
        this.recordSizes.delete(r.rid);
      }
    }
    this.host.onDocuments(this, 'documentsDeleted', live.length, cause);
  }

  /**
   * Build an index over the existing documents and register it; nothing changes on failure.
   * `checkUnique: false` is for restores, whose documents were checked when they were written.
   */
  addIndex(index: BTreeIndex, checkUnique = true): void {
    if (!index.unique || !checkUnique) {
      index.load(this.records.values());
      this.indexes.set(index.name, index);
      return;
    }
    try {
      for (const record of this.records.values()) {
        checkForInterrupt(); // between entries: a build stopped here leaves the catalog as it was
        const keys = index.keysOf(record.doc);
        const dup = index.findDuplicate(keys, record.rid);
        if (dup) throw duplicateKeyError(this.ns, index, dup.key, formatValue);
        index.add(record, keys);
      }
    } catch (err) {
      index.clear();
      throw err;
    }
    this.indexes.set(index.name, index);
  }

  dropIndex(name: string): void {
    this.indexes.delete(name);
  }

  private keysFor(doc: Document): Array<unknown[][] | null> {
    const out: Array<unknown[][] | null> = [];
    for (const index of this.indexes.values()) out.push(index.keysOf(doc));
    return out;
  }

  private checkUnique(keys: Array<unknown[][] | null>, exceptRid: number): void {
    let i = 0;
    for (const index of this.indexes.values()) {
      const k = keys[i++];
      if (!index.unique || !k) continue;
      const dup = index.findDuplicate(k, exceptRid);
      if (dup) throw duplicateKeyError(this.ns, index, dup.key, formatValue);
    }
  }

  /** Capped collections drop their oldest documents beyond `max` documents or `size` bytes. */
  private trackCappedSize(record: StoredRecord): void {
    const size = calculateObjectSize(record.doc);
    this.recordSizes!.set(record.rid, size);
    this.cappedBytes += size;
    const maxDocs = this.options.max && this.options.max > 0 ? this.options.max : Infinity;
    const maxBytes = this.options.size ?? Infinity;
    while ((this.records.size > maxDocs || this.cappedBytes > maxBytes) && this.records.size > 1) {
      const oldest = this.records.first()!;
      this.remove(oldest, 'capped');
    }
  }
}

function sameKeys(a: unknown[][] | null, b: unknown[][] | null): boolean {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    for (let j = 0; j < x.length; j++) if (x[j] !== y[j] && compareUnder(null, x[j], y[j]) !== 0) return false;
  }
  return true;
}
