/**
 * Applying stored state to an engine: snapshot records (snapshot.ts), then journal frames
 * (recorder.ts), with the engine's recorder paused. Everything here trusts what it reads — it was
 * validated before it was written — and goes straight to the catalog and collections, without the
 * command layer (no re-validation, no `_ts` re-stamping, no TTL, no events to record).
 */
import { EJSON } from 'bson';
import type { Collection, CollectionOptions } from '../catalog/collection';
import type { EngineContext } from '../engine-context';
import { BTreeIndex } from '../indexes/btree-index';
import { compileFilter } from '../query/matcher';
import { restoreCosmosStamp } from '../ttl/cosmos';
import { valuesEqual } from '../values/compare';
import type { Document } from '../values/types';
import { decodeFlatBatch } from './flat-batch';
import { splitNs } from './journal-records';
import { journalFrameProblem } from './record-shape';
import { documentFromStorage } from './values';

export interface RestoreSummary {
  /** The engine clock of the newest record read (ms), to keep time monotonic across a reopen. */
  clockMs?: number;
  collections: number;
  documents: number;
  ops: number;
}

/** Index options whose change does not touch the entries (collMod changes these in place). */
const IN_PLACE = new Set(['hidden', 'expireAfterSeconds', 'prepareUnique']);

function sameEntries(a: Document, b: Document): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)].filter((k) => !IN_PLACE.has(k)));
  for (const k of keys) if (!valuesEqual(a[k], b[k])) return false;
  return true;
}

function buildIndex(spec: Document): BTreeIndex {
  const partial = spec.partialFilterExpression ? compileFilter(spec.partialFilterExpression as Document) : undefined;
  return new BTreeIndex(spec, partial);
}

export class StorageRestorer {
  private current: Collection | undefined;
  /**
   * Secondary index specs to build once everything is read: documents go in with the `_id` index
   * alone (which journal records find documents by), and each index is then built in one pass
   * instead of taking a million inserts one by one.
   */
  private readonly pendingIndexes = new Map<Collection, Document[]>();
  /** _id → record for collections without an _id index (time series), built when first needed. */
  private readonly byId = new Map<Collection, Map<string, number>>();
  readonly summary: RestoreSummary = { collections: 0, documents: 0, ops: 0 };

  constructor(private readonly engine: EngineContext) {}

  // ---- snapshots -------------------------------------------------------------------------------

  snapshotRecord(raw: Document): void {
    if (raw.flat !== undefined || raw.plain !== undefined || raw.typed !== undefined) {
      this.documentBatch(raw);
      return;
    }
    const rec = documentFromStorage(raw);
    if (rec.engine !== undefined) {
      this.noteClock(rec.t);
      Object.assign(this.engine.ttlMetrics, numbers(rec.m));
      for (const [name, value] of Object.entries((rec.params ?? {}) as Document)) this.setParameter(name, value);
      return;
    }
    if (rec.coll !== undefined) {
      this.finishCollection();
      const [db, name] = splitNs(String(rec.coll));
      this.current =
        this.engine.getCollection(db, name) ?? this.engine.createCollection(db, name, rec.o as CollectionOptions);
      this.current.options = rec.o as CollectionOptions;
      this.deferIndexes(this.current, rec.ix as Document[]);
      if (typeof rec.n === 'number') this.current.expectRecords(rec.n);
      this.summary.collections++;
      return;
    }
    if (rec.d !== undefined && this.current) {
      const record = this.current.insert(rec.d as Document);
      if (rec.ts !== undefined) restoreCosmosStamp(this.current, record, Number(rec.ts));
      this.summary.documents++;
    }
  }

  /**
   * `{flat: rows, k: [shapes]}` (see flat-batch.ts) or `{plain | typed: [documents]}`, with `ts?:
   * [stamps]`: plain documents decoded as engine documents already.
   */
  private documentBatch(raw: Document): void {
    const coll = this.current;
    if (!coll) return;
    const docs =
      raw.flat !== undefined
        ? decodeFlatBatch(raw)
        : raw.plain !== undefined
          ? (raw.plain as Document[])
          : (raw.typed as Document[]).map(documentFromStorage);
    const records = coll.insertRestored(docs);
    const stamps = raw.ts as unknown[] | undefined;
    if (stamps) {
      for (let i = 0; i < records.length; i++) {
        const ts = stamps[i];
        if (ts !== undefined && ts !== null) restoreCosmosStamp(coll, records[i], Number(ts));
      }
    }
    this.summary.documents += docs.length;
  }

  private finishCollection(): void {
    this.current = undefined;
  }

  private deferIndexes(coll: Collection, specs: Document[]): void {
    this.pendingIndexes.set(coll, specs);
    for (const name of [...coll.indexes.keys()]) if (name !== '_id_') coll.dropIndex(name);
  }

  // ---- journal frames ---------------------------------------------------------------------------

