/**
 * The `_id` index. Inserts, uniqueness checks and point reads go through a hash table (`IdTable`):
 * two random descents of a B+ tree with ObjectId comparisons were most of an insert's cost. The
 * ordered tree of `[_id, rid]` entries exists only once something needs `_id` order (a range or sort
 * on `_id`, a clustered collection's natural order, an `_id` the table cannot hash); from then on it
 * is kept in step with every write.
 */
import type BTree from 'sorted-btree';
import type { StoredRecord } from '../catalog/record';
import { BTreeIndex } from './btree-index';
import { IdTable, UNHASHABLE } from './id-table';
import { loadSorted } from './btree-bulk';
import { entryOf, type EntryKey } from './key-order';

export class IdIndex extends BTreeIndex {
  private readonly table = new IdTable<StoredRecord>((record) => record.doc._id);
  private ordered = false;
  /** Entries only the tree holds (values without a hash key). */
  private unhashed = 0;

  override get tree(): BTree<EntryKey, StoredRecord> {
    if (!this.ordered) this.buildTree();
    return this.entries;
  }

  override get size(): number {
    return this.table.size + this.unhashed;
  }

  override add(record: StoredRecord, keys: unknown[][] | null): void {
    if (!keys) return;
    for (const key of keys) {
      if (this.table.set(key[0], record)) {
        if (this.ordered) this.entries.set(entryOf(key, record.rid), record);
      } else {
        this.tree.set(entryOf(key, record.rid), record);
        this.unhashed++;
      }
    }
  }

  /** The `_id` straight into the table: no key arrays for the common, hashable ids. */
  override addRecord(record: StoredRecord): void {
    if (!this.ordered && this.table.set(record.doc._id, record)) return;
    this.add(record, this.keysOf(record.doc));
  }

  /** Size the hash table for `count` ids (see Collection.expectRecords). */
  expectRecords(count: number): void {
    this.table.expectRecords(count);
  }

  /** The hash table fills one record at a time (there is no order to exploit). */
  override load(records: Iterable<StoredRecord>): void {
    for (const record of records) this.add(record, this.keysOf(record.doc));
  }

  override remove(record: StoredRecord, keys: unknown[][] | null): void {
    if (!keys) return;
    if (!this.table.remove(record, keys[0][0])) this.unhashed--;
    if (this.ordered) for (const key of keys) this.entries.delete(entryOf(key, record.rid));
  }

  override findDuplicate(
    keys: unknown[][] | null,
    exceptRid: number,
  ): { record: StoredRecord; key: unknown[] } | undefined {
    if (!keys) return undefined;
    for (const key of keys) {
      const record = this.table.probe(key[0]);
      if (record === UNHASHABLE) {
        const dup = this.unhashed > 0 ? super.findDuplicate([key], exceptRid) : undefined;
        if (dup) return dup;
      } else if (record && record.rid !== exceptRid) {
        return { record, key };
      }
    }
    return undefined;
  }

  override findEqual(values: readonly unknown[]): StoredRecord | undefined {
    const record = this.table.get(values[0]);
    if (record !== UNHASHABLE) return record;
    return this.unhashed > 0 ? super.findEqual(values) : undefined;
  }

  override removeMany(records: StoredRecord[]): void {
    for (let i = 0; i < records.length; i++) {
      const r = records[i];
      // Only a non-ObjectId id needs the document (for its key): a TTL batch of ObjectIds never reads one.
      if (!this.table.remove(r, r.idSlot >= 0 ? undefined : r.doc._id)) this.unhashed--;
    }
    if (this.ordered) super.removeMany(records);
  }

  override clear(): void {
    super.clear();
    this.table.clear();
    this.unhashed = 0;
    this.ordered = false;
  }

  private buildTree(): void {
    this.ordered = true;
    const pairs: Array<[EntryKey, StoredRecord]> = [];
    for (const record of this.table.values()) {
      const keys = this.keysOf(record.doc);
      if (keys) for (const key of keys) pairs.push([entryOf(key, record.rid), record]);
    }
    // In key order the tree fills leaf after leaf instead of splitting at random places.
    pairs.sort((a, b) => this.compare(a[0], b[0]));
    if (this.entries.size === 0) {
      loadSorted(
        this.entries,
        pairs.map((p) => p[0]),
        pairs.map((p) => p[1]),
      );
    } else {
      for (const [entry, record] of pairs) this.entries.set(entry, record);
    }
  }
}
