/**
 * One collection's documents as they were at one moment, read later, a slice at a time, while the
 * engine goes on writing (compaction). Taking the picture costs nothing per document: stored
 * documents are never changed in place (an update replaces `record.doc`), so the records still in
 * the collection when the reader reaches them hold the captured documents, except those changed
 * or removed meanwhile. The capture watches the collection for exactly those (it is a
 * RecordObserver placed before the others) and keeps their captured document, and `_ts` stamp, until
 * the reader passes them. Records inserted after the moment have higher rids and are left out.
 */
import type { Collection, RecordObserver } from '../catalog/collection';
import type { StoredRecord } from '../catalog/record';
import type { Document } from '../values/types';

export interface CapturedDocument {
  doc: Document;
  /** The Cosmos `_ts` stamp (seconds), when the engine has that flavor. */
  ts?: number;
}

/** Captured documents in natural order, with their Cosmos stamps when the engine has that flavor. */
export interface CapturedBatch {
  docs: Document[];
  stamps?: Array<number | undefined>;
}

export class CollectionCapture implements RecordObserver {
  /** Records with a rid below this existed at the moment. */
  private readonly ridLimit: number;
  /** Records with a rid below this were read already: what happens to them no longer matters. */
  private readPast = 0;
  /** rid → what it held at the moment, for records changed or removed since and not yet read. */
  private readonly kept = new Map<number, CapturedDocument>();
  /** The kept rids as a min-heap, for those whose chunk emptied before the reader got there. */
  private readonly keptOrder = new RidHeap();

  constructor(
    readonly collection: Collection,
    private readonly stampOf?: (rid: number) => number | undefined,
  ) {
    this.ridLimit = collection.ridLimit;
    collection.observers.unshift(this);
  }

  inserted(): void {
    // A later record: not part of the moment.
  }

  replaced(record: StoredRecord, before: Document): void {
    this.keep(record.rid, before);
  }

  removed(record: StoredRecord): void {
    this.keep(record.rid, record.doc);
  }

  private keep(rid: number, doc: Document): void {
    if (rid < this.readPast || rid >= this.ridLimit || this.kept.has(rid)) return;
    const ts = this.stampOf?.(rid);
    this.kept.set(rid, ts === undefined ? { doc } : { doc, ts });
    this.keptOrder.push(rid);
  }

  /**
   * The captured documents in rid (natural) order, in batches of up to `size` (a batch is read
   * whole before it is yielded: its documents are the moment's, since stored documents are never
   * changed in place). Its `docs` and `stamps` arrays are the caller's to keep. Call `release` when
   * done, read whole or not.
   */
  *documentBatches(size: number): Generator<CapturedBatch> {
    let batch = this.emptyBatch();
    for (const [first, slots] of this.collection.records.chunkSlots()) {
      if (first >= this.ridLimit) break;
      for (const k of this.keptBelow(first)) {
        this.push(batch, k.doc, k.ts);
        if (batch.docs.length >= size) {
          yield batch;
          batch = this.emptyBatch();
        }
      }
      for (let i = 0; i < slots.length; i++) {
        const rid = first + i;
        if (rid >= this.ridLimit) break;
        this.readPast = rid + 1;
        if (this.kept.size > 0) {
          const k = this.kept.get(rid);
          if (k) {
            this.kept.delete(rid);
            this.push(batch, k.doc, k.ts);
            if (batch.docs.length >= size) {
              yield batch;
              batch = this.emptyBatch();
            }
            continue;
          }
        }
        const record = slots[i];
        if (record === undefined) continue;
        this.push(batch, record.doc, this.stampOf?.(rid));
        if (batch.docs.length >= size) {
          yield batch;
          batch = this.emptyBatch();
        }
      }
    }
    for (const k of this.keptBelow(this.ridLimit)) {
      this.push(batch, k.doc, k.ts);
      if (batch.docs.length >= size) {
        yield batch;
        batch = this.emptyBatch();
      }
    }
    if (batch.docs.length > 0) yield batch;
  }

  private emptyBatch(): CapturedBatch {
    return this.stampOf ? { docs: [], stamps: [] } : { docs: [] };
  }

  private push(batch: CapturedBatch, doc: Document, ts: number | undefined): void {
    batch.docs.push(doc);
    batch.stamps?.push(ts);
  }

  /**
   * Kept records below `rid` whose chunk emptied (and went) before the reader got there, in rid
   * order. Each kept rid enters and leaves the heap once (those read in their chunk leave here
   * later, skipped), so a compaction under heavy writes stays O(k log k) in the kept records.
   */
  private *keptBelow(rid: number): Generator<CapturedDocument> {
    while (this.keptOrder.size > 0 && this.keptOrder.min() < rid) {
      const r = this.keptOrder.pop();
      const k = this.kept.get(r);
      if (k === undefined) continue;
      this.kept.delete(r);
      this.readPast = Math.max(this.readPast, r + 1);
      yield k;
    }
  }

  /** Stop watching the collection (the picture is read, or abandoned). */
  release(): void {
    const i = this.collection.observers.indexOf(this);
    if (i >= 0) this.collection.observers.splice(i, 1);
    this.kept.clear();
    this.keptOrder.clear();
  }
}

/** A binary min-heap of rids. */
class RidHeap {
  private readonly items: number[] = [];

  get size(): number {
    return this.items.length;
  }

  min(): number {
    return this.items[0];
  }

  push(rid: number): void {
    const a = this.items;
    let i = a.length;
    a.push(rid);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (a[parent] <= rid) break;
      a[i] = a[parent];
      i = parent;
    }
    a[i] = rid;
  }

  pop(): number {
    const a = this.items;
    const top = a[0];
    const last = a.pop()!;
    if (a.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= a.length) break;
        const c = l + 1 < a.length && a[l + 1] < a[l] ? l + 1 : l;
        if (a[c] >= last) break;
        a[i] = a[c];
        i = c;
      }
      a[i] = last;
    }
    return top;
  }

  clear(): void {
    this.items.length = 0;
  }
}