  journalRecord(raw: Document): void {
    this.finishCollection();
    const frame = documentFromStorage(raw);
    // Checked whole before any op is applied: a commit goes in entirely or not at all.
    const problem = journalFrameProblem(frame);
    if (problem !== undefined) throw new Error(`the record is not one this engine writes: ${problem}`);
    this.noteClock(frame.t);
    if (frame.m) Object.assign(this.engine.ttlMetrics, numbers(frame.m));
    for (const op of (frame.ops ?? []) as Document[]) {
      this.apply(op);
      this.summary.ops++;
    }
  }

  private apply(op: Document): void {
    if (op.put !== undefined) {
      const coll = this.collection(String(op.put));
      const doc = op.d as Document;
      const existing = this.find(coll, doc._id);
      let record;
      if (existing) {
        coll.replace(existing, doc);
        record = existing;
      } else {
        record = coll.insertRestored([doc])[0];
        this.byId.get(coll)?.set(idKey(doc._id), record.rid);
      }
      if (op.ts !== undefined) restoreCosmosStamp(coll, record, Number(op.ts));
    } else if (op.del !== undefined) {
      const [db, name] = splitNs(String(op.del));
      const coll = this.engine.getCollection(db, name);
      const existing = coll && this.find(coll, op.id);
      if (coll && existing) {
        coll.remove(existing);
        this.byId.get(coll)?.delete(idKey(op.id));
      }
    } else if (op.cat !== undefined) {
      const coll = this.collection(String(op.cat), op.o as CollectionOptions);
      coll.options = op.o as CollectionOptions;
      this.deferIndexes(coll, op.ix as Document[]);
    } else if (op.drop !== undefined) {
      const [db, name] = splitNs(String(op.drop));
      const coll = this.engine.getCollection(db, name);
      if (coll) {
        this.byId.delete(coll);
        this.pendingIndexes.delete(coll);
      }
      this.engine.dropCollection(db, name);
    } else if (op.ren !== undefined) {
      const [fromDb, from] = splitNs(String(op.ren));
      const [toDb, to] = splitNs(String(op.to));
      if (this.engine.getCollection(fromDb, from) && !this.engine.getCollection(toDb, to))
        this.engine.renameCollection(fromDb, from, toDb, to);
    } else if (op.param !== undefined) {
      this.setParameter(String(op.param), op.v);
    }
  }

  /** The collection of `ns`, created (with `options`, or none: an implicit creation) if missing. */
  private collection(ns: string, options: CollectionOptions = {}): Collection {
    const [db, name] = splitNs(ns);
    return this.engine.getCollection(db, name) ?? this.engine.createCollection(db, name, options);
  }

  private find(coll: Collection, id: unknown) {
    if (coll.idIndex) return coll.findById(id);
    let ids = this.byId.get(coll);
    if (!ids) {
      ids = new Map();
      for (const r of coll.records.values()) ids.set(idKey(r.doc._id), r.rid);
      this.byId.set(coll, ids);
    }
    const rid = ids.get(idKey(id));
    return rid === undefined ? undefined : coll.records.get(rid);
  }

  /** Make the collection's indexes exactly `specs`, in that order, rebuilding only what changed. */
  private reconcileIndexes(coll: Collection, specs: Document[]): void {
    const next = new Map<string, BTreeIndex>();
    for (const spec of specs) {
      const name = String(spec.name);
      const have = coll.indexes.get(name);
      // The _id index is the collection's own (its entries never differ): only its spec is restored.
      if (have && (name === '_id_' || sameEntries(have.spec, spec))) {
        have.spec = spec;
        next.set(name, have);
        continue;
      }
      const fresh = buildIndex(spec);
      coll.indexes.delete(name);
      coll.addIndex(fresh, false);
      next.set(name, fresh);
    }
    coll.indexes.clear();
    for (const [name, index] of next) coll.indexes.set(name, index);
  }

  private setParameter(name: string, value: unknown): void {
    try {
      this.engine.parameters.set(name, value);
    } catch {
      // A parameter this version does not know (or no longer accepts): the rest still loads.
    }
  }

  private noteClock(t: unknown): void {
    if (t instanceof Date) this.summary.clockMs = Math.max(this.summary.clockMs ?? -Infinity, t.getTime());
  }

  /** Call after the last record: builds the deferred indexes. */
  finish(): RestoreSummary {
    this.finishCollection();
    for (const [coll, specs] of this.pendingIndexes) this.reconcileIndexes(coll, specs);
    this.pendingIndexes.clear();
    this.byId.clear();
    // What the engine holds now, journal included (the count so far was the snapshot's).
    let documents = 0;
    for (const db of this.engine.databases.values())
      for (const coll of db.collections.values()) documents += coll.records.size;
    this.summary.documents = documents;
    return this.summary;
  }
}

function idKey(id: unknown): string {
  return EJSON.stringify({ id }, { relaxed: false });
}

function numbers(m: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries((m ?? {}) as Document)) out[k] = Number(v);
  return out;
}
